"""Provides rolling daily backups of the progress database: one copy per day, the last KEEP_DAYS kept.

Before the first write of a (local) calendar day, the store copies the database with SQLite's online
backup API into `backups/progress-YYYY-MM-DD.db`: a consistent snapshot even while another process
writes, read from the live file and never written to it. The copy is made under a temporary name and
renamed, so a half-written backup never looks like a whole one. Once today's copy exists the check is a
stat (and then a remembered date); a copy that fails (full disk, read-only folder) is reported once and
the write goes ahead, because losing today's answer would be worse than missing one backup.

Only the default database in the data folder is backed up automatically: a `--db` file or a test's
temporary database is not, unless a DailyBackup is passed to open_store.
"""

from __future__ import annotations

import contextlib
import os
import re
import sqlite3
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date, datetime
from pathlib import Path

from quizapp.store.database import connect

KEEP_DAYS = 7
"""How many daily copies are kept: the newest ones, so a week away does not delete them all."""
STEM = "progress"
_NAME = re.compile(rf"^{STEM}-(\d{{4}}-\d{{2}}-\d{{2}})\.db$")


def backup_path(folder: Path, day: date) -> Path:
    """The file that holds the copy taken on `day`."""
    return folder / f"{STEM}-{day.isoformat()}.db"


def backup_files(folder: Path) -> list[tuple[date, Path]]:
    """The daily copies in `folder`, oldest first; other files there are not ours and never listed."""
    found: list[tuple[date, Path]] = []
    try:
        entries = list(folder.iterdir())
    except OSError:
        return []
    for path in entries:
        match = _NAME.match(path.name)
        if match is None:
            continue
        try:
            found.append((date.fromisoformat(match.group(1)), path))
        except ValueError:
            continue
    return sorted(found)


def ensure_daily_backup(conn: sqlite3.Connection, folder: Path, today: date, *, keep: int = KEEP_DAYS) -> str:
    """Copies the database behind `conn` to today's file unless it exists, then prunes to `keep` copies.

    Returns "" when all went well, else one line saying what failed (the caller warns; nothing raises)."""
    target = backup_path(folder, today)
    if target.exists():
        return ""
    partial = target.with_name(f".{target.name}.{os.getpid()}-{threading.get_ident()}.partial")
    try:
        folder.mkdir(parents=True, exist_ok=True)
        copy = connect(partial)
        try:
            conn.backup(copy)
            copy.execute("PRAGMA journal_mode = DELETE")  # one self-contained file, ready to copy back
        finally:
            copy.close()
        os.replace(partial, target)
    except (OSError, sqlite3.Error) as exc:
        with contextlib.suppress(OSError):
            partial.unlink(missing_ok=True)
        reason = getattr(exc, "strerror", None) or str(exc)
        return f"Could not back up the progress database to {target}: {reason}. Your progress is still saved."
    return _prune(folder, keep)


def _prune(folder: Path, keep: int) -> str:
    """Deletes all but the newest `keep` daily copies."""
    old = backup_files(folder)[:-keep] if keep > 0 else []
    for _, path in old:
        try:
            path.unlink()
        except OSError as exc:
            return f"Could not delete the old backup {path}: {exc.strerror or exc}."
    return ""


@dataclass(eq=False)
class DailyBackup:
    """The store's hook: `before_write` runs before each outermost write transaction, under its lock."""

    folder: Path
    clock: Callable[[], datetime]
    """Tells the day; injected so tests can pass any date (the local calendar day of its instant)."""
    report: Callable[[str], None]
    """Receives a warning line when a backup fails; it must not raise."""
    keep: int = KEEP_DAYS
    _done: date | None = field(default=None, repr=False)

    def before_write(self, conn: sqlite3.Connection) -> None:
        """Takes today's copy if there is none yet. Never raises: the write must happen regardless."""
        today = self.clock().astimezone().date()
        if self._done == today:
            return
        self._done = today  # also after a failure: warn once a day, not on every answer
        message = ensure_daily_backup(conn, self.folder, today, keep=self.keep)
        if message:
            self.report(message)


def automatic_backup(
    db_override: str | os.PathLike[str] | None, clock: Callable[[], datetime], report: Callable[[str], None]
) -> DailyBackup | None:
    """A DailyBackup into the data folder's backups/ when the database is the default one, else None."""
    from quizapp.paths import DB_FILENAME, backups_dir, data_dir, db_path

    try:
        if db_path(db_override).resolve() != (data_dir() / DB_FILENAME).resolve():
            return None
    except OSError:
        return None
    return DailyBackup(folder=backups_dir(), clock=clock, report=report)
