"""Provides what progress files need from the database: every row streamed out, and a progress file's rows
bulk-loaded into a fresh database file that then takes the old one's place in one rename.

The file format itself (quizapp.progress) never sees a connection: it gets rows and records and hands rows
back.
"""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
import tempfile
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from types import TracebackType
from typing import Any

from quizapp.errors import QuizappError
from quizapp.store.cards import card_rows
from quizapp.store.connection import connect
from quizapp.store.database import Store
from quizapp.store.interviews import InterviewAnswer, InterviewRecord, load_interview
from quizapp.store.migrations import drop_tally_triggers, install_tallies, migrate
from quizapp.store.reviews import review_rows
from quizapp.store.times import to_us

__all__ = ["FreshDatabase", "InterviewRows", "card_rows", "has_progress", "interviews", "review_rows"]

CARD_COLUMNS = 14
REVIEW_COLUMNS = 15
CACHE_KIB = 64 * 1024
"""Page cache of the fresh file while it is loaded (64 MiB): index builds sort in memory."""


@dataclass(frozen=True)
class InterviewRows:
    """One saved interview as a progress file carries it."""

    id: int
    started_at: datetime
    finished_at: datetime | None
    config: Mapping[str, Any]
    answers: tuple[InterviewAnswer, ...]


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


@contextlib.contextmanager
def _explained(store: Store) -> Iterator[None]:
    """SQLite's and the system's errors while importing, in the user's words (a full disk, a read-only
    folder), naming the database; nothing of the store's own file has changed at that point."""
    try:
        yield
    except sqlite3.Error as exc:
        raise store._explain(exc) from exc
    except OSError as exc:
        raise QuizappError(f"Cannot import into {store.path}: {exc.strerror or exc}") from exc


class FreshDatabase:
    """A new database file beside `store`'s, with the same schema, that a progress file is loaded into.

    It is written with no journal and no syncs, and its indexes are built once at the end (sorting all
    rows at once is several times faster than growing each index a row at a time): nothing in it matters
    until `install` syncs it and renames it over the store's file. Leaving the `with` block without
    installing deletes it, so a refused file changes nothing.
    """

    def __init__(self, store: Store) -> None:
        self.store = store
        self._closed = True
        with _explained(store):
            # an unguessable name, created exclusively: a planted file or link is never written through
            fd, name = tempfile.mkstemp(prefix=f".{store.path.name}.importing-", dir=store.path.parent)
            os.close(fd)
        self.path = Path(name)
        try:
            with _explained(store):
                self.conn = connect(self.path, isolation_level=None)
                self._closed = False
                self._create()
        except BaseException:
            self.discard()  # no half-made file is left beside the database
            raise

    def _create(self) -> None:
        self.conn.execute("PRAGMA journal_mode = OFF")
        self.conn.execute("PRAGMA synchronous = OFF")
        self.conn.execute(f"PRAGMA cache_size = -{CACHE_KIB}")
        # No lookup of each review's card as it is inserted: every review was checked to have its card
        # (quizapp.progress.record_checks), and install checks the whole table again in one query.
        self.conn.execute("PRAGMA foreign_keys = OFF")
        migrate(self.conn)
        self.conn.execute("BEGIN")  # one transaction: indexes dropped, rows loaded, indexes built (install)
        self._indexes = [
            sql
            for (sql,) in self.conn.execute(
                "SELECT sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL ORDER BY name"
            )
        ]
        for (name,) in self.conn.execute(
            "SELECT name FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL"
        ).fetchall():
            self.conn.execute(f'DROP INDEX "{name}"')
        drop_tally_triggers(self.conn)  # the tallies are counted once at the end, not per review

    def add_cards(self, rows: Iterable[Sequence[Any]]) -> None:
        """Card rows in the cards table's column order (quizapp.store.cards)."""
        with _explained(self.store):
            self.conn.executemany(f"INSERT INTO cards VALUES ({', '.join('?' * CARD_COLUMNS)})", rows)

    def add_reviews(self, rows: Iterable[Sequence[Any]]) -> None:
        """Review rows in the reviews table's column order (quizapp.store.reviews)."""
        with _explained(self.store):
            self.conn.executemany(f"INSERT INTO reviews VALUES ({', '.join('?' * REVIEW_COLUMNS)})", rows)

    def add_interview(self, interview: InterviewRows) -> None:
        finished = None if interview.finished_at is None else to_us(interview.finished_at)
        self.conn.execute(
            "INSERT INTO interviews (id, started_us, finished_us, config) VALUES (?, ?, ?, ?)",
            (
                interview.id,
                to_us(interview.started_at),
                finished,
                json.dumps(interview.config, sort_keys=True),
            ),
        )
        self.conn.executemany(
            "INSERT INTO interview_answers (interview_id, position, question_id, deck_id, seed, prompt,"
            " answer, correct, expected, diagnosis, diagnosis_id, seconds, skipped, flagged)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [
                (interview.id, position, a.question_id, a.deck_id, a.seed, a.prompt, a.answer,
                 int(a.correct), a.expected, a.diagnosis, a.diagnosis_id, a.seconds, int(a.skipped),
                 int(a.flagged))
                for position, a in enumerate(interview.answers)
            ],
        )  # fmt: skip

    def add_settings(self, settings: Mapping[str, Any]) -> None:
        self.conn.executemany(
            "INSERT INTO settings (key, value) VALUES (?, ?)",
            [(k, json.dumps(v)) for k, v in settings.items()],
        )

    def clear(self) -> None:
        """Empties every table again (a file whose first reading stopped half-way is read afresh)."""
        for table in ("interview_answers", "interviews", "reviews", "cards", "settings"):
            self.conn.execute(f"DELETE FROM {table}")

    def install(self, keep: Path | None) -> None:
        """Builds the indexes, checks every review has its card, syncs the file to disk and puts it in
        place of the store's database (the store then reads the new one); with `keep`, the replaced
        database stays at that path."""
        with _explained(self.store):
            self._install(keep)

    def _install(self, keep: Path | None) -> None:
        for sql in self._indexes:
            self.conn.execute(sql)
        install_tallies(self.conn)
        orphan = self.conn.execute(
            "SELECT id, question_id FROM reviews WHERE question_id NOT IN (SELECT question_id FROM cards)"
            " LIMIT 1"
        ).fetchone()
        if orphan is not None:
            raise ValueError(f"review {orphan[0]} is for {orphan[1]!r}, which has no card")
        self.conn.execute("COMMIT")
        self.conn.execute("PRAGMA journal_mode = DELETE")
        self.conn.close()
        self._closed = True
        with open(self.path, "rb+") as fh:
            os.fsync(fh.fileno())
        self.store.replace_file(self.path, keep=keep)

    def discard(self) -> None:
        if not self._closed:
            self._closed = True
            self.conn.close()
        with contextlib.suppress(OSError):
            self.path.unlink(missing_ok=True)

    def __enter__(self) -> FreshDatabase:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.discard()
