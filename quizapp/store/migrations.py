"""Provides the schema as a list of forward migrations; PRAGMA user_version counts how many have run.

Never edit a migration that has shipped: add a new function to MIGRATIONS instead. Each runs inside the
caller's write transaction, so a crash half-way leaves the previous version intact.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable

Migration = Callable[[sqlite3.Connection], None]


def _v1_initial_schema(conn: sqlite3.Connection) -> None:
    """Cards, reviews, interviews, settings, and the indexes the queues and stats rely on."""
    statements = (
        # One row per question ever seen. due_us IS NULL means "new": never scheduled by FSRS.
        # Times are UTC microseconds since the epoch (quizapp.store.times).
        """CREATE TABLE cards (
            question_id    TEXT PRIMARY KEY,
            card_id        INTEGER NOT NULL UNIQUE,
            deck_id        TEXT NOT NULL,
            state          INTEGER NOT NULL CHECK (state IN (1, 2, 3)),
            step           INTEGER,
            stability      REAL,
            difficulty     REAL,
            due_us         INTEGER,
            last_review_us INTEGER,
            introduced_us  INTEGER,
            reps           INTEGER NOT NULL DEFAULT 0,
            lapses         INTEGER NOT NULL DEFAULT 0,
            suspended      INTEGER NOT NULL DEFAULT 0 CHECK (suspended IN (0, 1)),
            flagged        INTEGER NOT NULL DEFAULT 0 CHECK (flagged IN (0, 1))
        ) WITHOUT ROWID""",
        # WITHOUT ROWID: secondary indexes carry question_id, so the next-card query never leaves the index.
        "CREATE INDEX cards_by_due ON cards (due_us, suspended) WHERE due_us IS NOT NULL",
        "CREATE INDEX cards_by_introduced ON cards (introduced_us) WHERE introduced_us IS NOT NULL",
        "CREATE INDEX cards_by_deck ON cards (deck_id, state, stability)",
        """CREATE TABLE reviews (
            id            INTEGER PRIMARY KEY,
            question_id   TEXT NOT NULL REFERENCES cards (question_id),
            deck_id       TEXT NOT NULL,
            reviewed_us   INTEGER NOT NULL,
            seed          INTEGER NOT NULL,
            answer        TEXT NOT NULL,
            correct       INTEGER NOT NULL CHECK (correct IN (0, 1)),
            rating        INTEGER NOT NULL CHECK (rating BETWEEN 1 AND 4),
            duration_ms   INTEGER NOT NULL CHECK (duration_ms >= 0),
            diagnosis     TEXT,
            diagnosis_id  TEXT,
            mode          TEXT NOT NULL CHECK (mode IN ('study', 'drill', 'cram', 'interview')),
            state_before  INTEGER CHECK (state_before IN (1, 2, 3)),
            scheduled     INTEGER NOT NULL CHECK (scheduled IN (0, 1))
        )""",
        # Covering indexes: the calendar and time spent read (reviewed_us, duration_ms) only; true
        # retention reads (deck_id, rating) of scheduled reviews of cards that were in review state.
        "CREATE INDEX reviews_by_time ON reviews (reviewed_us, duration_ms)",
        "CREATE INDEX reviews_by_card ON reviews (question_id, reviewed_us)",
        "CREATE INDEX reviews_for_retention ON reviews (deck_id, rating, scheduled, state_before)"
        " WHERE scheduled = 1 AND state_before = 2",
        "CREATE INDEX reviews_by_diagnosis ON reviews (diagnosis_id, question_id)"
        " WHERE diagnosis_id IS NOT NULL",
        """CREATE TABLE interviews (
            id          INTEGER PRIMARY KEY,
            started_us  INTEGER NOT NULL,
            finished_us INTEGER,
            config      TEXT NOT NULL
        )""",
        """CREATE TABLE interview_answers (
            interview_id INTEGER NOT NULL REFERENCES interviews (id) ON DELETE CASCADE,
            position     INTEGER NOT NULL,
            question_id  TEXT NOT NULL,
            deck_id      TEXT NOT NULL,
            seed         INTEGER NOT NULL,
            prompt       TEXT NOT NULL,
            answer       TEXT NOT NULL,
            correct      INTEGER NOT NULL CHECK (correct IN (0, 1)),
            expected     TEXT NOT NULL,
            diagnosis    TEXT,
            diagnosis_id TEXT,
            seconds      REAL NOT NULL,
            skipped      INTEGER NOT NULL CHECK (skipped IN (0, 1)),
            flagged      INTEGER NOT NULL CHECK (flagged IN (0, 1)),
            PRIMARY KEY (interview_id, position)
        )""",
        "CREATE TABLE settings (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
    )
    for sql in statements:
        conn.execute(sql)


def _v2_deck_overview_index(conn: sqlite3.Connection) -> None:
    """A covering index for the home overview: one scan of it counts every deck's scheduled, due,
    in-review and mastered cards (a GROUP BY over 100k cards in milliseconds, no table lookups)."""
    conn.execute("CREATE INDEX cards_overview ON cards (deck_id, due_us, suspended, state, stability)")


QUARTER_US = 900_000_000
"""The review tally counts reviews per quarter hour (UTC microseconds): every time zone's midnight falls on
a quarter hour, so a local day is a range of whole quarters."""

_QUARTER = "(CASE WHEN {t} >= 0 THEN {t} / 900000000 ELSE ({t} - 899999999) / 900000000 END)"
"""The quarter hour of a time in SQL: floor division (SQLite's `/` truncates towards zero)."""

_TALLY_ADD = (
    "INSERT INTO review_tally (quarter, reviews, ms) VALUES ({q}, 1, {r}.duration_ms)"
    " ON CONFLICT (quarter) DO UPDATE SET reviews = reviews + 1, ms = ms + excluded.ms;"
    " INSERT INTO retention_tally (deck_id, passed, total)"
    " SELECT {r}.deck_id, {r}.rating > 1, 1 WHERE {r}.scheduled = 1 AND {r}.state_before = 2"
    " ON CONFLICT (deck_id) DO UPDATE SET passed = passed + excluded.passed, total = total + 1;"
)
_TALLY_TAKE = (
    "UPDATE review_tally SET reviews = reviews - 1, ms = ms - {r}.duration_ms WHERE quarter = {q};"
    " UPDATE retention_tally SET passed = passed - ({r}.rating > 1), total = total - 1"
    " WHERE deck_id = {r}.deck_id AND {r}.scheduled = 1 AND {r}.state_before = 2;"
)
TALLY_TRIGGERS = (
    "CREATE TRIGGER reviews_tally_insert AFTER INSERT ON reviews BEGIN "
    + _TALLY_ADD.format(q=_QUARTER.format(t="NEW.reviewed_us"), r="NEW")
    + " END",
    "CREATE TRIGGER reviews_tally_delete AFTER DELETE ON reviews BEGIN "
    + _TALLY_TAKE.format(q=_QUARTER.format(t="OLD.reviewed_us"), r="OLD")
    + " END",
    "CREATE TRIGGER reviews_tally_update AFTER UPDATE ON reviews BEGIN "
    + _TALLY_TAKE.format(q=_QUARTER.format(t="OLD.reviewed_us"), r="OLD")
    + " "
    + _TALLY_ADD.format(q=_QUARTER.format(t="NEW.reviewed_us"), r="NEW")
    + " END",
)
"""Keep the tallies equal to what the reviews table holds, whatever writes it (undo deletes a review)."""


def refill_tallies(conn: sqlite3.Connection) -> None:
    """Counts the tallies afresh from the reviews table (after a migration or a bulk import)."""
    conn.execute("DELETE FROM review_tally")
    conn.execute("DELETE FROM retention_tally")
    conn.execute(
        "INSERT INTO review_tally (quarter, reviews, ms)"
        f" SELECT {_QUARTER.format(t='reviewed_us')}, count(*), sum(duration_ms) FROM reviews GROUP BY 1"
    )
    conn.execute(
        "INSERT INTO retention_tally (deck_id, passed, total) SELECT deck_id, sum(rating > 1), count(*)"
        " FROM reviews WHERE scheduled = 1 AND state_before = 2 GROUP BY deck_id"
    )


TALLY_TRIGGER_NAMES = tuple(sql.split()[2] for sql in TALLY_TRIGGERS)


def drop_tally_triggers(conn: sqlite3.Connection) -> None:
    """Stops keeping the tallies (a bulk import counts them once at the end instead)."""
    for name in TALLY_TRIGGER_NAMES:
        conn.execute(f'DROP TRIGGER IF EXISTS "{name}"')


def install_tallies(conn: sqlite3.Connection) -> None:
    """(Re)creates the tally triggers and counts the tallies afresh from the reviews."""
    drop_tally_triggers(conn)
    for sql in TALLY_TRIGGERS:
        conn.execute(sql)
    refill_tallies(conn)


def _tallies_kept(conn: sqlite3.Connection) -> bool:
    """Whether every tally trigger is there (another tool may have dropped one: the stats would go stale)."""
    marks = ", ".join("?" * len(TALLY_TRIGGER_NAMES))
    (present,) = conn.execute(
        f"SELECT count(*) FROM sqlite_master WHERE type = 'trigger' AND name IN ({marks})",
        TALLY_TRIGGER_NAMES,
    ).fetchone()
    return bool(present == len(TALLY_TRIGGER_NAMES))


def _v3_review_tallies(conn: sqlite3.Connection) -> None:
    """Running totals the stats screen reads instead of a million reviews: reviews and time per quarter hour
    (the calendar and the time spent), and true retention per deck. Triggers keep them current."""
    conn.execute(
        "CREATE TABLE review_tally"
        " (quarter INTEGER PRIMARY KEY, reviews INTEGER NOT NULL, ms INTEGER NOT NULL)"
    )
    conn.execute(
        "CREATE TABLE retention_tally (deck_id TEXT PRIMARY KEY, passed INTEGER NOT NULL,"
        " total INTEGER NOT NULL) WITHOUT ROWID"
    )
    install_tallies(conn)


def _v4_review_points(conn: sqlite3.Connection) -> None:
    """Explain reviews keep what the grader read of each key point and the learner's final tick, a letter
    per point (quizapp.store.reviews.POINT_CODES; NULL for every other review and every earlier one), and a
    partial covering index holds only the reviews with a disagreement, which the stats list."""
    conn.execute(
        "ALTER TABLE reviews ADD COLUMN points TEXT CHECK (points IS NULL OR"
        " (length(points) BETWEEN 1 AND 64 AND points NOT GLOB '*[^cmxCMX]*'))"
    )
    conn.execute(
        "CREATE INDEX reviews_point_disagreements ON reviews (question_id, points)"
        " WHERE points GLOB '*[MXc]*'"
    )


MIGRATIONS: tuple[Migration, ...] = (
    _v1_initial_schema,
    _v2_deck_overview_index,
    _v3_review_tallies,
    _v4_review_points,
)
"""Migration i (0-based) takes the schema from version i to version i + 1."""

SCHEMA_VERSION = len(MIGRATIONS)


class NewerSchemaError(Exception):
    """The file was written by a newer quizapp; this version must not touch it."""

    def __init__(self, found: int) -> None:
        super().__init__(f"schema version {found} is newer than {SCHEMA_VERSION}")
        self.found = found


def schema_version(conn: sqlite3.Connection) -> int:
    """The version recorded in the file (0 for a brand-new file)."""
    row = conn.execute("PRAGMA user_version").fetchone()
    return int(row[0])


def migrate(conn: sqlite3.Connection) -> int:
    """Brings the schema up to SCHEMA_VERSION in one write transaction; returns the migrations applied.

    The version is read again after taking the write lock, so two processes opening a fresh file at the
    same moment do not both create the tables.
    """
    found = schema_version(conn)
    if found > SCHEMA_VERSION:
        raise NewerSchemaError(found)
    if found == SCHEMA_VERSION and _tallies_kept(conn):
        return 0
    conn.execute("BEGIN IMMEDIATE")
    try:
        start = schema_version(conn)
        if start > SCHEMA_VERSION:
            raise NewerSchemaError(start)
        for migration in MIGRATIONS[start:]:
            migration(conn)
        if start == SCHEMA_VERSION:  # up to date, but a tally trigger was dropped by another tool
            install_tallies(conn)
        conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION:d}")
        conn.execute("COMMIT")
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise
    return SCHEMA_VERSION - start
