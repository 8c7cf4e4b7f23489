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
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from quizapp import paths

FILE_NAME = "home-decks.json"
FORMAT = 1
MAX_BYTES = 256 * 1024
"""A larger file is not one this module wrote (500 decks with long titles fit in a tenth of it)."""
MAX_DECKS = 500
MAX_TITLE = 300


@dataclass(frozen=True)
class RememberedDeck:
    """A deck as the last start loaded it: enough for a row of home's table, without its counts."""

    id: str
    title: str
    questions: int


def remembered_decks(key: Sequence[str], folder: Path | None = None) -> tuple[RememberedDeck, ...]:
    """The decks the last start wrote under the same `key` (its version and deck folders), or () when
    there is no such file, it was written for other folders, or it is not what remember_decks writes."""
    target = (folder or paths.cache_dir()) / FILE_NAME
    try:
        with target.open("rb") as file:
            raw = file.read(MAX_BYTES + 1)
    except OSError:
        return ()
    if len(raw) > MAX_BYTES:
        return ()
    try:
        data = json.loads(raw)
    except (ValueError, RecursionError):  # not JSON, not UTF-8, or nested past the parser's depth
        return ()
    return _decks(data, list(key))


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
        if not (0 < len(deck_id) <= MAX_TITLE and len(title) <= MAX_TITLE and 0 <= questions <= 10**7):
            return ()
        decks.append(RememberedDeck(deck_id, title, questions))
    return tuple(decks)


def remember_decks(key: Sequence[str], decks: Sequence[RememberedDeck], folder: Path | None = None) -> None:
    """Writes `decks` under `key` for the next start, atomically; a cache folder that cannot be written
    only costs the next start its early rows. Nothing is written when the file says the same already."""
    target = (folder or paths.cache_dir()) / FILE_NAME
    kept = tuple(
        RememberedDeck(d.id, d.title[:MAX_TITLE], d.questions)
        for d in decks[:MAX_DECKS]
        if 0 < len(d.id) <= MAX_TITLE
    )
    if remembered_decks(key, target.parent) == kept:
        return
    text = json.dumps(
        {"format": FORMAT, "key": list(key), "decks": [[d.id, d.title, d.questions] for d in kept]}
    )
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
