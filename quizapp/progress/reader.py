"""Provides import_progress: a progress file checked in one validating pass and loaded, as it is read, into a
fresh database that then replaces the store's (quizapp.store.backup.FreshDatabase); and read_progress_file,
the same pass with nothing written.

A file in the layout export writes (one record per line) is read once: its lines are validated in chunks
by the record models straight from the bytes. Any other layout, and any file the fast reading finds a
problem in (so every message is the one plain reading gives), is read as plain JSON by
quizapp.progress.plain_json. Either way memory holds one chunk of records and the keys the cross-record
checks need (card ids, review ids).
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from pathlib import Path
from typing import IO, Any, Protocol

import numpy as np
from pydantic import TypeAdapter, ValidationError

from quizapp.errors import QuizappError
from quizapp.progress.file_records import CardEntry, InterviewEntry, ReviewEntry, When
from quizapp.progress.format import (
    FORMAT_MARKER,
    HEAD,
    MAX_FILE_BYTES,
    RECORD_SECTIONS,
    ProgressCounts,
    readable_version,
)
from quizapp.progress.plain_json import (
    ADAPTERS,
    CHUNK,
    check_head,
    chunks,
    not_ours_message,
    open_file,
    settings_value,
)
from quizapp.store import backup
from quizapp.store.cards import card_id_for, unsound
from quizapp.store.database import Store
from quizapp.store.interviews import InterviewAnswer
from quizapp.store.settings import SETTING_NAMES, check_setting
from quizapp.store.times import to_us, utc
from quizapp.terminal_text import terminal_text


@dataclass(frozen=True)
class CheckedFile:
    """A progress file that passed every check, and what it holds."""

    path: Path
    cards: int
    reviews: int
    interviews: int
    settings: dict[str, Any]


class _Sink(Protocol):
    """Where checked rows go: a fresh database, or nowhere (a check only)."""

    def add_cards(self, rows: Sequence[Sequence[Any]]) -> None: ...
    def add_reviews(self, rows: Sequence[Sequence[Any]]) -> None: ...
    def add_interview(self, interview: backup.InterviewRows) -> None: ...
    def add_settings(self, settings: dict[str, Any]) -> None: ...
    def clear(self) -> None: ...


class _Nowhere:
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


def check_progress_file(file: str | os.PathLike[str]) -> Path:
    """The file's size and head (format marker, version, date) checked, before any database is opened;
    QuizappError names the file and the problem."""
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
    _check_strings(path, not_ours_message(path))  # before any parser: one huge string would lex in n^2
    try:
        with open_file(path) as fh:
            _head_lines(fh)
    except _NotOurLayout:
        check_head(path, not_ours_message(path))
    return path


def read_progress_file(file: str | os.PathLike[str]) -> CheckedFile:
    """Checks a whole progress file without writing anything; QuizappError names the first problem."""
    path = check_progress_file(file)
    return _load(path, _Nowhere())


def import_progress(store: Store, file: str | os.PathLike[str], *, now: datetime) -> ProgressCounts:
    """Replaces the store's progress with the file's. The file is checked as it is loaded into a fresh
    database beside the store's; only a file that passed every check replaces it, in one rename. The
    database it replaces, if it held anything, is kept beside it as `<db>.before-import-<UTC timestamp>`."""
    path = check_progress_file(file)
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


# --------------------------------------------------------------------------- checks across records


class _Checks:
    """The checks no single record can make, as records stream past; each hands back the store's rows.

    The file may be someone else's, and its text is shown: an id holding anything terminal_text removes
    (an escape sequence, a zero-width space that makes two ids look alike) is refused, and answers,
    diagnoses and the rest of the text pass terminal_text."""

    def __init__(self, path: Path) -> None:
        self.bad = f"{path} has inconsistent progress data"
        self.questions: set[str] = set()
        self.review_ids: set[int] = set()
        self.interview_ids: set[int] = set()
        self.clean_ids: set[str] = set()
        """Ids (deck and diagnosis ids) already found clean: most repeat on every review."""

    def _id(self, value: str | None, where: str) -> str | None:
        if value is None or value in self.clean_ids:
            return value
        if terminal_text(value) is not value:
            raise QuizappError(
                f"{self.bad}: {where} holds control, escape, bidi or zero-width characters; no id does."
            )
        self.clean_ids.add(value)
        return value

    def cards(self, offset: int, chunk: list[CardEntry]) -> list[tuple[Any, ...]]:
        rows = []
        for i, card in enumerate(chunk, offset):
            self._id(card.question_id, f"cards[{i}].question_id")
            self._id(card.deck_id, f"cards[{i}].deck_id")
            problem = unsound(card)
            if problem:
                raise QuizappError(f"{self.bad}: cards[{i}] ({card.question_id!r}): {problem}.")
            if card.card_id != card_id_for(card.question_id):
                raise QuizappError(
                    f"{self.bad}: cards[{i}].card_id does not belong to question {card.question_id!r}."
                )
            if card.question_id in self.questions:
                raise QuizappError(f"{self.bad}: cards[{i}] repeats question {card.question_id!r}.")
            self.questions.add(card.question_id)
            rows.append(
                (card.question_id, card.card_id, card.deck_id, card.state, card.step, card.stability,
                 card.difficulty, _us(card.due), _us(card.last_review), _us(card.introduced), card.reps,
                 card.lapses, int(card.suspended), int(card.flagged))
            )  # fmt: skip
        return rows

    def reviews(self, offset: int, chunk: list[ReviewEntry]) -> list[tuple[Any, ...]]:
        rows = []
        questions, ids = self.questions, self.review_ids
        for i, r in enumerate(chunk, offset):
            if r.question_id not in questions:
                raise QuizappError(f"{self.bad}: reviews[{i}] is for {r.question_id!r}, which has no card.")
            if r.id in ids:
                raise QuizappError(f"{self.bad}: reviews[{i}].id {r.id} is repeated.")
            ids.add(r.id)
            deck = self._id(r.deck_id, f"reviews[{i}].deck_id")
            diagnosis_id = self._id(r.diagnosis_id, f"reviews[{i}].diagnosis_id")
            rows.append(
                (r.id, r.question_id, deck, to_us(r.reviewed_at), r.seed, r.answer, int(r.correct),
                 r.rating, r.duration_ms, r.diagnosis, diagnosis_id, r.mode, r.state_before,
                 int(r.scheduled), r.points)
            )  # fmt: skip
        return _shown_rows(rows)

    def interviews(self, chunk: list[InterviewEntry]) -> list[backup.InterviewRows]:
        out = []
        for iv in chunk:
            if iv.id in self.interview_ids:
                raise QuizappError(f"{self.bad}: two interviews share the id {iv.id}.")
            self.interview_ids.add(iv.id)
            answers = tuple(_shown(InterviewAnswer(**a.model_dump())) for a in iv.answers)
            out.append(backup.InterviewRows(iv.id, iv.started_at, iv.finished_at, iv.config, answers))
        return out

    def settings(self, found: Any, not_ours: str) -> dict[str, Any]:
        if not isinstance(found, dict):
            raise QuizappError(f"{not_ours}: settings: Input should be a valid dictionary.")
        for key, value in found.items():
            if key not in SETTING_NAMES:  # refused, never stored unread
                shown = str(key)[:40].encode("unicode_escape").decode("ascii")
                raise QuizappError(
                    f"{self.bad}: settings: unknown setting {shown!r} (known: {', '.join(SETTING_NAMES)})."
                )
            try:
                check_setting(key, value)
            except QuizappError as exc:
                raise QuizappError(f"{self.bad}: settings.{key}: {exc}") from exc
        return dict(found)


_ANSWER, _DIAGNOSIS = 5, 9
"""Where a review row holds its free text."""


def _shown_rows(rows: list[tuple[Any, ...]]) -> list[tuple[Any, ...]]:
    """The review rows with their answers and diagnoses passed through terminal_text: the whole chunk's
    text is searched at once (one call instead of two a review: nearly every file holds nothing to
    remove), and only a chunk that holds something is cleaned row by row."""
    texts = "".join([row[_ANSWER] for row in rows] + [row[_DIAGNOSIS] or "" for row in rows])
    if terminal_text(texts) is texts:
        return rows
    return [
        (*row[:_ANSWER], terminal_text(row[_ANSWER]), *row[_ANSWER + 1 : _DIAGNOSIS],
         None if row[_DIAGNOSIS] is None else terminal_text(row[_DIAGNOSIS]), *row[_DIAGNOSIS + 1 :])
        for row in rows
    ]  # fmt: skip


def _shown(a: InterviewAnswer) -> InterviewAnswer:
    """The answer with its text passed through terminal_text."""
    return replace(
        a,
        question_id=terminal_text(a.question_id),
        deck_id=terminal_text(a.deck_id),
        prompt=terminal_text(a.prompt),
        answer=terminal_text(a.answer),
        expected=terminal_text(a.expected),
        diagnosis=None if a.diagnosis is None else terminal_text(a.diagnosis),
        diagnosis_id=None if a.diagnosis_id is None else terminal_text(a.diagnosis_id),
    )


def _us(when: datetime | None) -> int | None:
    return None if when is None else to_us(when)


def _load(path: Path, sink: _Sink) -> CheckedFile:
    """The file's records checked and handed to `sink`: read once in export's own layout, else (or on
    any problem, so every message is the one plain JSON reading gives) read as plain JSON."""
    try:
        return _load_lines(path, sink, _Checks(path))
    except (_NotOurLayout, QuizappError):
        sink.clear()
    return _load_json(path, sink, _Checks(path))


# --------------------------------------------------------------------------- export's layout, read once


HEAD_LINE = 256
"""Longer than any line of the head export writes."""
MAX_LINE = 16 << 20
"""The longest record line read whole (16 MiB); a file with a longer one is read as a stream."""


class _NotOurLayout(Exception):
    """The file is not laid out as export writes it (or the fast reading found a problem): read it as JSON."""


def _no_constants(name: str) -> Any:
    raise _NotOurLayout(name)  # NaN and Infinity: plain JSON reading refuses them with its own words


def _whole_number(text: str) -> int:
    value = int(text)
    if not -(2**63) <= value < 2**63:
        raise _NotOurLayout(text)  # as plain JSON reading, which cannot hold it
    return value


def _json(data: bytes) -> Any:
    return json.loads(data, parse_constant=_no_constants, parse_int=_whole_number)


def _head_lines(fh: IO[bytes]) -> dict[str, Any]:
    """The first four lines as export writes them: `{` and the head's three keys, checked."""
    if fh.readline(3) != b"{\n":  # a file on one line is not read whole to find that out
        raise _NotOurLayout
    head: dict[str, Any] = {}
    for key in HEAD:
        line = fh.readline(HEAD_LINE)
        if not line.startswith(b' "') or not line.endswith(b",\n"):
            raise _NotOurLayout
        try:
            item = _json(b"{" + line[:-2] + b"}")
        except ValueError as exc:
            raise _NotOurLayout from exc
        if list(item) != [key]:
            raise _NotOurLayout
        head.update(item)
    if head["format"] != FORMAT_MARKER or not readable_version(head["version"]):
        raise _NotOurLayout  # plain JSON reading says which
    try:
        TypeAdapter(When).validate_json(json.dumps(head["exported_at"]))
    except ValidationError as exc:
        raise _NotOurLayout from exc
    return head


