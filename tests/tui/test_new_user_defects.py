"""Defects a new user saw on screen (issue 37, item 3): the interview report and its history row agree
whether an explain question was skipped or answered, and Escape in the settings asks before it drops edits."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from pathlib import Path

import pytest
from textual.pilot import Pilot
from textual.widgets import DataTable, Input, TextArea

from quizapp.content.catalog import Catalog, load_catalog
from quizapp.interview.report import summary_line
from quizapp.store import list_interviews, load_settings, open_store, save_setting
from quizapp.study.views import EASY_HELD
from quizapp.tui.app import QuizApp, make_app
from quizapp.tui.screens.home import HomeScreen
from quizapp.tui.screens.interview import InterviewScreen
from quizapp.tui.screens.interview_history import InterviewHistoryScreen
from quizapp.tui.screens.interview_report import InterviewReportScreen
from quizapp.tui.screens.settings import LeaveSettingsScreen, SettingsScreen
from tests.tui.helpers import (
    NOW,
    SEED,
    current,
    loaded,
    opened,
    press,
    question_ids,
    text_of,
    until,
    with_misconception,
)
from tests.tui.interview_helpers import Clock, right_answer, wrong_answer
from tests.tui.test_interview import start_interview, wait_for

SIZE = (80, 24)


@pytest.mark.parametrize("explain", ["skip", "answer"])
async def test_the_interview_report_and_its_history_row_give_the_same_score(
    tmp_path: Path, explain: str
) -> None:
    """A skipped explain question counts as a wrong answer, an answered one is read point by point: either
    way it is one of the scored questions, and the report's headline and the history row say the same."""
    decks = load_catalog(
        [Path(__file__).with_name("interview_decks")], include_default=False, use_cache=False
    )
    app = make_app(tmp_path / "p.db", now=Clock(NOW), rng_seed=SEED, catalog=decks, cursor_blink=False)
    async with app.run_test(size=SIZE) as pilot:
        await start_interview(app, pilot, "heads kv-cache", questions=2, minutes=10)
        screen = app.screen
        assert isinstance(screen, InterviewScreen)
        for _ in range(2):
            asked = screen.session.current
            assert asked is not None
            inst = asked.instance
            if inst.kind == "explain":
                if explain == "skip":
                    await press(pilot, "ctrl+n")
                else:
                    screen.query_one("#explain-text", TextArea).text = "No idea at all."
                    await press(pilot, "ctrl+s")
            else:
                screen.query_one(Input).value = right_answer(inst)
                await press(pilot, "enter")
            await pilot.pause()
        await wait_for(pilot, InterviewReportScreen)
        report = app.screen
        assert isinstance(report, InterviewReportScreen)
        assert report.report.headline.startswith("1/2 right")
        (summary,) = list_interviews(app.backend.store)  # type: ignore[union-attr]
        row = summary_line(summary)
        assert row[2].startswith("1/2 ")
        await press(pilot, "p")
        await pilot.pause()
        history = app.screen
        assert isinstance(history, InterviewHistoryScreen)
        table = history.query_one(DataTable)
        shown = "\n".join(str(line.text) for line in table.render_lines(table.region.reset_offset))
        assert "1/2 (50%)" in shown, shown


async def _settings(app: QuizApp, pilot: Pilot[None]) -> SettingsScreen:
    await loaded(app, pilot)
    await press(pilot, "comma")
    await pilot.pause()
    screen = app.screen
    assert isinstance(screen, SettingsScreen)
    return screen


async def test_escape_in_the_settings_asks_before_it_drops_an_edit(
    new_app: Callable[..., QuizApp], db_file: Path
) -> None:
    """Escape with nothing edited leaves at once; with an edit it asks: keep editing keeps the form as
    typed, discard leaves without saving, save saves and leaves."""
    app = new_app()
    async with app.run_test(size=SIZE) as pilot:
        await _settings(app, pilot)
        await press(pilot, "escape")  # nothing edited: straight back
        assert type(app.screen).__name__ == "HomeScreen"

        screen = await _settings(app, pilot)
        screen.query_one("#setting-new_per_day", Input).value = "7"
        await press(pilot, "escape")
        assert type(app.screen).__name__ == LeaveSettingsScreen.__name__
        await press(pilot, "k")  # keep editing: the edit is still there
        assert app.screen is screen and screen.query_one("#setting-new_per_day", Input).value == "7"

        await press(pilot, "escape", "d")  # discard: back home, nothing saved
        assert isinstance(app.screen, HomeScreen)
        with open_store(db_file, now=NOW) as store:
            assert load_settings(store).new_per_day != 7

        screen = await _settings(app, pilot)
        screen.query_one("#setting-new_per_day", Input).value = "7"
        await press(pilot, "escape", "s")  # save: saved, then back home
        await until(pilot, lambda: isinstance(app.screen, HomeScreen), "the settings closed after saving")
    with open_store(db_file, now=NOW) as store:
        assert load_settings(store).new_per_day == 7


async def test_the_easy_before_the_interview_note_shows_only_where_easy_is_the_rating(
    new_app: Callable[..., QuizApp], catalog: Catalog, db_file: Path
) -> None:
    """With an interview ahead Good and Easy show the same interval. The note saying why was under every
    answer at 80x24, a wrong one too; it now comes only with an Easy, saved or suggested."""
    qid = question_ids(catalog, "numeric", with_misconception)[0]
    with open_store(db_file, now=NOW) as store:
        save_setting(store, "interview_date", (NOW + timedelta(days=5)).date().isoformat())
    app = new_app()
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        app.start_session("study", question_ids=(qid,))
        screen = await opened(app, pilot)
        inst = current(screen)
        screen.query_one(Input).value = wrong_answer(inst)
        await press(pilot, "enter")
        choices = text_of(app, "#rating-choices")
        assert "Your call" in choices and "4 Easy" in choices
        assert EASY_HELD not in choices
