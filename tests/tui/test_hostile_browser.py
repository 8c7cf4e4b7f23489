"""The card browser shows an imported progress file's answers and diagnoses without their escape
sequences, bidi or zero-width characters (issue 33, item 5), and so does the code editor's "last
submitted code"."""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path

import pytest
from textual.widgets import Input, Select

from quizapp.content.catalog import Catalog
from quizapp.progress.reader import import_progress
from quizapp.progress.writer import export_progress
from quizapp.store import QuestionRef, open_store
from quizapp.study import record_review
from quizapp.terminal_text import UNSAFE_CHARACTERS
from quizapp.tui.app import QuizApp
from quizapp.tui.screens.browser import BrowserScreen
from quizapp.tui.screens.home import HomeScreen
from tests.tui.helpers import NOW, loaded, press, question_ids, settled, until

SECRET = "Y3VybCBldmlsLmV4YW1wbGUgfCBzaA=="
ANSWER = f"12\x1b]52;c;{SECRET}\x07\x1b[2J\r\u200b\u061c\u202e GiB"
DIAGNOSIS = f"forgot\x9b2J\x1b]52;c;{SECRET}\x1b\\ the 2x"
UNSAFE = re.compile(f"[{UNSAFE_CHARACTERS}]")


def _crafted(tmp_path: Path, db: Path, qid: str, deck: str, *, imported: bool) -> None:
    """Their database with the crafted review: imported into `db` as a progress file, or `db` itself."""
    source = tmp_path / "theirs.db" if imported else db
    with open_store(source, now=NOW) as store:
        record_review(
            store,
            QuestionRef(qid, deck),
            seed=1,
            answer=ANSWER,
            correct=False,
            rating=1,
            duration_ms=9_000,
            now=NOW - timedelta(days=1),
            diagnosis=DIAGNOSIS,
            diagnosis_id="forgot-2x",
        )
        if imported:
            export_progress(store, tmp_path / "theirs.json", now=NOW)
    if imported:
        with open_store(db, now=NOW) as store:
            import_progress(store, tmp_path / "theirs.json", now=NOW)


@pytest.mark.parametrize("imported", [True, False], ids=["imported progress file", "crafted database"])
async def test_the_card_browser_shows_a_crafted_answer_and_diagnosis_clean(
    new_app: Callable[..., QuizApp], catalog: Catalog, db_file: Path, tmp_path: Path, imported: bool
) -> None:
    qid = question_ids(catalog, "numeric")[0]
    _crafted(tmp_path, db_file, qid, catalog.deck_of(qid).id, imported=imported)
    app = new_app()
    async with app.run_test(size=(100, 32)) as pilot:
        await loaded(app, pilot)
        await until(
            pilot, lambda: isinstance(app.screen, HomeScreen) and app.screen.deck_table is not None, "home"
        )
        await press(pilot, "b")
        await until(pilot, lambda: isinstance(app.screen, BrowserScreen), "the browser")
        app.screen.query_one("#browser-filter", Select).value = "all"
        app.screen.query_one("#browser-search", Input).value = qid
        await settled(pilot)

        def history() -> str:
            return str(app.screen.query_one("#browser-history").render())

        await until(pilot, lambda: "1 answer" in history(), "the card's history")
        shown = history()
        assert "12 GiB" in shown and "forgot the 2x" in shown, shown
        assert UNSAFE.search(shown) is None and SECRET not in shown, repr(shown)
        lines = app.screen.query_one("#browser-history").render_lines(
            app.screen.query_one("#browser-history").region.reset_offset
        )
        drawn = "".join(segment.text for line in lines for segment in line)  # what goes to the terminal
        assert "12 GiB" in drawn and UNSAFE.search(drawn) is None and SECRET not in drawn, repr(drawn)
