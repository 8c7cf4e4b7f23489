"""Provides read_progress_file: a progress backup checked as a stream, never held whole, so a file of a
million reviews (or a hostile one) costs a few passes over the bytes and memory for one chunk of records.

Pass one reads only the top-level keys and the small head (format marker, version, date): a foreign file
or an unknown section is refused before any record is parsed. Then each section is read item by item
(ijson, a C parser), validated in chunks by the record models, and checked across records (card ids,
reviews of known cards, unique ids) with nothing kept but those keys. The import reads the sections once
more, the same way, inside its transaction.
"""

from __future__ import annotations

import itertools
import json
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

import ijson
from pydantic import TypeAdapter, ValidationError

from quizapp.errors import QuizappError
from quizapp.reports.progress_file import (
    FORMAT_MARKER,
    FORMAT_VERSION,
    MAX_FILE_BYTES,
    SECTIONS,
    CardEntry,
    InterviewEntry,
    ReviewEntry,
    When,
    card_record,
)
from quizapp.store.cards import card_id_for, unsound
from quizapp.store.settings import SETTING_NAMES, check_setting

CHUNK = 500
"""Records validated at a time: large enough for pydantic's fast path, small enough to never matter."""
BOM = b"\xef\xbb\xbf"
ADAPTERS: dict[str, TypeAdapter[Any]] = {
    "cards": TypeAdapter(list[CardEntry]),
    "reviews": TypeAdapter(list[ReviewEntry]),
    "interviews": TypeAdapter(list[InterviewEntry]),
}


@dataclass(frozen=True)
class CheckedFile:
    """A progress file that passed every check; `records` reads a section again, for the import."""

    path: Path
    cards: int
    reviews: int
    interviews: int
    settings: dict[str, Any]

    def records(self, section: str) -> Iterator[Any]:
        """The section's validated records, in file order, streamed."""
        for _, chunk in _chunks(self.path, section, f"{self.path} changed while it was imported"):
            yield from chunk


def read_progress_file(file: str | os.PathLike[str]) -> CheckedFile:
    """Checks a progress file; QuizappError names the file and the first problem found."""
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
    not_ours = f"{path} is not a quizapp progress file"
    _check_strings(path, not_ours)  # issue 28: before any parser (one huge string would lex in n^2)
    _check_head(path, not_ours)
    bad = f"{path} has inconsistent progress data"
    questions: set[str] = set()
    for offset, chunk in _chunks(path, "cards", not_ours):
        for i, card in enumerate(chunk, offset):
            problem = unsound(card_record(card))
            if problem:
                raise QuizappError(f"{bad}: cards[{i}] ({card.question_id!r}): {problem}.")
            if card.card_id != card_id_for(card.question_id):
                raise QuizappError(
                    f"{bad}: cards[{i}].card_id does not belong to question {card.question_id!r}."
                )
            if card.question_id in questions:
                raise QuizappError(f"{bad}: cards[{i}] repeats question {card.question_id!r}.")
            questions.add(card.question_id)
    ids: set[int] = set()
    for offset, chunk in _chunks(path, "reviews", not_ours):
        for i, review in enumerate(chunk, offset):
            if review.question_id not in questions:
                raise QuizappError(f"{bad}: reviews[{i}] is for {review.question_id!r}, which has no card.")
            if review.id in ids:
                raise QuizappError(f"{bad}: reviews[{i}].id {review.id} is repeated.")
            ids.add(review.id)
    interviews: set[int] = set()
    for _, chunk in _chunks(path, "interviews", not_ours):
        for interview in chunk:
            if interview.id in interviews:
                raise QuizappError(f"{bad}: two interviews share the id {interview.id}.")
            interviews.add(interview.id)
    settings = _settings(path, not_ours, bad)
    return CheckedFile(path, len(questions), len(ids), len(interviews), settings)


def _open(path: Path) -> IO[bytes]:
    """The file, past a UTF-8 byte-order mark if an editor wrote one."""
    try:
        fh = path.open("rb")
    except OSError as exc:
        raise QuizappError(f"Cannot read {path}: {exc.strerror or exc}") from exc
    if fh.read(3) != BOM:
        fh.seek(0)
    return fh


NOT_JSON_HINTS = {
    "integer overflow": "a whole number of 2^63 or more, which no field can hold",
    "invalid char": "an invalid character or word; NaN and Infinity, for one, are not JSON numbers",
}


def _not_json(not_ours: str, exc: Exception) -> QuizappError:
    reason = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    hint = next((words for key, words in NOT_JSON_HINTS.items() if key in reason), "")
    return QuizappError(f"{not_ours}: not JSON ({reason}{': ' + hint if hint else ''}).")


