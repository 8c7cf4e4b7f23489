"""Provides the app's garbage-collection policy: the study loop never waits for a full collection.

Python's collector runs when allocations pile up, in whatever handler happens to be running: a full
collection over everything loaded (the catalog, Textual, pydantic models) took 90-380 ms, several times a
minute while studying. So everything alive once the decks are loaded is frozen (`gc.freeze`: never
scanned again, and never freed, which suits what lives until the app ends). A study screen does the same
once its first feedback is drawn (`settle`): the screen, its kept widgets and the session live as long as
it does, so what each card leaves is all a collection has to walk, and the screen collects that itself
shortly after each feedback is drawn, while the learner reads it (`collect_while_reading`: a few ms where a
walk over the unfrozen screen took 45-190 ms under load). Leaving the screen gives it back (`release`),
and once it has been freed, the rest is frozen again (`refreeze`): a full collection or two per session,
not one per card.

What a card leaves in cycles is mostly Textual's: strips that cache themselves, and layout records. Some of
it joins the objects that survive (Textual's caches keep strips for a while), so a full collection after
every card walked more each time: 40 ms and more after 200 cards. So after most cards only the young
generations are collected (what that card left), and every FULL_EVERY-th card a full collection runs, while
the learner reads; meanwhile the collector's own full collections are held off (`settle` raises the third
threshold, `release` puts it back), so none lands on a key press.
"""

from __future__ import annotations

import gc
import weakref
from typing import Any


def freeze_loaded() -> None:
    """Moves every object alive now out of the collector's sight (call once the decks are loaded)."""
    gc.freeze()


READING_STARTS_S = 0.06
"""How long after the feedback's first frame a collection waits: the panel's later frames (the worked
steps, a heatmap) are drawn first (a collection started at the first frame held the verdict back by up to
40 ms), and nobody has read it yet."""
FULL_EVERY = 10
"""One card in this many gets a full collection while its feedback is read; the others, the young ones."""
HELD_OFF = 1_000_000
"""The third threshold while a screen is settled: the collector starts no full collection of its own."""
_thresholds: list[tuple[int, int, int]] = []
"""The thresholds `settle` replaced, for `release` to put back."""


def settle() -> None:
    """Collects, then freezes what is left: call when what is alive will live as long as a screen. Until
    `release`, full collections are left to `collect_while_reading`."""
    gc.collect()
    gc.freeze()
    if not _thresholds:
        young, middle, old = gc.get_threshold()
        _thresholds.append((young, middle, old))
        gc.set_threshold(young, middle, HELD_OFF)


def collect_while_reading(cards: int) -> None:
    """Collects what the last cards left, after the `cards`-th feedback: the young generations (quick),
    and every FULL_EVERY-th card everything not frozen."""
    gc.collect() if cards % FULL_EVERY == 0 else gc.collect(1)


def release() -> None:
    """Lets the collector see everything again (call when a settled screen goes), and start its own full
    collections: what the screen left in cycles can be freed, even if the app ends before `refreeze`."""
    gc.unfreeze()
    if _thresholds:
        gc.set_threshold(*_thresholds.pop())


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
