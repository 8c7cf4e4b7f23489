"""A megabyte of text never freezes the code editor: a paste that large is refused with a message, a
draft that large is loaded cut, and highlighting stops on long text (issue 28)."""

from __future__ import annotations

from collections.abc import Callable

from textual import events
from textual.widgets import TextArea

from quizapp.study.drafts import save_draft
from quizapp.tui.app import QuizApp
from quizapp.tui.widgets.code_editor import EDITOR_MAX_CHARS, CodeArea
from tests.tui.helpers import drill, settled

SIZE = (100, 40)
QID = "code-kv-cache-bytes"
MEGABYTE = "x = 1  # a line of a huge paste\n" * 32_000


def _editor(screen: object) -> TextArea:
    return screen.query_one(CodeArea).query_one(TextArea)  # type: ignore[attr-defined]


async def test_a_megabyte_paste_is_refused_and_the_editor_keeps_its_code(
    new_app: Callable[..., QuizApp],
) -> None:
    app = new_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await drill(app, pilot, QID)
        editor = _editor(screen)
        before = editor.text
        editor.focus()
        editor.post_message(events.Paste(MEGABYTE))
        await settled(pilot)
        assert editor.text == before
        assert any("Not pasted" in str(n.message) for n in app._notifications)


async def test_a_megabyte_draft_opens_cut_and_unhighlighted(new_app: Callable[..., QuizApp]) -> None:
    save_draft(QID, MEGABYTE)
    app = new_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await drill(app, pilot, QID)
        editor = _editor(screen)
        assert len(editor.text) < EDITOR_MAX_CHARS + 200 and "cut here" in editor.text
        assert editor.language is None
