"""Provides grade_code: a learner's solution to a coding exercise, run on the seed's inputs (edge cases
first), compared with the engine's reference, and, when it is wrong in a known way, the mistake named.

```python
verdict = grade_code("code-mha-forward", source, seed=3)
verdict.correct, verdict.mistake, verdict.first_failure
```
"""

from __future__ import annotations

import math
import time
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from engine import Heatmap
from engine.exercises import EXERCISES, Exercise, Mistake
from engine.exercises.inputs import InputSpec
from quizapp.errors import QuizappError
from quizapp.runner import confine
from quizapp.runner.run import (
    MEMORY_LIMIT_BYTES,
    TIME_LIMIT_S,
    RunOutput,
    over_memory,
    run_solution,
)

FLOAT32_RTOL = 1e-4
FLOAT32_ATOL = 1e-5
NEAR_MISS = 1e-4
"""A failing gap at most this share of the largest expected value is rounding, not a wrong formula."""
REFERENCE_TIME_LIMIT_S = 3.0
"""The reference's and the named mistakes' time in one grading, in the app's process. Their cost is
bounded before anything runs (engine.exercises.inputs: an estimate from the sizes, at most about 1 s);
this is the limit past it: no further case is computed, and the grading says why."""


@dataclass(frozen=True)
class CaseResult:
    """One input set: passed, or what went wrong (the shapes, how far off, or the error)."""

    index: int
    passed: bool
    inputs: dict[str, str]
    """Each argument as the verdict shows it: an array's shape "(4, 8)", a number's value "= 2"."""
    expected_shape: tuple[int, ...]
    got_shape: tuple[int, ...] | None
    max_abs_diff: float | None
    error: str | None
    heatmap: Heatmap | None = None
    """Expected and yours side by side, when the output is a small matrix of attention weights."""
    near_miss: bool = False
    """Off by a rounding-sized amount only (float32 arithmetic, a long sum in another order)."""
    non_finite: int = 0
    """Entries where yours is NaN or infinite and the answer is a number (an overflow, a 0/0)."""
    values: tuple[tuple[str, str], ...] = ()
    """The small arrays among the inputs, written out: what the learner needs to redo the case by hand."""
    expected_values: str = ""
    """A small expected output written out (else ""), beside `got_values`: what a try shows."""
    got_values: str = ""
    """The learner's output, written out when it is small too."""


@dataclass(frozen=True)
class CodeVerdict:
    """The whole run: every case, the mistake if it is a known one, and what the code printed."""

    exercise_id: str
    seed: int
    cases: tuple[CaseResult, ...]
    mistake: Mistake | None
    problem: str | None
    printed: str
    unreadable: bool = False
    """The code does not parse or does not define the function: the study loop does not count the run."""
    confined: bool = False
    """The code ran confined (namespaces); else under limits only, and `confinement` says so."""
    confinement: str = ""
    """What confined the code, in a sentence (quizapp.runner.confine.note)."""

    @property
    def correct(self) -> bool:
        return self.problem is None and all(case.passed for case in self.cases)

    @property
    def first_failure(self) -> CaseResult | None:
        return next((case for case in self.cases if not case.passed), None)

    def summary(self, *, with_mistake: bool = True) -> str:
        """The verdict in words, for the CLI and the feedback panel (which names the mistake itself)."""
        if self.correct:
            return f"Correct: all {len(self.cases)} cases pass, edge cases included."
        lines = [f"Not yet: {sum(c.passed for c in self.cases)} of {len(self.cases)} cases pass."]
        if self.problem:
            lines.append(self.problem)
        if self.mistake is not None and with_mistake:
            lines.append(f"Mistake: {self.mistake.text}")
        failure = self.first_failure
        if failure is not None and not self.problem:
            shapes = ", ".join(f"{name} {shown}" for name, shown in failure.inputs.items())
            lines.append(f"First failing case (#{failure.index + 1}): {shapes}")
            lines.extend(f"  {name} = {written}" for name, written in failure.values)
            if failure.error:
                lines.append(failure.error)
            elif failure.got_shape != failure.expected_shape:
                lines.append(f"expected shape {failure.expected_shape}, got {failure.got_shape}")
            elif failure.non_finite:
                lines.append(
                    f"yours has NaN or inf in {failure.non_finite} of {math.prod(failure.expected_shape)} "
                    "places where the answer is a number: an overflow (exp of a large score?) or a 0/0"
                )
            elif failure.max_abs_diff is not None:
                lines.append(f"max |expected - yours| = {failure.max_abs_diff:.3g}")
                if failure.near_miss:
                    lines.append(
                        "Close: that gap is rounding-sized, as float32 arithmetic gives; the check wants "
                        "the inputs' precision, so compute in their dtype (float64)."
                    )
        return "\n".join(lines)


