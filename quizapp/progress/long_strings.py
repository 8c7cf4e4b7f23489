"""Provides the cap on a progress file's strings, checked in one linear pass before any JSON parser reads it:
no answer or setting quizapp writes comes near the cap, and a file with a longer string is refused unparsed.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from quizapp.errors import QuizappError
from quizapp.progress.plain_json import open_file

MAX_STRING_BYTES = 1 << 20
"""Longest string a progress file may hold: an answer is at most the code editor's 100,000 characters."""
SCAN_BYTES = 1 << 20
"""The scan reads this much at a time: memory stays bounded whatever the file."""


def check_strings(path: Path, not_ours: str) -> None:
    """Refuses a file with a string longer than MAX_STRING_BYTES (or as long a stretch with no string),
    in one linear pass: NumPy finds the quotes (one preceded by a backslash is inside a string). The JSON
    parser re-reads a token that spans its buffers, so a single huge string would cost it quadratic
    time, and hold it whole in memory."""
    last, at, before = 0, 0, 0  # the previous unescaped quote's offset, this chunk's, the byte before it
    with open_file(path) as fh:
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
