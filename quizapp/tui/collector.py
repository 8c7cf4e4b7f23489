"""Provides the app's garbage-collection policy: the study loop never waits for a full collection.

Python's collector runs when allocations pile up, in whatever handler happens to be running: a full
collection over everything loaded (the catalog, Textual, pydantic models) took 90-380 ms, several times a
minute while studying. So everything alive once the decks are loaded is frozen (`gc.freeze`: never
scanned again, and never freed, which suits what lives until the app ends). A study screen does the same
once its first feedback is drawn (`settle`): the screen, its kept widgets and the session live as long as
it does, so what each card leaves is all a collection has to walk, and the screen collects that itself
right after each feedback is drawn, while the learner reads it (`collect_while_reading`: a few ms where a
walk over the unfrozen screen took 45-190 ms under load). Leaving the screen gives it back (`release`),
and once it has been freed, the rest is frozen again (`refreeze`): a full collection or two per session,
not one per card.
"""

from __future__ import annotations

import gc
import weakref
from typing import Any


def freeze_loaded() -> None:
    """Moves every object alive now out of the collector's sight (call once the decks are loaded)."""
    gc.freeze()


def settle() -> None:
    """Collects, then freezes what is left: call when what is alive will live as long as a screen."""
    gc.collect()
    gc.freeze()


def collect_while_reading() -> None:
    """Collects what the last cards left (frozen objects are not scanned, so this is quick)."""
    gc.collect()


def release() -> None:
    """Lets the collector see everything again (call when a settled screen goes): what it left in cycles
    can be freed, even if the app ends before `refreeze` runs."""
    gc.unfreeze()


def refreeze(gone: weakref.ref[Any]) -> bool:
    """Frees what a closed screen left and, once `gone` (the screen) has been freed, freezes what is
    still alive again (what was frozen at load, and the screen now shown). False while `gone` is still
    referenced (by a message or task on its way out): nothing is frozen, or it would stay for good; try
    again later."""
    gc.collect()
    if gone() is not None:
        return False
    gc.freeze()
    return True
