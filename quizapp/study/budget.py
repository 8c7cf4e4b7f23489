"""Provides the plan's time side: how long the learner takes per question type, what a day of the plan
costs in minutes, and the triage that fits it into a daily budget.

Times come from the learner's own answers (the median of their recent answer times per question type, once
there are MIN_ANSWERS of a type), else DEFAULT_SECONDS. The triage leaves out first what the interview
needs least, in this order, until the day fits:

1. every card of a deck the learner marked low priority;
2. reviews of difficulty 1-2 questions already known (KNOWN_RECALL or more expected on the day without
   the review), easiest first;
3. new questions, the most advanced (difficulty 3) first, and within one difficulty those of the
   learner's strongest decks first;
4. the remaining reviews, the best remembered first.

Pure functions over frozen dataclasses; the command and the TUI bring the data.
"""

from __future__ import annotations

import statistics
from collections import defaultdict
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

DEFAULT_SECONDS: Mapping[str, float] = {
    "numeric": 60.0,
    "tensor": 90.0,
    "shape": 45.0,
    "choice": 30.0,
    "flashcard": 15.0,
    "explain": 120.0,
    "code": 300.0,
}
"""A first guess per question type, before the learner has answered MIN_ANSWERS of that type."""
FALLBACK_SECONDS = 60.0
MIN_ANSWERS = 3
LONGEST_ANSWER_SECONDS = 900.0
"""A longer answer time is the learner walking away; it counts as this long."""
KNOWN_RECALL = 0.8
"""A review whose card is expected at this recall or more on the day anyway is "already known"."""


@dataclass(frozen=True)
class AnswerTime:
    """How long one question type takes this learner, and whether that comes from their own answers."""

    kind: str
    seconds: float
    answers: int
    """How many of the learner's answers the estimate is the median of (0: the default guess)."""

    @property
    def own(self) -> bool:
        return self.answers >= MIN_ANSWERS


def answer_times(samples: Iterable[tuple[str, float]]) -> dict[str, AnswerTime]:
    """Per question type: the median of the learner's answer times (seconds) from `samples` (kind,
    seconds), or the default guess when there are fewer than MIN_ANSWERS of that type."""
    by_kind: dict[str, list[float]] = defaultdict(list)
    for kind, seconds in samples:
        by_kind[kind].append(min(max(0.0, seconds), LONGEST_ANSWER_SECONDS))
    times = {kind: AnswerTime(kind, seconds, 0) for kind, seconds in DEFAULT_SECONDS.items()}
    for kind, values in by_kind.items():
        if len(values) >= MIN_ANSWERS:
            times[kind] = AnswerTime(kind, float(statistics.median(values)), len(values))
    return times


def seconds_for(times: Mapping[str, AnswerTime], kind: str) -> float:
    """The time of one answer to a question of `kind`."""
    known = times.get(kind)
    return known.seconds if known is not None else DEFAULT_SECONDS.get(kind, FALLBACK_SECONDS)


@dataclass(frozen=True)
class Work:
    """One question's share of the plan: answering it until the interview costs `seconds` in all."""

    question_id: str
    deck_id: str
    difficulty: int
    new: bool
    """An unseen question to introduce (else a review of a card due before the interview)."""
    seconds: float
    recall: float
    """Its expected recall on the day without further study (0 for an unseen question)."""


@dataclass(frozen=True)
class LeftOut:
    """Something the plan leaves out to fit the budget: a whole deck or one question, and why."""

    kind: Literal["deck", "question"]
    id: str
    deck_id: str
    reason: str


def minutes_a_day(work: Iterable[Work], days: int) -> float:
    """The minutes a day that `work` costs, spread over `days` days (at least one)."""
    return sum(w.seconds for w in work) / max(days, 1) / 60


def triage(
    work: Sequence[Work],
    *,
    days: int,
    budget_minutes: float | None,
    low_priority: Collection[str] = (),
    deck_recall: Mapping[str, float] | None = None,
) -> tuple[tuple[Work, ...], tuple[LeftOut, ...]]:
    """(what is kept, what is left out and why) so that the kept work fits `budget_minutes` a day.

    With no budget, or when everything fits, nothing is left out. See the module docstring for the order.
    """
    if budget_minutes is None or minutes_a_day(work, days) <= budget_minutes:
        return tuple(work), ()
    recall_of = deck_recall or {}
    budget = f"{budget_minutes:g} min a day"
    left: list[LeftOut] = []
    dropped: set[str] = set()
    total = sum(w.seconds for w in work)
    limit = budget_minutes * 60 * max(days, 1)

    def fits() -> bool:
        return total <= limit + 1e-9

    for deck in sorted({w.deck_id for w in work if w.deck_id in low_priority}):
        share = [w for w in work if w.deck_id == deck]
        total -= sum(w.seconds for w in share)
        dropped.update(w.question_id for w in share)
        left.append(
            LeftOut("deck", deck, deck, f"low priority: marked so, and not everything fits in {budget}")
        )
        if fits():
            break
    stages: list[tuple[list[Work], Callable[[Work], str]]] = [
        (
            sorted(
                (w for w in work if not w.new and w.difficulty <= 2 and w.recall >= KNOWN_RECALL),
                key=lambda w: (w.difficulty, -w.recall, w.question_id),
            ),
            lambda w: (
                f"already known: {w.recall:.0%} on the day without a review (difficulty {w.difficulty})"
            ),
        ),
        (
            sorted(
                (w for w in work if w.new),
                key=lambda w: (-w.difficulty, -recall_of.get(w.deck_id, 0.0), w.question_id),
            ),
            lambda w: f"new, difficulty {w.difficulty}: no time for it in {budget}",
        ),
        (
            sorted((w for w in work if not w.new), key=lambda w: (-w.recall, w.question_id)),
            lambda w: f"review: no time for it in {budget} ({w.recall:.0%} on the day without it)",
        ),
    ]
    for candidates, why in stages:
        for w in candidates:
            if fits():
                break
            if w.question_id in dropped:
                continue
            total -= w.seconds
            dropped.add(w.question_id)
            left.append(LeftOut("question", w.question_id, w.deck_id, why(w)))
    kept = tuple(w for w in work if w.question_id not in dropped)
    return kept, tuple(left)
