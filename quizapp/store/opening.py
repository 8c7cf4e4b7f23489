"""Provides open_store: opening the progress database safely: folder checks, corrupt files moved aside,
migrations.

The user's progress is the one thing quizapp cannot rebuild, so opening never deletes anything: a file
SQLite cannot read is renamed to `progress.db.corrupt-<UTC timestamp>` and a fresh database is created; a
file from a newer quizapp is refused and left byte-for-byte untouched.
"""

from __future__ import annotations

import os
import struct
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from quizapp.errors import QuizappError
from quizapp.paths import data_dir, db_path
from quizapp.store.connection import connect_and_migrate, removed_notice
from quizapp.store.database import Store
from quizapp.store.sqlite_errors import Unreadable
from quizapp.store.times import utc

if TYPE_CHECKING:
    from quizapp.records.settings import Settings
    from quizapp.store.rolling_backup import DailyBackup

_SQLITE_MAGIC = b"SQLite format 3\x00"
_HEADER_SIZE = 100


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
        conn = connect_and_migrate(file, stripped)
    except Unreadable as exc:
        if notice is not None:  # a fresh file we just created is unreadable: do not loop
            raise QuizappError(f"The progress database {file} cannot be created: {exc}") from exc
        notice = _move_aside(file, now, str(exc))
        conn = connect_and_migrate(file, stripped)
    if stripped:
        removed = removed_notice(file, stripped)
        notice = f"{notice} {removed}" if notice else removed
    return Store(conn=conn, path=file, notice=notice, defaults=defaults, backup=backup)


def _inside_data_folder(file: Path) -> bool:
    """Only files in quizapp's own data folder are ever moved aside; anything else is the user's."""
    try:
        return file.resolve().is_relative_to(data_dir().resolve())
    except OSError:
        return False


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
