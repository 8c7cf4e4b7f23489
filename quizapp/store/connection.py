"""Provides the connection a progress database is used through: trusted_schema off, foreign triggers and views
dropped, WAL and durable commits on, migrated, and a write tried before the first answer needs one.

A file may be someone else's (`--db`, a backup), so connecting reads before it writes: a file from a newer
quizapp is refused before anything could change it, and a trigger quizapp did not make is removed before any
write could set it off.
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path
from typing import Any

from quizapp.errors import QuizappError
from quizapp.store.migrations import (
    SCHEMA_VERSION,
    TALLY_TRIGGER_NAMES,
    TALLY_TRIGGERS,
    NewerSchemaError,
    migrate,
    schema_version,
)
from quizapp.store.sqlite_errors import newer_schema, unreadable_or_error
from quizapp.terminal_text import terminal_text

BUSY_TIMEOUT_S = 10.0
"""How long a writer waits for another process's transaction before giving up."""


def connect(file: str | os.PathLike[str], **options: Any) -> sqlite3.Connection:
    """sqlite3.connect with `trusted_schema` off, set before anything is read: a file may be someone
    else's (`--db`, a backup), and its schema (a view, a trigger, a CHECK, an index on an expression) then
    may not call any SQL function that has side effects."""
    conn: sqlite3.Connection = sqlite3.connect(file, **options)
    try:
        conn.execute("PRAGMA trusted_schema = OFF")
    except BaseException:
        conn.close()
        raise
    return conn


OUR_TRIGGERS: dict[str, str] = dict(zip(TALLY_TRIGGER_NAMES, TALLY_TRIGGERS, strict=True))
"""Every trigger (and view: none) a migration makes, by name, with the SQL SQLite keeps for it. Any other
one in a file was put there by someone else: a trigger runs on every write quizapp makes (one deleted each
new review while the app said "saved"), so it is removed before anything is written, and the user told.
A migration that adds a trigger or a view adds it here (tests/test_store_migrate.py checks)."""


def connect_and_migrate(file: Path, stripped: list[str] | None = None) -> sqlite3.Connection:
    """The connection, configured and migrated; the foreign triggers and views it removed are added
    to `stripped` (a phrase each)."""
    try:
        conn = connect(file, timeout=BUSY_TIMEOUT_S, isolation_level=None, check_same_thread=False)
    except sqlite3.Error as exc:
        raise QuizappError(f"Cannot open the progress database {file}: {exc}") from exc
    try:
        _configure(conn, file, [] if stripped is None else stripped)
    except BaseException:
        conn.close()
        raise
    return conn


def _configure(conn: sqlite3.Connection, file: Path, stripped: list[str]) -> None:
    """Reads before it writes: a newer file is refused before WAL mode or a migration could change it, and
    a trigger or view that is not ours is dropped before any write could set it off."""
    try:
        found = schema_version(conn)
        conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
    except sqlite3.DatabaseError as exc:
        raise unreadable_or_error(exc, file) from exc
    if found > SCHEMA_VERSION:
        raise newer_schema(file, found)
    try:
        conn.execute(f"PRAGMA busy_timeout = {int(BUSY_TIMEOUT_S * 1000)}")
        stripped.extend(_strip_foreign_schema(conn))
        conn.execute("PRAGMA journal_mode = WAL")
        conn.execute("PRAGMA synchronous = FULL")
        conn.execute("PRAGMA foreign_keys = ON")
        migrate(conn)
        _probe_write(conn)
    except NewerSchemaError as exc:
        raise newer_schema(file, exc.found) from exc
    except sqlite3.DatabaseError as exc:
        text = str(exc)
        if "readonly" in text or "unable to open" in text:
            raise QuizappError(
                f"The progress database {file} is read-only, so no answer could be saved; make it "
                f"writable (chmod u+w {file}) or pass --db with another file."
            ) from exc
        raise unreadable_or_error(exc, file) from exc


def _foreign_schema(conn: sqlite3.Connection) -> list[tuple[str, str]]:
    """(type, name) of each trigger and view in the file that is not one of OUR_TRIGGERS, word for word."""
    rows = conn.execute("SELECT type, name, sql FROM sqlite_master WHERE type IN ('trigger', 'view')")
    return [(str(kind), str(name)) for kind, name, sql in rows if OUR_TRIGGERS.get(name) != sql]


def _strip_foreign_schema(conn: sqlite3.Connection) -> list[str]:
    """Drops every foreign trigger and view, in one transaction (before WAL mode and the migrations, so
    nothing has been written that one could have changed); returns what it dropped, a phrase each."""
    if not _foreign_schema(conn):  # the usual case: one read of sqlite_master
        return []
    conn.execute("BEGIN IMMEDIATE")
    try:
        foreign = _foreign_schema(conn)  # again under the write lock
        for kind, name in foreign:
            quoted = name.replace('"', '""')
            conn.execute(f'DROP {"TRIGGER" if kind == "trigger" else "VIEW"} IF EXISTS "{quoted}"')
        conn.execute("COMMIT")
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise
    return [f"{kind} {name!r}" for kind, name in foreign]


def removed_notice(file: Path, stripped: list[str]) -> str:
    """The user's notice of the foreign triggers and views connecting removed (`stripped`, a phrase each)."""
    what = ", ".join(terminal_text(s) for s in stripped[:5]) + (
        f" and {len(stripped) - 5} more" if len(stripped) > 5 else ""
    )
    return (
        f"The progress database {file} held {len(stripped)} trigger(s) or view(s) quizapp did not make "
        f"({what}); they were removed before quizapp wrote anything: one could change or delete what "
        'quizapp saves while it says "saved".'
    )


def _probe_write(conn: sqlite3.Connection) -> None:
    """A write rolled back at once: a read-only file (its mode, an immutable flag, a read-only mount) is
    found at start, not at the first answer, which would then be lost. Nothing is committed."""
    version = schema_version(conn)
    conn.execute("BEGIN")
    try:
        conn.execute(f"PRAGMA user_version = {int(version)}")
    finally:
        conn.execute("ROLLBACK")
