"""One interview plan (issue 37, item 5): home's counts, its plan line and readiness, and a study session's
start read the workspace's cached plan, built once per store change and day, and readiness comes with it."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from datetime import date, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from quizapp.store import open_store, review_count, save_setting
from quizapp.study import stored_plan
from quizapp.study.plan import FINAL_DAYS, Plan
from quizapp.tui.app import QuizApp
from quizapp.tui.screens.home import HomeScreen
from tests.tui.helpers import NOW, SIZE, loaded, opened, press, settled, text_of, until


class _Clock:
    """The app's clock, moved by the test to the next day."""

    def __init__(self, now: datetime) -> None:
        self.now = now

    def __call__(self) -> datetime:
        return self.now


@pytest.fixture
def plans_made(monkeypatch: pytest.MonkeyPatch) -> list[date]:
    """The day of every plan computed: the real make_plan, wrapped to count its calls where the one
    module that plans for the stored cards calls it."""
    made: list[date] = []
    real = stored_plan.make_plan

    def counted(*args: Any, **kwargs: Any) -> Plan:
        made.append(kwargs["today"])
        return real(*args, **kwargs)

    monkeypatch.setattr(stored_plan, "make_plan", counted)
    return made


@pytest.mark.parametrize("days_left", [FINAL_DAYS + 2, FINAL_DAYS], ids=["weeks-ahead", "last-days"])
async def test_home_and_study_compute_the_plan_once_until_an_answer_is_saved_or_the_day_turns(
    new_app: Callable[..., QuizApp], db_file: Path, plans_made: list[date], days_left: int
) -> None:
    """In the last days too, where study's start also asks the plan for the weakest decks."""
    with open_store(db_file, now=NOW) as store:
        save_setting(store, "interview_date", (NOW + timedelta(days=days_left)).date().isoformat())
        save_setting(store, "daily_minutes", 60)  # a budget: the plan sets home's and study's new cards
    clock = _Clock(NOW)
    app = new_app(now=clock)
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        await until(pilot, lambda: "Ready" in text_of(app, "#home-readiness"), "home's readiness")
        assert "Interview" in text_of(app, "#home-plan")
        assert plans_made == [NOW.date()], "home's counts, plan line and readiness share one plan"
        backend = app.backend
        assert backend is not None
        plan, ready = await asyncio.to_thread(
            lambda: (backend.plan(NOW), backend.readiness())
        )  # off the loop
        assert plan is not None and ready is plan.readiness, "readiness is the plan's"

        await press(pilot, "s")
        screen = await opened(app, pilot)
        assert screen.session.focus_decks == (plan.focus if days_left <= FINAL_DAYS else ())
        await press(pilot, "escape")
        await until(pilot, lambda: isinstance(app.screen, HomeScreen), "home again")
        await settled(pilot)
        assert plans_made == [NOW.date()], "starting study and going home again reuse it"

        await press(pilot, "s")
        await opened(app, pilot)
        await press(pilot, "ctrl+o")  # "I don't know": a review is saved
        assert app.backend is not None and review_count(app.backend.store) == 1
        await press(pilot, "escape")
        await until(pilot, lambda: isinstance(app.screen, HomeScreen), "home after an answer")
        await settled(pilot)
        assert plans_made == [NOW.date()] * 2, "a saved review makes the plan afresh, once"

        clock.now = NOW + timedelta(days=1)
        await press(pilot, "s")
        await opened(app, pilot)
        await press(pilot, "escape")
        await until(pilot, lambda: isinstance(app.screen, HomeScreen), "home the next day")
        await settled(pilot)
        assert plans_made == [NOW.date(), NOW.date(), clock.now.date()], "a new day makes it afresh, once"
