"""A code question's `inputs` block: the edge cases it declares come first and in order, the random cases
stay within its ranges, a spec the exercise cannot build is refused at load time with the field and the
line, a solution that fails only on a declared edge case is caught there, and the bundled deck's blocks
draw exactly the exercise's own cases."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from engine.exercises import EXERCISES
from engine.exercises.base import rng_for, source_as
from engine.exercises.inputs import Between, InputSpec, OneOf
from quizapp.content.catalog import Catalog, load_catalog
from quizapp.grading.code import grade_code
from quizapp.grading.grade import grade

HEAD = "id: mine\ntitle: Mine\ntopic: coding\nquestions:\n"


def _catalog(folder: Path, questions: str) -> Catalog:
    folder.mkdir(exist_ok=True)
    (folder / "mine.yaml").write_text(HEAD + questions, encoding="utf-8")
    return load_catalog([folder], include_default=False, use_cache=False)


ATTENTION = """  - id: mine-attention
    type: code
    exercise: code-attention
    prompt: Attention with a mask.
    explanation: Mask before the softmax.
    inputs:
      cases: 7
      dtype: float32
      edge:
        - {T: 2, S: 2, d_k: 4}
        - {T: 5, S: 3, d_k: 4, mask: blocked_row}
        - {T: 1, S: 9, d_k: 6, d_v: 2, mask: random}
      random: {T: [3, 4], S: {one_of: [5, 7]}, d_k: 16}
"""


def test_a_deck_declares_the_edge_cases_first_then_random_sizes_within_its_ranges(
    isolated_home: Path,
) -> None:
    catalog = _catalog(isolated_home / "decks", ATTENTION)
    assert not catalog.problems, catalog.problems
    for seed in (0, 3, 11):
        inst = catalog.instance("mine-attention", seed)
        assert inst.code_inputs is not None
        printing = EXERCISES["code-attention"].solution.replace(
            "def attention(q, k, v, mask=None):",
            "def attention(q, k, v, mask=None):\n    print(q.shape[0], k.shape[0], q.shape[1], q.dtype)",
        )
        verdict = grade_code(inst.exercise, printing, seed=inst.seed, inputs=inst.code_inputs)
        assert verdict.correct, verdict.summary()
        assert len(verdict.cases) == 7
        shown = [(case.inputs["q"], case.inputs["k"], case.inputs["v"]) for case in verdict.cases]
        assert shown[:3] == [("(2, 4)", "(2, 4)", "(2, 5)"), ("(5, 4)", "(3, 4)", "(3, 5)"),
                             ("(1, 6)", "(9, 6)", "(9, 2)")]  # fmt: skip
        assert verdict.cases[0].inputs["mask"] == "= None" and verdict.cases[1].inputs["mask"] == "(5, 3)"
        lines = verdict.printed.splitlines()
        assert len(lines) == 7 and all(line.endswith("float32") for line in lines)
        for line in lines[3:]:
            t, s, d, _ = line.split()
            assert int(t) in (3, 4) and int(s) in (5, 7) and int(d) == 16
        cases = EXERCISES["code-attention"].cases(inst.seed, inst.code_inputs)
        assert not cases[1]["mask"][2].any() and cases[1]["mask"][[0, 1, 3, 4]].all()  # row T // 2 blocked
        assert all(case["mask"][:, 0].all() for case in cases[3:])  # random masks keep a key per query


def test_a_solution_failing_only_on_a_declared_edge_case_is_caught_on_it(isolated_home: Path) -> None:
    catalog = _catalog(isolated_home / "decks", ATTENTION)
    naive = """import numpy as np

def attention(q, k, v, mask=None):
    s = q @ k.T / np.sqrt(q.shape[1])
    if mask is not None:
        s = np.where(mask, s, -np.inf)
    p = np.exp(s - s.max(axis=1, keepdims=True))
    return p / p.sum(axis=1, keepdims=True) @ v
"""  # a fully masked row gives nan
    verdict = grade(catalog.instance("mine-attention", 5), naive)
    assert not verdict.correct
    assert "First failing case (#2): q (5, 4), k (3, 4), v (3, 5), mask (5, 3)" in verdict.message
    inst = catalog.instance("mine-attention", 5)
    run = grade_code(inst.exercise, naive, seed=5, inputs=inst.code_inputs)
    assert [case.passed for case in run.cases] == [True, False, True, True, True, True, True]
    assert run.first_failure is not None and run.first_failure.index == 1


@pytest.mark.parametrize(
    ("inputs", "field", "words"),
    [
        ("{edge: [{T: 1, Q: 3}]}", "inputs.edge[0].Q", "code-attention has no input parameter 'Q'"),
        ("{random: {width: [1, 4]}}", "inputs.random.width", "no input parameter 'width'"),
        ("{edge: [{mask: diagonal}]}", "inputs.edge[0].mask", "must be one of none, random, blocked_row"),
        ("{random: {T: [8, 2]}}", "inputs.random.T", "the range [8, 2] is empty"),
        ("{random: {T: [0, 4]}}", "inputs.random.T", "T must be at least 1, not 0"),
        ("{cases: 3}", "inputs.cases", "greater than or equal to 5"),
        ("{cases: 5, edge: [{}, {}, {}, {}, {}, {}]}", "inputs.cases", "cases is 5 but there are 6 edge"),
        ("{dtype: float16}", "inputs.dtype", "float64"),
    ],
)
def test_a_bad_inputs_block_is_refused_naming_the_field_and_the_problem(
    isolated_home: Path, inputs: str, field: str, words: str
) -> None:
    question = f"""  - id: mine-bad
    type: code
    exercise: code-attention
    prompt: p
    explanation: e
    inputs: {inputs}
