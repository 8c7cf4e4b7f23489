"""Provides the interview plan: how many new cards a day, how many reviews, and the recall to expect.

A user with an interview on a known day needs every question seen at least twice before it, and needs
to know where they stand. The plan spreads the unseen questions over the days before the interview
(the day itself stays free for reviews; a new card's learning steps bring it back at least once), and
predicts each deck's recall on the day with FSRS's own forgetting curve:

    R(t) = (1 + FACTOR * t / S) ** DECAY

where t is the days from the card's last review to the interview and S its stability. Unseen questions
count as not known (R = 0), and the prediction assumes no further study, so it is the floor the plan
lifts. In the last days, the plan names the weakest decks so the queues can lean on them.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta

from fsrs import Card, Rating, Scheduler

from quizapp.store.fsrs_inputs import CardMemories

FINAL_DAYS = 2
"""In the last this-many days before the interview, the plan focuses on its weakest decks."""
US_PER_DAY = 86_400 * 1_000_000


@dataclass(frozen=True)
class DeckOutlook:
    """One deck's standing: how much of it was seen, and the recall to expect on the interview day."""

    deck_id: str
    title: str
    questions: int
    seen: int
    recall: float
    """Mean FSRS retrievability of the deck's questions on the day (unseen ones count 0), 0..1."""


@dataclass(frozen=True)
class Plan:
    """What to do each day until the interview, and how ready the user will be."""

    interview: date
    today: date
    days_left: int
    """Whole days from today to the interview day (0 on the day itself, negative after it)."""
    questions: int
    unseen: int
    new_per_day: int
    reviews_per_day: int
    recall: float
    decks: tuple[DeckOutlook, ...]
    focus: tuple[str, ...]
    """The weakest decks' ids when the interview is at most FINAL_DAYS away, else ()."""

    @property
    def passed(self) -> bool:
        return self.days_left < 0

    def summary(self) -> str:
        """One line for home: "9 days left: 26 new + ~40 reviews a day; expected recall on 3 Dec: 61%"."""
        day = f"{self.interview.day} {self.interview:%b}"
        if self.passed:
            return f"Your interview was on {day}. Set a new date in Settings or with `quizapp plan --date`."
        left = "today" if self.days_left == 0 else f"{self.days_left} day{'s' * (self.days_left != 1)} left"
        return (
            f"Interview {left}: {self.new_per_day} new + ~{self.reviews_per_day} reviews a day; "
            f"expected recall on {day}: {self.recall:.0%}"
        )


def make_plan(
    decks: Sequence[tuple[str, str, Sequence[str]]],
    memories: CardMemories,
    *,
    interview: date,
    today: date,
    now: datetime,
    scheduler: Scheduler,
) -> Plan:
    """The plan for `decks` (id, title, question ids), given the cards' state at `now`.

    `today` is the user's local date (the caller knows their time zone); `now` is the same moment, used
    for the interview's instant (local midnight is approximated by `now` + the whole days left).
    """
    days_left = (interview - today).days
    at = now + timedelta(days=max(days_left, 0))
    ids = [qid for _, _, qids in decks for qid in qids]
    recall_of, seen, suspended = _recall_at(memories, ids, at, scheduler)
    offered = [qid for qid in ids if qid not in suspended]
    unseen = sum(1 for qid in offered if qid not in seen)
    outlooks = tuple(
        DeckOutlook(
            deck_id,
            title,
            len(qids),
            sum(1 for q in qids if q in seen),
            _mean(recall_of.get(q, 0.0) for q in qids),
        )
        for deck_id, title, qids in decks
    )
    intro_days = max(days_left, 1)
    new_per_day = math.ceil(unseen / intro_days) if unseen else 0
    reviews = _due_before(memories, seen, suspended, at) + _reviews_of_new(
        unseen, new_per_day, days_left, scheduler, now
    )
    focus: tuple[str, ...] = ()
    if 0 <= days_left <= FINAL_DAYS and outlooks:
        ranked = sorted((o for o in outlooks if o.questions), key=lambda o: (o.recall, o.deck_id))
        focus = tuple(o.deck_id for o in ranked[: max(1, len(ranked) // 3)])
    return Plan(
        interview=interview,
        today=today,
        days_left=days_left,
        questions=len(ids),
        unseen=unseen,
        new_per_day=new_per_day,
        reviews_per_day=math.ceil(reviews / max(days_left, 1)),
        recall=_mean(recall_of.get(q, 0.0) for q in ids),
        decks=outlooks,
        focus=focus,
    )


def _recall_at(
    memories: CardMemories, wanted: Sequence[str], at: datetime, scheduler: Scheduler
) -> tuple[dict[str, float], set[str], set[str]]:
    """Retrievability at `at` of every seen card among `wanted`, with FSRS's curve evaluated at once."""
    import numpy as np  # here: the home screen imports this module for its daily limit, not for NumPy

    want = set(wanted)
    keep = [
        i
        for i, qid in enumerate(memories.question_ids)
        if qid in want and memories.stability[i] is not None and memories.last_review_us[i] is not None
    ]
    suspended = {q for q, s in zip(memories.question_ids, memories.suspended, strict=True) if s and q in want}
    if not keep:
        return {}, set(), suspended
    stability = np.array([memories.stability[i] for i in keep], dtype=np.float64)  # (n,)
    last = np.array([memories.last_review_us[i] for i in keep], dtype=np.int64)  # (n,)
    at_us = int(at.astimezone(UTC).timestamp() * 1_000_000)
    elapsed = np.maximum(0, (at_us - last) // US_PER_DAY)  # (n,) whole days, as fsrs counts them
    decay = -scheduler.parameters[20]
    factor = 0.9 ** (1 / decay) - 1
    recall = (1 + factor * elapsed / np.maximum(stability, 1e-9)) ** decay  # (n,)
    ids = [memories.question_ids[i] for i in keep]
    return dict(zip(ids, recall.tolist(), strict=True)), set(ids), suspended


def _due_before(memories: CardMemories, seen: set[str], suspended: set[str], at: datetime) -> int:
    """Seen cards that fall due before the interview: each is at least one review."""
    at_us = int(at.astimezone(UTC).timestamp() * 1_000_000)
    return sum(
        1
        for qid, due in zip(memories.question_ids, memories.due_us, strict=True)
        if qid in seen and qid not in suspended and due is not None and due < at_us
    )


def _reviews_of_new(unseen: int, per_day: int, days_left: int, scheduler: Scheduler, now: datetime) -> int:
    """Reviews the new cards bring before the interview, if each is answered Good every time."""
    if unseen == 0 or days_left <= 0:
        return 0
    offsets = _review_days(scheduler, now, horizon=days_left)
    total, left, day = 0, unseen, 0
    while left > 0:
        batch = min(per_day, left)
        total += batch * sum(1 for t in offsets if day + t < days_left)
        left -= batch
        day += 1
    return total


def _review_days(scheduler: Scheduler, now: datetime, *, horizon: int) -> list[float]:
    """Days after its first answer at which a card answered Good each time comes back, within `horizon`."""
    card = Card(card_id=1, due=now)
    card, _ = scheduler.review_card(card, Rating.Good, now)
    days: list[float] = []
    while card.due is not None and (card.due - now).total_seconds() / 86_400 < horizon and len(days) < 64:
        days.append((card.due - now).total_seconds() / 86_400)
        card, _ = scheduler.review_card(card, Rating.Good, card.due)
    return days


def _mean(values: Iterable[float]) -> float:
    items = list(values)
    return sum(items) / len(items) if items else 0.0
