"""Opening or closing a screen holds the garbage collector off until the new screen is drawn: at 100k cards
a full collection (10-27 ms) landed in the first frame of stats, home and the interview, on the key that
opened them (benchmarks/tty.py --breakdown names the collections inside the longest frame)."""

from __future__ import annotations

import gc
from collections.abc import Callable
from typing import Any

from textual.pilot import Pilot

from quizapp.collector import SWITCH_HOLD_S
from quizapp.tui.app import QuizApp
from quizapp.tui.screens.home import HomeScreen
from tests.tui.helpers import SIZE, settled

LOOKS = 40
"""How many times a wait looks for the hold's end, SWITCH_HOLD_S apart (more only on a busy machine)."""


async def _collector_back(pilot: Pilot[Any]) -> bool:
    for _ in range(LOOKS):
        if gc.isenabled():
            return True
        await pilot.pause(SWITCH_HOLD_S)
    return False


async def test_opening_and_closing_a_screen_holds_the_collector_until_it_is_drawn(
    new_app: Callable[..., QuizApp],
) -> None:
    app = new_app()
    async with app.run_test(size=SIZE) as pilot:
        await settled(pilot)
        assert await _collector_back(pilot)  # the home screen's own hold has ended
        app.open_screen("help")
        assert not gc.isenabled()  # from the switch on, in the same turn of the loop
        await settled(pilot)
        assert app.screen.__class__.__name__ == "HelpScreen"
        assert await _collector_back(pilot)
        app.pop_screen()
        assert not gc.isenabled()
        assert await _collector_back(pilot)
        assert isinstance(app.screen, HomeScreen)
        app.open_screen("help")  # and left while the hold is on: the app's end ends it
        assert not gc.isenabled()
    assert gc.isenabled()
