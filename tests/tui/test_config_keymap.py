"""config.toml in the app: a remapped key triggers its action, unknown binding ids and themes are reported,
the file's theme and extra deck folders are used, and the help screen lists every binding id."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from quizapp.config import load_config
from quizapp.store import load_settings
from quizapp.tui.app import QuizApp
from quizapp.tui.keys import binding_ids
from quizapp.tui.screens.help import HelpScreen
from quizapp.tui.screens.home import HomeScreen
from quizapp.tui.screens.stats import StatsScreen
from tests.test_config import extra_deck, write_config
from tests.tui.helpers import SIZE, loaded


def test_every_binding_has_an_id_the_keymap_can_name() -> None:
    ids = binding_ids()
    assert {"app.quit", "home.stats", "study.hint", "choice.submit", "keypoints.done"} <= ids


async def test_a_remapped_key_opens_stats_from_home_and_the_old_key_no_longer_does(
    new_app: Callable[..., QuizApp], isolated_home: Path
) -> None:
    write_config(isolated_home, '[keymap]\n"home.stats" = "z"\n')
    app = new_app(user_config=load_config())
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        await pilot.press("t")
        await pilot.pause()
        assert isinstance(app.screen, HomeScreen), "t was replaced by z"
        await pilot.press("z")
        await pilot.pause()
        assert isinstance(app.screen, StatsScreen)
        assert not app._notifications, [n.message for n in app._notifications]


async def test_unknown_binding_ids_and_themes_are_reported_and_the_app_runs(
    new_app: Callable[..., QuizApp], isolated_home: Path
) -> None:
    write_config(
        isolated_home,
        'theme = "no-such-theme"\n[keymap]\n"home.nope" = "x"\n"home.stats" = "z"\n'
        "[settings]\nnew_per_day = -1\n",
    )
    app = new_app(user_config=load_config())
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        messages = [n.message for n in app._notifications]
        assert any("home.nope" in m and "binding id" in m for m in messages), messages
        assert any("no-such-theme" in m and "not a Textual theme" in m for m in messages), messages
        assert any("new_per_day" in m and "Using the default 20" in m for m in messages), messages
        await pilot.press("z")  # the valid part of the keymap still applies
        await pilot.pause()
        assert isinstance(app.screen, StatsScreen)


async def test_the_files_theme_is_applied(new_app: Callable[..., QuizApp], isolated_home: Path) -> None:
    write_config(isolated_home, 'theme = "nord"\n')
    app = new_app(user_config=load_config())
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        assert app.theme == "nord"
        assert app.backend is not None and load_settings(app.backend.store).theme == "nord"


async def test_the_help_lists_binding_ids_with_the_remapped_key(
    new_app: Callable[..., QuizApp], isolated_home: Path
) -> None:
    write_config(isolated_home, '[keymap]\n"home.stats" = "z"\n')
    app = new_app(user_config=load_config())
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        text = str(app.screen.query_one("#help-text").render())
        lines = {line.split()[0]: line.split()[1] for line in text.splitlines() if line.startswith("  home.")}
        assert lines["home.stats"] == "z" and lines["home.study"] == "s"


async def test_deck_folders_from_the_file_reach_the_app(
    isolated_home: Path, tmp_path: Path, db_file: Path
) -> None:
    from quizapp.tui.app import make_app

    folder = extra_deck(tmp_path / "more")
    write_config(isolated_home, f'decks = ["{folder}"]\n')
    app = make_app(db_path=db_file, user_config=load_config(), cursor_blink=False)
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        assert app.backend is not None and "extra-masks" in app.backend.catalog.decks


def test_the_theme_names_quizapp_config_checks_are_textuals_own() -> None:
    from textual.theme import BUILTIN_THEMES

    from quizapp.config import TEXTUAL_THEMES

    assert set(BUILTIN_THEMES) == TEXTUAL_THEMES
