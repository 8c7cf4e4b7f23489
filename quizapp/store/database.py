"""Provides Store: an open progress database, its write transactions, and its file replaced in one rename.

quizapp.store.opening opens one (open_store); quizapp.store.connection makes and configures its connection.
The app's workers share the one connection, so every read and write holds the store's lock.
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import threading
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING

from quizapp.errors import QuizappError
from quizapp.store.connection import BUSY_TIMEOUT_S, connect, connect_and_migrate
from quizapp.store.sqlite_errors import disk_full

if TYPE_CHECKING:
    from quizapp.records.settings import Settings
    from quizapp.store.rolling_backup import DailyBackup


@dataclass(eq=False)
class Store:
    """An open progress database. `notice` tells the user about anything opening had to repair."""

    conn: sqlite3.Connection
    path: Path
    notice: str | None = None
    defaults: Settings | None = None
    """Settings in force where the user saved none (config.toml's); None: the built-in ones."""
    backup: DailyBackup | None = None
    """Takes the day's copy before its first write (quizapp.store.rolling_backup); None: no backups."""
    _write_lock: threading.RLock = field(default_factory=threading.RLock, repr=False)
    _depth: int = field(default=0, repr=False)
    """Nesting of transaction() on the thread holding the lock: only the outermost begins and commits."""
    _closed: bool = field(default=False, repr=False)
    """close() has run: a second close, or the finaliser, does nothing."""
    _generation: int = field(default=0, repr=False)
    """Counts the connections this store has had (a progress import swaps in a new file): see change_stamp."""

    def change_stamp(self) -> tuple[int, int, int]:
        """A value that changes whenever anything is written: by this store (rows changed on its
        connection), by another process (SQLite's data_version), or by swapping the file. Figures derived
        from the data (the interview plan) are cached under it; reading it costs one PRAGMA."""
        (version,) = self.conn.execute("PRAGMA data_version").fetchone()
        return self._generation, self.conn.total_changes, int(version)

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """One write transaction, committed (durably: synchronous=FULL) before the block's caller continues.

        Nested calls join the outer transaction, so two records that belong together (an interview answer
        and its review) are written by one commit or not at all.

        BEGIN IMMEDIATE takes the write lock up front, so a second process waits on the busy timeout
        instead of failing half-way with "database is locked"; a lock serialises threads of this process
        (the TUI's workers share the connection).
        """
        with self._write_lock:
            if self._depth:  # inside another transaction of this thread: it commits, or rolls back, all
                self._depth += 1
                try:
                    yield self.conn
                finally:
                    self._depth -= 1
                return
            if self.backup is not None:
                self.backup.before_write(self.conn)
            try:
                self.conn.execute("BEGIN IMMEDIATE")
            except sqlite3.OperationalError as exc:
                raise self._explain(exc) from exc
            self._depth = 1
            try:
                yield self.conn
                self.conn.execute("COMMIT")
            except BaseException as exc:
                if self.conn.in_transaction:
                    self.conn.execute("ROLLBACK")
                if isinstance(exc, sqlite3.OperationalError):
                    raise self._explain(exc) from exc
                raise
            finally:
                self._depth = 0

    @contextmanager
    def one_at_a_time(self) -> Iterator[None]:
        """Holds the connection for one thread's whole read or write: the app's workers share this one
        connection, and Python's sqlite3 connection is not safe for two threads at once (a cached
        statement or an open cursor of one can be stepped or reset by the other). Reentrant, and shared
        with transaction(), so a write inside is fine."""
        with self._write_lock:
            yield

    @contextmanager
    def snapshot(self) -> Iterator[sqlite3.Connection]:
        """One read transaction: every query inside sees the same state, even while another process
        writes (WAL readers never block writers), so an export cannot split a review from its card."""
        with self._write_lock:
            self.conn.execute("BEGIN")
            try:
                yield self.conn
            finally:
                self.conn.execute("COMMIT")

    def _explain(self, exc: sqlite3.Error) -> QuizappError:
        text = str(exc)
        if "locked" in text or "busy" in text:
            return QuizappError(
                f"The progress database {self.path} stayed busy for {BUSY_TIMEOUT_S:g} s "
                "(another quizapp is writing to it); try again."
            )
        if "readonly" in text or "read-only" in text:
            return QuizappError(
                f"The progress database {self.path} is read-only; quizapp cannot save progress."
            )
        full = disk_full(exc, self.path)
        if full:
            return full
        return QuizappError(f"The progress database {self.path} failed: {text}")

    def replace_file(self, fresh: Path, *, keep: Path | None = None) -> None:
        """Puts the complete database file `fresh` (same schema) in place of this store's file, and reads
        it from now on; with `keep`, the replaced database stays at that path.

        One rename, so the database is the old one or the new one, never half of each. While another
        process has the database open (its WAL files are still there once this connection closes), a
        rename would leave it writing to the old file, so the new pages are copied in through SQLite
        instead, as one transaction that process sees.
        """
        with self._write_lock:
            if self.backup is not None:
                self.backup.before_write(self.conn)  # the day's copy before its first change, as any write
                self.backup.wait()  # whole before the file it reads is replaced
            self.conn.close()
            shared = any(self.path.with_name(self.path.name + s).exists() for s in ("-wal", "-shm"))
            if shared or not self.path.is_file():
                self.conn = connect_and_migrate(self.path)
                if keep is not None:
                    copy = connect(keep)
                    try:
                        self.conn.backup(copy)
                    finally:
                        copy.close()
                source = connect(fresh)
                try:
                    source.backup(self.conn)
                finally:
                    source.close()
                fresh.unlink()
            else:
                if keep is not None:
                    try:
                        os.link(self.path, keep)  # the old file itself, under its new name: no copy
                    except OSError:
                        shutil.copyfile(self.path, keep)
                os.replace(fresh, self.path)
                _sync_folder(self.path.parent)
                self.conn = connect_and_migrate(self.path)
            self._generation += 1

    def integrity_ok(self) -> bool:
        """Runs SQLite's full integrity check (slow on big files: for tests and a doctor command)."""
        rows = self.conn.execute("PRAGMA integrity_check").fetchall()
        return [tuple(r) for r in rows] == [("ok",)]

    def close(self) -> None:
        """Closes the database (again is fine), after a write a worker is in the middle of and after the
        day's backup copy, if one is being made (the app's exit waits for it)."""
        with self._write_lock:
            if not self._closed:
                self._closed = True
                if self.backup is not None:
                    self.backup.wait()
                self.conn.close()

    def __del__(self) -> None:
        """Like Python 3.13's sqlite3, a store dropped while open warns (ResourceWarning) and closes, so a
        leak shows in the tests on every Python."""
        if not self.__dict__.get("_closed", True):
            warnings.warn(
                f"unclosed progress database {self.path}", ResourceWarning, stacklevel=1, source=self
            )
            self.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()


def _sync_folder(folder: Path) -> None:
    """Makes a rename in `folder` durable (where the system allows opening a folder)."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
