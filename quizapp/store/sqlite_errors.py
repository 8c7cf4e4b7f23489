"""Provides the user's words for what SQLite reports: a full disk, a damaged page, a newer quizapp's file.

SQLite's own messages ("disk I/O error", "database disk image is malformed") say nothing of what to do; these
say what happened to the user's progress (nothing was lost) and what to try. A file SQLite calls corrupt at
open is told apart (Unreadable) so that opening can move it aside instead.
"""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

from quizapp.errors import QuizappError
from quizapp.paths import backups_dir, db_path
from quizapp.store.migrations import SCHEMA_VERSION

SQLITE_FULL, SQLITE_IOERR = 13, 10
MIN_FREE_BYTES = 1 << 20
"""An I/O error with less than this free on the disk is reported as a full disk."""

_CORRUPT_CODES = (11, 26)  # SQLITE_CORRUPT, SQLITE_NOTADB: the file's content is bad, not the disk or a lock


class Unreadable(Exception):
    """SQLite says the file is not a database, or its pages are damaged."""


def disk_full(exc: sqlite3.Error, file: Path) -> QuizappError | None:
    """The user's words for a full disk: SQLite says so (SQLITE_FULL), or an I/O error on a disk with
    almost no free space (creating the -wal file on a full disk gives "disk I/O error")."""
    code = (getattr(exc, "sqlite_errorcode", None) or 0) & 0xFF
    if code not in (SQLITE_FULL, SQLITE_IOERR):
        return None
    try:
        free = shutil.disk_usage(file.parent).free
    except OSError:
        free = None
    if code == SQLITE_IOERR and (free is None or free >= MIN_FREE_BYTES):
        return None
    room = "" if free is None else f" ({free:,} bytes free)"
    return QuizappError(
        f"The disk holding {file} is full{room}; free some space and try again. Nothing was lost: "
        "what was saved before is still there."
    )


def unreadable_or_error(exc: sqlite3.DatabaseError, file: Path) -> Exception:
    """Only a file SQLite calls corrupt or not-a-database is moved aside; an I/O error or a lock is reported
    and the file left where it is."""
    code = getattr(exc, "sqlite_errorcode", None)
    if code is not None and code & 0xFF in _CORRUPT_CODES:
        return Unreadable(str(exc))
    if "locked" in str(exc) or "busy" in str(exc):
        return QuizappError(f"The progress database {file} is locked by another program; try again.")
    return disk_full(exc, file) or QuizappError(f"Cannot open the progress database {file}: {exc}")


def from_the_store(exc: BaseException) -> bool:
    """True for an error SQLite raised: after the app closed the store on its way out, a worker still
    reading meets one, and nothing is lost."""
    return isinstance(exc, sqlite3.Error)


def damaged(exc: BaseException, file: Path | None = None) -> QuizappError | None:
    """The user's words for a page SQLite finds damaged while the app runs (not at open, where the file is
    moved aside): where the backups are and how to restore one. None: not that."""
    code = getattr(exc, "sqlite_errorcode", None)
    corrupt = code is not None and code & 0xFF in _CORRUPT_CODES
    if not isinstance(exc, sqlite3.DatabaseError) or not (corrupt or "malformed" in str(exc)):
        return None
    where = file or db_path()
    return QuizappError(
        f"The progress database {where} is damaged ({exc}). Daily copies are in {backups_dir()}: restore "
        "the newest with `quizapp --db BACKUP.db export progress restore.json`, then `quizapp import "
        "progress restore.json` (or `quizapp import progress` a file you exported). Nothing was changed."
    )


def newer_schema(file: Path, found: int) -> QuizappError:
    """The refusal of a file a newer quizapp wrote: it is left untouched."""
    return QuizappError(
        f"The progress database {file} was written by a newer quizapp (schema version {found}; this "
        f"version understands up to {SCHEMA_VERSION}). Update quizapp to use it; the file was left untouched."
    )
