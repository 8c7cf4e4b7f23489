"""Provides what progress files need from the database: every row streamed out, all rows replaced in one
transaction, and a byte-for-byte copy of the database kept aside first.

The JSON format itself (quizapp.reports.progress_file) never sees a connection: it gets records and hands
records back.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from quizapp.store.cards import CardRecord, iter_cards, write_card
from quizapp.store.database import Store
from quizapp.store.interviews import InterviewAnswer, InterviewRecord, insert_answer, load_interview
from quizapp.store.reviews import ReviewRecord, insert_review, iter_reviews
from quizapp.store.times import to_us

TABLES = ("interview_answers", "interviews", "reviews", "cards", "settings")
"""Every table a progress file holds, children before parents (the order rows are deleted in)."""


@dataclass(frozen=True)
class InterviewRows:
    """One saved interview as a progress file carries it."""

    id: int
    started_at: datetime
    finished_at: datetime | None
    config: Mapping[str, Any]
    answers: tuple[InterviewAnswer, ...]


def cards(store: Store) -> Iterator[CardRecord]:
    """Every card, in question id order, streamed."""
    return iter_cards(store.conn)


def reviews(store: Store) -> Iterator[ReviewRecord]:
    """Every review, in id order, streamed (a long history never sits in memory whole)."""
    return iter_reviews(store.conn)


def interviews(store: Store) -> Iterator[tuple[InterviewRecord, Mapping[str, Any]]]:
    """Every interview with its answers, and its set-up exactly as stored."""
    rows = store.conn.execute("SELECT id, config FROM interviews ORDER BY id").fetchall()
    for interview_id, config in rows:
        yield load_interview(store, interview_id), json.loads(config)


def has_progress(store: Store) -> bool:
    """Whether the database holds anything a user would miss (cards, interviews or settings)."""
    row = store.conn.execute(
        "SELECT EXISTS (SELECT 1 FROM cards) OR EXISTS (SELECT 1 FROM interviews)"
        " OR EXISTS (SELECT 1 FROM settings)"
    ).fetchone()
    return bool(row[0])


def copy_to(store: Store, target: Path) -> None:
    """A consistent copy of the whole database at `target`, through SQLite's online backup API."""
    dest = sqlite3.connect(target)
    try:
        store.conn.backup(dest)
    finally:
        dest.close()


def replace_all(
    store: Store,
    *,
    card_rows: Iterable[CardRecord],
    review_rows: Iterable[ReviewRecord],
    interview_rows: Iterable[InterviewRows],
    settings: Mapping[str, Any],
) -> None:
    """Replaces every table's rows with the given ones in one transaction: all of it, or none of it."""
    with store.transaction() as conn:
        for table in TABLES:
            conn.execute(f"DELETE FROM {table}")
        for card in card_rows:
            write_card(conn, card)
        for review in review_rows:
            insert_review(conn, review)
        for iv in interview_rows:
            conn.execute(
                "INSERT INTO interviews (id, started_us, finished_us, config) VALUES (?, ?, ?, ?)",
                (
                    iv.id,
                    to_us(iv.started_at),
                    None if iv.finished_at is None else to_us(iv.finished_at),
                    json.dumps(iv.config, sort_keys=True),
                ),
            )
            for position, answer in enumerate(iv.answers):
                insert_answer(conn, iv.id, position, answer)
        conn.executemany(
            "INSERT INTO settings (key, value) VALUES (?, ?)",
            [(k, json.dumps(v)) for k, v in settings.items()],
        )
