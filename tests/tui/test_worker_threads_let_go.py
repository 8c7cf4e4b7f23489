"""A screen that ran a worker is freed once it is closed, even while the worker's thread sits idle.

Textual marks the running worker in the worker thread's own context (its `active_worker`), and the
default executor's threads keep that context between jobs: an idle thread kept the last worker it ran,
and with it the screen that started it, until some later job happened to land on the same thread. Left
screens then lived on for a random while (CI once saw one held past the app's ten tries to freeze again).
"""

from __future__ import annotations

import gc
import weakref
from collections.abc import Callable

from textual.worker import Worker

from quizapp.tui.app import QuizApp
from quizapp.tui.screens.base import QuizScreen
from tests.tui.helpers import SIZE, loaded, settled


class _Reads(QuizScreen[None]):
    """The smallest screen that reads in a worker, as every screen's `fetch` does."""

    shown: list[int]

    def on_mount(self) -> None:
        self.shown = []
        self.fetch(lambda: 42, self.shown.append, store=False)


async def test_a_closed_screen_is_not_kept_by_the_thread_that_ran_its_worker(
    new_app: Callable[..., QuizApp],
) -> None:
    app = new_app()
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        await settled(pilot)
        screen = _Reads()
        await app.push_screen(screen)
        await settled(pilot)
        assert screen.shown == [42]  # the worker ran, in a thread of the default executor, and came back
        assert not list(app.workers)
        gc.collect()
        keeping = [r for r in gc.get_referrers(screen) if isinstance(r, Worker)]
        assert not keeping, f"a finished worker still refers to the screen: {keeping}"
        left = weakref.ref(screen)
        del screen
        await app.pop_screen()
        await settled(pilot)
        await pilot.pause(0.1)
        gc.collect()
        kept = left()
        held = sorted({type(r).__name__ for r in gc.get_referrers(kept)}) if kept is not None else []
        del kept
        assert not held, f"the closed screen is still held by {held}"
