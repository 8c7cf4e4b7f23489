"""The study screen and the garbage collector: once the first feedback is drawn the screen is out of the
collector's sight (each card's collection walks only what the cards left), and leaving it frees it."""

from __future__ import annotations

import gc
import weakref
from collections.abc import Callable
from typing import Any

from textual.widgets import Input

from quizapp.content.catalog import Catalog
from quizapp.tui.app import QuizApp
from quizapp.tui.collector import HELD_OFF
from quizapp.tui.screens.home import HomeScreen
from tests.tui.helpers import SIZE, current, drill, press, question_ids, settled


def _in_sight(obj: object) -> bool:
    """The collector scans `obj` (frozen objects are not listed by gc.get_objects)."""
    return any(o is obj for o in gc.get_objects())


async def _out_of_sight(pilot: Any, obj: object) -> bool:
    """Whether `obj` leaves the collector's sight; the freeze follows the feedback's first paint, so
    this waits for it (the cap, about half a minute, only bounds a hang on a busy machine)."""
    for _ in range(1500):
        if not _in_sight(obj):
            return True
        await pilot.pause(0.02)
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
        for _ in range(3000):  # the cap (about a minute) only bounds a hang: its last messages and a busy
            gc.collect()  # machine's late timers may still hold it a moment
            if left() is None:
                break
            await pilot.pause(0.02)
        assert left() is None  # frozen, it would have stayed in memory for good