def _check_head(path: Path, not_ours: str) -> None:
    """The top-level keys and the head's values, read without building anything else."""
    marker = f'{not_ours}: the format marker "format": "{FORMAT_MARKER}" is missing.'
    head: dict[str, Any] = {}
    seen: set[str] = set()
    with _open(path) as fh:
        try:
            events = ijson.parse(fh, use_float=True)
            first = next(events, None)
            if first is None or first[1] != "start_map":
                raise QuizappError(marker)
            for prefix, event, value in events:
                if prefix == "" and event == "map_key":
                    if value not in SECTIONS:  # refused at once: an unknown section may be huge
                        shown = str(value)[:40]
                        raise QuizappError(
                            f"{not_ours}: unknown section {shown!r}; expected {sorted(SECTIONS)}."
                        )
                    seen.add(value)
                elif prefix in ("format", "version", "exported_at") and event not in (
                    "start_map",
                    "start_array",
                ):
                    head[prefix] = value
                    if prefix == "format" and value != FORMAT_MARKER:
                        raise QuizappError(marker)
        except (ijson.JSONError, ValueError) as exc:
            raise _not_json(not_ours, exc) from exc
    if head.get("format") != FORMAT_MARKER:
        raise QuizappError(marker)
    if type(head.get("version")) is not int or head.get("version") != FORMAT_VERSION:  # not true, not 1.0
        raise QuizappError(
            f"{path} is a quizapp progress file of version {head.get('version')!r}; "
            f"this quizapp reads version {FORMAT_VERSION}."
        )
    missing = sorted(SECTIONS - seen)
    if missing:
        raise QuizappError(f"{not_ours}: the section(s) {', '.join(missing)} are missing.")
    try:
        TypeAdapter(When).validate_json(json.dumps(head["exported_at"]))
    except ValidationError as exc:
        raise QuizappError(f"{not_ours}: exported_at: {_first(exc)['msg']}.") from exc


def _chunks(path: Path, section: str, not_ours: str) -> Iterator[tuple[int, list[Any]]]:
    """(index of the first, records) for each chunk of the section, validated."""
    adapter = ADAPTERS[section]
    with _open(path) as fh:
        items = ijson.items(fh, f"{section}.item", use_float=True)
        offset = 0
        while True:
            try:
                chunk = list(itertools.islice(items, CHUNK))
            except (ijson.JSONError, ValueError) as exc:
                raise _not_json(not_ours, exc) from exc
            if not chunk:
                return
            yield offset, _validated(adapter, chunk, section, offset, not_ours)
            offset += len(chunk)


def _validated(
    adapter: TypeAdapter[Any], chunk: list[Any], section: str, offset: int, not_ours: str
) -> list[Any]:
    try:
        records: list[Any] = adapter.validate_json(json.dumps(chunk))
    except ValidationError as exc:
        first = _first(exc)
        index, *field = first["loc"]
        where = f"{section}[{offset + int(index)}]" + "".join(
            f"[{p}]" if isinstance(p, int) else f".{p}" for p in field
        )
        raise QuizappError(f"{not_ours}: {where}: {first['msg']}.") from exc
    return records


def _first(exc: ValidationError) -> Any:
    """The first error, without the input it was about (a record's value may be huge)."""
    return exc.errors(include_url=False, include_input=False, include_context=False)[0]


def _settings(path: Path, not_ours: str, bad: str) -> dict[str, Any]:
    with _open(path) as fh:
        try:
            found: Any = next(ijson.items(fh, "settings", use_float=True), {})
        except (ijson.JSONError, ValueError) as exc:
            raise _not_json(not_ours, exc) from exc
    if not isinstance(found, dict):
        raise QuizappError(f"{not_ours}: settings: Input should be a valid dictionary.")
    for key, value in found.items():
        if key not in SETTING_NAMES:  # issue 28: refused, never stored unread
            shown = str(key)[:40].encode("unicode_escape").decode("ascii")
            raise QuizappError(
                f"{bad}: settings: unknown setting {shown!r} (known: {', '.join(SETTING_NAMES)})."
            )
        try:
            check_setting(key, value)
        except QuizappError as exc:
            raise QuizappError(f"{bad}: settings.{key}: {exc}") from exc
    return dict(found)


# ---- issue 28: strings are capped before any parser sees the file ----
MAX_STRING_BYTES = 1 << 20
"""Longest string a progress file may hold: an answer is at most the code editor's 100,000 characters."""
SCAN_BYTES = 1 << 20
"""The scan reads this much at a time: memory stays bounded whatever the file."""


def _check_strings(path: Path, not_ours: str) -> None:
    """Refuses a file with a string longer than MAX_STRING_BYTES (or as long a stretch with no string),
    in one linear pass: NumPy finds the quotes (one preceded by a backslash is inside a string). The JSON
    parser re-reads a token that spans its buffers, so a single huge string would cost it quadratic
    time, and hold it whole in memory."""
    import numpy as np

    last, at, before = 0, 0, 0  # the previous unescaped quote's offset, this chunk's, the byte before it
    with _open(path) as fh:
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
