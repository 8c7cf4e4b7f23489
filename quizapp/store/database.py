"""Provides opening the progress database safely: folder checks, corrupt files moved aside, migrations.

The user's progress is the one thing quizapp cannot rebuild, so opening never deletes anything: a file
SQLite cannot read is renamed to `progress.db.corrupt-<UTC timestamp>` and a fresh database is created; a
file from a newer quizapp is refused and left byte-for-byte untouched.
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import struct
import threading
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any

from quizapp.errors import QuizappError
from quizapp.paths import backups_dir, data_dir, db_path
from quizapp.store.migrations import (
    SCHEMA_VERSION,
    TALLY_TRIGGER_NAMES,
    TALLY_TRIGGERS,
    NewerSchemaError,
    migrate,
    schema_version,
)
from quizapp.store.times import utc
from quizapp.terminal_text import terminal_text

if TYPE_CHECKING:
    from quizapp.records.settings import Settings
    from quizapp.store.rolling_backup import DailyBackup

BUSY_TIMEOUT_S = 10.0
"""How long a writer waits for another process's transaction before giving up."""

_SQLITE_MAGIC = b"SQLite format 3\x00"
_HEADER_SIZE = 100


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
        full = _disk_full(exc, self.path)
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
                self.conn = _connect_and_migrate(self.path)
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
                self.conn = _connect_and_migrate(self.path)
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


def open_store(
    path: str | os.PathLike[str] | None = None,
    *,
    now: datetime,
    defaults: Settings | None = None,
    backup: DailyBackup | None = None,
) -> Store:
    """Opens (creating or migrating as needed) the progress database at `path` or the default location.

    `now` stamps the name a corrupt file is moved to; `defaults` are the settings where none is saved;
    `backup` takes the rolling daily copies (see quizapp.store.rolling_backup.automatic_backup). Raises
    QuizappError, naming the path, when the data folder cannot be created or written, or when the file
    comes from a newer quizapp.
    """
    file = db_path(path)
    _check_folder(file.parent)
    if file.exists() and not file.is_file():
        raise QuizappError(f"The progress database {file} is not a regular file.")
    notice = None
    problem = _header_problem(file)
    if problem is not None and not _inside_data_folder(file):
        raise QuizappError(
            f"{file} is not a quizapp progress database ({problem}); it was left untouched. "
            "Give --db a database file, or a new name to create one."
        )
    if problem is not None:
        notice = _move_aside(file, now, problem)
    stripped: list[str] = []
    try:
        conn = _connect_and_migrate(file, stripped)
    except _Unreadable as exc:
        if notice is not None:  # a fresh file we just created is unreadable: do not loop
            raise QuizappError(f"The progress database {file} cannot be created: {exc}") from exc
        notice = _move_aside(file, now, str(exc))
        conn = _connect_and_migrate(file, stripped)
    if stripped:
        removed = _removed_notice(file, stripped)
        notice = f"{notice} {removed}" if notice else removed
    return Store(conn=conn, path=file, notice=notice, defaults=defaults, backup=backup)


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


def _inside_data_folder(file: Path) -> bool:
    """Only files in quizapp's own data folder are ever moved aside; anything else is the user's."""
    try:
        return file.resolve().is_relative_to(data_dir().resolve())
    except OSError:
        return False


class _Unreadable(Exception):
    """SQLite says the file is not a database, or its pages are damaged."""


def _check_folder(folder: Path) -> None:
    hint = "Set QUIZAPP_HOME or pass --db PATH to use another place."
    if not folder.exists():
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            reason = exc.strerror or str(exc)
            raise QuizappError(f"Cannot create the data folder {folder}: {reason}. {hint}") from exc
    if not folder.is_dir():
        raise QuizappError(f"The data folder {folder} is not a folder. {hint}")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise QuizappError(f"The data folder {folder} is read-only; quizapp must save progress there. {hint}")


