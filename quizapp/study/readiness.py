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
from typing import TYPE_CHECKING

from quizapp.store.fsrs_inputs import CardMemories

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

    from quizapp.content.deck import DeckRef

READINESS_DAYS = 7
"""With no interview date, readiness looks this many days ahead."""
US_PER_DAY = 86_400 * 1_000_000


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
    from fsrs.scheduler import DEFAULT_PARAMETERS

    if len(parameters) > 20:
        return float(parameters[20])

    return float(DEFAULT_PARAMETERS[20])


@dataclass(frozen=True)
class RecallTable:
    """Every wanted question's memory on the day, as NumPy arrays in the order the questions were asked
    for: the plan and readiness aggregate them per deck with np.bincount, never a Python object per card."""

    seen: NDArray[np.bool_]
    """(n,) the card has a memory state (stability and a last review)."""
    suspended: NDArray[np.bool_]
    """(n,) the card is suspended (seen or not)."""
    recall: NDArray[np.float64]
    """(n,) FSRS retrievability on the day; 0 for unseen questions."""
    due_us: NDArray[np.int64]
    """(n,) when FSRS next asks it, in UTC microseconds; NEVER_US for a new card."""


NEVER_US = 2**62
"""The due time of a card FSRS has not scheduled: after any instant the plan compares it with."""


def recall_table(memories: CardMemories, wanted: Sequence[str], at: datetime, decay: float) -> RecallTable:
    """The RecallTable of `wanted` at `at`: FSRS's forgetting curve evaluated on all cards at once,

        R = (1 + FACTOR * t / S) ** -DECAY,   t = whole days since the last review (floored, at least 0),

    which is fsrs's Scheduler.get_card_retrievability card by card (tests compare the two)."""
    import numpy as np  # here: the home screen imports this package for its daily limit, not for NumPy

    row_of = {qid: i for i, qid in enumerate(memories.question_ids)}
    rows = np.array([row_of.get(qid, -1) for qid in wanted], dtype=np.int64)  # (n,) -1: no card
    has_card = rows >= 0  # (n,)
    take = np.where(has_card, rows, 0)  # (n,) a valid row everywhere; masked below
    n_cards = len(memories.question_ids)
    stability = np.array([np.nan if s is None else s for s in memories.stability], dtype=np.float64)  # (m,)
    last = np.array([-1 if t is None else t for t in memories.last_review_us], dtype=np.int64)  # (m,)
    has_last = np.array([t is not None for t in memories.last_review_us], dtype=np.bool_)  # (m,)
    due = np.array([NEVER_US if t is None else t for t in memories.due_us], dtype=np.int64)  # (m,)
    suspended = np.array(memories.suspended, dtype=np.bool_)  # (m,)
    if n_cards == 0:
        none = np.zeros(len(rows), dtype=np.bool_)  # (n,)
        return RecallTable(none, none.copy(), np.zeros(len(rows)), np.full(len(rows), NEVER_US, np.int64))
    seen = has_card & ~np.isnan(stability[take]) & has_last[take]  # (n,)
    at_us = int(at.astimezone(UTC).timestamp() * 1_000_000)
    elapsed = np.maximum(0, (at_us - last[take]) // US_PER_DAY)  # (n,) whole days, as fsrs counts them
    factor = 0.9 ** (1 / -decay) - 1
    s = np.where(seen, np.maximum(np.nan_to_num(stability[take], nan=1.0), 1e-9), 1.0)  # (n,)
    recall = np.where(seen, (1 + factor * elapsed / s) ** -decay, 0.0)  # (n,)
    return RecallTable(
        seen=seen,
        suspended=has_card & suspended[take],
        recall=recall,
        due_us=np.where(has_card, due[take], NEVER_US),
    )


def deck_index(decks: Sequence[DeckRef]) -> tuple[list[str], NDArray[np.int64]]:
    """(every question id of `decks` in order, (n,) the index of each one's deck) for np.bincount."""
    import numpy as np

    ids = [qid for deck in decks for qid in deck.question_ids]
    sizes = np.array([len(deck.question_ids) for deck in decks], dtype=np.int64)  # (D,)
    return ids, np.repeat(np.arange(len(decks), dtype=np.int64), sizes)  # (n,)


def per_deck_mean(deck_of: NDArray[np.int64], values: NDArray[np.float64], n_decks: int) -> list[float]:
    """The mean of `values` over each deck's questions (0 for an empty deck)."""
    import numpy as np

    sums = np.bincount(deck_of, weights=values, minlength=n_decks)  # (D,)
    sizes = np.bincount(deck_of, minlength=n_decks)  # (D,)
    return np.where(sizes > 0, sums / np.maximum(sizes, 1), 0.0).tolist()  # type: ignore[no-any-return]


def readiness_days(interview: date | None, today: date) -> tuple[int, bool]:
    """(days from `today` to the day readiness is predicted for, whether that day is the interview): the
    interview day when it is today or later, else READINESS_DAYS ahead (no date, or a date past)."""
    days = (interview - today).days if interview is not None else -1
    return (days, True) if interview is not None and days >= 0 else (READINESS_DAYS, False)


def readiness(
    decks: Sequence[DeckRef],
    memories: CardMemories,
    *,
    today: date,
    now: datetime,
    interview: date | None,
    decay: float,
) -> Readiness:
    """Each deck's expected recall on the interview day (READINESS_DAYS ahead with no date or a date
    already past). `today` is the learner's local date at `now`. With an interview date the plan
    (quizapp.study.plan.make_plan) carries the same Readiness, from the recall table it computes anyway."""
    days, is_interview = readiness_days(interview, today)
    ids, deck_of = deck_index(decks)
    table = recall_table(memories, ids, now + timedelta(days=days), decay)
    return readiness_of(decks, deck_of, table, on=today + timedelta(days=days), interview=is_interview)


def readiness_of(
    decks: Sequence[DeckRef], deck_of: NDArray[np.int64], table: RecallTable, *, on: date, interview: bool
) -> Readiness:
    """The Readiness of `decks` from their RecallTable on the day `on` (`deck_of`: deck_index's)."""
    import numpy as np

    seen = np.bincount(deck_of, weights=table.seen, minlength=len(decks)).astype(np.int64)  # (D,)
    recall = per_deck_mean(deck_of, table.recall, len(decks))
    rows = tuple(
        DeckReadiness(deck.id, deck.title, len(deck.question_ids), int(n_seen), deck_recall)
        for deck, n_seen, deck_recall in zip(decks, seen.tolist(), recall, strict=True)
    )
    return Readiness(
        on=on, interview=interview, decks=rows, recall=float(table.recall.mean()) if len(deck_of) else 0.0
    )


def mean(values: Iterable[float]) -> float:
    """The mean, 0 for nothing."""
    items = list(values)
    return sum(items) / len(items) if items else 0.0
