"""Provides the progress file format: its marker and version, its sections and limits.

A file is one JSON object: the head (`format`, `version`, `exported_at`), then `cards`, `reviews` and
`interviews` (arrays of the records in quizapp.progress.records) and `settings` (an object). Times are
fixed-format UTC ISO strings with microseconds; floats are JSON numbers, which round-trip exactly. This
module stays free of pydantic, so export never loads it.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

FORMAT_MARKER = "quizapp-progress"
FORMAT_VERSION = 1
HEAD = ("format", "version", "exported_at")
RECORD_SECTIONS = ("cards", "reviews", "interviews")
SECTIONS = frozenset({*HEAD, *RECORD_SECTIONS, "settings"})
MAX_FILE_BYTES = 2 << 30
"""A progress file of a million reviews is about 300 MB; a larger one is not a backup of ours."""
EARLIEST = datetime(1970, 1, 1, tzinfo=UTC)
LATEST = datetime(2400, 1, 1, tzinfo=UTC)


@dataclass(frozen=True)
class ProgressCounts:
    """What a progress export or import moved; `backup` is the copy kept of the replaced database."""

    cards: int
    reviews: int
    interviews: int
    settings: int
    backup: Path | None = None
