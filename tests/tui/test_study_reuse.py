"""The study screen draws every card in the widgets the first card of its kind built: after the first
card of each kind nothing is mounted or removed (remounting a card's widgets cost a user about 100 ms a
card, and a new code editor compiled tree-sitter's highlight query each time, up to 185 ms); the code
editor is built ahead, while the first card is read."""

from __future__ import annotations

from collections.abc import Callable

from textual.pilot import Pilot
from textual.widget import Widget
from textual.widgets import Input, TextArea

from engine.exercises import EXERCISES
from quizapp.content.catalog import Catalog
from quizapp.tui.app import QuizApp
from quizapp.tui.screens.study import StudyScreen
from quizapp.tui.widgets.answer import answer_kind
from quizapp.tui.widgets.code_editor import CodeArea
from quizapp.tui.widgets.feedback import FeedbackPanel
from quizapp.tui.widgets.question_pane import AnswerSlot
from tests.tui.helpers import SIZE, current, loaded, opened, press, question_ids, settled, until

KINDS = ("numeric", "choice", "flashcard", "code", "explain")
CARDS = 16
"""Cards answered in the drill: every kind comes round at least twice (the drill draws them at random)."""


def _two_of_each(catalog: Catalog) -> tuple[str, ...]:
    ids: list[str] = []
    for kind in KINDS:
        found = question_ids(catalog, kind)
        if kind == "choice":  # one input kind: a single right option
            found = [q for q in found if not catalog.instance(q, 1).multiple]
        if kind == "code":  # questions the engine holds a solution for
            found = [q for q in found if str(getattr(catalog.questions[q], "exercise", "")) in EXERCISES]
        ids += found[:2]
    return tuple(ids)


def _widgets(screen: StudyScreen) -> set[Widget]:
    """Every widget in the study screen's body and bar (hidden ones too)."""
    return {*screen.body.query("*").results(Widget), screen.bar}


def _editor(screen: StudyScreen) -> TextArea:
    return screen.query_one(CodeArea).query_one(TextArea)


async def _answer_and_go_on(screen: StudyScreen, pilot: Pilot[None], catalog: Catalog) -> None:
    """Answers the card on screen as a learner would, up to its feedback, then moves on."""
    inst = current(screen)
    if inst.kind == "numeric":
        screen.query_one("#answer", Input).value = inst.expected_text()
        await press(pilot, "enter")
    elif inst.kind == "choice":
        await press(pilot, next(o.key for o in inst.options if o.correct), "enter")
    elif inst.kind == "flashcard":
        await press(pilot, "space")
        assert screen.revealed
        await press(pilot, "3")  # rated, and the next card follows
        return
    elif inst.kind == "explain":
        screen.query_one("#explain-text", TextArea).text = inst.key_points[0]
        await press(pilot, "ctrl+s", "space", "enter")  # submit, tick a key point, save
    else:
        exercise = str(getattr(catalog.questions[inst.question_id], "exercise", ""))
        screen.query_one(CodeArea).load(EXERCISES[exercise].solution)
        await press(pilot, "ctrl+s")
    await settled(pilot)
    assert screen.session.answered and screen.query_one(FeedbackPanel).display, inst.kind
    await press(pilot, "enter")


async def test_cards_of_every_kind_reuse_the_widgets_the_first_of_their_kind_built(
    new_app: Callable[..., QuizApp], catalog: Catalog
) -> None:
    app = new_app()
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        app.start_session("drill", question_ids=_two_of_each(catalog))
        screen = await opened(app, pilot)
        await until(pilot, lambda: bool(screen.query(CodeArea)), "the code editor built ahead")
        ahead = _editor(screen)  # built while the first card was read, or by it
        seen: set[str] = set()
        editors: list[TextArea] = []
        reused = 0
        for _ in range(CARDS):
            kind = answer_kind(current(screen))
            if kind == "code":
                editors.append(_editor(screen))
                assert not editors[-1].history.undo_stack  # Ctrl+Z cannot bring back another card's code
            before = _widgets(screen)
            known = kind in seen
            seen.add(kind)
            await _answer_and_go_on(screen, pilot, catalog)
            assert screen.phase == "question"  # a drill goes on
            following = answer_kind(current(screen))
            if known and following in seen:  # this card's kind and the next one's were drawn before
                added, removed = _widgets(screen) - before, before - _widgets(screen)
                assert not added and not removed, (kind, following, added, removed)
                reused += 1
        assert seen == {"typed", "single", "flashcard", "code", "explain"}, seen
        assert reused >= 5  # the check ran on cards of several kinds, not once
        assert len(editors) >= 2 and all(e is ahead for e in editors)  # one editor for every code card
        assert editors[0].language == "python"
        fields = list(screen.query("Input, TextArea").results(Widget))
        assert fields and all(getattr(f, "cursor_blink", None) is app.config.cursor_blink for f in fields)


async def test_the_code_editor_is_built_while_the_first_card_is_read(
    new_app: Callable[..., QuizApp], catalog: Catalog
) -> None:
    ids = _two_of_each(catalog)
    choice, code = ids[KINDS.index("choice") * 2], ids[KINDS.index("code") * 2 + 1]
    app = new_app()
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        app.start_session("drill", question_ids=(choice, code), until_solved=True)
        screen = await opened(app, pilot)
        assert current(screen).question_id == choice, "the drill's seed asks the choice first"
        await until(pilot, lambda: bool(screen.query(CodeArea)), "the code editor built ahead")
        ahead = _editor(screen)
        slot = screen.query_one(CodeArea).parent
        assert isinstance(slot, AnswerSlot) and not slot.display  # hidden while the choice is asked
        await _answer_and_go_on(screen, pilot, catalog)
        assert current(screen).question_id == code
        assert _editor(screen) is ahead and slot.display
        assert ahead.text == current(screen).starter and ahead.cursor_blink is app.config.cursor_blink
