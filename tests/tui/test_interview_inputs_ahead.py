"""A mock interview builds the input of each kind of question it asks later while the first is read, so
reaching a code question only fills in an editor built earlier (building one compiles tree-sitter's
highlight query: a freeze the skip key waited for)."""

from __future__ import annotations

from pathlib import Path

from textual.widget import Widget

from quizapp.content.catalog import load_catalog
from quizapp.tui.app import make_app
from quizapp.tui.screens.interview import InterviewScreen
from quizapp.tui.widgets.answer import answer_kind
from quizapp.tui.widgets.code_editor import CodeArea
from quizapp.tui.widgets.question_pane import AnswerSlot, QuestionPane
from tests.tui.helpers import NOW, SEED, press, until
from tests.tui.interview_helpers import Clock
from tests.tui.test_interview import SIZE, start_interview

DECK = """
id: ahead
title: Inputs built ahead
topic: ahead
questions:
  - id: ahead-choice
    type: choice
    difficulty: 1
    tags: [ahead]
    prompt: What does W_O do?
    options:
      - text: Mixes the heads' outputs into the model dimension
        correct: true
      - text: Scales the scores by 1/sqrt(d_k)
        feedback: That scaling happens inside each head, before the softmax.
    explanation: W_O is the only place where the heads' outputs are combined.
  - id: ahead-code
    type: code
    difficulty: 3
    tags: [ahead]
    exercise: code-softmax
    prompt: Write `softmax(x)` over the last axis.
    explanation: Shift each row by its maximum first.
"""


def slots(pane: QuestionPane) -> list[AnswerSlot]:
    return list(pane.query_children(AnswerSlot).results(AnswerSlot))


async def test_the_second_kind_of_input_is_built_hidden_then_shown_without_a_rebuild(tmp_path: Path) -> None:
    (tmp_path / "decks").mkdir()
    (tmp_path / "decks" / "ahead.yaml").write_text(DECK, encoding="utf-8")
    decks = load_catalog([tmp_path / "decks"], include_default=False, use_cache=False)
    app = make_app(tmp_path / "p.db", now=Clock(NOW), rng_seed=SEED, catalog=decks, cursor_blink=False)
    async with app.run_test(size=SIZE) as pilot:
        await start_interview(app, pilot, "ahead", questions=2, minutes=5)
        screen = app.screen
        assert isinstance(screen, InterviewScreen)
        first, second = (inst for _, inst in screen.session.plan)
        assert (first.kind, second.kind) == ("choice", "code")  # easiest first: the code question is second
        assert answer_kind(first) != answer_kind(second)
        pane = screen.pane
        await until(pilot, lambda: len(slots(pane)) == 2, "the second question's input built ahead")
        shown = [s for s in slots(pane) if s.display]
        assert len(shown) == 1  # the built-ahead input stays hidden while the first question is asked
        (ahead,) = (s for s in slots(pane) if not s.display)
        for field in ahead.query("Input, TextArea").results(Widget):
            assert field.cursor_blink is False  # type: ignore[attr-defined]  # the app's setting, as shown ones
        await press(pilot, "ctrl+n")  # skip to the second question
        assert screen.session.current is not None and screen.session.current.number == 2
        assert set(slots(pane)) == {shown[0], ahead}  # nothing built or removed for it
        assert ahead.display and not shown[0].display
        answer = ahead.query_one("#answer", Widget)
        assert not answer.disabled
        assert ahead.query_one(CodeArea).text == second.starter
