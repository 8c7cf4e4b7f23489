"""The tutor's loop around the questions: Settings refuses a past interview date and keeps the daily
budget, the low-priority decks and whether interview misses go to review; the interview set-up starts
from the last one used; home shows each deck's readiness with a line saying what it means."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from pathlib import Path

from textual.pilot import Pilot
from textual.widgets import Checkbox, Input, Select, SelectionList

from quizapp.content.catalog import Catalog
from quizapp.reports.stats import readiness_for
from quizapp.store import InterviewConfig, load_settings, open_store
from quizapp.store.interviews import save_last_setup
from quizapp.tui.app import QuizApp
from quizapp.tui.screens.home import HomeScreen
from quizapp.tui.screens.interview_setup import InterviewSetupScreen
from quizapp.tui.screens.settings import SettingsScreen
from quizapp.tui.widgets.deck_table import mastery_bar
from tests.tui.helpers import NOW, SIZE, loaded, press, seed_history, text_of, until


async def _settings(app: QuizApp, pilot: Pilot[None]) -> SettingsScreen:
    await loaded(app, pilot)
    await press(pilot, "comma")
    await until(pilot, lambda: isinstance(app.screen, SettingsScreen), "the settings")
    screen = app.screen
    assert isinstance(screen, SettingsScreen)
    return screen


async def test_settings_refuse_a_past_interview_date_and_save_nothing(
    new_app: Callable[..., QuizApp], db_file: Path
) -> None:
    app = new_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await _settings(app, pilot)
        yesterday = (NOW - timedelta(days=1)).date().isoformat()
        screen.query_one("#setting-interview_date", Input).value = yesterday
        screen.query_one("#setting-new_per_day", Input).value = "9"
        await press(pilot, "ctrl+s")
        assert app.screen is screen
        assert "already passed" in text_of(app, "#settings-error")
    with open_store(db_file, now=NOW) as store:
        saved = load_settings(store)
    assert (saved.interview_date, saved.new_per_day) == ("", 20)


async def test_settings_keep_the_budget_the_low_priority_decks_and_interview_misses(
    new_app: Callable[..., QuizApp], catalog: Catalog, db_file: Path
) -> None:
    low = [d.id for d in catalog.deck_refs()][:2]
    app = new_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await _settings(app, pilot)
        screen.query_one("#setting-low_priority_decks", Input).value = "no-such-deck"
        await press(pilot, "ctrl+s")
        assert app.screen is screen and "no deck 'no-such-deck'" in text_of(app, "#settings-error")
        in_five_days = (NOW + timedelta(days=5)).date().isoformat()
        screen.query_one("#setting-interview_date", Input).value = in_five_days
        screen.query_one("#setting-daily_minutes", Input).value = "60"
        screen.query_one("#setting-low_priority_decks", Input).value = ", ".join(low)
        screen.query_one("#setting-interview_misses_to_review", Select).value = False
        await press(pilot, "ctrl+s")
        await until(pilot, lambda: isinstance(app.screen, HomeScreen), "home after saving")
    with open_store(db_file, now=NOW) as store:
        saved = load_settings(store)
    assert saved.interview_date == in_five_days and saved.daily_minutes == 60
    assert saved.low_priority_decks == tuple(low) and saved.interview_misses_to_review is False


async def test_the_interview_set_up_starts_from_the_last_one_used(
    new_app: Callable[..., QuizApp], catalog: Catalog, db_file: Path
) -> None:
    deck = catalog.deck_refs()[3].id
    last = InterviewConfig(
        questions=6,
        minutes=12,
        deck_ids=(deck,),
        tags=("gqa",),
        difficulty_mix=(1, 1, 1),
        update_schedule=True,
        misses_to_review=False,
    )
    with open_store(db_file, now=NOW) as store:
        save_last_setup(store, last)
    app = new_app()
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        await press(pilot, "i")
        await until(
            pilot,
            lambda: (
                isinstance(app.screen, InterviewSetupScreen)
                and app.screen.query_one("#setup-questions", Input).value == "6"
            ),
            "the set-up filled in",
        )
        screen = app.screen
        assert screen.query_one("#setup-minutes", Input).value == "12"
        assert screen.query_one("#setup-mix", Select).value == "balanced"
        assert screen.query_one("#setup-tags", Input).value == "gqa"
        assert screen.query_one("#setup-decks", SelectionList).selected == [deck]
        assert screen.query_one("#setup-schedule", Checkbox).value is True
        assert screen.query_one("#setup-misses", Checkbox).value is False
        assert isinstance(screen, InterviewSetupScreen)
        assert screen.read_config() == last


async def test_home_shows_each_decks_readiness_and_what_it_means(
    new_app: Callable[..., QuizApp], catalog: Catalog, db_file: Path
) -> None:
    qid, _ = seed_history(db_file, catalog)
    deck = catalog.deck_of(qid).id
    with open_store(db_file, now=NOW) as store:
        expected = readiness_for(store, catalog.deck_refs(), now=NOW)
    recall = next(d.recall for d in expected.decks if d.deck_id == deck)
    assert recall > 0
    app = new_app()
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        home = app.screen
        assert isinstance(home, HomeScreen)
        await until(pilot, lambda: "Ready" in text_of(app, "#home-readiness"), "the readiness line")
        assert expected.meaning in " ".join(text_of(app, "#home-readiness").split())
        table = home.deck_table
        assert table is not None
        row = table.get_option_at_index(table._deck_ids.index(deck)).prompt
        assert mastery_bar(recall).plain in str(row)