def _load_lines(path: Path, sink: _Sink, checks: _Checks) -> CheckedFile:
    counts: dict[str, int] = {}
    with open_file(path) as fh:
        _head_lines(fh)
        for section in RECORD_SECTIONS:
            opening = fh.readline(HEAD_LINE)
            if opening == f' "{section}": [],\n'.encode():
                counts[section] = 0
                continue
            if opening != f' "{section}": [\n'.encode():
                raise _NotOurLayout
            counts[section] = _section_lines(fh, section, sink, checks)
        line = fh.readline(MAX_LINE)
        if not line.startswith(b' "settings": ') or fh.readline(3) != b"}\n" or fh.read(1):
            raise _NotOurLayout
        try:
            found = _json(line[len(b' "settings": ') :])
        except ValueError as exc:
            raise _NotOurLayout from exc
    settings = checks.settings(found, not_ours_message(path))
    sink.add_settings(settings)
    return CheckedFile(path, counts["cards"], counts["reviews"], counts["interviews"], settings)


def _section_lines(fh: IO[bytes], section: str, sink: _Sink, checks: _Checks) -> int:
    """The records of one section, a line each up to its closing ` ],`, validated CHUNK at a time."""
    adapter = ADAPTERS[section]
    offset = 0
    lines: list[bytes] = []
    comma = True  # the line before the first record, `[`, needs none
    while True:
        line = fh.readline(MAX_LINE)  # a longer one ends without its newline: read as plain JSON
        end = line == b" ],\n"
        if (end and comma) or (not end and not comma):  # JSON's commas exactly: between records, not after
            raise _NotOurLayout
        if not end:
            if not line.startswith(b"  {") or not line.endswith(b"\n"):
                raise _NotOurLayout
            comma = line.endswith(b",\n")
            lines.append(line[2:-2] if comma else line[2:-1])
        if lines and (end or len(lines) == CHUNK):
            if section == "interviews":  # free-form set-ups: read as plain JSON reading would
                try:
                    items = [_json(item) for item in lines]
                except ValueError as exc:
                    raise _NotOurLayout from exc
                text = json.dumps(items).encode()
            else:
                text = b"[" + b",".join(lines) + b"]"
            try:
                records = adapter.validate_json(text)
            except ValidationError as exc:
                raise _NotOurLayout from exc
            _hand_over(section, offset, records, sink, checks)
            offset += len(records)
            lines = []
        if end:
            return offset


