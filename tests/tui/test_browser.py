"""The card browser (`b` from home) and the coding-exercise picker: filters, sorts and actions from the
list read back through the store, study now, what fits at 80x24 (whole ids, every key), a drilled card,
each exercise's solved status, and Enter's auto-indent in the editor."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import DataTable, Input, OptionList, Select, TextArea

from engine.exercises import EXERCISES
from quizapp.content.catalog import Catalog
from quizapp.grading.grade import grade
from quizapp.store import QuestionRef, get_card, open_store, reviews_for
from quizapp.study import make_scheduler, record_review
from quizapp.tui.app import QuizApp
from quizapp.tui.screens.browser import BrowserScreen
from quizapp.tui.screens.exercises import ExercisePickerScreen
from quizapp.tui.screens.home import HomeScreen
from quizapp.tui.screens.study import StudyScreen
from quizapp.tui.widgets.code_editor import CodeArea, indent_after
from quizapp.tui.widgets.footer import FooterKey
from tests.tui.helpers import NOW, drill, loaded, press, question_ids, seed_history, settled, until

SIZE = (100, 32)
SMALL = (80, 24)


def _table(app: QuizApp) -> DataTable[Any]:
    return app.screen.query_one("#browser-table", DataTable)


def _ids(app: QuizApp) -> list[str]:
    screen = app.screen
    assert isinstance(screen, BrowserScreen)
    page = screen._page
    return [c.question_id for c in page.cards] if page is not None else []


async def _browse(app: QuizApp, pilot: Pilot[None]) -> BrowserScreen:
    await loaded(app, pilot)
    await until(
        pilot, lambda: isinstance(app.screen, HomeScreen) and app.screen.deck_table is not None, "home"
    )
    await press(pilot, "b")
    await until(pilot, lambda: isinstance(app.screen, BrowserScreen) and bool(_ids(app)), "the first page")
    screen = app.screen
    assert isinstance(screen, BrowserScreen)
    return screen


async def _filter(app: QuizApp, pilot: Pilot[None], *, kind: str = "all", search: str = "") -> None:
    app.screen.query_one("#browser-filter", Select).value = kind
    app.screen.query_one("#browser-search", Input).value = search
    await settled(pilot)


def _card(db: Path, qid: str) -> Any:
    """The card as saved, read through its own connection (not the app's)."""
    with open_store(db, now=NOW) as store:
        return get_card(store, qid)


async def test_browser_filters_suspends_and_studies_now(
    new_app: Callable[..., QuizApp], catalog: Catalog, db_file: Path
) -> None:
    qid, _ = seed_history(db_file, catalog)
    app = new_app()
    async with app.run_test(size=SIZE) as pilot:
        await _browse(app, pilot)
        assert len(_ids(app)) == min(100, len(catalog.questions))
        await _filter(app, pilot, kind="suspended")
        await until(pilot, lambda: not _ids(app), "an empty suspended list")
        assert "No card matches" in str(app.screen.query_one("#browser-status").render())

        await _filter(app, pilot, search=qid)
        await until(pilot, lambda: _ids(app) == [qid], "the searched card alone")
        history = str(app.screen.query_one("#browser-history").render())
        await until(
            pilot,
            lambda: "3 answers" in str(app.screen.query_one("#browser-history").render()),
            f"its history (shown: {history!r})",
        )
        _table(app).focus()
        await press(pilot, "s")
        await until(pilot, lambda: _card(db_file, qid).suspended, "the card suspended in the store")
        await _filter(app, pilot, kind="suspended", search="")
        await until(pilot, lambda: _ids(app) == [qid], "the suspended list with the card")

        await press(pilot, "n")  # study now: back in the queues, due now
        await until(pilot, lambda: not _card(db_file, qid).suspended, "the card unsuspended")
        assert _card(db_file, qid).due <= NOW
        await until(pilot, lambda: not _ids(app), "the suspended list empty again")

        await press(pilot, "escape", "s")  # home, then study: the card made due is asked first
        await until(pilot, lambda: isinstance(app.screen, StudyScreen), "the study screen")
        screen = app.screen
        assert isinstance(screen, StudyScreen) and screen.session.current is not None
        assert screen.session.current.instance.question_id == qid


async def test_browser_reset_asks_twice_and_bury_sets_the_card_aside(
    new_app: Callable[..., QuizApp], catalog: Catalog, db_file: Path
) -> None:
    qid, _ = seed_history(db_file, catalog)
    app = new_app()
    async with app.run_test(size=SIZE) as pilot:
        await _browse(app, pilot)
        await _filter(app, pilot, search=qid)
        await until(pilot, lambda: _ids(app) == [qid], "the searched card alone")
        _table(app).focus()
        await press(pilot, "r")
        assert _card(db_file, qid).due is not None  # one r only asks
        await press(pilot, "r")
        await until(pilot, lambda: _card(db_file, qid).due is None, "the card new again")
        with open_store(db_file, now=NOW) as store:
            assert len(reviews_for(store, qid)) == 3  # its history is kept
        await press(pilot, "b")
        await until(pilot, lambda: "buried" in str(_table(app).get_row_at(0)[1]), "the card shown buried")


def _footer(app: QuizApp) -> dict[str, FooterKey]:
    """The footer's keys on screen, by key: each must show its whole label inside the screen."""
    shown = {}
    for key in app.screen.query(FooterKey):
        if not key.display:
            continue
        label = f"{key.key_display} {key.description}"
        region = key.region
        assert app.screen.region.contains_region(region), f"{label!r} is off the screen at {region}"
        assert region.width >= len(label), f"{label!r} is cut to {region.width} cells"
        shown[key.key] = key
    return shown


async def test_at_80x24_ids_show_whole_beside_state_due_reps_and_lapses(
    new_app: Callable[..., QuizApp], catalog: Catalog
) -> None:
    app = new_app()
    async with app.run_test(size=SMALL) as pilot:
        await _browse(app, pilot)
        table = _table(app)
        columns = {str(c.label): c for c in table.columns.values()}
        assert {"Question", "State", "Due", "Reps", "Laps"} <= set(columns), list(columns)
        assert table.virtual_size.width <= table.scrollable_content_region.width, "a column off the edge"
        room = columns["Question"].width
        whole = 0
        for row, qid in enumerate(_ids(app)):
            cell = str(table.get_row_at(row)[0])
            if len(qid) <= room:
                assert cell == qid, f"{qid!r} fits in {room} cells but shows as {cell!r}"
                whole += 1
            else:
                assert cell == qid[: room - 1] + "…", f"{qid!r} cut without an ellipsis: {cell!r}"
        assert len(_ids(app)[0]) > 20 and whole >= 0.8 * len(_ids(app)), f"{whole} ids whole in {room}"

        await pilot.resize_terminal(130, 30)  # wider: the interval and last rating come back
        await until(pilot, lambda: len(table.columns) == 7, "every column at 130 columns")
        assert table.virtual_size.width <= table.scrollable_content_region.width, "a column off the edge"
        widest = max(_ids(app), key=len)
        assert str(table.get_row_at(_ids(app).index(widest))[0]) == widest


async def test_at_80x24_the_footer_shows_every_key_of_the_browser(
    new_app: Callable[..., QuizApp], catalog: Catalog, db_file: Path
) -> None:
    qid, _ = seed_history(db_file, catalog)
    app = new_app()
    async with app.run_test(size=SMALL) as pilot:
        await _browse(app, pilot)
        keys = {"escape", "s", "b", "r", "n", "d", "slash", "o", "right_square_bracket"}
        await until(pilot, lambda: keys <= set(_footer(app)), f"the keys {sorted(keys)} in the footer")
        assert "u" not in _footer(app), "unsuspend is offered only for a suspended card"
        await _filter(app, pilot, search=qid)
        await until(pilot, lambda: _ids(app) == [qid], "the searched card alone")
        _table(app).focus()
        await press(pilot, "s")
        await until(pilot, lambda: _card(db_file, qid).suspended, "the card suspended")
        swapped = keys - {"s"} | {"u"}
        await until(pilot, lambda: swapped == set(_footer(app)), f"the keys {sorted(swapped)} in the footer")
        await press(pilot, "u")
        await until(pilot, lambda: not _card(db_file, qid).suspended, "the card back in the queues")


async def test_moving_onto_a_suspended_card_offers_unsuspend_and_shows_its_history(
    new_app: Callable[..., QuizApp], db_file: Path
) -> None:
    """Each Down or Up shows the highlighted card's history (made in the worker) and the footer offers
    suspend or unsuspend as that card takes, though the footer is redrawn only when that changes."""
    app = new_app()
    async with app.run_test(size=SIZE) as pilot:
        await _browse(app, pilot)
        _table(app).focus()
        first, second = _ids(app)[:2]

        def history() -> str:
            return str(app.screen.query_one("#browser-history").render())

        await until(pilot, lambda: history().startswith(first) and "s" in _footer(app), "the first card")
        await press(pilot, "down")
        await until(pilot, lambda: history().startswith(second), "the second card's history")
        await press(pilot, "s")
        await until(pilot, lambda: _card(db_file, second).suspended, "the second card suspended")
        await until(pilot, lambda: "u" in _footer(app) and "s" not in _footer(app), "unsuspend offered")
        await press(pilot, "up")
        await until(pilot, lambda: history().startswith(first), "the first card's history again")
        await until(pilot, lambda: "s" in _footer(app) and "u" not in _footer(app), "suspend offered")
        await press(pilot, "down")
        await until(pilot, lambda: history().startswith(second), "the suspended card's history")
        await until(pilot, lambda: "u" in _footer(app) and "s" not in _footer(app), "unsuspend offered again")


async def test_a_card_only_drilled_says_so_instead_of_new_with_0_reps(
    new_app: Callable[..., QuizApp], catalog: Catalog, db_file: Path
) -> None:
    qid = question_ids(catalog, "numeric")[0]
    ref = QuestionRef(qid, catalog.deck_of(qid).id)
    with open_store(db_file, now=NOW) as store:
        for minutes, rating in ((20, 1), (10, 3)):
            record_review(
                store, ref, seed=minutes, answer="1", correct=rating > 1, rating=rating, duration_ms=9000,
                now=NOW - timedelta(minutes=minutes), mode="drill",
            )  # fmt: skip
        assert get_card(store, qid) is not None and get_card(store, qid).due is None  # type: ignore[union-attr]
    app = new_app()
    async with app.run_test(size=SMALL) as pilot:
        await _browse(app, pilot)
        await _filter(app, pilot, search=qid)
        await until(pilot, lambda: _ids(app) == [qid], "the searched card alone")
        history = lambda: str(app.screen.query_one("#browser-history").render())  # noqa: E731
        await until(pilot, lambda: "2 answers" in history(), "its history")
        assert "new · drilled 2×" in history() and "0 reps" not in history(), history()
        assert str(_table(app).get_row_at(0)[1]) == "drilled 2×"


async def test_o_sorts_the_cards_by_due_date_then_lapses_recall_and_back_to_the_catalog(
    new_app: Callable[..., QuizApp], catalog: Catalog, db_file: Path
) -> None:
    qid, _ = seed_history(db_file, catalog)
    app = new_app()
    async with app.run_test(size=SMALL) as pilot:
        screen = await _browse(app, pilot)
        catalog_first = _ids(app)[:3]
        assert qid not in catalog_first and "catalog order" in screen.sub_title
        _table(app).focus()
        await press(pilot, "o")
        await until(pilot, lambda: _ids(app)[0] == qid, "the one scheduled card first")
        assert "due soonest" in screen.sub_title
        assert _ids(app)[1:3] == [q for q in catalog_first if q != qid][:2], "then the new, as listed"
        await press(pilot, "o")
        assert "most lapses" in screen.sub_title
        await press(pilot, "o")
        await until(pilot, lambda: _ids(app)[0] == qid, "the one card with a memory state first")
        assert "weakest recall" in screen.sub_title
        await press(pilot, "o")
        await until(pilot, lambda: _ids(app)[:3] == catalog_first, "the catalog's order again")
        assert "catalog order" in screen.sub_title


def _solve(db: Path, catalog: Catalog, qid: str) -> None:
    """The exercise's reference solution, graded by the real grader, saved as an answer to `qid`."""
    inst = catalog.instance(qid, 3)
    solution = EXERCISES[str(getattr(catalog.questions[qid], "exercise", ""))].solution
    verdict = grade(inst, solution)
    assert verdict.correct
    with open_store(db, now=NOW) as store:
        record_review(
            store,
            QuestionRef(qid, catalog.deck_of(qid).id),
            seed=3,
            answer=solution,
            correct=verdict.correct,
            rating=verdict.rating,
            duration_ms=60_000,
            now=NOW,
            mode="study",
            scheduler=make_scheduler(fuzzing=False),
        )


def _code_ids(catalog: Catalog) -> list[str]:
    return [o.question_id for o in catalog.question_outlines() if o.deck_id == "code"]


async def test_the_code_deck_opens_a_picker_with_each_exercise_solved_or_not(
    new_app: Callable[..., QuizApp], catalog: Catalog, db_file: Path
) -> None:
    code = _code_ids(catalog)
    solved = code[1]
    _solve(db_file, catalog, solved)
    app = new_app()
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        home = app.screen
        assert isinstance(home, HomeScreen)
        await until(pilot, lambda: home.deck_table is not None and home.deck_table.option_count > 0, "decks")
        table = home.deck_table
        assert table is not None
        table.highlighted = table._deck_ids.index("code")
        await press(pilot, "d")
        await until(pilot, lambda: isinstance(app.screen, ExercisePickerScreen), "the picker")
        options = app.screen.query_one("#exercises", OptionList)
        await until(pilot, lambda: options.option_count == len(code) + 1, "every exercise listed")

        def solved_line() -> str:
            index = options.get_option_index(solved) if options.option_count > len(code) else None
            return "" if index is None else str(options.get_option_at_index(index).prompt)

        await until(pilot, lambda: "solved" in solved_line(), "the solved exercise marked solved")
        shown = {
            options.get_option_at_index(i).id: str(options.get_option_at_index(i).prompt)
            for i in range(1, options.option_count)
        }
        assert set(shown) == set(code)
        assert "solved" in shown[solved]
        assert all("new" in line for q, line in shown.items() if q != solved)
        assert "1 of" in str(app.screen.query_one("#exercises-status").render())

        options.highlighted = 1 + code.index(code[0])
        await press(pilot, "enter")
        await until(pilot, lambda: isinstance(app.screen, StudyScreen), "a drill of the exercise")
        screen = app.screen
        assert isinstance(screen, StudyScreen) and screen.session.current is not None
        assert screen.session.current.instance.question_id == code[0]


@pytest.mark.parametrize(
    ("line", "indent"),
    [
        ("def f(x):", "    "),
        ("    return x", "    "),
        ("        for i in range(3):  # each head", "            "),
        ("x = 1", ""),
        ("\tif x:", "\t\t"),
    ],
)
def test_a_new_line_keeps_the_indentation_and_opens_a_block_after_a_colon(line: str, indent: str) -> None:
    assert indent_after(line) == indent


async def test_enter_auto_indents_in_the_code_editor(
    new_app: Callable[..., QuizApp], catalog: Catalog
) -> None:
    app = new_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await drill(app, pilot, _code_ids(catalog)[0])
        editor = screen.query_one(CodeArea).query_one(TextArea)
        editor.load_text("def f(x):")
        editor.move_cursor((0, 9))
        editor.focus()
        await press(pilot, "enter", *"y=x", "enter", *"return")
        assert editor.text == "def f(x):\n    y=x\n    return"


async def test_code_that_does_not_parse_says_so_on_screen_at_80x24(
    new_app: Callable[..., QuizApp], catalog: Catalog
) -> None:
    app = new_app()
    async with app.run_test(size=(80, 24)) as pilot:
        qid = _code_ids(catalog)[-1]
        screen = await drill(app, pilot, qid)
        code = screen.query_one(CodeArea)
        code.load("def f(x:\n    return x\n")
        code.query_one(TextArea).focus()
        await press(pilot, "ctrl+r")
        shown_errors = [w for w in app.screen.query("#code-error, #answer-error") if w.display]
        assert len(shown_errors) == 1 and not screen.session.answered
        error = shown_errors[0]
        said = str(error.render())
        assert "line 1" in said.lower(), said
        await pilot.pause()
        shown, region = app.screen.region, error.region
        assert region.height > 0 and shown.contains_region(region), f"{region} is not within {shown}"
        editor = code.query_one(TextArea).region
        assert editor.height >= 5