def exercise(exercise_id: str) -> Exercise:
    found = EXERCISES.get(exercise_id)
    if found is None:
        raise QuizappError(f"No coding exercise with id {exercise_id!r}; they are: {', '.join(EXERCISES)}.")
    return found


def grade_code(
    exercise_id: str,
    source: str,
    *,
    seed: int,
    mistakes: Sequence[tuple[str, str]] = (),
    tolerance: tuple[float, float] | None = None,
    inputs: InputSpec | None = None,
    time_limit: float = TIME_LIMIT_S,
    memory_limit: int = MEMORY_LIMIT_BYTES,
) -> CodeVerdict:
    """Runs the solution on the seed's cases and compares it with the reference, case by case. A deck may
    name which `mistakes` to recognise, as (id, sentence) with "" for the exercise's own sentence, and set
    the `tolerance` (rtol, atol) and how the `inputs` are drawn (default: the exercise's own spec).
    Float32 inputs loosen the exercise's default tolerance to rtol 1e-4, atol 1e-5 (a sum in another
    order differs in the 7th digit); a deck's own tolerance is kept as it is."""
    ex = exercise(exercise_id)
    if seed < 0:
        raise QuizappError(f"A seed is a whole number from 0 up, not {seed}.")
    source = source.removeprefix("\ufeff")  # a byte-order mark, as some editors save: Python skips it too
    if mistakes:
        by_id = {m.id: m for m in ex.mistakes}
        chosen = tuple(replace(by_id[i], text=text or by_id[i].text) for i, text in mistakes if i in by_id)
        ex = replace(ex, mistakes=chosen)
    if tolerance is not None:
        ex = replace(ex, rtol=tolerance[0], atol=tolerance[1])
    elif inputs is not None and inputs.dtype == "float32" and ex.rtol > 0:
        ex = replace(ex, rtol=max(ex.rtol, FLOAT32_RTOL), atol=max(ex.atol, FLOAT32_ATOL))
    cases: list[dict[str, Any]] = []
    expected: list[np.ndarray] = []

    def draw() -> list[dict[str, Any]]:
        cases.extend(ex.cases(seed, inputs))
        return cases

    deadline = Deadline(REFERENCE_TIME_LIMIT_S)

    def reference() -> None:
        deadline.start()
        for case in cases:
            deadline.check(ex.id)
            expected.append(_quiet(ex.reference, case))

    run = run_solution(
        source,
        ex.function,
        draw,
        time_limit=time_limit,
        memory_limit=memory_limit,
        meanwhile=reference,
    )  # the cases are drawn while the child compiles the code, the reference runs while it runs them
    results = tuple(
        _case(i, case, want, got, error, ex, memory_limit)
        for i, (case, want, got, error) in enumerate(
            zip(cases, expected, run.outputs, run.errors, strict=True)
        )
    )
    wrong = any(not r.passed for r in results)
    mistake = _named_mistake(ex, cases, run, expected, deadline) if wrong and run.problem is None else None
    how = confine.note(run.confined, run.why)
    return CodeVerdict(
        ex.id, seed, results, mistake, run.problem, run.printed, run.unreadable, run.confined, how
    )


class Deadline:
    """The reference's time limit in one grading, checked between cases (NumPy cannot be stopped inside
    a call: each case's cost is bounded before it runs)."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.end = math.inf

    def start(self) -> None:
        self.end = time.monotonic() + self.seconds

    def passed(self) -> bool:
        return time.monotonic() >= self.end

    def check(self, exercise_id: str) -> None:
        if self.passed():
            raise QuizappError(
                f"{exercise_id}: the reference took over {self.seconds:g} s on these inputs; the deck's "
                "sizes are too large to grade (quizapp validate estimates them)"
            )


def _quiet(func: Any, case: dict[str, Any]) -> np.ndarray:
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        return np.asarray(func(**case))


def _same(got: np.ndarray, want: np.ndarray, ex: Exercise) -> bool:
    return _compared(got, want, ex)[0]


def _compared(got: np.ndarray, want: np.ndarray, ex: Exercise) -> tuple[bool, float | None]:
    """Whether `got` passes as np.allclose(got, want, rtol, atol, equal_nan=True) judges it, and the
    largest |want - got| (None: shapes or kinds differ; nan: nothing to compare). Finite real outputs,
    nearly every case, take one pass over the gap instead of allclose's several."""
    if got.shape != want.shape:
        return False, None
    if got.dtype.kind not in "biuf" or want.dtype.kind not in "biuf":
        with np.errstate(all="ignore"):
            return bool(np.allclose(got, want, rtol=ex.rtol, atol=ex.atol, equal_nan=True)), None
    with np.errstate(all="ignore"):
        wanted = want.astype(np.float64, copy=False)  # (same shape as the output)
        gap = np.abs(got.astype(np.float64, copy=False) - wanted)  # (same shape)
        if gap.size and np.isfinite(gap).all():
            return bool((gap <= ex.atol + ex.rtol * np.abs(wanted)).all()), float(gap.max())
        passed = bool(np.allclose(got, want, rtol=ex.rtol, atol=ex.atol, equal_nan=True))
    seen = gap[~np.isnan(gap)]  # (n,) the entries where both are numbers
    return passed, float(seen.max()) if seen.size else float("nan")


