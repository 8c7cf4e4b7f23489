"""A screen's slow work comes back one way (QuizScreen.fetch and write): on every screen, what a worker
raises is reported as any handler's error is (the user's words for a QuizappError, "Internal error" and a
crash log for a bug), the screen stays and the app keeps running; a step that reports progress shows each
report before its outcome. The error guard runs every handler once, guarded, however it is declared."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
from textual.message import Message

from quizapp.content.catalog import Catalog
from quizapp.errors import QuizappError
from quizapp.tui.app import QuizApp
from quizapp.tui.guard import on
from quizapp.tui.screens.base import QuizScreen
from quizapp.tui.screens.home import HomeScreen
from tests.tui.helpers import SIZE, drill, loaded, question_ids, settled, until

SCREENS = ("explore", "trained", "browser", "exercises", "stats", "settings", "interview", "history")


def _boom() -> None:
    raise RuntimeError("worker exploded")


def _notes(app: QuizApp) -> list[str]:
    return [f"{n.title}: {n.message}" for n in app._notifications]


async def _open(app: QuizApp, pilot: object, name: str) -> QuizScreen[object]:
    from textual.pilot import Pilot

    assert isinstance(pilot, Pilot)
    await loaded(app, pilot)
    if name != "home":
        app.open_screen(name)
    await until(pilot, lambda: isinstance(app.screen, QuizScreen) and app.screen.is_mounted, name)
    await settled(pilot)
    screen = app.screen
    assert isinstance(screen, QuizScreen)
    return screen


@pytest.mark.internal_error
@pytest.mark.parametrize("name", ["home", *SCREENS])
async def test_a_bug_in_a_worker_on_any_screen_is_reported_and_the_app_keeps_running(
    new_app: Callable[..., QuizApp], isolated_home: Path, name: str
) -> None:
    app = new_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await _open(app, pilot, name)
        shown: list[object] = []
        screen.fetch(_boom, shown.append, group="probe")
        await until(pilot, lambda: any("worker exploded" in n for n in _notes(app)), "the report")
        assert shown == []
        assert any(n.startswith("Internal error") and "crash.log" in n for n in _notes(app))
        assert "worker exploded" in (isolated_home / "crash.log").read_text(encoding="utf-8")
        assert app.screen is screen and app.is_running and app.return_code is None

        def refused() -> None:
            raise QuizappError("The store is busy.")

        screen.fetch(refused, shown.append, group="probe")  # the user's words, no crash log
        await until(pilot, lambda: any(n == "Cannot do that: The store is busy." for n in _notes(app)), "it")
        screen.fetch(lambda: 42, shown.append, group="probe")  # and the next worker still comes back
        await until(pilot, lambda: shown == [42], "the next outcome")
        assert app.screen is screen and app.is_running


@pytest.mark.internal_error
async def test_a_bug_in_a_study_write_is_reported_and_the_next_write_goes_ahead(
    new_app: Callable[..., QuizApp], catalog: Catalog
) -> None:
    app = new_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await drill(app, pilot, question_ids(catalog, "numeric")[0])
        shown: list[object] = []

        async def show(outcome: object) -> None:
            shown.append(outcome)

        screen.write(_boom, show)
        await until(pilot, lambda: any("worker exploded" in n for n in _notes(app)), "the report")
        assert not screen.saving and shown == [] and app.screen is screen
        screen.write(lambda: "saved", show)
        await until(pilot, lambda: shown == ["saved"], "the next write")


async def test_a_step_that_reports_progress_shows_every_report_before_its_outcome(
    new_app: Callable[..., QuizApp],
) -> None:
    app = new_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await _open(app, pilot, "home")
        seen: list[str] = []

        def count(report: Callable[[int], None]) -> str:
            for step in range(3):
                report(step)
            return "done"

        screen.fetch_reporting(count, lambda n: seen.append(f"step {n}"), seen.append, group="probe")
        await until(pilot, lambda: "done" in seen, "the outcome")
        assert seen == ["step 0", "step 1", "step 2", "done"]


@dataclass
class Poked(Message):
    """A message for the probe screen's handlers."""


class Probe(QuizScreen[None]):
    """Handlers declared each way the guard meets: by name and decorated at once, decorated only (sync
    and async), and a key's action."""

    def __init__(self) -> None:
        super().__init__()
        self.calls: list[str] = []

    @on(Poked)
    def on_poked(self, message: Poked) -> None:
        self.calls.append("on_poked")
        raise RuntimeError("named and decorated")

    @on(Poked)
    async def _decorated(self, message: Poked) -> None:
        self.calls.append("_decorated")
        raise QuizappError("Decorated only.")

    def action_boom(self) -> None:
        self.calls.append("action_boom")
        raise RuntimeError("an action")


@pytest.mark.internal_error
async def test_every_handler_runs_once_and_what_it_raises_is_reported(
    new_app: Callable[..., QuizApp],
) -> None:
    app = new_app()
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        await until(pilot, lambda: isinstance(app.screen, HomeScreen), "home")
        probe = Probe()
        await app.push_screen(probe)
        probe.post_message(Poked())
        await settled(pilot)
        assert sorted(probe.calls) == ["_decorated", "on_poked"]  # each once: by name is not also called
        await probe.run_action("boom")
        await settled(pilot)
        assert probe.calls.count("action_boom") == 1
        notes = _notes(app)
        assert any("named and decorated" in n for n in notes)
        assert "Cannot do that: Decorated only." in notes
        assert any("an action" in n for n in notes)
        assert app.screen is probe and app.is_running


async def test_the_warm_up_ending_after_the_app_closed_does_nothing(new_app: Callable[..., QuizApp]) -> None:
    """The warm-up worker may end after the app's screens are gone (a quick quit): its last step then
    freezes nothing and raises nothing (it raised ScreenStackError while the app closed)."""
    app = new_app()
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
    assert not app.screen_stack
    app._freeze_if_home()
