"""Try, then submit (issue 37): a try runs the code on practice cases it shows in full, never the review's
own draws, and rates nothing; a submission of code that does not parse, does not define the function or
stops on a NameError is refused, never rated."""

from __future__ import annotations

import numpy as np
import pytest

from engine.exercises import EXERCISES
from engine.exercises.base import source_as
from quizapp.content.catalog import Catalog, load_catalog
from quizapp.content.instance import Instance
from quizapp.grading.code_try import practice_seed, try_code
from quizapp.grading.grade import grade
from quizapp.study.queues import SEED_LIMIT

QID = "code-softmax"
SEED = 7


@pytest.fixture(scope="module")
def inst() -> Instance:
    catalog: Catalog = load_catalog(use_cache=False)
    return catalog.instance(QID, SEED)


def _typo(source: str) -> str:
    """The solution with one name misspelt inside the function: a NameError on every case."""
    return source.replace("np.exp(", "np.exp(zz + 0 * ", 1)


def test_a_try_never_sees_the_inputs_a_review_is_graded_on() -> None:
    assert practice_seed(0) >= SEED_LIMIT and practice_seed(SEED_LIMIT - 1) > SEED_LIMIT
    ex = EXERCISES[QID]
    graded, practice = ex.cases(SEED), ex.cases(practice_seed(SEED))
    random_cases = range(len(ex.inputs.edge), len(graded))
    assert random_cases and len(practice) == len(graded)
    for i in random_cases:
        assert not np.array_equal(graded[i]["x"], practice[i]["x"])


def test_a_try_of_a_typo_names_the_error_and_its_line_and_counts_no_case(inst: Instance) -> None:
    tried = try_code(inst, _typo(EXERCISES[QID].solution))
    assert not tried.passed and tried.cases == 0
    assert "NameError: name 'zz' is not defined" in tried.message and "line " in tried.message
    assert "Nothing is rated or saved" in tried.message


def test_a_failing_try_shows_the_case_expected_and_yours_but_not_the_mistake(inst: Instance) -> None:
    ex = EXERCISES[QID]
    wrong = next(m for m in ex.mistakes if m.id == "wrong-axis")
    tried = try_code(inst, source_as(wrong.compute, ex.function))
    assert not tried.passed and tried.cases == len(ex.cases(SEED))
    assert "First failing case" in tried.message
    assert "\nexpected [" in tried.message and "\nyours    [" in tried.message
    assert wrong.text not in tried.message  # the named mistake is the submission's feedback
    assert ex.solution.strip() not in tried.message


def test_a_right_try_passes_and_says_it_is_not_yet_submitted(inst: Instance) -> None:
    tried = try_code(inst, EXERCISES[QID].solution)
    assert tried.passed and "submit it (Ctrl+S)" in tried.message


def test_an_empty_editor_is_not_tried(inst: Instance) -> None:
    tried = try_code(inst, "  \n")
    assert not tried.passed and tried.cases == 0 and "empty" in tried.message


@pytest.mark.parametrize(
    ("source", "said"),
    [
        ("import numpy as np\n\ndef softmax(x):\nreturn x\n", "line 4"),  # does not parse
        ("import numpy as np\n\ndef soft_max(x):\n    return x\n", "does not define a function"),
        ("import numpy as np\nnp = nump\n\ndef softmax(x):\n    return x\n", "NameError"),  # at the top
    ],
)
def test_a_submission_that_never_ran_the_function_is_refused_not_rated(
    inst: Instance, source: str, said: str
) -> None:
    verdict = grade(inst, source)
    assert verdict.unparseable and said in verdict.message and "does not count" in verdict.message


def test_a_submitted_typo_is_refused_and_the_fixed_code_is_graded(inst: Instance) -> None:
    refused = grade(inst, _typo(EXERCISES[QID].solution))
    assert refused.unparseable and "NameError" in refused.message
    fixed = grade(inst, EXERCISES[QID].solution, new_card=True)
    assert fixed.correct and not fixed.unparseable and fixed.rating == 3


def test_a_submission_that_ran_and_failed_otherwise_counts(inst: Instance) -> None:
    verdict = grade(inst, EXERCISES[QID].starter)  # raise NotImplementedError: it ran, and is wrong
    assert not verdict.unparseable and not verdict.correct and verdict.rating == 1
