"""Provides what every quality gate speaks: a question to check (GateInput) and what it fails (GateFailure).

Its own module so that gates.py, which runs every gate, and the gate modules it runs (grammar, order, text,
and grading's explanation gates) all import these from below instead of from each other.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from quizapp.content.instance import Instance
from quizapp.content.schema import Question


@dataclass(frozen=True)
class GateFailure:
    """One gate a question fails; `loc` is inside its deck file, `seed` the first seed that shows it."""

    deck_id: str
    question_id: str
    loc: tuple[str | int, ...]
    message: str
    seed: int | None = None

    def text(self) -> str:
        return f"{self.message} (seed {self.seed})" if self.seed is not None else self.message


Instantiate = Callable[[str, int], Instance]


@dataclass(frozen=True)
class GateInput:
    """A question to check, where it is, and how to make it concrete at a seed."""

    deck_id: str
    index: int
    question: Question


MoreGates = Callable[[Sequence[GateInput], Instantiate], list[GateFailure]]
"""Gates a later room adds over the same questions (it may not be imported from here)."""
