"""Provides readiness: per deck, the share of its questions the learner is expected to recall on the
interview day (or in READINESS_DAYS days when no date is set).

It replaces "mastery" (stability of 21 days or more), which stays at 0% for the whole week before an
interview however well the learner studies. Readiness is FSRS's own forgetting curve,

    R(t) = (1 + FACTOR * t / S) ** -DECAY,    FACTOR = 0.9 ** (1 / -DECAY) - 1

evaluated at the day (t: whole days from the card's last review, S: its stability), averaged over every
question of the deck with unseen questions counted as 0. A first session of study lifts it the same day.
Pure functions: the caller brings the cards' memory state, the dates and the FSRS weights.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta

from quizapp.store.fsrs_inputs import CardMemories

READINESS_DAYS = 7
"""With no interview date, readiness looks this many days ahead."""
US_PER_DAY = 86_400 * 1_000_000

DeckHeader = tuple[str, str, Sequence[str]]
"""(deck id, title, question ids): what readiness and the plan need to know of a deck."""


@dataclass(frozen=True)
class DeckReadiness:
    """One deck's expected recall on the day."""

    deck_id: str
    title: str
    questions: int
    seen: int
    recall: float
    """Mean FSRS retrievability of the deck's questions on the day (unseen ones count 0), 0..1."""


@dataclass(frozen=True)
class Readiness:
    """Every deck's readiness on one day, the overall figure, and a line saying what it means."""

    on: date
    """The day recall is predicted for: the interview day, or READINESS_DAYS from today."""
    interview: bool
    """True when `on` is the interview day; False when it is the no-date horizon."""
    decks: tuple[DeckReadiness, ...]
    recall: float
    """Mean over every question of every deck (unseen ones count 0)."""

    @property
    def meaning(self) -> str:
        """One line that says what the percentages are."""
        day = f"{self.on:%a} {self.on.day} {self.on:%b}"
        when = f"on your interview day ({day})" if self.interview else f"in {READINESS_DAYS} days ({day})"
        return (
            f"Readiness: the share of questions you would recall {when} with no more study, "
            "by FSRS's forgetting curve; questions never seen count as not known."
        )


def forgetting_decay(parameters: Sequence[float] = ()) -> float:
    """FSRS-6's decay (its 21st weight) from fitted weights, or fsrs's default decay."""
    if len(parameters) > 20:
        return float(parameters[20])
    from fsrs.scheduler import DEFAULT_PARAMETERS

    return float(DEFAULT_PARAMETERS[20])


def recall_at(
    memories: CardMemories, wanted: Iterable[str], at: datetime, decay: float
) -> tuple[dict[str, float], set[str], set[str]]:
    """(retrievability at `at` of every seen card among `wanted`, the seen ids, the suspended ids), with
    FSRS's curve evaluated on all cards at once."""
    import numpy as np  # here: the home screen imports this package for its daily limit, not for NumPy

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
    factor = 0.9 ** (1 / -decay) - 1
    recall = (1 + factor * elapsed / np.maximum(stability, 1e-9)) ** -decay  # (n,)
    ids = [memories.question_ids[i] for i in keep]
    return dict(zip(ids, recall.tolist(), strict=True)), set(ids), suspended


def readiness(
    decks: Sequence[DeckHeader],
    memories: CardMemories,
    *,
    today: date,
    now: datetime,
    interview: date | None,
    decay: float,
) -> Readiness:
    """Each deck's expected recall on the interview day (READINESS_DAYS ahead with no date or a date
    already past). `today` is the learner's local date at `now`."""
    days = (interview - today).days if interview is not None else -1
    is_interview = interview is not None and days >= 0
    if not is_interview:
        days = READINESS_DAYS
    at = now + timedelta(days=days)
    ids = [qid for _, _, qids in decks for qid in qids]
    recall_of, seen, _ = recall_at(memories, ids, at, decay)
    rows = tuple(
        DeckReadiness(
            deck_id,
            title,
            len(qids),
            sum(1 for q in qids if q in seen),
            mean(recall_of.get(q, 0.0) for q in qids),
        )
        for deck_id, title, qids in decks
    )
    return Readiness(
        on=today + timedelta(days=days),
        interview=is_interview,
        decks=rows,
        recall=mean(recall_of.get(q, 0.0) for q in ids),
    )


def mean(values: Iterable[float]) -> float:
    """The mean, 0 for nothing."""
    items = list(values)
    return sum(items) / len(items) if items else 0.0
