"""Provides saved mock interviews: the set-up, each answer as it is given, and the finished report.

Each answer is committed as soon as it is given, so an interview cut short by a crash can still be
reopened with everything answered up to that point.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass, replace
from datetime import datetime

from quizapp.errors import QuizappError
from quizapp.records.interviews import InterviewConfig, InterviewSummary
from quizapp.store.database import Store
from quizapp.store.times import from_us, to_us
from quizapp.terminal_text import terminal_text


@dataclass(frozen=True)
class InterviewAnswer:
    """One question of a mock interview as the report shows it."""

    question_id: str
    deck_id: str
    seed: int
    prompt: str
    answer: str
    correct: bool
    expected: str
    diagnosis: str | None = None
    diagnosis_id: str | None = None
    seconds: float = 0.0
    skipped: bool = False
    flagged: bool = False


@dataclass(frozen=True)
class InterviewRecord:
    """A saved interview: set-up, times, and the answers in the order asked."""

    id: int
    config: InterviewConfig
    started_at: datetime
    finished_at: datetime | None
    answers: tuple[InterviewAnswer, ...]

    @property
    def score(self) -> int:
        return sum(a.correct for a in self.answers)


def start_interview(store: Store, config: InterviewConfig, *, now: datetime) -> int:
    """Saves the set-up and returns the new interview's id."""
    with store.transaction() as conn:
        cursor = conn.execute(
            "INSERT INTO interviews (started_us, config) VALUES (?, ?)", (to_us(now), config.to_json())
        )
    assert cursor.lastrowid is not None
    return cursor.lastrowid


def add_interview_answer(store: Store, interview_id: int, answer: InterviewAnswer) -> int:
    """Appends (and commits) one answer; returns its 0-based position."""
    with store.transaction() as conn:
        if conn.execute("SELECT 1 FROM interviews WHERE id = ?", (interview_id,)).fetchone() is None:
            raise QuizappError(f"There is no saved interview {interview_id}.")
        row = conn.execute(
            "SELECT coalesce(max(position) + 1, 0) FROM interview_answers WHERE interview_id = ?",
            (interview_id,),
        ).fetchone()
        position = int(row[0])
        insert_answer(conn, interview_id, position, answer)
    return position


def insert_answer(conn: sqlite3.Connection, interview_id: int, position: int, a: InterviewAnswer) -> None:
    conn.execute(
        "INSERT INTO interview_answers (interview_id, position, question_id, deck_id, seed, prompt, answer,"
        " correct, expected, diagnosis, diagnosis_id, seconds, skipped, flagged)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            interview_id,
            position,
            a.question_id,
            a.deck_id,
            a.seed,
            a.prompt,
            a.answer,
            int(a.correct),
            a.expected,
            a.diagnosis,
            a.diagnosis_id,
            float(a.seconds),
            int(a.skipped),
            int(a.flagged),
        ),
    )


def finish_interview(store: Store, interview_id: int, *, now: datetime) -> None:
    """Marks the interview finished (the report is then complete)."""
    with store.transaction() as conn:
        cursor = conn.execute(
            "UPDATE interviews SET finished_us = ? WHERE id = ?", (to_us(now), interview_id)
        )
        if cursor.rowcount != 1:
            raise QuizappError(f"There is no saved interview {interview_id}.")


def load_interview(store: Store, interview_id: int) -> InterviewRecord:
    """A saved interview with all its answers, to reopen its report."""
    row = store.conn.execute(
        "SELECT id, started_us, finished_us, config FROM interviews WHERE id = ?", (interview_id,)
    ).fetchone()
    if row is None:
        raise QuizappError(f"There is no saved interview {interview_id}.")
    answers = store.conn.execute(
        "SELECT question_id, deck_id, seed, prompt, answer, correct, expected, diagnosis, diagnosis_id,"
        " seconds, skipped, flagged FROM interview_answers WHERE interview_id = ? ORDER BY position",
        (interview_id,),
    )
    return InterviewRecord(
        id=row[0],
        config=InterviewConfig.from_json(row[3]),
        started_at=from_us(row[1]),
        finished_at=None if row[2] is None else from_us(row[2]),
        answers=tuple(
            InterviewAnswer(  # text passed through terminal_text: a `--db` may be someone else's file
                question_id=terminal_text(a[0]),
                deck_id=terminal_text(a[1]),
                seed=a[2],
                prompt=terminal_text(a[3]),
                answer=terminal_text(a[4]),
                correct=bool(a[5]),
                expected=terminal_text(a[6]),
                diagnosis=None if a[7] is None else terminal_text(a[7]),
                diagnosis_id=None if a[8] is None else terminal_text(a[8]),
                seconds=a[9],
                skipped=bool(a[10]),
                flagged=bool(a[11]),
            )
            for a in answers
        ),
    )


def list_interviews(store: Store) -> tuple[InterviewSummary, ...]:
    """Past interviews, newest first, for the "reopen a report" list; the counts agree with the report's."""
    rows = store.conn.execute(
        "SELECT i.id, i.started_us, i.finished_us, i.config, count(a.position), coalesce(sum(a.correct), 0),"
        " coalesce(sum(a.skipped), 0), group_concat(CASE WHEN a.skipped = 1 THEN a.position END)"
        " FROM interviews i LEFT JOIN interview_answers a ON a.interview_id = i.id"
        " GROUP BY i.id ORDER BY i.started_us DESC, i.id DESC"
    )
    out = []
    for r in rows:
        config = InterviewConfig.from_json(r[3])
        skipped_at = {int(p) for p in str(r[7]).split(",")} if r[7] else set()
        unscored = set(config.unscored) - skipped_at  # a skipped explain question counts, as wrong
        out.append(
            InterviewSummary(
                id=r[0],
                started_at=from_us(r[1]),
                finished_at=None if r[2] is None else from_us(r[2]),
                answered=int(r[4]) - int(r[6]),
                correct=int(r[5]),
                questions=config.questions,
                skipped=int(r[6]),
                scored=config.questions - len(unscored),
            )
        )
    return tuple(out)


SETUP_KEY = "interview_setup"
"""The settings row holding the last mock-interview set-up, so the form starts from it."""


def save_last_setup(store: Store, config: InterviewConfig) -> None:
    """Remembers a set-up (without its seed and per-run fields) for the next interview's form."""
    kept = replace(config, seed=0, unscored=())
    with store.transaction() as conn:
        conn.execute(
            "INSERT OR REPLACE INTO settings (key, value) VALUES (?, ?)", (SETUP_KEY, kept.to_json())
        )


def last_setup(store: Store) -> InterviewConfig | None:
    """The last set-up saved by save_last_setup, or None (never, or unreadable)."""
    row = store.conn.execute("SELECT value FROM settings WHERE key = ?", (SETUP_KEY,)).fetchone()
    if row is None:
        return None
    try:
        return InterviewConfig.from_json(str(row[0]))
    except (ValueError, TypeError, AttributeError):
        return None
