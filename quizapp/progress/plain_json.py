"""Provides progress files read as plain JSON, whatever their layout: a streaming parser (ijson, in C) reads
the top-level keys and the head first, so a foreign file or an unknown section is refused before a record
is parsed, then each section item by item, validated CHUNK records at a time by the record models.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

import ijson
from pydantic import TypeAdapter, ValidationError

from quizapp.errors import QuizappError
from quizapp.progress.file_records import CardEntry, InterviewEntry, ReviewEntry, When
from quizapp.progress.format import FORMAT_MARKER, HEAD, READ_VERSIONS_TEXT, SECTIONS, readable_version

CHUNK = 500
"""Records validated at a time: large enough for pydantic's fast path, small enough to never matter."""
BOM = b"\xef\xbb\xbf"
ADAPTERS: dict[str, TypeAdapter[Any]] = {
    "cards": TypeAdapter(list[CardEntry]),
    "reviews": TypeAdapter(list[ReviewEntry]),
    "interviews": TypeAdapter(list[InterviewEntry]),
}


def not_ours_message(path: Path) -> str:
    """How every message about a foreign or broken file begins."""
    return f"{path} is not a quizapp progress file"


def open_file(path: Path) -> IO[bytes]:
    """The file, past a UTF-8 byte-order mark if an editor wrote one."""
    try:
        fh = path.open("rb", buffering=1 << 20)
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


def check_head(path: Path, not_ours: str) -> None:
    """The top-level keys and the head's values, read without building anything else."""
    marker = f'{not_ours}: the format marker "format": "{FORMAT_MARKER}" is missing.'
    head: dict[str, Any] = {}
    seen: set[str] = set()
    with open_file(path) as fh:
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
                elif prefix in HEAD and event not in ("start_map", "start_array"):
                    head[prefix] = value
                    if prefix == "format" and value != FORMAT_MARKER:
                        raise QuizappError(marker)
        except (ijson.JSONError, ValueError) as exc:
            raise _not_json(not_ours, exc) from exc
    if head.get("format") != FORMAT_MARKER:
        raise QuizappError(marker)
    if not readable_version(head.get("version")):  # not true, not 1.0
        raise QuizappError(
            f"{path} is a quizapp progress file of version {head.get('version')!r}; "
            f"this quizapp reads version {READ_VERSIONS_TEXT}."
        )
    missing = sorted(SECTIONS - seen)
    if missing:
        raise QuizappError(f"{not_ours}: the section(s) {', '.join(missing)} are missing.")
    try:
        TypeAdapter(When).validate_json(json.dumps(head["exported_at"]))
    except ValidationError as exc:
        raise QuizappError(f"{not_ours}: exported_at: {_first(exc)['msg']}.") from exc


def chunks(path: Path, section: str, not_ours: str) -> Iterator[tuple[int, list[Any]]]:
    """(index of the first, records) for each chunk of the section, validated."""
    adapter = ADAPTERS[section]
    with open_file(path) as fh:
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


def settings_value(path: Path, not_ours: str) -> Any:
    with open_file(path) as fh:
        try:
            return next(ijson.items(fh, "settings", use_float=True), {})
        except (ijson.JSONError, ValueError) as exc:
            raise _not_json(not_ours, exc) from exc
