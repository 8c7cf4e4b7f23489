"""Code questions in the study screen: the editor opens with the starter code, Ctrl+S submits the code to
the engine and names the mistake, the draft survives a restart, and Ctrl+E edits it in $EDITOR (Ctrl+R's
tries: test_code_try_screens.py)."""

from __future__ import annotations

import stat
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from textual.pilot import Pilot
from textual.widgets import TextArea
from textual.widgets.text_area import SyntaxAwareDocument

from engine.exercises import EXERCISES
from engine.exercises.base import source_as
from quizapp.store import reviews_for
from quizapp.tui.app import QuizApp
from quizapp.tui.widgets.code_editor import CodeArea
from quizapp.tui.widgets.heatmap import HeatmapView
from tests.tui.helpers import current, drill, press, settled, text_of

SIZE = (100, 40)
QID = "code-kv-cache-bytes"


def _editor(screen: object) -> TextArea:
    return screen.query_one(CodeArea).query_one(TextArea)  # type: ignore[attr-defined]


async def test_run_names_the_mistake_and_saves_the_code(new_app: Callable[..., QuizApp]) -> None:
    ex = EXERCISES[QID]
    app = new_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await drill(app, pilot, QID)
        editor = _editor(screen)
        assert editor.text == ex.starter and editor.has_focus and editor.language == "python"
        wrong = source_as(ex.mistakes[0].compute, ex.function)  # forgets the x2 for K and V
        editor.load_text(wrong)
        await press(pilot, "ctrl+s")
        assert "Not quite" in text_of(app, "#verdict")
        assert "You dropped the x2 for K and V" in text_of(app, "#diagnosis")
        assert "First failing case (#1)" in text_of(app, "#verdict-message")
        saved = reviews_for(app.backend.store, QID)  # type: ignore[union-attr]
        assert [r.answer for r in saved] == [wrong] and saved[0].diagnosis_id == "no-x2"

        await press(pilot, "enter")  # the same exercise again, with the code last submitted in the editor
        assert _editor(screen).text == wrong
        _editor(screen).load_text(ex.solution)
        await press(pilot, "ctrl+s")
        assert "Correct" in text_of(app, "#verdict")


async def test_the_draft_survives_a_restart(new_app: Callable[..., QuizApp]) -> None:
    draft = "import numpy as np\n\ndef kv_cache_bytes(*sizes):\n    return 2  # half-way\n"
    app = new_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await drill(app, pilot, QID)
        editor = _editor(screen)
        editor.load_text("")
        editor.insert(draft)  # typed: the draft is written shortly after the last change
        await pilot.pause(0.6)
        await settled(pilot)
        await press(pilot, "escape")  # no "unsaved answer" question: the draft is kept
        assert not isinstance(app.screen, type(screen))
    again = new_app()
    async with again.run_test(size=SIZE) as pilot:
        screen = await drill(again, pilot, QID)
        assert _editor(screen).text == draft


async def test_code_that_does_not_parse_is_not_counted_and_stays_to_be_fixed(
    new_app: Callable[..., QuizApp],
) -> None:
    broken = "import numpy as np\n\ndef kv_cache_bytes(*sizes):\nreturn 2\n"
    app = new_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await drill(app, pilot, QID)
        _editor(screen).load_text(broken)
        await press(pilot, "ctrl+s")
        await settled(pilot)
        error = text_of(app, "#code-error")  # above the editor, where it can be seen
        assert "line 4: expected an indented block" in error and "does not count" in error
        assert not screen.session.answered and _editor(screen).text == broken
        assert not reviews_for(app.backend.store, QID)  # type: ignore[union-attr]
        _editor(screen).load_text(EXERCISES[QID].solution)  # fixed: now it is graded, and counted
        await press(pilot, "ctrl+s")
        assert "Correct" in text_of(app, "#verdict")
        assert len(reviews_for(app.backend.store, QID)) == 1  # type: ignore[union-attr]


async def test_escape_right_after_typing_keeps_the_last_keystrokes(new_app: Callable[..., QuizApp]) -> None:
    app = new_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await drill(app, pilot, QID)
        editor = _editor(screen)
        editor.focus()
        await pilot.press("end", *"# the last words")  # typed, and Escape before the draft's timer fires
        typed = editor.text
        assert "# the last words" in typed
        await pilot.press("escape")
        await pilot.pause()
        assert not isinstance(app.screen, type(screen))
    again = new_app()
    async with again.run_test(size=SIZE) as pilot:
        screen = await drill(again, pilot, QID)
        assert _editor(screen).text == typed