"""
    problems = _catalog(isolated_home / "decks", question).problems
    assert len(problems) == 1, problems
    problem = problems[0]
    assert problem.question_id == "mine-bad" and problem.field == field, problem
    assert words in problem.message, problem
    assert problem.line == 10 and problem.file.endswith("mine.yaml")


def test_an_edge_case_the_exercise_cannot_build_is_refused_with_its_values(isolated_home: Path) -> None:
    question = """  - id: mine-mha
    type: code
    exercise: code-mha-forward
    prompt: p
    explanation: e
    inputs:
      edge:
        - {T: 1}
        - {T: 2, d_model: 12, n_heads: 5}
"""
    problems = _catalog(isolated_home / "decks", question).problems
    assert len(problems) == 1, problems
    assert problems[0].field == "inputs.edge[1]" and problems[0].line == 13
    assert "d_model = 12 is not a multiple of n_heads = 5" in problems[0].message
    with pytest.raises(ValueError, match="d_model = 12 is not a multiple of n_heads = 5"):
        EXERCISES["code-mha-forward"].make(rng_for("code-mha-forward", 0), {"d_model": 12, "n_heads": 5})


def test_random_sizes_that_do_not_divide_are_drawn_again_and_never_reach_the_learner() -> None:
    ex = EXERCISES["code-gqa-broadcast"]
    spec = ex.spec(random={"n_heads": Between(1, 8), "n_kv_heads": Between(1, 4)}, n_cases=30)
    for case in ex.cases(2, spec)[3:]:
        assert case["q"].shape[0] % case["k"].shape[0] == 0
    never = ex.spec(random={"n_heads": OneOf((3,)), "n_kv_heads": OneOf((2,))})
    assert (
        ex.input_issues(never)
        and "n_heads = 3 is not a multiple of n_kv_heads = 2" in ex.input_issues(never)[0][1]
    )
    with pytest.raises(ValueError, match="no usable case"):
        ex.cases(0, never)


def test_a_known_mistake_is_still_named_on_the_decks_own_cases(isolated_home: Path) -> None:
    catalog = _catalog(isolated_home / "decks", ATTENTION)
    ex = EXERCISES["code-attention"]
    for mistake in ex.mistakes:
        verdict = grade(catalog.instance("mine-attention", 4), source_as(mistake.compute, ex.function))
        assert not verdict.correct and verdict.diagnosis_id == mistake.id, (mistake.id, verdict.message)


@pytest.mark.parametrize("exercise_id", ["code-softmax", "code-attention", "code-gqa-expand",
                                         "code-gqa-broadcast", "code-mha-forward"])  # fmt: skip
def test_the_bundled_decks_inputs_blocks_draw_the_exercises_own_cases(exercise_id: str) -> None:
    catalog = load_catalog([], include_default=True, use_cache=False)
    ex = EXERCISES[exercise_id]
    for seed in (0, 1, 9):
        inst = catalog.instance(exercise_id, seed)
        assert inst.code_inputs is not None  # the deck writes its block out
        drawn, default = ex.cases(seed, inst.code_inputs), ex.cases(seed)
        assert len(drawn) == len(default) >= 5
        for mine, theirs in zip(drawn, default, strict=True):
            assert mine.keys() == theirs.keys()
            for name in mine:
                np.testing.assert_array_equal(mine[name], theirs[name])


def test_the_issues_edge_cases_are_among_the_default_draws() -> None:
    softmax = EXERCISES["code-softmax"].cases(0)[0]["x"]
    assert softmax.max() >= 1000  # scores that overflow a naive exp
    attention = EXERCISES["code-attention"].cases(0)
    assert (
        attention[0]["q"].shape[0] == 1 and (~attention[1]["mask"]).all(axis=1).any()
    )  # T = 1; a blocked row
    for gqa in ("code-gqa-expand", "code-gqa-broadcast"):
        cases = EXERCISES[gqa].cases(0)[:3]
        groups = [
            c["n_heads"] // c["k"].shape[0] if "n_heads" in c else len(c["q"]) // len(c["k"]) for c in cases
        ]
        assert max(groups) > 1
    mha = EXERCISES["code-mha-forward"].cases(0)[:3]
    assert mha[0]["x"].shape[0] == 1 and any(c["causal"] for c in mha)


def test_an_inputs_spec_is_plain_data_with_the_defaults_of_today() -> None:
    ex = EXERCISES["code-attention"]
    assert isinstance(ex.inputs, InputSpec) and ex.inputs.n_cases == 6 and ex.inputs.dtype == "float64"
    assert len(replace(ex, inputs=ex.spec(n_cases=8)).cases(1)) == 8
