"""Provides the fast reading of a progress file laid out as export writes it (one record per line): read once,
its cards and reviews a block of lines at a time, each block parsed as one JSON array and checked in plain
code (quizapp.progress.plain_records) or, for anything export would not write, by the record models.

Anything else (another layout, or a problem the fast reading finds) raises NotOurLayout, and the file is read
as plain JSON instead (quizapp.progress.plain_json), so every message the user sees is the one plain reading
gives.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import IO, Any

from pydantic import TypeAdapter, ValidationError
from pydantic_core import from_json

from quizapp.progress.file_records import When
from quizapp.progress.format import FORMAT_MARKER, HEAD, RECORD_SECTIONS, readable_version
from quizapp.progress.plain_json import ADAPTERS, CHUNK, not_ours_message, open_file
from quizapp.progress.plain_records import PLAIN_ROWS
from quizapp.progress.record_checks import CheckedFile, RecordChecks, Sink, hand_over, hand_over_rows

HEAD_LINE = 256
"""Longer than any line of the head export writes."""
MAX_LINE = 16 << 20
"""The longest record line read whole (16 MiB); a file with a longer one is read as a stream."""


BLOCK = 1 << 17
"""Bytes of a section of cards or reviews read at a time (some 400 records: larger chunks are slower)."""
_LINE = rb"  \{[^\n]*\}"
_LINES = re.compile(rb"(?:" + _LINE + rb",\n)+").fullmatch
"""Whole lines of records as export writes them, each with its comma: no line holds a newline (JSON
strings cannot), so the records are exactly the lines."""
_LAST_LINES = re.compile(rb"(?:" + _LINE + rb",\n)*" + _LINE).fullmatch
_SECTION_END = b"}\n ],\n"
"""A section's last record (no comma after it), then its closing line."""


class NotOurLayout(Exception):
    """The file is not laid out as export writes it (or the fast reading found a problem): read it as JSON."""


def _no_constants(name: str) -> Any:
    raise NotOurLayout(name)  # NaN and Infinity: plain JSON reading refuses them with its own words


def _whole_number(text: str) -> int:
    value = int(text)
    if not -(2**63) <= value < 2**63:
        raise NotOurLayout(text)  # as plain JSON reading, which cannot hold it
    return value


def _json(data: bytes) -> Any:
    return json.loads(data, parse_constant=_no_constants, parse_int=_whole_number)


def head_lines(fh: IO[bytes]) -> dict[str, Any]:
    """The first four lines as export writes them: `{` and the head's three keys, checked."""
    if fh.readline(3) != b"{\n":  # a file on one line is not read whole to find that out
        raise NotOurLayout
    head: dict[str, Any] = {}
    for key in HEAD:
        line = fh.readline(HEAD_LINE)
        if not line.startswith(b' "') or not line.endswith(b",\n"):
            raise NotOurLayout
        try:
            item = _json(b"{" + line[:-2] + b"}")
        except ValueError as exc:
            raise NotOurLayout from exc
        if list(item) != [key]:
            raise NotOurLayout
        head.update(item)
    if head["format"] != FORMAT_MARKER or not readable_version(head["version"]):
        raise NotOurLayout  # plain JSON reading says which
    try:
        TypeAdapter(When).validate_json(json.dumps(head["exported_at"]))
    except ValidationError as exc:
        raise NotOurLayout from exc
    return head


def load_lines(path: Path, sink: Sink, checks: RecordChecks) -> CheckedFile:
    """The whole file read once in export's layout, each section's records checked and handed to `sink`."""
    counts: dict[str, int] = {}
    with open_file(path) as fh:
        head_lines(fh)
        for section in RECORD_SECTIONS:
            opening = fh.readline(HEAD_LINE)
            if opening == f' "{section}": [],\n'.encode():
                counts[section] = 0
                continue
            if opening != f' "{section}": [\n'.encode():
                raise NotOurLayout
            read = _section_blocks if section in PLAIN_ROWS else _section_lines
            counts[section] = read(fh, section, sink, checks)
        line = fh.readline(MAX_LINE)
        if not line.startswith(b' "settings": ') or fh.readline(3) != b"}\n" or fh.read(1):
            raise NotOurLayout
        try:
            found = _json(line[len(b' "settings": ') :])
        except ValueError as exc:
            raise NotOurLayout from exc
    settings = checks.settings(found, not_ours_message(path))
    sink.add_settings(settings)
    return CheckedFile(path, counts["cards"], counts["reviews"], counts["interviews"], settings)


