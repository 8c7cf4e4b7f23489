"""Provides the records a study session hands to its screen: the card on screen, a hint rung, the rating
choices, and the feedback of a saved answer. All frozen: the screen reads them, the session makes them."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Protocol

from quizapp.content.instance import Instance
from quizapp.grading.explain_reading import Reading
from quizapp.grading.verdict import Verdict


class InstanceSource(Protocol):
    """What the session needs from the catalog: a question made concrete by a seed."""

    def instance(self, question_id: str, seed: int) -> Instance: ...


@dataclass(frozen=True)
class Card:
    """The question on screen: its instance, why it was picked, and which try this is."""

    number: int
    instance: Instance
    reason: str
    attempt: int
    shown_at: datetime
    answer: str = ""
    """What the learner had answered, back in the input after Ctrl+Z took the answer back, to fix rather
    than retype ("" for a question asked afresh, a flashcard, or "I don't know")."""


@dataclass(frozen=True)
class Hint:
    """One rung of the hint ladder, shown on request; each rung lowers the best rating by one."""

    rung: int
    """1: which quantities matter; 2: the step the question hinges on, with its numbers; 3: every step
    but the last."""
    rungs: int
    text: str
    cap: str
    """The best rating still possible: "Good", "Hard" or "Again"."""


@dataclass(frozen=True)
class RatingChoice:
    """One of the four self-ratings of a flashcard, labelled with where it sends the card next."""

    rating: int
    name: str
    interval: str
    """"10m", "3d"... in study mode; "" in drill and cram, which never change the schedule."""


EASY_HELD = "Before your interview, Easy keeps a card's learning steps: it comes back as Good would."
"""Why Easy and Good show the same interval (quizapp.study.scheduler.review_before)."""


def easy_held(choices: tuple[RatingChoice, ...]) -> bool:
    """True when Easy sends the card where Good does: a card still in learning, with an interview ahead."""
    by_rating = {c.rating: c.interval for c in choices}
    return bool(by_rating.get(3)) and by_rating.get(3) == by_rating.get(4)


@dataclass(frozen=True)
class Unreadable:
    """The answer could not be read; nothing was saved and the question stays open to fix and resubmit
    (in study and in a mock interview alike)."""

    message: str


@dataclass(frozen=True)
class ExplainPending:
    """An explain answer was kept; the model answer and key points are shown for ticking."""

    instance: Instance
    answer: str
    model_answer: str
    key_points: tuple[str, ...]
    reading: Reading | None = None
    """The answer read point by point: the ticks start from the points it found covered."""


@dataclass(frozen=True)
class Feedback:
    """A graded and *already saved* answer, with everything the feedback panel shows."""

    instance: Instance
    verdict: Verdict
    answer: str
    rating: int
    hints_used: int
    seconds: float
    review_id: int
    scheduled: bool
    next_interval: str | None
    """When the card is due again ("3d"), if this answer moved its schedule."""
    became_leech: bool
    covered: tuple[int, ...] = ()
    """The key points ticked, for explain answers (0-based indexes into instance.key_points)."""
    choices: tuple[RatingChoice, ...] = ()
    """Every rating with the interval it gives, so the user can override the suggestion (study mode)."""
    suggested: int = 0
    """The rating grading suggested (the one saved until the user picks another)."""
    notice: str | None = None
    """Something the user should know about how this answer was saved (a damaged card started again)."""


@dataclass(frozen=True)
class SessionCounts:
    """The session bar: answers saved, how many were right, and what is left (None: endless drill)."""

    done: int
    correct: int
    left: int | None
