"""Provides try_code and not_counted: "try, then submit" for code questions.

A try runs the learner's code on practice cases: the exercise's own kinds of case, edge cases first, drawn
with a practice seed no review is ever drawn with, so they are visible in full (inputs, expected and
yours, the error and its line) without showing the review's own draws. A try rates nothing, saves nothing
and never shows the model solution, so an honest learner can iterate and still keep a true schedule. The
submission (quizapp.grading.grade) is graded on the review's own draws, and `not_counted` says which runs
are not a submission at all: code that does not parse, does not define the function, or stops on a
NameError (a typo) never reached the point of being an answer.

```python
tried = try_code(inst, source)
tried.passed, tried.message
```
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from quizapp.grading.code import CodeVerdict, grade_code

if TYPE_CHECKING:
    from quizapp.content.instance import Instance

PRACTICE_SEEDS_FROM = 2**31
"""A try's cases are drawn with the review's seed plus this: review seeds are below 2**31 (study.queues
SEED_LIMIT), so a try never sees the inputs a submission is graded on."""
NOT_COUNTED = "it does not count as an answer: fix it and submit it again"


@dataclass(frozen=True)
class CodeTry:
    """One try on the practice cases: whether every case passed, and what to tell the learner."""

    passed: bool
    cases: int
    """How many practice cases ran (0: the code never got to run the function)."""
    message: str


def practice_seed(seed: int) -> int:
    """The seed a try's cases are drawn with, for a review drawn with `seed`."""
    return PRACTICE_SEEDS_FROM + seed


def try_code(inst: Instance, text: str) -> CodeTry:
    """Runs `text` on the practice cases of the code question `inst` (in a confined child process: slow,
    so the TUI calls it in a worker). Never rates, never saves, never reveals the model solution."""
    if not text.strip():
        return CodeTry(False, 0, "The editor is empty: write the function first, then try it.")
    run = grade_code(
        inst.exercise,
        text,
        seed=practice_seed(inst.seed),
        mistakes=inst.mistakes,
        tolerance=inst.code_tolerance,
        inputs=inst.code_inputs,
    )
    return CodeTry(run.correct, 0 if not_counted(run) else len(run.cases), tried_text(run))


def tried_text(run: CodeVerdict) -> str:
    """A try's outcome in words: what passed, the first failing case with expected and yours (or the
    error with its line), and what to do next. The known mistake is not named: that is the submission's
    feedback."""
    total = len(run.cases)
    if not_counted(run):
        return f"Your code did not run yet: {run.problem or _first_error(run)}\nNothing is rated or saved."
    if run.correct:
        return (
            f"All {total} practice cases pass (edge cases included). Nothing is rated or saved yet: "
            "submit it (Ctrl+S) to be graded on this review's own inputs."
        )
    passed = sum(case.passed for case in run.cases)
    lines = [f"Practice cases: {passed} of {total} pass. Nothing is rated or saved."]
    lines.extend(run.summary(with_mistake=False).splitlines()[1:])
    failure = run.first_failure
    if failure is not None and not run.problem and failure.expected_values:
        lines.append(f"expected {failure.expected_values}")
        lines.append(f"yours    {failure.got_values}")
    return "\n".join(lines)


def not_counted(run: CodeVerdict) -> bool:
    """The code never got to be an answer: it does not parse, does not define the function, or stopped
    on a NameError (a misspelt name, at the top or in the function), so a submission of it is refused,
    as a try, rather than rated."""
    return run.unreadable or any(_is_name_error(error) for error in _errors(run))


def not_counted_reason(run: CodeVerdict) -> str:
    """What a refused submission says: the error, with its line, and that it is not counted."""
    return f"{run.problem or _first_error(run)}; {NOT_COUNTED}"


def _errors(run: CodeVerdict) -> list[str]:
    return [text for text in (run.problem, *(case.error for case in run.cases)) if text]


def _first_error(run: CodeVerdict) -> str:
    return next(iter(_errors(run)), "no result")


def _is_name_error(error: str) -> bool:
    """The error a run reported ends with Python's "NameError: ..." line (the learner's own frames come
    first, quizapp.runner.standby_child)."""
    last = error.strip().splitlines()[-1] if error.strip() else ""
    return last.startswith("NameError:")
