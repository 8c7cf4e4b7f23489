"""App-wide behaviour: errors become notifications (never tracebacks), a bad database path is explained,
broken decks are reported once, and `quizapp` with no command opens the app."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from quizapp.content.catalog import Catalog
from quizapp.tui.app import QuizApp, make_app
from quizapp.tui.backend import AppConfig, Backend
from quizapp.tui.screens.home import HomeScreen
from quizapp.tui.screens.study import StudyScreen
from tests.tui.helpers import NOW, SIZE, drill, loaded, press, question_ids, text_of, until


@pytest.mark.internal_error
async def test_a_bug_while_answering_becomes_a_notification_and_the_app_keeps_running(
    new_app: Callable[..., QuizApp], catalog: Catalog, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    app = new_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await drill(app, pilot, question_ids(catalog, "numeric")[0])

        def broken(text: str) -> None:
            raise RuntimeError("grader exploded")

        monkeypatch.setattr(screen.session, "submit", broken)
        await press(pilot, "1", "enter")
        await pilot.pause()
        assert isinstance(app.screen, StudyScreen)
        messages = [n.message for n in app._notifications]
        assert any("grader exploded" in m and "crash.log" in m for m in messages)
        await press(pilot, "escape", "escape")  # the typed "1" is unsaved: the first Escape asks
        await pilot.pause()
        assert isinstance(app.screen, HomeScreen)


async def test_a_database_path_that_is_a_folder_is_explained_on_the_home_screen(
    catalog: Catalog, tmp_path: Path
) -> None:
    app = make_app(db_path=tmp_path, now=NOW, rng_seed=1, catalog=catalog)
    async with app.run_test(size=SIZE) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert app.backend is None
        assert "not a regular file" in text_of(app, "#home-status")
        await pilot.press("s")  # studying without a backend only says it is not ready
        await pilot.pause()
        assert isinstance(app.screen, HomeScreen)


async def test_broken_decks_are_reported_once_by_name(isolated_home: Path, tmp_path: Path) -> None:
    decks = isolated_home / "decks"
    decks.mkdir()
    (decks / "my-broken-deck.yaml").write_text("id: my-broken-deck\ntitle: [unclosed\n", encoding="utf-8")
    app = make_app(db_path=tmp_path / "p.db", now=NOW, rng_seed=1)
    async with app.run_test(size=SIZE) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        reports = [n for n in app._notifications if "my-broken-deck" in n.message]
        assert len(reports) == 1 and "Skipped" in reports[0].title
        assert app.backend is not None and app.backend.decks  # the good decks still load


def test_no_command_opens_the_app_with_the_given_database(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from quizapp import cli
    from quizapp.tui import app as app_module

    seen: list[Path | None] = []

    def fake_run(self: QuizApp, **kwargs: object) -> None:
        seen.append(self.config.db_path)

    monkeypatch.setattr(app_module.QuizApp, "run", fake_run)
    controller, terminal = os.openpty()  # the app opens only with a terminal for keys and screen
    try:
        with (
            os.fdopen(os.dup(terminal), "r", encoding="utf-8") as keys,
            os.fdopen(terminal, "w", encoding="utf-8") as screen,
        ):
            monkeypatch.setattr(sys, "__stdin__", keys)  # where Textual reads keys ...
            monkeypatch.setattr(sys, "__stderr__", screen)  # ... and draws
            assert cli.main(["--db", str(tmp_path / "mine.db")]) == 0
    finally:
        os.close(controller)
    assert seen == [tmp_path / "mine.db"]


async def test_study_asked_for_while_loading_opens_once_the_decks_are_ready(
    new_app: Callable[..., QuizApp], monkeypatch: pytest.MonkeyPatch
) -> None:
    import threading

    from quizapp.tui import app_backend
    from quizapp.tui.backend import load_backend as real_load

    release = threading.Event()

    def slow_load(config: AppConfig) -> Backend:
        assert release.wait(10)
        return real_load(config)

    monkeypatch.setattr(app_backend, "load_backend", slow_load)
    app = new_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("s")
        await pilot.pause()
        assert isinstance(app.screen, HomeScreen) and app.backend is None
        release.set()
        await until(pilot, lambda: isinstance(app.screen, StudyScreen), "the study screen, once loaded")


async def test_the_highlighted_deck_is_drilled_by_d_by_enter_and_by_a_click(
    new_app: Callable[..., QuizApp], catalog: Catalog
) -> None:
    from quizapp.tui.widgets.deck_table import DeckTable

    # the coding exercises' deck opens a picker instead (tests/tui/test_browser.py): two others are drilled
    headers = catalog.deck_refs()
    drillable = [i for i, deck in enumerate(headers) if deck.id != "code"]
    assert drillable[0] == 0
    downs = ("down",) * drillable[1]
    first_id, first, first_ids = headers[0].id, headers[0].title, headers[0].question_ids
    second_id, second, second_ids = (
        headers[drillable[1]].id,
        headers[drillable[1]].title,
        headers[drillable[1]].question_ids,
    )
    app = new_app()
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        home = app.screen
        assert isinstance(home, HomeScreen)
        assert home.deck_table is not None and home.deck_table.highlighted_deck_id == first_id
        await press(pilot, *downs, "d")
        screen = app.screen
        assert isinstance(screen, StudyScreen) and screen.session.title == f"Drill: {second}"
        assert screen.session.current is not None
        assert screen.session.current.instance.question_id in second_ids
        await press(pilot, "escape")
        await pilot.pause()
        table = home.deck_table
        assert isinstance(app.screen, HomeScreen) and table is not None
        assert table.highlighted_deck_id == second_id  # the counts were redrawn, the place kept
        await press(pilot, "enter")
        assert isinstance(app.screen, StudyScreen) and app.screen.session.title == f"Drill: {second}"
        await press(pilot, "escape")
        await pilot.pause()
        await pilot.click(DeckTable, offset=(2, 0))  # the first row
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, StudyScreen) and screen.session.title == f"Drill: {first}"
        assert screen.session.current is not None
        assert screen.session.current.instance.question_id in first_ids


@pytest.mark.internal_error
async def test_a_bug_in_a_keys_action_becomes_a_notification_and_the_app_keeps_running(
    new_app: Callable[..., QuizApp], monkeypatch: pytest.MonkeyPatch
) -> None:
    app = new_app()
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)

        def broken(*args: object, **kwargs: object) -> None:
            raise RuntimeError("router exploded")

        monkeypatch.setattr(app, "open_screen", broken)
        await press(pilot, "t")  # home's Stats key
        assert isinstance(app.screen, HomeScreen)
        assert any("router exploded" in n.message and "crash.log" in n.message for n in app._notifications)


def test_a_bug_nothing_caught_ends_the_app_with_one_line_exit_code_3_and_a_crash_log(
    catalog: Catalog,
    tmp_path: Path,
    isolated_home: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    def broken(self: HomeScreen) -> None:
        raise RuntimeError("compose exploded")

    monkeypatch.setattr(HomeScreen, "compose", broken)
    app = make_app(db_path=tmp_path / "p.db", now=NOW, rng_seed=1, catalog=catalog)
    assert app.run_for_exit_code(headless=True) == 3
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("quizapp: internal error:") and "compose exploded" in err
    assert "Traceback" not in err
    assert "compose exploded" in (isolated_home / "crash.log").read_text(encoding="utf-8")
