"""Home's first frame on a second start: the decks the first start loaded, counts "…", while the store is
still being opened (held here by another connection's write lock, as a second quizapp would hold it);
a key pressed meanwhile waits for the decks and then works; the real table replaces the list."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path

from quizapp.content.catalog import Catalog
from quizapp.content.remembered_decks import remembered_decks
from quizapp.tui.app import QuizApp
from quizapp.tui.widgets.deck_table import DeckTable
from tests.tui.helpers import SIZE, loaded, opened, text_of


async def test_a_second_start_shows_the_decks_before_the_store_opens(
    new_app: Callable[..., QuizApp], catalog: Catalog, db_file: Path
) -> None:
    first = new_app()
    async with first.run_test(size=SIZE) as pilot:
        await loaded(first, pilot)
        assert not first.screen.query("#decks-remembered")  # nothing remembered yet: a loading indicator
        titles = [deck.title for deck in catalog.deck_refs()]
        assert [d.title for d in remembered_decks(first.config.deck_key())] == titles
        table_header = text_of(first, "#decks-header")

    lock = sqlite3.connect(db_file, isolation_level=None)
    try:
        lock.execute("BEGIN IMMEDIATE")  # the app's store waits for this write lock when it opens
        app = new_app()
        async with app.run_test(size=SIZE) as pilot:
            for _ in range(5):
                await pilot.pause(0.02)
            assert app.backend is None and not app.screen.query(DeckTable)
            rows = text_of(app, "#decks-remembered").splitlines()
            assert len(rows) == len(titles)
            for row, title in zip(rows, (d.title for d in catalog.deck_refs()), strict=True):
                assert row.startswith(title[:20]) and row.split()[-4:-2] == ["…", "…"], row
            assert text_of(app, "#decks-header") == table_header  # the same columns as the table's
            assert "Counting your cards" in text_of(app, "#home-status")
            await pilot.press("d")  # nothing to pick yet: said so, not "no deck highlighted"
            await pilot.pause()
            assert any("being counted" in str(n.message) for n in app._notifications)
            await pilot.resize_terminal(80, 24)  # the rows refit as the table's would
            await pilot.pause()
            narrow = text_of(app, "#decks-remembered").splitlines()
            assert max(map(len, narrow)) < max(map(len, rows)) and narrow[0].split()[-4:-2] == ["…", "…"]
            await pilot.resize_terminal(*SIZE)
            await pilot.pause()
            assert text_of(app, "#decks-remembered").splitlines() == rows
            await pilot.press("s")  # before the decks: opens once they are here
            for _ in range(300):  # a long wait says what it may be (after SLOW_START_S)
                await pilot.pause(0.02)
                if "Still reading" in text_of(app, "#home-status"):
                    break
            assert "another quizapp has your progress file open" in text_of(app, "#home-status")
            lock.execute("ROLLBACK")
            await loaded(app, pilot)
            screen = await opened(app, pilot)
            assert screen.session.mode == "study"
            await pilot.press("escape")
            await pilot.pause()
            assert not app.screen.query("#decks-remembered")
            table = app.screen.query_one(DeckTable)
            assert table.option_count == len(titles) and "…" not in str(table.get_option_at_index(0).prompt)
            assert text_of(app, "#decks-header") == table_header
    finally:
        lock.close()


async def test_the_remembered_decks_go_when_the_store_cannot_open(
    new_app: Callable[..., QuizApp], db_file: Path
) -> None:
    """A database from a newer quizapp is refused: the remembered rows, which would never be counted,
    make room for the reason."""
    first = new_app()
    async with first.run_test(size=SIZE) as pilot:
        await loaded(first, pilot)
    newer = sqlite3.connect(db_file)
    newer.execute("PRAGMA user_version = 999")
    newer.close()
    app = new_app()
    async with app.run_test(size=SIZE) as pilot:
        for _ in range(200):
            await pilot.pause(0.02)
            if "Could not load" in text_of(app, "#home-status"):
                break
        assert "Could not load" in text_of(app, "#home-status") and "newer" in text_of(app, "#home-status")
        assert not app.screen.query("#decks-remembered") and not app.screen.query("#decks-header")


async def test_a_start_that_cannot_open_the_store_says_why_with_the_path_as_it_is(
    catalog: Catalog, tmp_path: Path
) -> None:
    """A folder named like markup (`[/]` closes a tag) is shown as it is, not parsed (that crashed the app
    with a MarkupError); and once the start has failed, keys say so instead of promising to wait."""
    from quizapp.tui.app import make_app

    folder = tmp_path / "qa[/]home [work]"  # "[/" and "]home [work]": two folders, as a shell makes them
    folder.mkdir(parents=True)
    db = folder / "progress.db"
    newer = sqlite3.connect(db)
    newer.execute("PRAGMA user_version = 999")  # from a newer quizapp: refused
    newer.close()
    app = make_app(db_path=db, catalog=catalog, cursor_blink=False)
    async with app.run_test(size=SIZE) as pilot:
        for _ in range(500):
            await pilot.pause(0.02)
            if "Could not load" in text_of(app, "#home-status"):
                break
        assert str(db) in text_of(app, "#home-status")
        assert any(str(db) in str(n.message) for n in app._notifications)
        await pilot.press("s")
        await pilot.pause()
        last = list(app._notifications)[-1]
        assert "start quizapp again" in str(last.message) and "Loading the decks" not in str(last.message)
        assert app.return_code is None  # still running: no internal error ended it