def _case(
    index: int,
    case: dict[str, Any],
    want: np.ndarray,
    got: np.ndarray | None,
    error: str | None,
    ex: Exercise,
    memory_limit: int,
) -> CaseResult:
    shapes = {name: _shown(value) for name, value in case.items()}
    if got is None:
        if error and "MemoryError" in error:
            error = f"{over_memory(memory_limit)}\n{error}"
        return CaseResult(index, False, shapes, want.shape, None, None, error or "no result")
    passed, diff = _compared(got, want, ex)
    if passed:
        return CaseResult(index, passed, shapes, want.shape, got.shape, diff, None)
    heatmap = side_by_side(want, got)
    near = diff is not None and 0 < diff <= NEAR_MISS * _largest(want)
    bad = _non_finite(got, want)
    values = tuple((name, _written(v)) for name, v in case.items() if _small(v))
    wanted, yours = (_written(want), _written(got)) if _small(want) and _small(got) else ("", "")
    return CaseResult(
        index, passed, shapes, want.shape, got.shape, diff, None, heatmap, near, bad, values, wanted, yours
    )


SMALL_INPUT = 12
"""Arrays of at most this many entries are written out in a failing case."""


def _small(value: Any) -> bool:
    return isinstance(value, np.ndarray) and 0 < value.size <= SMALL_INPUT and value.dtype.kind in "biuf"


def _written(value: np.ndarray) -> str:
    return np.array2string(value, precision=4, separator=", ", max_line_width=10_000).replace("\n", "")


def _non_finite(got: np.ndarray, want: np.ndarray) -> int:
    """How many entries of `got` are NaN or infinite where `want` is a finite number."""
    if got.shape != want.shape or got.dtype.kind not in "biufc" or want.dtype.kind not in "biuf":
        return 0
    with np.errstate(all="ignore"):
        return int(np.count_nonzero(~np.isfinite(got) & np.isfinite(want)))  # () over the whole output


def _largest(want: np.ndarray) -> float:
    if want.dtype.kind not in "biuf" or not want.size:
        return 0.0
    with np.errstate(all="ignore"):
        finite = np.abs(want[np.isfinite(want)])  # (n,) the finite entries
    return float(finite.max()) if finite.size else 0.0


MAX_HEATMAP_SIDE = 12
"""Larger matrices do not fit side by side at 80 columns."""


def side_by_side(want: np.ndarray, got: np.ndarray) -> Heatmap | None:
    """Expected and yours as two heatmaps, when both are the same small 2-D matrix of attention weights
    (every entry from 0 to 1, as a softmax or a mask gives): the pattern shows where they differ."""
    if want.ndim != 2 or got.shape != want.shape or max(want.shape) > MAX_HEATMAP_SIDE:
        return None
    if not (np.issubdtype(got.dtype, np.number) or got.dtype == np.bool_):
        return None
    both = np.stack([want, got]).astype(np.float64)  # (2, T, S)
    if not np.isfinite(both).all() or both.min() < 0 or both.max() > 1:
        return None
    rows, cols = want.shape
    return Heatmap(
        weights=both,  # (2, T, S) expected, then yours
        row_labels=tuple(str(i) for i in range(rows)),
        col_labels=tuple(str(j) for j in range(cols)),
        head_labels=("expected", "yours"),
    )


def _shown(value: Any) -> str:
    if isinstance(value, np.ndarray) and value.ndim:
        return str(tuple(value.shape))
    return f"= {value!r}"


def _named_mistake(
    ex: Exercise,
    cases: list[dict[str, Any]],
    run: RunOutput,
    expected: list[np.ndarray],
    deadline: Deadline,
) -> Mistake | None:
    """The known mistake the learner's outputs agree with on every case that ran, where on at least one
    of those cases that mistake gives another answer than the reference (None: not a known one). A case
    every mistake gets right (one key, say) proves nothing on its own."""
    ran = [
        (case, got, want)
        for case, got, want in zip(cases, run.outputs, expected, strict=True)
        if got is not None
    ]
    if not ran:
        return None
    for mistake in ex.mistakes:
        theirs = []
        for case, got, _ in ran:
            if deadline.passed():  # past the reference's time: no mistake is named, the verdict stands
                return None
            wrong = _quiet(mistake.compute, case)
            if not _same(got, wrong, ex):
                break
            theirs.append(wrong)
        else:
            if any(not _same(wrong, want, ex) for wrong, (_, _, want) in zip(theirs, ran, strict=True)):
                return mistake
    return None
