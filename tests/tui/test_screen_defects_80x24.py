"""The last screen defects a new user saw at 80x24 (issue 37, item 3): Ctrl+O's model answer reads as
paragraphs, a choice's feedback states the right answer once, home's key bar keeps Quit, and the rating
just saved shows in the session bar instead of a toast over the next card."""

from __future__ import annotations

from collections.abc import Callable
from itertools import pairwise
from pathlib import Path

from textual.pilot import Pilot
from textual.widgets._toast import Toast

from quizapp.content.catalog import Catalog, load_catalog
from quizapp.content.prose import reflow
from quizapp.tui.app import QuizApp, make_app
from quizapp.tui.screens.help import help_text
from quizapp.tui.screens.study import StudyScreen
from quizapp.tui.widgets.footer import FooterKey, KeyFooter
from tests.tui.helpers import NOW, SEED, current, drill, loaded, opened, press, question_ids, settled, text_of

SIZE = (80, 24)


def _wrapped_in_source(text: str) -> bool:
    """True when a paragraph of `text` runs over two source lines (a YAML block wrapped by its author)."""
    lines = text.strip().splitlines()
    return any(a.strip() and b.strip() and not b.lstrip().startswith("-") for a, b in pairwise(lines))


def test_reflow_joins_prose_and_keeps_lists_and_code() -> None:
    text = (
        "First paragraph wrapped\nby its author.\n\n- an item\n  that wraps\n- another\n\n"
        "1. one\n2. two\n\n```python\nx = 1\ny = 2\n```\n\n    indented = code\n    more = code\n"
    )
    assert reflow(text) == (
        "First paragraph wrapped by its author.\n\n- an item that wraps\n- another\n\n1. one\n2. two\n\n"
        "```python\nx = 1\ny = 2\n```\n\n    indented = code\n    more = code"
    )


async def test_ctrl_o_on_an_explain_question_shows_the_model_answer_as_paragraphs(
    new_app: Callable[..., QuizApp], catalog: Catalog
) -> None:
    """The model answer came with the line breaks its YAML was wrapped at, so at 80 columns every
    source line ended a screen line early: a long line, a short one, a long one."""
    qid = question_ids(catalog, "explain", lambda i: _wrapped_in_source(i.expected_text()))[0]
    app = new_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await drill(app, pilot, qid)
        model = current(screen).expected_text().strip()
        await press(pilot, "ctrl+o")
        message = screen.query_one("#verdict-message")
        shown = message.render_lines(message.region.reset_offset)
        rows = [strip.text.rstrip() for strip in shown]
        start = rows.index(next(row for row in rows if row.startswith("A model answer:")))
        paragraph = rows[start : next(k for k in range(start, len(rows)) if "own words" in rows[k])]
        width = message.content_region.width
        assert len(paragraph) > 1
        for row, after in pairwise(paragraph):  # each row is full but for the word after it
            assert len(row) + 1 + len(after.split()[0]) > width, f"ragged at {row!r}"
        assert " ".join(model.split()) in " ".join(" ".join(paragraph).split())


async def test_a_wrong_choice_states_the_right_answer_once(tmp_path: Path) -> None:
    """After a wrong choice the right option was listed as "(the right answer)" and again under
    "Correct answer:"; now it is said once, after why the chosen one is wrong. A right choice names
    the chosen option once and adds no answer line."""
    decks = load_catalog([Path(__file__).with_name("decks")], include_default=False, use_cache=False)
    qid = "snapshot-choice-wo"
    app = make_app(tmp_path / "p.db", now=NOW, rng_seed=SEED, catalog=decks, cursor_blink=False)
    async with app.run_test(size=SIZE) as pilot:
        screen = await drill(app, pilot, qid)
        inst = current(screen)
        right = next(o for o in inst.options if o.correct)
        wrong = next(o for o in inst.options if not o.correct)
        await press(pilot, wrong.key, "enter")
        panel = " ".join(str(w.render()) for w in screen.query("#feedback Static") if w.display)
        assert panel.count(right.text) == 1, panel
        assert panel.count(wrong.text) == 1, panel  # "You chose" names it; its reason goes by letter
        assert wrong.feedback in text_of(app, ".option-feedback")
        assert f"{right.key}) {right.text}" in text_of(app, "#choice-answer")

        await press(pilot, "enter")  # the next draw of the same question
        inst = current(screen)
        right = next(o for o in inst.options if o.correct)
        await press(pilot, right.key, "enter")
        panel = " ".join(str(w.render()) for w in screen.query("#feedback Static") if w.display)
        assert panel.count(right.text) == 1, panel
        assert not [line for line in screen.query("#choice-answer") if line.display]  # kept, hidden


def _footer_keys(pilot: Pilot[None]) -> dict[str, FooterKey]:
    footer = pilot.app.screen.query_one(KeyFooter)
    return {key.description: key for key in footer.query(FooterKey) if key.display}


async def test_home_keeps_quit_in_the_key_bar_at_80x24(new_app: Callable[..., QuizApp]) -> None:
    """Home's keys ran past the right edge and cut Quit to its "q". A key left out of the bar for room
    still works and is still in the help and the command palette."""
    app = new_app()
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        keys = _footer_keys(pilot)
        assert "Quit" in keys and keys["Quit"].region.right <= SIZE[0]
        assert all(key.region.right <= SIZE[0] for key in keys.values())
        assert "Cram" not in keys
        assert "Cram every card" in help_text().plain
        commands = [command.title for command in app.get_system_commands(app.screen)]
        assert "Cram" in commands and "Quit" in commands
        await press(pilot, "c")
        await opened(app, pilot)
        assert isinstance(app.screen, StudyScreen) and app.screen.session.mode == "cram"


async def test_the_rating_just_saved_shows_in_the_session_bar_not_a_toast(
    new_app: Callable[..., QuizApp], catalog: Catalog
) -> None:
    """Rating a revealed flashcard put "Saved Good; next review in..." in a toast over the next card's
    text at 80x24; it is in the session bar now, until the next answer's verdict replaces it."""
    ids = tuple(question_ids(catalog, "flashcard")[:2])
    app = new_app()
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        app.start_session("study", question_ids=ids)
        screen = await opened(app, pilot)
        await press(pilot, "space", "3")
        assert not app.screen.query(Toast)
        assert "saved Good, due in" in text_of(app, "#session-bar")
        await press(pilot, "ctrl+o")  # the next card's verdict: the note on the one before goes
        assert "saved Good" not in text_of(app, "#session-bar")
        assert screen.bar.note == ""


async def test_explore_keeps_every_key_in_the_key_bar_at_80x24(new_app: Callable[..., QuizApp]) -> None:
    """Explore's bar ran past the right edge and cut Presets to "Pr" and Reset off; the toggles' full
    names are on the checkbox row and in their tooltips."""
    app = new_app()
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        await press(pilot, "e")
        await settled(pilot)
        keys = _footer_keys(pilot)
        assert {"Home", "Causal", "Tie", "No W_O", "Trained", "Values", "Presets", "Reset"} <= set(keys)
        assert all(key.region.right <= SIZE[0] for key in keys.values())
