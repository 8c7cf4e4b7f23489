"""Provides what the command line's output passes on its way out: terminal_text on every write (CleanStream,
so no print of text from a deck, a progress file or a file name can drive the terminal), and ASCII
fallbacks for the symbols the reports print (heat cells, dots, ticks, arrows), so a terminal or a pipe
whose encoding is ASCII (`PYTHONIOENCODING=ascii`, an old Windows console) gets readable text instead of
a UnicodeEncodeError."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, TextIO

from quizapp.terminal_text import terminal_text


class CleanStream:
    """A text stream whose every write passes terminal_text; everything else (flush, isatty, encoding,
    the binary `buffer` an export to `-` writes) is the wrapped stream's."""

    def __init__(self, stream: TextIO) -> None:
        self.wrapped = stream

    def write(self, text: str) -> int:
        self.wrapped.write(terminal_text(text))
        return len(text)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.wrapped, name)


@contextmanager
def clean_output() -> Iterator[None]:
    """Standard output and error wrapped in CleanStream meanwhile: one command's every print."""
    saved = sys.stdout, sys.stderr
    for name, stream in (("stdout", sys.stdout), ("stderr", sys.stderr)):
        if stream is not None and not isinstance(stream, CleanStream):
            setattr(sys, name, CleanStream(stream))
    try:
        yield
    finally:
        sys.stdout, sys.stderr = saved


def own_controls(stream: TextIO) -> TextIO:
    """The stream beneath CleanStream, for the few writes whose controls are the app's own (the `\\r`
    of a progress line that rewrites itself), never text from a file."""
    return stream.wrapped if isinstance(stream, CleanStream) else stream


SAMPLE = "·░▒▓█✓✗→…×≈≤≥★☆─│▸•"
"""Symbols the reports use: a stream that cannot encode these gets the fallback."""
ASCII_SYMBOLS = str.maketrans(
    {
        "·": ".", "░": ".", "▒": ":", "▓": "%", "█": "#", "✓": "v", "✗": "x", "→": "->", "←": "<-",
        "…": "...", "×": "x", "≈": "~", "≤": "<=", "≥": ">=", "★": "*", "☆": "-", "─": "-", "│": "|",
        "▸": ">", "•": "*", "—": "--", "–": "-", "’": "'", "‘": "'", "“": '"', "”": '"', "²": "^2",
        "√": "sqrt", "∞": "inf", "▇": "#", "▁": "_", "▔": "-",
    }
)  # fmt: skip


class AsciiStream:
    """A text stream that writes the ASCII fallback of each symbol, and `?` for anything else it cannot
    encode; everything else (flush, isatty, encoding) is the wrapped stream's."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream
        self._encoding = stream.encoding or "ascii"

    def write(self, text: str) -> int:
        safe = text.translate(ASCII_SYMBOLS).encode(self._encoding, "replace").decode(self._encoding)
        self._stream.write(safe)
        return len(text)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


def can_encode(stream: TextIO, sample: str = SAMPLE) -> bool:
    try:
        sample.encode(stream.encoding or "ascii")
    except (UnicodeEncodeError, LookupError):
        return False
    return True


def use_ascii_where_needed() -> None:
    """Wraps stdout and stderr in AsciiStream when they cannot print the reports' symbols."""
    for name in ("stdout", "stderr"):
        stream = getattr(sys, name)
        if stream is not None and not isinstance(stream, AsciiStream) and not can_encode(stream):
            setattr(sys, name, AsciiStream(stream))
