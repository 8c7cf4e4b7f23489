"""The hint under an explanation's suggested rating: when Again comes only from a core point the reader did
not find, the learner is told which tick would change it, and to what."""

from __future__ import annotations

import pytest

from quizapp.grading.explain_reading import (
    CoreUnfound,
    Evidence,
    MisconceptionFound,
    PointReading,
    Status,
    core_unfound,
    rating_from_ticks,
)
from quizapp.grading.rating import AGAIN, GOOD, HARD

NAMES: dict[str, Status] = {"c": "covered", "m": "missing", "x": "contradicted"}


def _points(marks: str) -> list[PointReading]:
    """Four points, the first the core, with the reader's statuses (c covered, m missing, x contradicted)."""
    return [PointReading(i, f"point {i + 1}", NAMES[m], None, i == 0) for i, m in enumerate(marks)]


def _ticks(marks: str) -> frozenset[int]:
    return frozenset(i for i, m in enumerate(marks) if m == "c")


@pytest.mark.parametrize(
    ("marks", "hint"),
    [
        ("mccc", CoreUnfound(1, GOOD)),  # everything else said: a tick of the core makes it Good
        ("mcmm", CoreUnfound(1, HARD)),
        ("mccx", CoreUnfound(1, HARD)),  # one side point wrong: Hard at best
        ("mmmm", None),  # nothing relevant said: no tick is suggested
        ("xccc", None),  # the core stated wrongly is Again whatever the ticks
        ("mcxx", None),  # two things wrong: still Again with the core ticked
        ("cccc", None),
        ("cmmm", None),
    ],
)
def test_the_hint_names_the_core_point_and_what_its_tick_gives(marks: str, hint: CoreUnfound | None) -> None:
    points = _points(marks)
    ticked = _ticks(marks)
    assert core_unfound(points, ticked) == hint
    if hint is not None:
        assert rating_from_ticks(points, ticked)[0] == AGAIN
        assert rating_from_ticks(points, ticked | {hint.number - 1})[0] == hint.rating


def test_the_learners_own_ticks_decide_whether_the_hint_shows() -> None:
    points = _points("mcmm")
    assert core_unfound(points, frozenset()) is None  # every tick taken off: nothing relevant left
    assert core_unfound(points, frozenset({0, 1})) is None  # the core ticked by the learner
    assert core_unfound(points, frozenset({2})) == CoreUnfound(1, HARD)


def test_a_misconception_that_breaks_the_answer_leaves_no_hint() -> None:
    said = Evidence("said so", 0, 7)
    wrong = MisconceptionFound("m", "a wrong claim", "the right one", said, None)
    other = MisconceptionFound("n", "another", "the right one", said, None)
    assert core_unfound(_points("mccc"), _ticks("mccc"), (wrong,)) == CoreUnfound(1, HARD)
    assert core_unfound(_points("mccc"), _ticks("mccc"), (wrong, other)) is None
