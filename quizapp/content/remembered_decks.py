"""Provides the deck list remembered from the last start, so home can draw its decks in its first frame.

Opening the store, loading the catalog and counting the cards come 0.1 s after home's first frame, and
0.2 s at 100k cards; the deck titles seldom change between two starts. So each start writes the titles
it loaded, and the next one shows them at once, with their counts marked as being counted, until the real
list replaces them. The file is a cache (safe to delete) and is data: anything in it that this module did
not write (another shape, another deck folder, a huge file) is ignored, never trusted.
"""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from quizapp import paths
from quizapp.terminal_text import terminal_text

FILE_NAME = "home-decks.json"
FORMAT = 1
MAX_BYTES = 512 * 1024
"""A larger file is not one this module wrote: 500 decks of 300-character titles fit, unless the titles
are of 4-byte characters (emoji, mathematical letters): then nothing is written, and starts do without."""
MAX_DECKS = 500
MAX_TITLE = 300
MAX_QUESTIONS = 10**7


@dataclass(frozen=True)
class RememberedDeck:
    """A deck as the last start loaded it: enough for a row of home's table, without its counts."""

    id: str
    title: str
    questions: int


def remembered_decks(key: Sequence[str], folder: Path | None = None) -> tuple[RememberedDeck, ...]:
    """The decks the last start wrote under the same `key` (its version and deck folders), or () when
    there is no such file, it was written for other folders, or it is not what remember_decks writes."""
    raw = _read_regular((folder or paths.cache_dir()) / FILE_NAME)
    if raw is None:
        return ()
    try:
        data = json.loads(raw)
    except (ValueError, RecursionError):  # not JSON, not UTF-8, or nested past the parser's depth
        return ()
    return _decks(data, list(key))


def _read_regular(target: Path) -> bytes | None:
    """The file's bytes if it is a regular file of at most MAX_BYTES; None for anything else. This runs
    before home's first frame: a link is not followed and a pipe is not waited on."""
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    try:
        fd = os.open(target, flags)
    except OSError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        raw = os.read(fd, MAX_BYTES + 1)
    except OSError:
        return None
    finally:
        os.close(fd)
    return raw if len(raw) <= MAX_BYTES else None


def _decks(data: object, key: list[str]) -> tuple[RememberedDeck, ...]:
    """The decks in `data` if it is exactly the shape remember_decks writes, for `key`; else ()."""
    if not isinstance(data, dict) or data.get("format") != FORMAT or data.get("key") != key:
        return ()
    rows = data.get("decks")
    if not isinstance(rows, list) or len(rows) > MAX_DECKS:
        return ()
    decks = []
    for row in rows:
        if not (isinstance(row, list) and len(row) == 3):
            return ()
        deck_id, title, questions = row
        if not (isinstance(deck_id, str) and isinstance(title, str) and type(questions) is int):
            return ()
        if not (
            0 < len(deck_id) <= MAX_TITLE and len(title) <= MAX_TITLE and 0 <= questions <= MAX_QUESTIONS
        ):
            return ()
        if terminal_text(deck_id) is not deck_id or terminal_text(title) is not title:
            return ()  # remember_decks writes the catalog's text, which never holds what this removes
        decks.append(RememberedDeck(deck_id, title, questions))
    return tuple(decks)


def remember_decks(key: Sequence[str], decks: Sequence[RememberedDeck], folder: Path | None = None) -> None:
    """Writes `decks` under `key` for the next start, atomically; a cache folder that cannot be written
    only costs the next start its early rows. Nothing is written when the file says the same already."""
    target = (folder or paths.cache_dir()) / FILE_NAME
    readable = [
        RememberedDeck(d.id, d.title[:MAX_TITLE], d.questions)
        for d in decks
        if 0 < len(d.id) <= MAX_TITLE and 0 <= d.questions <= MAX_QUESTIONS
    ]
    kept = tuple(readable[:MAX_DECKS])
    if remembered_decks(key, target.parent) == kept:
        return
    rows = [[d.id, d.title, d.questions] for d in kept]
    text = json.dumps({"format": FORMAT, "key": list(key), "decks": rows}, ensure_ascii=False)
    if len(text.encode()) > MAX_BYTES:  # the reader would refuse it
        return
    try:
        target.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        fd, tmp = paths.temp_beside(target)
    except OSError:
        return
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(text)
        os.replace(tmp, target)
    except OSError:
        tmp.unlink(missing_ok=True)
