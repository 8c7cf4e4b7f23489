"""Provides helpers shared by the interview tests: a clock the test moves by hand, and answers computed by
the engine (right ones, and wrong ones the engine can name)."""

from __future__ import annotations

from datetime import datetime, timedelta

from quizapp.content.instance import Instance
from quizapp.content.units import to_display


class Clock:
    """The app's injected clock: time moves only when the test says so."""

    def __init__(self, start: datetime) -> None:
        self.now = start

    def __call__(self) -> datetime:
        return self.now

    def advance(self, **delta: float) -> None:
        self.now += timedelta(**delta)


def right_answer(inst: Instance) -> str:
    """The engine's own answer, written as a user would type it (letters for choice questions)."""
    if inst.kind == "choice":
        assert isinstance(inst.expected, frozenset)
        return ", ".join(sorted(inst.expected))
    if inst.kind == "explain":
        return "Each head has its own projections and can look somewhere else."
    return inst.expected_text()


def wrong_answer(inst: Instance) -> str:
    """A misconception's value, in the unit asked: a wrong answer the engine can name."""
    assert inst.derivation is not None
    wrong = next(m for m in inst.derivation.misconceptions if m.value != inst.expected)
    assert isinstance(wrong.value, (int, float))
    return repr(to_display(wrong.value, inst.unit))
