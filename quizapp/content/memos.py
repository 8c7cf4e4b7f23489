"""Provides the process's one set of content memos, with one reset.

Loading and checking decks memoises pure results: load outcomes by file hash, template signatures that
passed the checks, calculator results, seeded draws. They live in one object so that a test or a
benchmark starts cold with one call, `MEMOS.reset()`, and nothing is forgotten in a corner.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any


@dataclass
class Memos:
    """Every process-wide memo of the content package; each is a pure function of its key."""

    outcomes: dict[str, Any] = field(default_factory=dict)
    """Cache key (file hash + code stamp) -> the load outcome of a deck file."""
    passed: set[str] = field(default_factory=set)
    """Template signatures that passed every check (in this process, or remembered on disk)."""
    new_passed: list[str] = field(default_factory=list)
    """Signatures passed since the proof file was last appended to."""
    proof_files: set[Path] = field(default_factory=set)
    """Proof files already read into `passed`."""
    calculations: dict[tuple[Any, ...], Any] = field(default_factory=dict)
    """(worked, calculator, args) -> its Derivation or ValueError, for the seed checks."""
    picks: dict[tuple[Any, ...], dict[int, Any]] = field(default_factory=dict)
    """Draw plan -> seed -> the picks and their key: templates with the same plan draw the same numbers."""
    seed_states: dict[int, Any] = field(default_factory=dict)
    """Seed -> the state `np.random.default_rng(seed)` starts in (restoring is ten times cheaper)."""
    code_stamp: list[str] = field(default_factory=list)
    """The hash of the engine and content sources, computed once."""

    def reset(self) -> None:
        """Forgets everything, as in a fresh process."""
        for f in fields(self):
            getattr(self, f.name).clear()


MEMOS = Memos()
