"""Provides what FSRS reads from the store: every card's memory state (stability, last review, due) for
the interview plan, and every scheduled review for the weight optimizer.

Card rows come back as plain tuples in columns, because the plan turns them into NumPy arrays: building a
record object per card would cost more than the whole plan at 100k cards.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from quizapp.store.database import Store


@dataclass(frozen=True)
class CardMemories:
    """Every card the user has seen, column by column; times in UTC microseconds, None where unset."""

    question_ids: tuple[str, ...]
    stability: tuple[float | None, ...]
    last_review_us: tuple[int | None, ...]
    due_us: tuple[int | None, ...]
    suspended: tuple[bool, ...]


def card_memories(store: Store, question_ids: Iterable[str] | None = None) -> CardMemories:
    """The memory state of every card, or of the cards of `question_ids` only.

    With ids, only those cards are read, each by its primary key (the ids travel as one JSON array): a
    catalog of 10k questions over a 100k-card history reads 10k rows, not 100k. Without, one sequential
    scan of the WITHOUT ROWID table."""
    sql = "SELECT question_id, stability, last_review_us, due_us, suspended FROM cards"
    if question_ids is None:
        rows = store.conn.execute(sql).fetchall()
    else:
        wanted = json.dumps(list(question_ids))
        rows = store.conn.execute(
            f"{sql} WHERE question_id IN (SELECT value FROM json_each(?))", (wanted,)
        ).fetchall()
    if not rows:
        return CardMemories((), (), (), (), ())
    ids, stability, last, due, suspended = zip(*rows, strict=True)
    return CardMemories(ids, stability, last, due, tuple(bool(s) for s in suspended))


def scheduled_reviews(store: Store) -> list[tuple[str, int, int]]:
    """(question id, reviewed at in UTC microseconds, rating) of every review that moved a schedule,
    card by card and in time order: the history the FSRS optimizer fits its weights to."""
    return store.conn.execute(
        "SELECT question_id, reviewed_us, rating FROM reviews WHERE scheduled = 1"
        " ORDER BY question_id, reviewed_us"
    ).fetchall()


def save_weights_and_memory(
    store: Store, weights: tuple[float, ...], states: Mapping[str, tuple[float, float]]
) -> None:
    """Stores new FSRS weights and each card's (stability, difficulty) recomputed under them, in one
    transaction: the scheduler never sees new weights with old memory states, or the other way round.
    A card started again as new since (no due date) is left new."""
    with store.transaction() as conn:
        conn.execute(
            "INSERT OR REPLACE INTO settings (key, value) VALUES (?, ?)",
            ("fsrs_parameters", json.dumps(list(weights))),
        )
        conn.executemany(
            "UPDATE cards SET stability = ?, difficulty = ? WHERE question_id = ? AND due_us IS NOT NULL",
            [(stability, difficulty, qid) for qid, (stability, difficulty) in states.items()],
        )
