"""Provides the review log: every answer the user gave, in every mode, kept forever.

Rows are only ever inserted (and replaced wholesale by a progress import), so the log is the user's
history even for questions that have since been removed from the content.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal, get_args

from fsrs import State

from quizapp.errors import QuizappError
from quizapp.store.database import Store
from quizapp.store.times import from_us, to_us
from quizapp.terminal_text import terminal_text

ReviewMode = Literal["study", "drill", "cram", "interview"]
REVIEW_MODES: tuple[str, ...] = get_args(ReviewMode)


@dataclass(frozen=True)
class ReviewRecord:
    """One logged answer. `state_before` is the card's FSRS state when answered (None: it was new);
    `scheduled` says whether this answer moved the card's schedule (drill and cram never do)."""

    id: int
    question_id: str
    deck_id: str
    reviewed_at: datetime
    seed: int
    answer: str
    correct: bool
    rating: int
    duration_ms: int
    diagnosis: str | None
    diagnosis_id: str | None
    mode: ReviewMode
    state_before: State | None
    scheduled: bool
    points: str | None = None
    """An explain answer's key points (POINT_CODES), a letter each in order; None for any other answer."""


POINT_CODES = "cmxCMX"
"""The letters of `points`: c covered, m missing, x contradicted (the grader's reading of the point),
upper-case when the learner's final tick says covered ("CmX": the first covered and ticked, the second
missing and not ticked, the third contradicted but ticked). The reviews table's CHECK holds it to these."""
MAX_POINTS = 64
"""The most key points `points` keeps (a deck allows six)."""
DISAGREEMENT_GLOB = "*[MXc]*"
"""`points` GLOB this: the learner and the grader disagree on a point; ticked though the grader found it
missing or contradicted (M, X), or credited by the grader and unticked (c). Indexed (migration 4)."""
_POINTS = re.compile(f"[{POINT_CODES}]{{1,{MAX_POINTS}}}")


def check_points(points: str | None) -> str | None:
    """`points` if it is None or a POINT_CODES code, else QuizappError saying what one looks like."""
    if points is not None and _POINTS.fullmatch(points) is None:
        raise QuizappError(
            f"Key points are saved as 1 to {MAX_POINTS} of the letters {POINT_CODES}, got {points[:80]!r}."
        )
    return points


def check_mode(mode: str) -> ReviewMode:
    """The mode, or QuizappError listing the valid ones."""
    if mode not in REVIEW_MODES:
        raise QuizappError(f"Unknown review mode {mode!r}; expected one of {', '.join(REVIEW_MODES)}.")
    return mode  # type: ignore[return-value]


_COLUMNS = (
    "id, question_id, deck_id, reviewed_us, seed, answer, correct, rating, duration_ms, diagnosis,"
    " diagnosis_id, mode, state_before, scheduled, points"
)


def insert_review(conn: sqlite3.Connection, review: ReviewRecord) -> int:
    """Inserts one review inside the caller's transaction; id 0 means "assign the next id"."""
    cursor = conn.execute(
        f"INSERT INTO reviews ({_COLUMNS}) VALUES ({', '.join('?' * 15)})",
        (
            review.id or None,
            review.question_id,
            review.deck_id,
            to_us(review.reviewed_at),
            review.seed,
            review.answer,
            int(review.correct),
            int(review.rating),
            int(review.duration_ms),
            review.diagnosis,
            review.diagnosis_id,
            check_mode(review.mode),
            None if review.state_before is None else int(review.state_before),
            int(review.scheduled),
            check_points(review.points),
        ),
    )
    assert cursor.lastrowid is not None
    return cursor.lastrowid


def delete_review(conn: sqlite3.Connection, review_id: int) -> bool:
    """Removes one review row (inside the caller's transaction); False if there was none."""
    return conn.execute("DELETE FROM reviews WHERE id = ?", (review_id,)).rowcount == 1


def _record(row: Any) -> ReviewRecord:
    """A row as a record, its text passed through terminal_text: a `--db` may be someone else's file."""
    (rid, qid, deck, at, seed, answer, correct, rating, dur, diag, diag_id, mode, before, sched, points) = (
        tuple(row)
    )
    return ReviewRecord(
        id=rid,
        question_id=terminal_text(qid),
        deck_id=terminal_text(deck),
        reviewed_at=from_us(at),
        seed=seed,
        answer=terminal_text(answer),
        correct=bool(correct),
        rating=rating,
        duration_ms=dur,
        diagnosis=None if diag is None else terminal_text(diag),
        diagnosis_id=None if diag_id is None else terminal_text(diag_id),
        mode=mode,
        state_before=None if before is None else State(before),
        scheduled=bool(sched),
        points=None if points is None else terminal_text(points),
    )


def reviews_for(store: Store, question_id: str) -> tuple[ReviewRecord, ...]:
    """A question's reviews, oldest first (uses reviews_by_card)."""
    rows = store.conn.execute(
        f"SELECT {_COLUMNS} FROM reviews WHERE question_id = ? ORDER BY reviewed_us, id", (question_id,)
    )
    return tuple(_record(r) for r in rows)


def get_review(store: Store, review_id: int) -> ReviewRecord | None:
    row = store.conn.execute(f"SELECT {_COLUMNS} FROM reviews WHERE id = ?", (review_id,)).fetchone()
    return None if row is None else _record(row)


def iter_reviews(conn: sqlite3.Connection) -> Iterator[ReviewRecord]:
    """Every review in id order, streamed (export of a long history)."""
    for row in conn.execute(f"SELECT {_COLUMNS} FROM reviews ORDER BY id"):
        yield _record(row)


def review_rows(store: Store) -> Iterator[tuple[Any, ...]]:
    """Every review as a row (the columns of the reviews table, in order), in id order, streamed."""
    return store.conn.execute(f"SELECT {_COLUMNS} FROM reviews ORDER BY id")


def review_count(store: Store) -> int:
    return int(store.conn.execute("SELECT count(*) FROM reviews").fetchone()[0])


def seeds_used(store: Store, question_id: str) -> frozenset[int]:
    """The seeds this question was already shown with, so a fresh instance can avoid them."""
    rows = store.conn.execute("SELECT DISTINCT seed FROM reviews WHERE question_id = ?", (question_id,))
    return frozenset(int(r[0]) for r in rows)


def answered_before(store: Store, question_id: str) -> bool:
    """Whether any answer to the question was ever logged, in any mode (one row of reviews_by_card)."""
    row = store.conn.execute("SELECT 1 FROM reviews WHERE question_id = ? LIMIT 1", (question_id,))
    return row.fetchone() is not None


def missed_since(store: Store, question_id: str, since: datetime) -> bool:
    """Whether a wrong answer to the question was logged at or after `since`, in any mode (an interview's
    miss counts): a right answer minutes later is then never suggested Easy."""
    row = store.conn.execute(
        "SELECT 1 FROM reviews WHERE question_id = ? AND reviewed_us >= ? AND correct = 0 LIMIT 1",
        (question_id, to_us(since)),
    )
    return row.fetchone() is not None


def reviewed_between(store: Store, start: datetime, end: datetime) -> int:
    """How many answers were logged in [start, end), in any mode (session bar, home screen)."""
    row = store.conn.execute(
        "SELECT count(*) FROM reviews WHERE reviewed_us >= ? AND reviewed_us < ?", (to_us(start), to_us(end))
    ).fetchone()
    return int(row[0])
