"""Provides the finding and reading of deck files: which files the sources hold (each once, no link out of a
decks folder followed), how a path is shown in messages, and a file's bytes read only when its size is safe.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable
from pathlib import Path

from quizapp import paths
from quizapp.content import guards
from quizapp.content.problems import Problem
from quizapp.terminal_text import terminal_text

DECK_SUFFIXES = (".yaml", ".yml")


def default_sources() -> tuple[Path, ...]:
    """The bundled decks and the user's own decks folder."""
    return (paths.bundled_content_dir(), paths.user_decks_dir())


def find_deck_files(sources: Iterable[Path | str]) -> tuple[list[Path], list[Problem]]:
    """Deck files under each source (a file, or a folder searched recursively), each listed once."""
    found: list[Path] = []
    seen: set[Path] = set()
    problems: list[Problem] = []
    for source in sources:
        path = Path(source).expanduser()
        if path.is_dir():
            files = []
            for file in sorted(p for p in path.rglob("*") if p.suffix in DECK_SUFFIXES and p.is_file()):
                if _leaves(file, path):  # a shared folder's link must not make us read (and cache) any file
                    message = "skipped: a link to a file outside this decks folder"
                    problems.append(Problem(display_path(file), 1, 1, "", "", message))
                else:
                    files.append(file)
        elif path.is_file():
            files = [path]
        else:
            if path != paths.user_decks_dir():  # the user's folder may simply not exist yet
                problems.append(Problem(display_path(path), 1, 1, "", "", "no such deck file or folder"))
            continue
        for file in files:
            key = file.resolve()
            if key not in seen:
                seen.add(key)
                found.append(file)
    return found, problems


def _leaves(file: Path, folder: Path) -> bool:
    """Whether `file`, links followed, lies outside `folder`."""
    try:
        return not file.resolve().is_relative_to(folder.resolve())
    except OSError:
        return True


def display_path(path: Path) -> str:
    """A path as messages show it: relative to the working folder when inside it, and passed through
    terminal_text (a shared folder's file name can hold an escape sequence)."""
    try:
        return terminal_text(str(path.resolve().relative_to(Path.cwd())))
    except (ValueError, OSError):
        return terminal_text(str(path))


class DeckTooBig(Exception):
    """A deck file refused before it was read: its size, or its kind (a FIFO, a device)."""


def read_deck_bytes(path: Path) -> bytes:
    """The file's bytes, its size checked with fstat before a byte is read: a sparse 3 GB file is refused
    unread (reading it whole took 6.3 GB of memory). At most one byte past the limit is ever read, so a
    file that grows meanwhile, or one whose size the system does not tell, is refused as well. Opened
    without blocking: a FIFO put in the file's place is refused, never waited on. Raises OSError, or
    DeckTooBig with the user's words."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    fd = os.open(path, flags)
    with os.fdopen(fd, "rb") as fh:  # buffered: read(n) reads on until n bytes or the end
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise DeckTooBig("not a regular file (a FIFO, a device or a socket); a deck is a file")
        if info.st_size > guards.MAX_DECK_BYTES:
            raise DeckTooBig(_too_big(info.st_size))
        raw = fh.read(guards.MAX_DECK_BYTES + 1)
    if len(raw) > guards.MAX_DECK_BYTES:
        raise DeckTooBig(_too_big(len(raw)))
    return raw


def _too_big(size: int) -> str:
    limit = guards.MAX_DECK_BYTES >> 20
    shown = f"{size / 2**30:.1f} GB" if size >= 2**30 else f"{size / 2**20:.1f} MB"
    return f"the file is {shown}: larger than the {limit} MB a deck may be (it was not read)"
