"""SVG snapshots of the mock interview (set-up, running, report) and the Explore sandbox, at 80x24.

Fixed clock, seed and catalog (one frozen deck in tests/tui/interview_decks), cursor blink off, time
zone UTC, toasts cleared: the pictures only change when the screens do. Update with
`pytest tests/tui/test_interview_explore_snapshots.py --snapshot-update`, then look at the SVGs.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import Input

from quizapp.content.catalog import Catalog, load_catalog
from quizapp.tui.app import QuizApp
from quizapp.tui.screens.interview import InterviewScreen
from quizapp.tui.screens.interview_report import InterviewReportScreen
from tests.tui.helpers import NOW, press
from tests.tui.interview_helpers import Clock, right_answer, wrong_answer

SMALL = (80, 24)
DECKS = Path(__file__).with_name("interview_decks")
Snap = Callable[..., bool]


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    """The frozen interview deck only (overrides the bundled bank for this module)."""
    loaded = load_catalog([DECKS], include_default=False, use_cache=False)
    assert not loaded.skipped, loaded.skipped
    return loaded


@pytest.fixture(autouse=True)
def utc_clock_face() -> Iterator[None]:
    """Reports show local times; UTC makes the pictures the same on every machine."""
    before = os.environ.get("TZ")
    os.environ["TZ"] = "UTC"
    time.tzset()
    yield
    if before is None:
        del os.environ["TZ"]
    else:
        os.environ["TZ"] = before
    time.tzset()


async def _loaded(pilot: Pilot[Any]) -> None:
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()


async def _set_up(pilot: Pilot[Any], questions: int = 5, minutes: int = 10) -> None:
    await _loaded(pilot)
    await press(pilot, "i")
    screen = pilot.app.screen
    screen.query_one("#setup-questions", Input).value = str(questions)
    screen.query_one("#setup-minutes", Input).value = str(minutes)
    await pilot.pause()


async def _start(pilot: Pilot[Any]) -> InterviewScreen:
    await _set_up(pilot)
    await press(pilot, "ctrl+s")
    await pilot.pause(0.3)  # one countdown tick
    screen = pilot.app.screen
    assert isinstance(screen, InterviewScreen)
    return screen


async def _answer(pilot: Pilot[Any], screen: InterviewScreen, kind: str, answer: str) -> None:
    """Answers as a user would: a letter and Enter for a choice, the text and Enter otherwise."""
    if kind == "choice":
        await press(pilot, *answer.split(", "), "enter")
    else:
        screen.query_one("#answer", Input).value = answer
        await press(pilot, "enter")
    await pilot.pause()


class TestInterview:
    def test_set_up_at_80x24(self, snap_compare: Snap, new_app: Callable[..., QuizApp]) -> None:
        assert snap_compare(new_app(), terminal_size=SMALL, run_before=_set_up)

    def test_running_shows_the_countdown_and_no_feedback(
        self, snap_compare: Snap, new_app: Callable[..., QuizApp]
    ) -> None:
        clock = Clock(NOW)

        async def run_before(pilot: Pilot[Any]) -> None:
            screen = await _start(pilot)
            asked = screen.session.current
            assert asked is not None
            clock.advance(seconds=75)
            await _answer(pilot, screen, asked.instance.kind, right_answer(asked.instance))
            await pilot.pause(0.3)
            pilot.app.clear_notifications()

        assert snap_compare(new_app(now=clock), terminal_size=SMALL, run_before=run_before)

    def test_report_after_time_ran_out(self, snap_compare: Snap, new_app: Callable[..., QuizApp]) -> None:
        clock = Clock(NOW)

        async def run_before(pilot: Pilot[Any]) -> None:
            screen = await _start(pilot)
            plan = [inst for _, inst in screen.session.plan]
            # right, wrong (a named misconception), flagged and skipped, then time runs out mid-answer
            for i, inst in enumerate(plan[:2]):
                clock.advance(seconds=50 + 20 * i)
                answer = right_answer(inst) if i == 0 else _wrong_if_possible(inst)
                await _answer(pilot, screen, inst.kind, answer)
            clock.advance(seconds=15)
            await press(pilot, "ctrl+f", "ctrl+n")
            await pilot.pause()
            clock.advance(minutes=10)
            for _ in range(2400):  # the cap only bounds a hang
                if isinstance(pilot.app.screen, InterviewReportScreen):
                    break
                await pilot.pause(0.05)
            await pilot.pause()
            pilot.app.clear_notifications()

        assert snap_compare(new_app(now=clock), terminal_size=SMALL, run_before=run_before)


def _wrong_if_possible(inst: Any) -> str:
    if inst.derivation is not None and inst.kind in ("numeric", "tensor"):
        return wrong_answer(inst)
    return right_answer(inst)


class TestExplore:
    def test_explore_at_80x24(self, snap_compare: Snap, new_app: Callable[..., QuizApp]) -> None:
        assert snap_compare(new_app(), press=["e"], terminal_size=SMALL, run_before=_loaded)

    def test_explore_with_causal_on(self, snap_compare: Snap, new_app: Callable[..., QuizApp]) -> None:
        async def run_before(pilot: Pilot[Any]) -> None:
            await _loaded(pilot)
            await press(pilot, "e", "c")
            await _loaded(pilot)  # the forward pass runs in a worker

        assert snap_compare(new_app(), terminal_size=SMALL, run_before=run_before)

    def test_explore_cost_panel_for_a_preset(
        self, snap_compare: Snap, new_app: Callable[..., QuizApp]
    ) -> None:
        async def run_before(pilot: Pilot[Any]) -> None:
            await _loaded(pilot)
            await press(pilot, "e")
            screen = pilot.app.screen
            screen.query_one("#ex-preset").value = "llama-2-70b"  # type: ignore[attr-defined]
            await _loaded(pilot)
            screen.query_one("#explore-body").scroll_to_widget(
                screen.query_one("#ex-wo"), animate=False, top=True
            )
            await pilot.pause()

        assert snap_compare(new_app(), terminal_size=SMALL, run_before=run_before)

    def test_explore_trained_model_with_a_head_ablated(
        self, snap_compare: Snap, new_app: Callable[..., QuizApp]
    ) -> None:
        """The trained mode at 80x24: the honest label, the loss line, and layer 0 with L0H0 ablated."""

        async def run_before(pilot: Pilot[Any]) -> None:
            await _loaded(pilot)
            await press(pilot, "e", "t")
            await _loaded(pilot)
            await press(pilot, "1")
            await _loaded(pilot)

        assert snap_compare(new_app(), terminal_size=SMALL, run_before=run_before)
