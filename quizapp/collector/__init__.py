"""Provides the app's garbage-collection policy, the one place that calls `gc`: no collection while
something big is built, and the study loop never waits for a full collection.

Building. Loading the decks and computing the plan make ~100k small containers; a collection set off
midway walks the whole heap (the catalog's 10k question models included) for nothing, and costs more
than the work. So they run inside `no_collections()`, and what loading built then counts as old.

Studying. Python's collector runs when allocations pile up, in whatever handler happens to be running: a
full collection over everything loaded (the catalog, Textual, pydantic models) took 90-380 ms, several
times a minute while studying. So everything alive once the decks are loaded is frozen (`freeze_loaded`:
never scanned again, and never freed, which suits what lives until the app ends). A study screen does the
same once its first feedback is drawn (`settle`): the screen, its kept widgets and the session live as
long as it does, so what each card leaves is all a collection has to walk, and the screen collects that
itself shortly after each feedback is drawn, while the learner reads it (`collect_while_reading`: a few ms
where a walk over the unfrozen screen took 45-190 ms under load). Leaving the screen gives it back
(`release`), and once it has been freed, the rest is frozen again (`refreeze`): a full collection or two
per session, not one per card.

What a card leaves in cycles is mostly Textual's: strips that cache themselves, and layout records. Some of
it joins the objects that survive (Textual's caches keep strips for a while), so a full collection after
every card walked more each time: 40 ms and more after 200 cards. So after most cards only the young
generations are collected (what that card left), and every FULL_EVERY-th card a full collection runs, while
the learner reads; meanwhile the collector's own full collections are held off (`settle` raises the third
threshold, `release` puts it back), so none lands on a key press.

A process that runs app after app (the test session) gives back what each one froze (`give_back`): frozen,
an app that has ended is never freed, and every later full collection after a `release` walks them all.
"""

from __future__ import annotations

import gc
import weakref
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

READING_STARTS_S = 0.06
"""How long after the feedback's first frame a collection waits: the panel's later frames (the worked
steps, a heatmap) are drawn first (a collection started at the first frame held the verdict back by up to
40 ms), and nobody has read it yet."""
FULL_EVERY = 10
"""One card in this many gets a full collection while its feedback is read; the others, the young ones."""
HELD_OFF = 1_000_000
"""The third threshold while a screen is settled: the collector starts no full collection of its own."""
REFREEZE_TRIES = 10
"""How many times, a second apart, a left screen is looked for before what is alive is frozen again (it
is normally freed at the first; after the last the app runs unfrozen until the next screen settles)."""
SWITCH_HOLD_S = 0.3
"""How long after a screen is opened or closed the collector starts nothing: the new screen's first frames,
and at 100k cards the content its worker reads (stats, the browser's first page), are drawn first."""
_switching: list[bool] = []
"""While a screen switch holds the collector off: whether it ran before (`hold_for_switch`)."""
_thresholds: list[tuple[int, int, int]] = []
"""The thresholds `settle` replaced, for `release` to put back."""
_leaving: weakref.WeakSet[Any] = weakref.WeakSet()
"""Screens given back (`refreeze_later`) and not freed yet: a freeze now would keep them for good."""


@contextmanager
def no_collections() -> Iterator[None]:
    """Runs the body with the cyclic collector off (nested uses keep it off), then puts it back.

    On the way out, what was built moves straight to the oldest generation (freeze + unfreeze is a list
    splice): it is long-lived, and a young-generation pass over it would cost tens of ms for nothing;
    garbage among it is still collected by the next full collection. Only while nothing is frozen: the
    splice unfreezes everything, and what the app or a study screen froze must stay frozen."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            if gc.get_freeze_count() == 0:
                gc.freeze()
                gc.unfreeze()
            gc.enable()


def hold_for_switch() -> None:
    """A screen is opening or closing: no collection starts until `switch_drawn`. At 100k cards a full
    collection of what is not frozen (10-27 ms) landed in the new screen's first frame, on the key that
    opened it. Holding twice is holding once."""
    if not _switching:
        _switching.append(gc.isenabled())
        gc.disable()


def switch_drawn() -> None:
    """Ends the hold: the collector runs again, and what it held off runs at the next allocation, while the
    new screen is read. Harmless without a hold (the app calls it when it ends)."""
    if _switching and _switching.pop():
        gc.enable()


def freeze_loaded() -> None:
    """Moves every object alive now out of the collector's sight (call once the decks are loaded).
    Not while a left screen is still alive: `refreeze` freezes what lives once it is freed."""
    if not _leaving:
        gc.freeze()


def freeze_survivors() -> None:
    """Collects everything not frozen, then freezes what is left."""
    gc.collect()
    gc.freeze()


def settle() -> None:
    """Collects, then freezes what is left: call when what is alive will live as long as a screen. Until
    `release`, full collections are left to `collect_while_reading`."""
    freeze_survivors()
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


def refreeze_later(
    gone: weakref.ref[Any], later: Callable[[float, Callable[[], None]], object], tries: int = REFREEZE_TRIES
) -> None:
    """Calls `refreeze(gone)` now and, while `gone` lives, again a second later through `later(delay,
    callback)` (the app's timer), at most `tries` times in all."""
    screen = gone()
    if screen is not None:
        _leaving.add(screen)
    del screen
    if not refreeze(gone) and tries > 1:
        later(1.0, lambda: refreeze_later(gone, later, tries - 1))


def collect() -> None:
    """A full collection of everything not frozen, now (what the tests run after each test)."""
    gc.collect()


def frozen_count() -> int:
    """How many objects are frozen now (see `give_back`)."""
    return gc.get_freeze_count()


def give_back(frozen_before: int) -> None:
    """Collects; and if more is frozen than `frozen_before` (an app froze what it loaded) or nothing is (a
    study screen's `release` unfroze everything), collects everything and freezes what survives: what a
    finished app froze is freed, and what lives on (modules, shared fixtures) is out of sight again.

    For a process that runs app after app, as the test session does: frozen, every ended app would stay
    in memory, and the one full collection a `release` starts would walk them all."""
    frozen = gc.get_freeze_count()
    if frozen > frozen_before or frozen == 0:
        gc.unfreeze()
        freeze_survivors()
    else:
        gc.collect()