def _header_problem(file: Path) -> str | None:
    """A cheap look at the 100-byte header: wrong magic or a file shorter than its header says.

    Full `PRAGMA integrity_check` would read every page (slow on a big history), so opening checks only
    what a truncated copy or a random file always gets wrong.
    """
    try:
        size = file.stat().st_size
    except FileNotFoundError:
        return None
    if size == 0:
        return None  # SQLite treats an empty file as an empty database
    try:
        with file.open("rb") as fh:
            header = fh.read(_HEADER_SIZE)
    except OSError as exc:
        raise QuizappError(f"Cannot read the progress database {file}: {exc.strerror or exc}") from exc
    if len(header) < _HEADER_SIZE or not header.startswith(_SQLITE_MAGIC):
        return "it is not an SQLite database"
    (page_size,) = struct.unpack(">H", header[16:18])
    page_size = 65_536 if page_size == 1 else page_size
    if page_size < 512 or page_size & (page_size - 1):
        return f"its header has an impossible page size ({page_size})"
    change_counter, page_count = struct.unpack(">II", header[24:32])
    (valid_for,) = struct.unpack(">I", header[92:96])
    wal = file.with_name(file.name + "-wal")
    wal_has_frames = wal.exists() and wal.stat().st_size > 0
    if page_count and change_counter == valid_for and not wal_has_frames and size < page_count * page_size:
        return f"it is truncated ({size:,} of {page_count * page_size:,} bytes)"
    return None


def _move_aside(file: Path, now: datetime, problem: str) -> str:
    """Renames the file (and its -wal/-shm companions) out of the way; returns the notice for the user."""
    stamp = utc(now).strftime("%Y%m%dT%H%M%SZ")
    target = file.with_name(f"{file.name}.corrupt-{stamp}")
    n = 1
    while target.exists():
        n += 1
        target = file.with_name(f"{file.name}.corrupt-{stamp}-{n}")
    try:
        file.rename(target)
        for suffix in ("-wal", "-shm"):
            companion = file.with_name(file.name + suffix)
            if companion.exists():
                companion.rename(target.with_name(target.name + suffix))
    except OSError as exc:
        raise QuizappError(
            f"The progress database {file} is damaged ({problem}) and could not be moved aside: "
            f"{exc.strerror or exc}. Move it away by hand; quizapp never deletes it."
        ) from exc
    return (
        f"The progress database {file} could not be read ({problem}). It was moved to {target} "
        "(nothing was deleted) and a fresh database was created."
    )


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


def _connect_and_migrate(file: Path, stripped: list[str] | None = None) -> sqlite3.Connection:
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
        raise _unreadable_or_error(exc, file) from exc
    if found > SCHEMA_VERSION:
        raise _newer(file, found)
    try:
        conn.execute(f"PRAGMA busy_timeout = {int(BUSY_TIMEOUT_S * 1000)}")
        stripped.extend(_strip_foreign_schema(conn))
        conn.execute("PRAGMA journal_mode = WAL")
        conn.execute("PRAGMA synchronous = FULL")
        conn.execute("PRAGMA foreign_keys = ON")
        migrate(conn)
        _probe_write(conn)
    except NewerSchemaError as exc:
        raise _newer(file, exc.found) from exc
    except sqlite3.DatabaseError as exc:
        text = str(exc)
        if "readonly" in text or "unable to open" in text:
            raise QuizappError(
                f"The progress database {file} is read-only, so no answer could be saved; make it "
                f"writable (chmod u+w {file}) or pass --db with another file."
            ) from exc
        raise _unreadable_or_error(exc, file) from exc


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


def _removed_notice(file: Path, stripped: list[str]) -> str:
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


SQLITE_FULL, SQLITE_IOERR = 13, 10
MIN_FREE_BYTES = 1 << 20
"""An I/O error with less than this free on the disk is reported as a full disk."""


def _disk_full(exc: sqlite3.Error, file: Path) -> QuizappError | None:
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


_CORRUPT_CODES = (11, 26)  # SQLITE_CORRUPT, SQLITE_NOTADB: the file's content is bad, not the disk or a lock


def _unreadable_or_error(exc: sqlite3.DatabaseError, file: Path) -> Exception:
    """Only a file SQLite calls corrupt or not-a-database is moved aside; an I/O error or a lock is reported
    and the file left where it is."""
    code = getattr(exc, "sqlite_errorcode", None)
    if code is not None and code & 0xFF in _CORRUPT_CODES:
        return _Unreadable(str(exc))
    if "locked" in str(exc) or "busy" in str(exc):
        return QuizappError(f"The progress database {file} is locked by another program; try again.")
    return _disk_full(exc, file) or QuizappError(f"Cannot open the progress database {file}: {exc}")


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


def _newer(file: Path, found: int) -> QuizappError:
    return QuizappError(
        f"The progress database {file} was written by a newer quizapp (schema version {found}; this "
        f"version understands up to {SCHEMA_VERSION}). Update quizapp to use it; the file was left untouched."
    )
