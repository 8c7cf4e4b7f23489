"""Provides rolling daily backups of the progress database: one copy per day, the last KEEP_DAYS kept.

Before the first write of a (local) calendar day, the store copies the database with SQLite's online
backup API into `backups/progress-YYYY-MM-DD.db`: a consistent snapshot even while another process
writes, read from the live file and never written to it. The copy is made under a temporary name and
renamed, so a half-written backup never looks like a whole one. Once today's copy exists the check is a
stat (and then a remembered date); a copy that fails (full disk, read-only folder) is reported once and
the write goes ahead, because losing today's answer would be worse than missing one backup.

The copy is of the database as it was before that write, but it is not made on the write's path: a
second connection opens a read transaction (a WAL snapshot: a few pages read) before the write begins,
and a thread of its own copies from that snapshot while the answer is committed and its feedback shown
(at 100,000 cards the copy took 0.4 s, which the first answer of each day used to wait for). Closing the
store waits for it (`DailyBackup.wait`), and a process killed mid-copy leaves only a `.partial` file.

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

from quizapp.paths import DB_FILENAME, backups_dir, data_dir, db_path
from quizapp.store.connection import connect

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
    If `conn` is in a read transaction, the copy is of that transaction's snapshot.

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


def _snapshot_of(conn: sqlite3.Connection) -> sqlite3.Connection:
    """A second connection to the database behind `conn`, in a read transaction that has read a page:
    its snapshot is the database as it is now, whatever is written afterwards (WAL readers see the
    state at their first read, and never block a writer)."""
    (_, _, file) = conn.execute("PRAGMA database_list").fetchone()
    if not file:  # an in-memory or temporary database: no other connection can see it
        raise sqlite3.OperationalError("no file to open a second connection to")
    reader = connect(file, isolation_level=None, check_same_thread=False)
    try:
        reader.execute("BEGIN")
        reader.execute("SELECT count(*) FROM sqlite_master").fetchone()
    except BaseException:
        reader.close()
        raise
    return reader


@dataclass(eq=False)
class DailyBackup:
    """The store's hook: `before_write` runs before each outermost write transaction, under its lock.

    The copy itself runs in a thread of its own (see the module's docstring); `wait` waits for it."""

    folder: Path
    clock: Callable[[], datetime]
    """Tells the day; injected so tests can pass any date (the local calendar day of its instant)."""
    report: Callable[[str], None]
    """Receives a warning line when a backup fails; it must not raise."""
    keep: int = KEEP_DAYS
    _done: date | None = field(default=None, repr=False)
    _copying: threading.Thread | None = field(default=None, repr=False)

    def before_write(self, conn: sqlite3.Connection) -> None:
        """Starts today's copy, of the database as it is before this write, if there is none yet; the
        copy runs in its own thread, so the write and what the user waits for after it go ahead at once.
        Never raises: the write must happen regardless."""
        today = self.clock().astimezone().date()
        if self._done == today:
            return
        self._done = today  # also after a failure: warn once a day, not on every answer
        self.wait()  # yesterday's copy, if it is still being made (an app left open past midnight)
        if backup_path(self.folder, today).exists():
            return
        try:
            reader = _snapshot_of(conn)
        except sqlite3.Error:  # no second connection (a database only this one can see): copy here
            self._copy(conn, today, None)
            return
        self._copying = threading.Thread(
            target=self._copy, args=(reader, today, reader), name="daily backup", daemon=False
        )
        self._copying.start()

    def _copy(self, source: sqlite3.Connection, today: date, close: sqlite3.Connection | None) -> None:
        """Copies `source` (closing `close` after), reporting a failure; never raises (it may run in a
        thread, where an exception would go unseen)."""
        try:
            message = ensure_daily_backup(source, self.folder, today, keep=self.keep)
        except Exception as exc:  # a bug must not take the answer or the thread's host down
            message = f"Could not back up the progress database: {exc}. Your progress is still saved."
        finally:
            if close is not None:
                with contextlib.suppress(sqlite3.Error):
                    close.close()
        if message:
            self.report(message)

    def wait(self) -> None:
        """Returns once the copy started by `before_write` (if any) is whole and in place, or has failed."""
        copying = self._copying
        if copying is not None and copying is not threading.current_thread():
            copying.join()


def automatic_backup(
    db_override: str | os.PathLike[str] | None, clock: Callable[[], datetime], report: Callable[[str], None]
) -> DailyBackup | None:
    """A DailyBackup into the data folder's backups/ when the database is the default one, else None."""
    try:
        if db_path(db_override).resolve() != (data_dir() / DB_FILENAME).resolve():
            return None
    except OSError:
        return None
    return DailyBackup(folder=backups_dir(), clock=clock, report=report)