def _hand_over(section: str, offset: int, records: list[Any], sink: _Sink, checks: _Checks) -> None:
    if section == "cards":
        sink.add_cards(checks.cards(offset, records))
    elif section == "reviews":
        sink.add_reviews(checks.reviews(offset, records))
    else:
        for interview in checks.interviews(records):
            sink.add_interview(interview)


# --------------------------------------------------------------------------- any JSON layout (plain_json)


def _load_json(path: Path, sink: _Sink, checks: _Checks) -> CheckedFile:
    not_ours = not_ours_message(path)
    check_head(path, not_ours)
    counts = {}
    for section in RECORD_SECTIONS:
        counts[section] = 0
        for offset, chunk in chunks(path, section, not_ours):
            _hand_over(section, offset, chunk, sink, checks)
            counts[section] = offset + len(chunk)
    settings = checks.settings(settings_value(path, not_ours), not_ours)
    sink.add_settings(settings)
    return CheckedFile(path, counts["cards"], counts["reviews"], counts["interviews"], settings)


# --------------------------------------------------------------------------- strings capped before parsing
MAX_STRING_BYTES = 1 << 20
"""Longest string a progress file may hold: an answer is at most the code editor's 100,000 characters."""
SCAN_BYTES = 1 << 20
"""The scan reads this much at a time: memory stays bounded whatever the file."""


