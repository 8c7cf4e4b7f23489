"""Provides the progress file format: its marker and version, its sections and limits.

A file is one JSON object: the head (`format`, `version`, `exported_at`), then `cards`, `reviews` and
`interviews` (arrays of the records in quizapp.progress.file_records) and `settings` (an object). Times are
fixed-format UTC ISO strings with microseconds; floats are JSON numbers, which round-trip exactly. This
module stays free of pydantic, so export never loads it.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

FORMAT_MARKER = "quizapp-progress"
FORMAT_VERSION = 2
"""The version export writes. Version 2 added `points` to a review (an explain answer's key points: what the
grader read of each and the learner's tick), written only for the reviews that have it."""
READ_VERSIONS = (1, 2)
"""The versions import reads, with the same record models: a version 1 file simply has no `points`. A
quizapp that reads only version 1 refuses a newer file by its version, never by a field it does not know."""
HEAD = ("format", "version", "exported_at")
RECORD_SECTIONS = ("cards", "reviews", "interviews")
SECTIONS = frozenset({*HEAD, *RECORD_SECTIONS, "settings"})
MAX_FILE_BYTES = 2 << 30
"""A progress file of a million reviews is about 300 MB; a larger one is not a backup of ours."""
EARLIEST = datetime(1970, 1, 1, tzinfo=UTC)
LATEST = datetime(2400, 1, 1, tzinfo=UTC)


def readable_version(version: object) -> bool:
    """Whether import reads a file that says this version: a whole number in READ_VERSIONS (not true, 1.0)."""
    return type(version) is int and version in READ_VERSIONS


READ_VERSIONS_TEXT = " or ".join(map(str, READ_VERSIONS))
"""The versions import reads, as messages say them ("1 or 2")."""


@dataclass(frozen=True)
class ProgressCounts:
    """What a progress export or import moved; `backup` is the copy kept of the replaced database."""

    cards: int
    reviews: int
    interviews: int
    settings: int
    backup: Path | None = None
