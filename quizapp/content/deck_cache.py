"""Provides the validated-deck cache: an outcome (a deck or its problems) kept on disk under a key made of
the file's sha256, this app version and a hash of the engine and content code.

A cache file carries the sha256 of its own payload, so a damaged one is noticed and rebuilt, never trusted
and never a crash. The cache is written by one background thread, so a caller has its catalog before the
deck's JSON is serialised (and the parsed YAML freed): this process keeps the outcome in memory meanwhile,
another one sees no file or a whole one (written to a temporary name, then renamed), and the interpreter
waits for the writes at exit. `finish_cache_writes()` waits for them sooner.
"""

from __future__ import annotations

import hashlib
import json
import os
from concurrent.futures import Future, ThreadPoolExecutor, wait
from dataclasses import dataclass
from pathlib import Path

from quizapp import __version__, paths
from quizapp.content.deck import DeckData, Parsed
from quizapp.content.memos import MEMOS

CACHE_FORMAT = 2
"""2: the header carries each deck's prerequisites and each question's difficulty and tags."""


@dataclass(frozen=True)
class Outcome:
    """A cached outcome, independent of where the file lives: problems without a file name."""

    deck: DeckData | None
    problems: tuple[tuple[int, int, str, str, str], ...]
    deck_id: str = ""


_WRITER: list[ThreadPoolExecutor] = []
_PENDING: list[Future[None]] = []


def finish_cache_writes() -> None:
    """Waits until every cache write started so far is done (written, or given up on)."""
    while _PENDING:
        done, _ = wait(list(_PENDING))
        for future in done:
            _PENDING.remove(future)


def _code_stamp() -> str:
    """A hash of every source file an Instance depends on: the whole engine and the whole content package.

    Derived from the files' bytes rather than a hand-kept list, so no module can be forgotten; hashing
    about 60 small files costs about a millisecond and happens once per process.
    """
    if not MEMOS.code_stamp:
        package = Path(__file__).resolve().parent
        files = sorted((package.parent.parent / "engine").rglob("*.py")) + sorted(package.rglob("*.py"))
        files.append(package.parent / "terminal_text.py")  # what a deck's text is cleaned with
        digest = hashlib.sha256()
        for file in files:
            try:
                digest.update(file.name.encode() + b"\0" + file.read_bytes())
            except OSError:
                continue
        MEMOS.code_stamp.append(digest.hexdigest())
    return MEMOS.code_stamp[0]


def proven_file() -> Path:
    """Where template signatures that passed the seed checks are remembered, per code version."""
    return paths.cache_dir() / f"templates-{_code_stamp()[:16]}-{__version__}.txt"


def cache_key(digest: str) -> str:
    stamp = f"{digest}:{__version__}:{CACHE_FORMAT}:{_code_stamp()}"
    return hashlib.sha256(stamp.encode()).hexdigest()[:40]


def cache_file(key: str) -> Path:
    return paths.cache_dir() / "decks" / f"{key}.json"


def read_cache(key: str) -> Outcome | None:
    """A cached outcome, or None when missing, unreadable or damaged (then the file is checked afresh)."""
    try:
        blob = cache_file(key).read_bytes()
    except OSError:
        return None
    checksum, _, payload = blob.partition(b"\n")
    if hashlib.sha256(payload).hexdigest().encode() != checksum:
        return None
    try:
        if payload.startswith(b'{"problems"'):
            data = json.loads(payload)
            rows = tuple((int(a), int(b), str(c), str(d), str(e)) for a, b, c, d, e in data["problems"])
            return Outcome(None, rows, str(data.get("id", "")))
        deck = DeckData.from_cache(payload)
        return Outcome(deck, (), deck.id)
    except (ValueError, TypeError, KeyError, AttributeError):
        return None


def write_later(target: Path, outcome: Outcome, parsed: Parsed | bytes | None) -> None:
    """Hands the write to the writer thread; `target` is resolved now, where the caller's paths hold.
    `parsed` may be the payload itself, already serialised (quizapp.content.shipped_checks)."""
    _PENDING[:] = [f for f in _PENDING if not f.done()]
    try:
        if not _WRITER:
            _WRITER.append(ThreadPoolExecutor(max_workers=1, thread_name_prefix="quizapp-cache"))
        _PENDING.append(_WRITER[0].submit(write_cache, target, outcome, parsed))
    except RuntimeError:  # the interpreter is shutting down and takes no new thread: write it now
        write_cache(target, outcome, parsed)


def write_cache(target: Path, outcome: Outcome, parsed: Parsed | bytes | None = None) -> None:
    """Writes atomically (temp file + rename); an unwritable cache folder only costs speed."""
    try:
        if isinstance(parsed, bytes):
            parts = [parsed]
        elif outcome.deck is not None:
            parts = outcome.deck.to_cache(parsed)
        else:
            parts = [json.dumps({"problems": outcome.problems, "id": outcome.deck_id}).encode()]
    except (TypeError, ValueError):  # a value JSON cannot hold (PyYAML's dates): just do not cache
        return
    payload = b"".join(parts)
    try:
        target.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        fd, tmp = paths.temp_beside(target)  # private to the user (a deck's text is the author's)
    except OSError:
        return
    try:
        with os.fdopen(fd, "wb") as out:  # the checksum line, then the payload
            out.writelines([hashlib.sha256(payload).hexdigest().encode(), b"\n", payload])
        os.replace(tmp, target)
    except OSError:
        tmp.unlink(missing_ok=True)
        return
