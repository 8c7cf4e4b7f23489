"""Provides what a StudySession keeps between calls: the question on screen (Turn), what it saved (Tally),
where its next question comes from (Draw, Focus) and the steps Ctrl+Z can take back (Saved, SetAside).

Mutable on purpose: only the session (quizapp.study.session and the mixins it is built from) changes them;
nothing here is handed to a screen.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import datetime
from typing import Literal

from quizapp.study.queues import QueueItem
from quizapp.study.scheduler import ReviewOutcome
from quizapp.study.views import Card, ExplainPending, Feedback

__all__ = [
    "UNDO_LIMIT",
    "Clock",
    "Draw",
    "Focus",
    "Saved",
    "SessionMode",
    "SetAside",
    "Tally",
    "Turn",
]

SessionMode = Literal["study", "drill", "cram"]
Clock = Callable[[], datetime]
UNDO_LIMIT = 30
"""Ctrl+Z takes back at most this many of the session's last steps (answers and questions set aside), as
Anki's undo does; older ones stay saved and can no longer be undone."""


@dataclass
class Turn:
    """The question on screen: what is asked, and how far its answer has got."""

    card: Card | None = None
    item: QueueItem | None = None
    answered: bool = False
    """The answer is saved; the next call is advance()."""
    hints: int = 0
    pending: ExplainPending | None = None
    """An explain answer submitted and waiting for its key points to be ticked."""
    ticked: set[int] = field(default_factory=set)


@dataclass
class Tally:
    """What this session saved: answers, right ones, and attempts per question."""

    done: int = 0
    correct: int = 0
    attempts: dict[str, int] = field(default_factory=dict)
    solved: set[str] = field(default_factory=set)
    """Questions answered right in this session (an until-solved drill asks them no more)."""


@dataclass
class Draw:
    """Where the next question comes from besides the store's study queue."""

    items: Iterator[QueueItem] | None = None
    """A drill or cram queue; None: study, asked from the store after every answer."""
    total: int | None = None
    """The cram queue's length, for the progress bar."""
    taken: int = 0
    pushback: list[QueueItem] = field(default_factory=list)
    """Items to ask again before the queue's next (an undone answer's question)."""
    held: dict[str, str] = field(default_factory=dict)
    """The explanation written for a pushed-back question (Ctrl+Z while its key points were being
    ticked), by question id: it is back in the editor when the question is asked again."""
    broken: set[str] = field(default_factory=set)
    """Questions whose instance could not be built: skipped for the rest of the session."""


@dataclass
class Focus:
    """In the interview's last days: the weakest decks, which come first, and how far ahead their due
    cards may be reviewed early."""

    decks: tuple[str, ...] = ()
    until: datetime | None = None


@dataclass(frozen=True)
class Saved:
    """One saved answer of the session, with what undoing or re-rating it needs."""

    item: QueueItem
    card: Card
    outcome: ReviewOutcome
    feedback: Feedback
    typed: str = ""
    """What the learner wrote or chose, put back in the input when Ctrl+Z asks the question again."""


@dataclass(frozen=True)
class SetAside:
    """A question suspended or buried in this session, so Ctrl+Z can bring it back."""

    item: QueueItem
    card: Card
    how: Literal["suspend", "bury"]
    hints: int = 0
    """Hints shown before it was set aside, shown again when it comes back."""
