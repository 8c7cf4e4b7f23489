"""The stats screen on a seeded database (its misconceptions open a drill), the settings screen saving
through the store, and the home screen's first-run line and command palette."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from textual.widgets import Input, OptionList

from quizapp.content.catalog import Catalog
from quizapp.store import load_settings, open_store
from quizapp.tui.app import QuizApp
from quizapp.tui.screens.home import HomeScreen
from quizapp.tui.screens.settings import SettingsScreen
from quizapp.tui.screens.stats import StatsScreen
from quizapp.tui.screens.study import StudyScreen
from tests.tui.helpers import (
    NOW,
    SIZE,
    current,
    loaded,
    opened,
    press,
    question_ids,
    seed_history,
    text_of,
    until,
)


async def test_stats_show_the_history_and_a_misconception_opens_its_drill(
    new_app: Callable[..., QuizApp], catalog: Catalog, db_file: Path
) -> None:
    qid, _ = seed_history(db_file, catalog)
    app = new_app()
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        await press(pilot, "t")
        await pilot.pause()
        assert isinstance(app.screen, StatsScreen)
        summary = text_of(app, "#stats-summary")
        assert "3 reviews" in summary and "streak 3 days" in summary
        assert app.screen.query("#calendar") and app.screen.query("#forecast")
        deck = catalog.deck_of(qid)
        headings, rule, *rows = text_of(app, "#deck-stats").splitlines()
        assert headings.split() == ["Deck", "Retention", "Mastery", "Ready", "Cards"] and set(rule) == {"─"}
        assert len(rows) == len(catalog.deck_refs())
        row = next(line for line in rows if deck.title.startswith(line.split("  ")[0].rstrip("…")))
        # three failed first answers: one card seen, none reviewed yet, so no retention to show
        assert row.split()[-2:] == [f"1/{len(deck.questions)}", "seen"] and "  —  " in row
        await pilot.resize_terminal(64, 24)  # narrow: the titles give way, the numbers stay whole
        await press(pilot, "r")
        await until(pilot, lambda: bool(app.screen.query("#deck-stats")), "the stats counted again")
        room = app.screen.query_one("#stats-body").scrollable_content_region.width
        _, _, *narrow = text_of(app, "#deck-stats").splitlines()
        assert room < 64 and narrow != rows
        assert all(len(line) <= room and line.endswith(" seen") for line in narrow), (room, narrow)
        await pilot.resize_terminal(56, 24)  # a year of weeks no longer fits: fewer, each row on one line
        await pilot.pause()
        room = app.screen.query_one("#stats-body").scrollable_content_region.width
        weeks = text_of(app, "#calendar").splitlines()[1:8]
        assert all(len(line) <= room for line in weeks) and weeks[0].startswith("Mon"), (room, weeks)
        assert len(weeks[0]) < len("Mon ") + 52  # the latest weeks only
        await pilot.resize_terminal(*SIZE)  # wide again: the same table as at first, without a recount
        await pilot.pause()
        assert text_of(app, "#deck-stats").splitlines()[2:] == rows
        misconceptions = app.screen.query_one("#misconceptions", OptionList)
        assert misconceptions.option_count >= 1 and "3×" in str(misconceptions.get_option_at_index(0).prompt)
        body = app.screen.query_one("#stats-body")
        assert app.screen.focused is body and body.max_scroll_y > 0  # taller than 80x24
        await press(pilot, "pagedown")
        await pilot.pause()
        assert body.scroll_y > 0
        await press(pilot, "end")
        await pilot.pause()
        assert body.scroll_y == body.max_scroll_y
        await press(pilot, "home")
        await pilot.pause()
        assert body.scroll_y == 0
        await press(pilot, "tab")
        assert app.screen.focused is misconceptions
        await press(pilot, "enter")
        await pilot.pause()
        assert isinstance(app.screen, StudyScreen)
        assert app.screen.session.mode == "drill"
        assert current(app.screen).question_id == qid


async def test_settings_are_saved_to_the_store(new_app: Callable[..., QuizApp], db_file: Path) -> None:
    app = new_app()
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        await press(pilot, "comma")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, SettingsScreen)
        screen.query_one("#setting-new_per_day", Input).value = "abc"
        await press(pilot, "ctrl+s")
        await pilot.pause()
        assert "must be a number" in text_of(app, "#settings-error")
        screen.query_one("#setting-desired_retention", Input).value = "0.85"
        screen.query_one("#setting-new_per_day", Input).value = "7"
        await press(pilot, "ctrl+s")
        await pilot.pause()
        assert isinstance(app.screen, HomeScreen)
    with open_store(db_file, now=NOW) as store:
        saved = load_settings(store)
    assert (saved.desired_retention, saved.new_per_day) == (0.85, 7)


async def test_an_out_of_range_setting_is_refused_with_the_allowed_range(
    new_app: Callable[..., QuizApp], db_file: Path
) -> None:
    app = new_app()
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        await press(pilot, "comma")
        await pilot.pause()
        app.screen.query_one("#setting-desired_retention", Input).value = "1.5"
        await press(pilot, "ctrl+s")
        await pilot.pause()
        assert isinstance(app.screen, SettingsScreen)
        assert "between 0.7 and 0.99" in text_of(app, "#settings-error")


async def test_a_first_run_says_what_to_press_and_every_key_is_in_the_palette(
    new_app: Callable[..., QuizApp],
) -> None:
    app = new_app()
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        assert "s to start studying" in text_of(
            app, "#home-hint"
        ) and ", to set your interview date" in text_of(app, "#home-hint")
        titles = {c.title for c in app.get_system_commands(app.screen)}
        for description in ("Study", "Drill", "Cram", "Interview", "Explore", "Stats", "Settings", "Help"):
            assert description in titles


async def test_a_first_run_with_a_date_set_is_not_asked_for_the_date_again(
    new_app: Callable[..., QuizApp], db_file: Path
) -> None:
    from datetime import timedelta

    from quizapp.store import save_setting

    with open_store(db_file, now=NOW) as store:  # the date set (`quizapp plan --date`), nothing answered
        save_setting(store, "interview_date", (NOW + timedelta(days=5)).date().isoformat())
    app = new_app()
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert text_of(app, "#home-plan").startswith("Interview 5 days left: ")
        hint = text_of(app, "#home-hint")
        assert "s to start studying" in hint and "interview date" not in hint


async def test_an_unknown_screen_name_says_so_instead_of_failing(new_app: Callable[..., QuizApp]) -> None:
    app = new_app()
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        app.open_screen("no-such-screen")
        await pilot.pause()
        assert isinstance(app.screen, HomeScreen)
        assert any("no no-such-screen screen" in n.message for n in app._notifications)


def test_every_screen_class_is_in_the_registry_and_the_help_lists_its_keys() -> None:
    import importlib
    import inspect
    import pkgutil

    from textual.screen import Screen

    import quizapp.tui.screens as screens
    from quizapp.tui.routing import SCREENS
    from quizapp.tui.screens.help import help_text

    registered = {entry.screen_class() for entry in SCREENS}
    for info in pkgutil.iter_modules(screens.__path__):
        module = importlib.import_module(f"quizapp.tui.screens.{info.name}")
        for _, cls in inspect.getmembers(module, inspect.isclass):
            if issubclass(cls, Screen) and cls.__module__ == module.__name__ and info.name != "base":
                assert cls in registered, f"{cls.__name__} is not in quizapp.tui.routing.SCREENS"
    text = help_text().plain
    for entry in SCREENS:
        keys = [b for b in entry.screen_class().BINDINGS if getattr(b, "show", False) and b.description]
        if keys:
            assert entry.title in text, f"the help has no block for {entry.title}"


async def test_home_shows_the_interview_plan_once_a_date_is_set(
    new_app: Callable[..., QuizApp], catalog: Catalog, db_file: Path
) -> None:
    from datetime import timedelta

    from quizapp.store import save_setting

    with open_store(db_file, now=NOW) as store:
        save_setting(store, "interview_date", (NOW + timedelta(days=9)).date().isoformat())
    app = new_app()
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        await app.workers.wait_for_complete()
        await pilot.pause()
        line = text_of(app, "#home-plan")
        questions = len(catalog.questions)
        assert line.startswith("Interview 9 days left: ")
        assert f"{-(-questions // 9)} new + ~" in line and "if you stopped now" in line


async def test_home_shows_no_plan_line_without_a_date(new_app: Callable[..., QuizApp]) -> None:
    app = new_app()
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert not app.screen.query_one("#home-plan").display


async def test_the_interview_date_is_set_in_settings_and_home_shows_the_plan(
    new_app: Callable[..., QuizApp], db_file: Path
) -> None:
    from datetime import timedelta

    day = (NOW + timedelta(days=6)).date().isoformat()
    app = new_app()
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        await press(pilot, "comma")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, SettingsScreen)
        field = screen.query_one("#setting-interview_date", Input)
        field.value = "3 Dec"
        await press(pilot, "ctrl+s")
        await pilot.pause()
        assert "YYYY-MM-DD" in text_of(app, "#settings-error")  # refused, nothing saved, still here
        field.value = day
        await press(pilot, "ctrl+s")
        await pilot.pause()
        assert isinstance(app.screen, HomeScreen)
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert text_of(app, "#home-plan").startswith("Interview 6 days left: ")
    with open_store(db_file, now=NOW) as store:
        assert load_settings(store).interview_date == day


async def test_optimize_from_settings_says_politely_when_there_is_too_little_history(
    new_app: Callable[..., QuizApp],
) -> None:
    app = new_app()
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        await press(pilot, "comma")
        await pilot.pause()
        await press(pilot, "ctrl+o")
        await app.workers.wait_for_complete()
        await pilot.pause()
        shown = text_of(app, "#settings-optimized")
        assert "at least 100 reviews" in shown and "you have 0" in shown


async def test_optimize_shows_its_result_on_screen_at_80x24(new_app: Callable[..., QuizApp]) -> None:
    app = new_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await loaded(app, pilot)
        await press(pilot, "comma")
        await press(pilot, "ctrl+o")
        await until(pilot, lambda: "at least 100 reviews" in text_of(app, "#settings-optimized"), "the fit")
        box = app.screen.query_one("#settings-optimized")
        body = app.screen.query_one("#settings-body")

        def in_view() -> bool:
            top = round(body.scroll_y)
            return (
                top <= box.virtual_region.y
                and box.virtual_region.bottom <= top + body.scrollable_content_region.height
            )

        await until(pilot, in_view, "the fit's result scrolled into view")


async def test_two_choice_questions_answered_wrong_list_apart_in_stats_and_each_drills_its_own(
    new_app: Callable[..., QuizApp], catalog: Catalog
) -> None:
    """A wrong option's feedback is one question's mistake: two of them share the diagnosis id
    `choice-wrong-option`, and the stats list (which once failed on the duplicate) shows both."""
    qids = question_ids(catalog, "choice", lambda i: not i.multiple)[:2]
    app = new_app()
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        app.start_session("drill", question_ids=tuple(qids))
        screen = await opened(app, pilot)
        for _ in qids:
            inst = current(screen)
            await press(pilot, next(o.key for o in inst.options if not o.correct), "enter")
            await until(pilot, lambda: screen.session.answered, "the wrong answer saved")
            await press(pilot, "enter")  # accept and go on
            await pilot.pause()
        await press(pilot, "escape")
        await until(pilot, lambda: isinstance(app.screen, HomeScreen), "home again")
        await press(pilot, "t")
        await until(pilot, lambda: bool(app.screen.query("#misconceptions")), "the stats counted")
        listed = app.screen.query_one("#misconceptions", OptionList)
        assert listed.option_count == 2
        listed.focus()
        await press(pilot, "down", "enter")
        await until(pilot, lambda: isinstance(app.screen, StudyScreen), "a drill of the second mistake")
        assert current(app.screen).question_id in qids
