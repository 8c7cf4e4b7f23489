"""Provides import_progress: a progress file checked in one validating pass and loaded, as it is read, into a
fresh database that then replaces the store's (quizapp.store.backup.FreshDatabase); and read_progress_file,
the same pass with nothing written.

A file in the layout export writes (one record per line) is read once, its lines validated in chunks
straight from the bytes (quizapp.progress.export_layout). Any other layout, and any file the fast reading
finds a problem in (so every message is the one plain reading gives), is read as plain JSON by
quizapp.progress.plain_json. Either way memory holds one chunk of records and the keys the cross-record
checks (quizapp.progress.record_checks) need: card ids, review ids.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from quizapp.errors import QuizappError
from quizapp.progress.export_layout import NotOurLayout, head_lines, load_lines
from quizapp.progress.format import MAX_FILE_BYTES, RECORD_SECTIONS, ProgressCounts
from quizapp.progress.long_strings import check_strings
from quizapp.progress.plain_json import check_head, chunks, not_ours_message, open_file, settings_value
from quizapp.progress.record_checks import CheckedFile, RecordChecks, Sink, hand_over
from quizapp.store import backup
from quizapp.store.database import Store
from quizapp.store.times import utc


class _Nowhere:
    """The sink of a check only: every checked row is dropped."""

    def add_cards(self, rows: Sequence[Sequence[Any]]) -> None:
        pass

    def add_reviews(self, rows: Sequence[Sequence[Any]]) -> None:
        pass

    def add_interview(self, interview: backup.InterviewRows) -> None:
        pass

    def add_settings(self, settings: dict[str, Any]) -> None:
        pass

    def clear(self) -> None:
        pass


@dataclass(frozen=True)
class SourceChecked:
    """A file check_progress_file passed: import_progress given one does not scan its strings again (a
    full pass over the file, which the command makes before it opens the database)."""

    path: Path


def check_progress_file(file: str | os.PathLike[str]) -> SourceChecked:
    """The file's size, strings and head (format marker, version, date) checked, before any database is
    opened; QuizappError names the file and the problem."""
    path = Path(file)
    try:
        size = path.stat().st_size
    except OSError as exc:
        raise QuizappError(f"Cannot read {path}: {exc.strerror or exc}") from exc
    if size > MAX_FILE_BYTES:
        raise QuizappError(
            f"{path} is {size / 2**30:.1f} GiB: far larger than any quizapp progress file "
            f"(the limit is {MAX_FILE_BYTES >> 30} GiB); is it the right file?"
        )
    check_strings(path, not_ours_message(path))  # before any parser: one huge string would lex in n^2
    try:
        with open_file(path) as fh:
            head_lines(fh)
    except NotOurLayout:
        check_head(path, not_ours_message(path))
    return SourceChecked(path)


def read_progress_file(file: str | os.PathLike[str]) -> CheckedFile:
    """Checks a whole progress file without writing anything; QuizappError names the first problem."""
    path = check_progress_file(file).path
    return _load(path, _Nowhere())


def import_progress(
    store: Store, file: str | os.PathLike[str] | SourceChecked, *, now: datetime
) -> ProgressCounts:
    """Replaces the store's progress with the file's. The file is checked as it is loaded into a fresh
    database beside the store's; only a file that passed every check replaces it, in one rename. The
    database it replaces, if it held anything, is kept beside it as `<db>.before-import-<UTC timestamp>`."""
    path = file.path if isinstance(file, SourceChecked) else check_progress_file(file).path
    keep = _keep_name(store, now) if backup.has_progress(store) else None
    with backup.FreshDatabase(store) as fresh:
        checked = _load(path, fresh)
        try:
            fresh.install(keep)
        except ValueError as exc:
            raise QuizappError(f"{path} has inconsistent progress data: {exc}.") from exc
    return ProgressCounts(checked.cards, checked.reviews, checked.interviews, len(checked.settings), keep)


def _keep_name(store: Store, now: datetime) -> Path:
    """Where the replaced database is kept: named for the moment of the import, never overwriting one."""
    base = f"{store.path.name}.before-import-{utc(now).strftime('%Y%m%dT%H%M%SZ')}"
    target = store.path.with_name(base)
    n = 1
    while target.exists():
        n += 1
        target = store.path.with_name(f"{base}-{n}")
    return target


def _load(path: Path, sink: Sink) -> CheckedFile:
    """The file's records checked and handed to `sink`: read once in export's own layout, else (or on
    any problem, so every message is the one plain JSON reading gives) read as plain JSON."""
    try:
        return load_lines(path, sink, RecordChecks(path))
    except (NotOurLayout, QuizappError):
        sink.clear()
    return _load_json(path, sink, RecordChecks(path))


def _load_json(path: Path, sink: Sink, checks: RecordChecks) -> CheckedFile:
    """The file read as plain JSON, whatever its layout (quizapp.progress.plain_json), each chunk checked."""
    not_ours = not_ours_message(path)
    check_head(path, not_ours)
    counts = {}
    for section in RECORD_SECTIONS:
        counts[section] = 0
        for offset, chunk in chunks(path, section, not_ours):
            hand_over(section, offset, chunk, sink, checks)
            counts[section] = offset + len(chunk)
    settings = checks.settings(settings_value(path, not_ours), not_ours)
    sink.add_settings(settings)
    return CheckedFile(path, counts["cards"], counts["reviews"], counts["interviews"], settings)