def _section_blocks(fh: IO[bytes], section: str, sink: Sink, checks: RecordChecks) -> int:
    """The records of a section of cards or reviews, up to its closing ` ],`, read BLOCK bytes at a time:
    each block's whole lines are checked to be export's in one match (two spaces, a record, a comma after
    each but the last) and parsed as one JSON array. Never more than a block and a line in memory."""
    offset, carry = 0, b""
    while True:
        at = fh.tell() - len(carry)  # where `data` starts in the file
        more = fh.read(BLOCK)
        data = carry + more
        stop = data.find(_SECTION_END)  # newlines are only ever between lines: this is the first end
        if stop >= 0:
            records = data[: stop + 1]
            if not _LAST_LINES(records):
                raise NotOurLayout
            fh.seek(at + stop + len(_SECTION_END))
            return offset + _checked(section, ADAPTERS[section], b"[" + records + b"]", offset, sink, checks)
        cut = data.rfind(b"},\n") + 3  # after the last whole line that is not the section's last
        if cut > 2:
            if not _LINES(data, 0, cut):
                raise NotOurLayout
            text = b"[" + data[: cut - 2] + b"]"
            offset += _checked(section, ADAPTERS[section], text, offset, sink, checks)
            data = data[cut:]
        if not more or len(data) > MAX_LINE:  # the file ends first, or a line longer than any record
            raise NotOurLayout
        carry = data


def _section_lines(fh: IO[bytes], section: str, sink: Sink, checks: RecordChecks) -> int:
    """The records of one section, a line each up to its closing ` ],`, validated CHUNK at a time."""
    adapter = ADAPTERS[section]
    offset = 0
    lines: list[bytes] = []
    comma = True  # the line before the first record, `[`, needs none
    while True:
        line = fh.readline(MAX_LINE)  # a longer one ends without its newline: read as plain JSON
        end = line == b" ],\n"
        if (end and comma) or (not end and not comma):  # JSON's commas exactly: between records, not after
            raise NotOurLayout
        if not end:
            if not line.startswith(b"  {") or not line.endswith(b"\n"):
                raise NotOurLayout
            comma = line.endswith(b",\n")
            lines.append(line[2:-2] if comma else line[2:-1])
        if lines and (end or len(lines) == CHUNK):
            if section == "interviews":  # free-form set-ups: read as plain JSON reading would
                try:
                    items = [_json(item) for item in lines]
                except ValueError as exc:
                    raise NotOurLayout from exc
                text = json.dumps(items).encode()
            else:
                text = b"[" + b",".join(lines) + b"]"
            offset += _checked(section, adapter, text, offset, sink, checks)
            lines = []
        if end:
            return offset


def _checked(
    section: str, adapter: TypeAdapter[Any], text: bytes, offset: int, sink: Sink, checks: RecordChecks
) -> int:
    """A chunk of records (a JSON array) checked and handed to `sink`; how many it held. Cards and reviews
    are checked in plain code (quizapp.progress.plain_records) unless one of them is not exactly as export
    writes it: then, like interviews, by the record models, parsed again by the same JSON parser."""
    plain = PLAIN_ROWS.get(section)
    if plain is not None:
        try:
            rows = plain(from_json(text, allow_inf_nan=False, cache_strings="keys"))
        except ValueError as exc:
            raise NotOurLayout from exc
        if rows is not None:
            hand_over_rows(section, offset, rows, sink, checks)
            return len(rows)
    try:
        records = adapter.validate_json(text)
    except ValidationError as exc:
        raise NotOurLayout from exc
    hand_over(section, offset, records, sink, checks)
    return len(records)
