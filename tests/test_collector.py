"""The garbage-collection policy (quizapp.collector): building pauses the collector without unfreezing what
an app froze, an app's freeze never keeps a left screen for good, and a process that runs app after app
(the test session) gets back what each one froze."""

from __future__ import annotations

import gc
import weakref
from collections.abc import Callable


class _Node:
    """A cycle's member, with a weakref to tell when it is freed."""

    def __init__(self) -> None:
        self.me = self


def _in_sight(obj: object) -> bool:
    return any(o is obj for o in gc.get_objects())


def test_building_pauses_the_collector_and_keeps_what_was_frozen_frozen() -> None:
    from quizapp.collector import freeze_loaded, give_back, no_collections

    before = gc.get_freeze_count()
    try:
        loaded = _Node()
        freeze_loaded()  # the app's catalog, frozen at load
        assert not _in_sight(loaded)
        with no_collections():
            assert not gc.isenabled()
            with no_collections():  # nested: still off, and the outer one turns it back on
                pass
            assert not gc.isenabled()
            built = [_Node() for _ in range(10)]
        assert gc.isenabled()
        assert not _in_sight(loaded)  # a plan computed on the study screen unfroze the whole app
        assert built
    finally:
        give_back(before)


def test_an_ended_apps_frozen_objects_are_given_back_and_freed() -> None:
    from quizapp.collector import freeze_loaded, frozen_count, give_back

    before = frozen_count()
    app = _Node()
    gone = weakref.ref(app)
    freeze_loaded()
    del app
    gc.collect()
    assert gone() is not None  # frozen: an ended app is never freed
    give_back(before)
    assert gone() is None
    assert frozen_count() > 0  # what lives on (modules, fixtures) is out of sight again


def test_a_left_screen_is_not_frozen_by_a_later_freeze_and_the_rest_is_refrozen_once_it_is_freed() -> None:
    from quizapp.collector import freeze_loaded, frozen_count, give_back, refreeze_later, release, settle

    before = frozen_count()
    timers: list[Callable[[], None]] = []
    try:
        screen = _Node()
        left = weakref.ref(screen)
        settle()
        release()
        refreeze_later(left, lambda _delay, callback: timers.append(callback))
        assert frozen_count() == 0 and len(timers) == 1  # still referenced: nothing frozen, try later
        freeze_loaded()  # the app's warm-up, done while the screen is on its way out
        assert frozen_count() == 0
        del screen
        timers.pop()()
        assert left() is None and frozen_count() > 0 and not timers
    finally:
        give_back(before)


def test_a_screen_switch_holds_the_collector_off_once_and_composes_with_building() -> None:
    from quizapp.collector import hold_for_switch, no_collections, switch_drawn

    assert gc.isenabled()
    hold_for_switch()
    hold_for_switch()  # a second switch within the hold: still one hold
    assert not gc.isenabled()
    with no_collections():  # a build during the hold leaves the collector to the hold
        pass
    assert not gc.isenabled()
    switch_drawn()
    assert gc.isenabled()
    switch_drawn()  # without a hold: nothing (the app calls it when it ends)
    assert gc.isenabled()
    with no_collections():  # a switch during a build leaves the collector off until the build ends
        hold_for_switch()
        switch_drawn()
        assert not gc.isenabled()
    assert gc.isenabled()