@pytest.mark.skipif(sys.platform == "win32", reason="a shell script stands in for the editor")
async def test_ctrl_e_edits_the_draft_in_the_editor(
    new_app: Callable[..., QuizApp], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ex = EXERCISES[QID]
    solution = tmp_path / "solution.py"
    solution.write_text(ex.solution, encoding="utf-8")
    script = tmp_path / "fake-editor"
    script.write_text(f'#!/bin/sh\ncat "{solution}" > "$1"\n', encoding="utf-8")  # "saves" a solution
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv("EDITOR", str(script))
    monkeypatch.delenv("VISUAL", raising=False)
    app = new_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await drill(app, pilot, QID)
        await press(pilot, "ctrl+e")
        assert _editor(screen).text == ex.solution
        await press(pilot, "ctrl+s")
        assert "Correct" in text_of(app, "#verdict")


def test_a_failing_verdict_with_its_named_mistake_at_80x24(
    snap_compare: Callable[..., bool], new_app: Callable[..., QuizApp]
) -> None:
    """Look at it as PNG after `--snapshot-update`: the verdict, the mistake, the first failing case."""
    ex = EXERCISES[QID]

    async def run_before(pilot: Pilot[Any]) -> None:
        app = pilot.app
        assert isinstance(app, QuizApp)
        screen = await drill(app, pilot, QID)
        _editor(screen).load_text(source_as(ex.mistakes[0].compute, ex.function))
        await press(pilot, "ctrl+s")

    assert snap_compare(new_app(), terminal_size=(80, 24), run_before=run_before)


async def test_a_wrong_softmax_shows_expected_and_yours_side_by_side(new_app: Callable[..., QuizApp]) -> None:
    ex = EXERCISES["code-softmax"]
    wrong = next(m for m in ex.mistakes if m.id == "wrong-axis")
    app = new_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await drill(app, pilot, ex.id)
        _editor(screen).load_text(source_as(wrong.compute, ex.function))
        await press(pilot, "ctrl+s")
        view = screen.query_one("#feedback-heatmap", HeatmapView)
        assert view.display and view.heatmap is not None
        assert view.heatmap.head_labels == ("expected", "yours")
        case = ex.cases(current(screen).seed)[0]
        np.testing.assert_allclose(view.heatmap.weights[0], ex.reference(**case))
        np.testing.assert_allclose(view.heatmap.weights[1], wrong.compute(**case))
        assert "expected" in str(view.render()) and "yours" in str(view.render())


async def test_the_line_being_typed_stays_in_view_when_a_try_shrinks_the_editor_at_80x24(
    new_app: Callable[..., QuizApp],
) -> None:
    """At 80x24 a try's message (or a horizontal scrollbar) takes rows from the editor: the cursor's line
    must stay visible, not slide under the bottom edge."""
    ex = EXERCISES[QID]
    long_line = "    x = 0  # " + "a long comment that overflows the editor to the right " * 2
    code = ex.starter.rstrip("\n") + "\n" + "\n".join([long_line] * 14) + "\n    return undefined_name\n"
    app = new_app()
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await drill(app, pilot, QID)
        editor = _editor(screen)
        editor.load_text(code)
        editor.move_cursor(editor.document.end)  # typing at the end, as a learner would
        await settled(pilot)
        await press(pilot, "ctrl+r")  # a try: its message appears above the editor
        await settled(pilot)
        row = editor.cursor_location[0]
        top, height = int(editor.scroll_offset.y), editor.scrollable_content_region.height
        assert height > 0 and top <= row < top + height, (row, top, height)


async def test_the_editor_compiles_its_highlight_query_once(
    new_app: Callable[..., QuizApp], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Building an editor compiles tree-sitter's highlight query (some 25 ms, on the event loop); a
    language given to TextArea's constructor is set twice and compiled it twice."""
    compiled: list[str] = []
    prepare = SyntaxAwareDocument.prepare_query

    def counted(document: SyntaxAwareDocument, query: str) -> Any:
        compiled.append(query)
        return prepare(document, query)

    monkeypatch.setattr(SyntaxAwareDocument, "prepare_query", counted)
    app = new_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await drill(app, pilot, QID)
        editor = _editor(screen)
        assert editor.language == "python" and isinstance(editor.document, SyntaxAwareDocument)
        assert len(compiled) == 1
