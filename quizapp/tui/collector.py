"""Provides the app's garbage-collection policy: the study loop never waits for a full collection.

Python's collector runs when allocations pile up, in whatever handler happens to be running: a full
collection over everything loaded (the catalog, Textual, pydantic models) took 90-380 ms, several times a
minute while studying. So everything alive once the decks are loaded is frozen (`gc.freeze`: never
scanned again, and never freed, which suits what lives until the app ends), and the study screen collects
the rest itself right after the feedback is drawn, while the learner reads it, so the collector's own
trigger is seldom reached on a key's path.
"""

from __future__ import annotations

import gc


def freeze_loaded() -> None:
    """Moves every object alive now out of the collector's sight (call once the decks are loaded)."""
    gc.freeze()


def collect_while_reading() -> None:
    """Collects what the last cards left (objects frozen at load are not scanned, so this is quick)."""
    gc.collect()
