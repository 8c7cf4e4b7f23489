"""The study screen and the garbage collector: once the first feedback is drawn the screen is out of the
collector's sight (each card's collection walks only what the cards left), and leaving it frees it.

The waits below are a few dozen looks, each after the app has run a while: they never spin over the heap.
A long xdist worker once spent 17 minutes in the old wait, 3,000 full collections after `release` had
unfrozen every earlier test's app (they stayed frozen until tests/conftest.py gave them back)."""

from __future__ import annotations

import gc
import weakref
from collections.abc import Callable
from typing import Any

from textual.widgets import Input

from quizapp.collector import HELD_OFF, frozen_count
from quizapp.content.catalog import Catalog
from quizapp.tui.app import QuizApp
from quizapp.tui.screens.home import HomeScreen
from tests.tui.helpers import SIZE, current, drill, press, question_ids, settled


def _in_sight(obj: object) -> bool:
    """The collector scans `obj` (frozen objects are not listed by gc.get_objects)."""
    return any(o is obj for o in gc.get_objects())


LOOKS = 60
"""How many times a wait looks, each after a pause of LOOK_S and the app's workers."""
LOOK_S = 0.25


async def _out_of_sight(pilot: Any, obj: object) -> bool:
    """Whether `obj` leaves the collector's sight; the freeze follows the feedback's first paint by
    READING_STARTS_S, so this waits for it (a few looks; more only on a busy machine)."""
    for _ in range(LOOKS):
        if not _in_sight(obj):
            return True
        await settled(pilot)
        await pilot.pause(LOOK_S)
    return False


async def _refrozen(pilot: Any) -> bool:
    """Whether the app freezes what is alive again after a screen's release: it does so only once the
    screen has been freed (quizapp.collector.refreeze_later, a try a second)."""
    for _ in range(LOOKS):
        if frozen_count() > 0:
            return True
        await pilot.pause(LOOK_S)
    return False


async def test_the_screen_is_frozen_after_its_first_feedback_and_freed_once_left(
    new_app: Callable[..., QuizApp], catalog: Catalog
) -> None:
    qid = question_ids(catalog, "numeric")[0]
    before = gc.get_threshold()
    app = new_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await drill(app, pilot, qid)
        assert _in_sight(screen)  # nothing answered yet: the screen may still change a lot
        screen.query_one("#answer", Input).value = current(screen).expected_text()
        await press(pilot, "enter")
        await settled(pilot)
        assert screen.query_one("#feedback").display
        assert await _out_of_sight(pilot, screen)
        assert await _out_of_sight(pilot, screen.session)
        assert gc.get_threshold()[2] == HELD_OFF  # full collections only between cards, while reading

        await press(pilot, "enter")  # the next card's feedback collects only what the cards left
        screen.query_one("#answer", Input).value = current(screen).expected_text()
        await press(pilot, "enter")
        await settled(pilot)
        assert await _out_of_sight(pilot, screen)

        left = weakref.ref(screen)
        del screen
        await press(pilot, "escape")
        await settled(pilot)
        assert isinstance(app.screen, HomeScreen)
        assert gc.get_threshold() == before  # the collector's own full collections are back
        # Textual's screen timer and a task's context hold the screen for a few turns of the loop; the
        # app collects once a second until it is gone, then freezes the rest again.
        refrozen = await _refrozen(pilot)
        gc.collect()
        kept = left()
        held = sorted({type(r).__name__ for r in gc.get_referrers(kept)}) if kept is not None else []
        del kept
        assert not held, f"the left screen is still held by {held}"  # frozen, it would stay for good
        assert refrozen
