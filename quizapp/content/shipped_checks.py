"""Provides the bundled decks' checked outcome, shipped with the package, so a first start on a fresh home
does not check every bundled deck (seconds) before home can count them.

The file beside this module (FILE_NAME) is written at development time by
`python -m quizapp.content.shipped_checks`, which checks every bundled deck afresh, as `validate --no-cache`
does. Per deck it holds the sha256 of the YAML file, the sha256 of the deck's validated-cache payload (the
header line and the questions' JSON, as quizapp.content.deck writes it) and that header line: a few
kilobytes a deck, where shipping the payloads would double the package's content. At run time a bundled file
whose bytes hash to an entry is parsed (yaml_rs, about 0.1 s for all decks), its questions serialised to
JSON as the checked run did, and the payload is used only if it hashes to the shipped one, byte for byte;
anything else (another app version, an edited deck, a damaged or missing file) falls back to checking the
deck, as for a user's deck, which is never looked up here.

The file carries no code hash: tests/test_shipped_checks.py regenerates it with the current code and
fails when it differs, so a change to the content, the schema or the checks that alters an outcome is
caught before it ships, while a refactor that alters none leaves the file as it is.
"""

from __future__ import annotations

import hashlib
import json
import sys
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from quizapp import __version__, paths
from quizapp.content import guards
from quizapp.content.deck import DeckData, questions_json
from quizapp.content.deck_cache import CACHE_FORMAT, Outcome
from quizapp.content.deck_files import DeckTooBig, find_deck_files, read_deck_bytes
from quizapp.content.deck_validation import parse_yaml, validate_deck

FILE_NAME = "shipped_checks.txt"
FORMAT = 1
SHIPPED = Path(__file__).resolve().parent / FILE_NAME
MAX_BYTES = 4 * 2**20
"""A larger file is not one `write` made (the bundled decks' headers take about 80 KB)."""


@dataclass(frozen=True)
class Entry:
    """One bundled deck's checked outcome: the hash of its cache payload, and the payload's header line."""

    payload_sha: str
    header: bytes


def stamp() -> str:
    """The first line: what an entry is valid for (this file's format, the app version, the cache format)."""
    return json.dumps({"format": FORMAT, "version": __version__, "cache_format": CACHE_FORMAT})


@cache
def entries(file: Path = SHIPPED) -> dict[str, Entry]:
    """YAML sha256 -> Entry; empty when the file is missing, damaged or made for another version."""
    try:
        with file.open("rb") as fh:
            raw = fh.read(MAX_BYTES + 1)
    except OSError:
        return {}
    first, _, rest = raw.partition(b"\n")
    if len(raw) > MAX_BYTES or first != stamp().encode():
        return {}
    found: dict[str, Entry] = {}
    for line in rest.splitlines():
        digest, _, tail = line.partition(b" ")
        payload_sha, _, header = tail.partition(b" ")
        if len(digest) != 64 or len(payload_sha) != 64 or not header.startswith(b"{"):
            return {}  # not what `write` makes: trust none of it
        found[digest.decode("ascii", "replace")] = Entry(payload_sha.decode("ascii", "replace"), header)
    return found


def lookup(path: Path, digest: str, raw: bytes, file: Path = SHIPPED) -> tuple[Outcome, bytes] | None:
    """The checked outcome of a bundled deck with these bytes and its cache payload, or None when the
    deck must be checked: not a bundled file, no entry, or the payload not the one that was checked."""
    if not path.is_relative_to(paths.bundled_content_dir()):
        return None
    entry = entries(file).get(digest)
    if entry is None:
        return None
    try:
        data = parse_yaml(raw.decode("utf-8").removeprefix("\ufeff"))
        if guards.may_hold_controls(raw):
            data, _ = guards.clean_text(data)
        items = data["questions"]
        blobs = questions_json(items, [None] * len(items))
    except (UnicodeDecodeError, ValueError, TypeError, KeyError, AttributeError):
        return None
    payload = b"".join([entry.header, b"\n", *blobs])
    if hashlib.sha256(payload).hexdigest() != entry.payload_sha:
        return None
    try:
        deck = DeckData.from_cache(payload)
    except (ValueError, TypeError, KeyError, AttributeError):
        return None
    return Outcome(deck, (), deck.id), payload


def build(folder: Path | None = None) -> tuple[str, list[str]]:
    """The file's text for the decks in `folder` (the bundled ones), each checked afresh; and the problems
    of decks that failed (a failed deck gets no entry: it is checked at every start until fixed)."""
    files, problems = find_deck_files([folder or paths.bundled_content_dir()])
    failed = [f"{p.file}:{p.line}: {p.message}" for p in problems]
    lines = [stamp()]
    for file in files:
        try:
            raw = read_deck_bytes(file)
        except (OSError, DeckTooBig) as exc:
            failed.append(f"{file}: {exc}")
            continue
        outcome, parsed = validate_deck(raw)
        if outcome.deck is None:
            failed.extend(f"{file.name}:{p[0]}: {p[4]}" for p in outcome.problems)
            continue
        header, newline, *blobs = outcome.deck.to_cache(parsed)
        payload_sha = hashlib.sha256(b"".join([header, newline, *blobs])).hexdigest()
        lines.append(f"{hashlib.sha256(raw).hexdigest()} {payload_sha} {header.decode()}")
    return "\n".join(lines) + "\n", failed


def uncovered(folder: Path | None = None) -> list[str]:
    """The bundled decks a first start would have to check: those the shipped file does not vouch for."""
    files, _ = find_deck_files([folder or paths.bundled_content_dir()])
    out = []
    for file in files:
        try:
            raw = read_deck_bytes(file)
        except (OSError, DeckTooBig):
            out.append(file.name)
            continue
        if lookup(file, hashlib.sha256(raw).hexdigest(), raw) is None:
            out.append(file.name)
    return out


def main(argv: list[str] | None = None) -> int:
    """Rewrites the shipped file from content/ (run after editing a deck, the schema or a check); with
    --check, only lists the bundled decks it does not cover (the wheel's smoke test in .ci/run)."""
    if (sys.argv[1:] if argv is None else argv) == ["--check"]:
        missing = uncovered()
        print(f"{len(missing)} bundled decks not covered by {SHIPPED}", *missing, sep="\n")
        return 1 if missing else 0
    text, failed = build()
    if failed:
        print("not written: these bundled decks fail their checks", *failed, sep="\n", file=sys.stderr)
        return 1
    SHIPPED.write_text(text, encoding="utf-8")
    print(f"wrote {SHIPPED} ({len(text.encode()) // 1024} KB, {text.count(chr(10)) - 1} decks)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