def _check_strings(path: Path, not_ours: str) -> None:
    """Refuses a file with a string longer than MAX_STRING_BYTES (or as long a stretch with no string),
    in one linear pass: NumPy finds the quotes (one preceded by a backslash is inside a string). The JSON
    parser re-reads a token that spans its buffers, so a single huge string would cost it quadratic
    time, and hold it whole in memory."""
    last, at, before = 0, 0, 0  # the previous unescaped quote's offset, this chunk's, the byte before it
    with open_file(path) as fh:
        while chunk := fh.read(SCAN_BYTES):
            data = np.frombuffer(chunk, dtype=np.uint8)  # (n,) the chunk's bytes
            quotes = np.flatnonzero(data == ord('"'))  # (q,) offsets of every quote
            previous = data[np.maximum(quotes - 1, 0)]  # (q,) the byte before each quote
            if quotes.size and quotes[0] == 0:
                previous[0] = before  # (q,) at the chunk's start: the last byte of the one before
            quotes = quotes[previous != ord("\\")]  # (q',) the unescaped ones
            offsets = np.concatenate([[last], quotes + at])  # (q' + 1,) with the last one before
            gaps = np.diff(offsets)  # (q',) the distance between neighbouring quotes
            tail = at + len(chunk) - int(offsets[-1])  # since the last quote: a string still open
            if (gaps.size and int(gaps.max()) > MAX_STRING_BYTES) or tail > MAX_STRING_BYTES:
                raise QuizappError(
                    f"{not_ours}: it holds a string of more than {MAX_STRING_BYTES >> 20} MiB "
                    "(no answer or setting is that long)."
                )
            last, at, before = int(offsets[-1]), at + len(chunk), int(data[-1])
