"""Provides deck loading: one file's outcome (a valid deck or its problems), from the cache when its bytes are
unchanged, else checked afresh; and the warnings `validate` gives about control characters.

A file's size is checked before it is read (quizapp.content.deck_files), then it is read once and hashed
(sha256). If the cache (quizapp.content.deck_cache) holds a result for that hash, this app version and this
engine code, the deck comes back from JSON without parsing YAML, importing the engine or running the seed
checks; its questions are turned into models only when first used (quizapp.content.deck). A bundled deck
missing from the cache (a first start) comes from the outcome checked before it shipped
(quizapp.content.shipped_checks) when its bytes and payload match it. Otherwise the bytes are parsed and
checked (quizapp.content.deck_validation) and the result, a deck or its problems, is cached by a
background thread.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

from quizapp.content import guards, shipped_checks
from quizapp.content.deck import DeckData
from quizapp.content.deck_cache import (
    cache_file,
    cache_key,
    finish_cache_writes,
    proven_file,
    read_cache,
    write_later,
)
from quizapp.content.deck_files import DeckTooBig, display_path, read_deck_bytes
from quizapp.content.deck_validation import parse_yaml, place, validate_deck
from quizapp.content.memos import MEMOS
from quizapp.content.problems import Issue, Problem


@dataclass(frozen=True)
class Loaded:
    """The outcome for one file: a valid deck, or the problems that kept it out."""

    path: Path
    deck: DeckData | None
    problems: tuple[Problem, ...]
    digest: str = ""
    deck_id: str = ""
    """The id the file declares, even when it failed, for "skipped deck X" messages."""


def reset_memos() -> None:
    """Forgets every content memo, as a fresh process would (for benchmarks and tests). The on-disk cache
    stays, its pending writes finished first, so a load after this one finds them."""
    finish_cache_writes()
    MEMOS.reset()


def load_file(path: Path, *, use_cache: bool = True) -> Loaded:
    """Loads one deck file: from the cache when its content is unchanged, else parsed and checked."""
    try:
        raw = read_deck_bytes(path)
    except OSError as exc:
        problem = Problem(display_path(path), 1, 1, "", "", f"cannot read the file: {exc.strerror}")
        return Loaded(path, None, (problem,))
    except DeckTooBig as exc:
        return Loaded(path, None, (Problem(display_path(path), 1, 1, "", "", str(exc)),))
    digest = hashlib.sha256(raw).hexdigest()
    key = cache_key(digest)
    outcome = MEMOS.outcomes.get(key) if use_cache else None
    if outcome is None and use_cache:
        outcome = read_cache(key)
    if outcome is None and use_cache:  # a bundled deck on a first start: checked before it shipped
        shipped = shipped_checks.lookup(path, digest, raw)
        if shipped is not None:
            outcome = shipped[0]
            write_later(cache_file(key), outcome, shipped[1])
    if outcome is None:
        outcome, parsed = validate_deck(raw, proven=proven_file() if use_cache else None)
        if use_cache:
            write_later(cache_file(key), outcome, parsed)
            del parsed  # the writer frees it, off the caller's path
    if use_cache:
        MEMOS.outcomes[key] = outcome
    problems = tuple(Problem(display_path(path), *p) for p in outcome.problems)
    return Loaded(path, outcome.deck, problems, digest, outcome.deck_id)


def control_warnings(path: Path) -> tuple[Problem, ...]:
    """Where a deck's text holds control characters or escape sequences, located. Loading already removes
    them (quizapp.terminal_text: deck text never drives the terminal); `validate` warns so the author can
    remove them. Files that fail to load have their own problems and get no warnings."""
    try:
        raw = read_deck_bytes(path)
    except (OSError, DeckTooBig):
        return ()
    if not guards.may_hold_controls(raw):
        return ()
    try:
        text = raw.decode("utf-8").removeprefix("\ufeff")
        if guards.text_problem(text) is not None:
            return ()
        data = parse_yaml(text)
    except (UnicodeDecodeError, ValueError):
        return ()
    if not isinstance(data, dict) or guards.data_problem(data) is not None:
        return ()
    _, found = guards.clean_text(data)
    if not found:
        return ()
    placed = place([Issue(loc, message) for loc, message in found], text, data)
    return tuple(Problem(display_path(path), *p) for p in placed)
