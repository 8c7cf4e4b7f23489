"""Try, then submit, on real screens (issue 37): Ctrl+R tries the code on practice cases and shows what
fails, never the solution, never a rating or a saved review; Ctrl+S submits it, graded and rated; code that
does not parse or stops on a NameError is never counted as a submission, in study and in the interview."""

from __future__ import annotations

from collections.abc import Callable

from textual.widgets import SelectionList

from engine.exercises import EXERCISES
from engine.exercises.base import source_as
from quizapp.store import list_interviews, load_interview, reviews_for
from quizapp.tui.app import QuizApp
from quizapp.tui.screens.interview import InterviewScreen
from quizapp.tui.screens.interview_report import InterviewReportScreen
from quizapp.tui.screens.interview_setup import InterviewSetupScreen
from quizapp.tui.widgets.code_editor import CodeArea
from quizapp.tui.widgets.feedback import FeedbackPanel
from quizapp.tui.widgets.footer import FooterKey
from tests.tui.helpers import drill, loaded, press, text_of, until

SIZE = (80, 24)
QID = "code-softmax"
BROKEN = "import numpy as np\n\ndef softmax(x):\nreturn x\n"


def _typo(source: str) -> str:
    """A misspelt name inside the function: a NameError on every case."""
    return source.replace("np.exp(", "np.exp(zz + 0 * ", 1)


def _saved(app: QuizApp, qid: str) -> int:
    assert app.backend is not None
    return len(reviews_for(app.backend.store, qid))


async def test_a_typo_tried_then_the_fix_submitted_is_rated_good_and_saved_once(
    new_app: Callable[..., QuizApp],
) -> None:
    ex = EXERCISES[QID]
    app = new_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await drill(app, pilot, QID)
        code = screen.query_one(CodeArea)
        code.load(_typo(ex.solution))
        await press(pilot, "ctrl+r")
        said = text_of(app, "#code-error")
        assert "NameError: name 'zz' is not defined" in said and "line " in said
        assert not screen.session.answered and _saved(app, QID) == 0
        assert not screen.query_one(FeedbackPanel).display

        code.load(ex.solution)
        await press(pilot, "ctrl+s")
        assert screen.session.answered and "Correct" in text_of(app, "#verdict")
        assert app.backend is not None
        saved = reviews_for(app.backend.store, QID)
        assert len(saved) == 1 and saved[0].rating == 3 and saved[0].correct


async def test_a_try_never_shows_the_solution_nor_rates(new_app: Callable[..., QuizApp]) -> None:
    ex = EXERCISES[QID]
    wrong = next(m for m in ex.mistakes if m.id == "wrong-axis")
    app = new_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await drill(app, pilot, QID)
        code = screen.query_one(CodeArea)
        for source in (source_as(wrong.compute, ex.function), ex.solution):  # wrong, then right
            code.load(source)
            await press(pilot, "ctrl+r")
            said = text_of(app, "#code-error")
            assert "Nothing is rated or saved" in said
            assert not screen.session.answered and _saved(app, QID) == 0
            assert not screen.query_one(FeedbackPanel).display  # where the model solution would show
            assert screen.query_one(CodeArea).text == source
            await pilot.pause()
            keys = {key.key for key in screen.query(FooterKey) if key.display}
            assert {"ctrl+r", "ctrl+s"} <= keys, keys  # the key bar still offers both after a try
        assert "All 6 practice cases pass" in said


async def test_a_syntax_error_submitted_saves_nothing(new_app: Callable[..., QuizApp]) -> None:
    app = new_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await drill(app, pilot, QID)
        screen.query_one(CodeArea).load(BROKEN)
        await press(pilot, "ctrl+s")
        said = text_of(app, "#code-error")
        assert "line 4" in said and "does not count" in said
        assert not screen.session.answered and _saved(app, QID) == 0
        assert not screen.query_one(FeedbackPanel).display


async def _code_interview(app: QuizApp, pilot: object) -> InterviewScreen:
    """A one-question interview on the coding deck."""
    await loaded(app, pilot)  # type: ignore[arg-type]
    await press(pilot, "i")  # type: ignore[arg-type]
    setup = app.screen
    assert isinstance(setup, InterviewSetupScreen)
    setup.query_one("#setup-questions").value = "1"  # type: ignore[attr-defined]
    setup.query_one("#setup-minutes").value = "30"  # type: ignore[attr-defined]
    setup.query_one("#setup-decks", SelectionList).select("code")
    await press(pilot, "ctrl+s")  # type: ignore[arg-type]
    await until(pilot, lambda: isinstance(app.screen, InterviewScreen), "the interview opened")  # type: ignore[arg-type]
    screen = app.screen
    assert isinstance(screen, InterviewScreen)
    return screen


async def test_the_interview_tries_without_saving_and_refuses_a_typo_as_an_answer(
    new_app: Callable[..., QuizApp],
) -> None:
    app = new_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await _code_interview(app, pilot)
        asked = screen.session.current
        assert asked is not None and asked.instance.kind == "code"
        qid = asked.instance.question_id
        ex = EXERCISES[asked.instance.exercise]
        code = screen.query_one(CodeArea)

        code.load(_typo(ex.solution))
        await press(pilot, "ctrl+r")  # a try: what fails, nothing saved, the same question
        said = text_of(app, "#code-error")
        assert "NameError" in said and "Nothing is rated" in said
        await press(pilot, "ctrl+s")  # the typo submitted: refused, not counted
        assert "does not count" in text_of(app, "#code-error")
        code.load(BROKEN.replace("softmax", ex.function))
        await press(pilot, "ctrl+s")  # a syntax error submitted: refused too
        assert "does not count" in text_of(app, "#code-error")
        assert screen.session.current == asked and screen.session.answered == 0
        assert _saved(app, qid) == 0

        code.load(ex.solution)
        await press(pilot, "ctrl+s")
        await until(pilot, lambda: isinstance(app.screen, InterviewReportScreen), "the report")
        saved = reviews_for(app.backend.store, qid)  # type: ignore[union-attr]
        assert len(saved) == 1 and saved[0].correct
        interviews = list_interviews(app.backend.store)  # type: ignore[union-attr]
        answers = load_interview(app.backend.store, interviews[0].id).answers  # type: ignore[union-attr]
        assert [a.correct for a in answers] == [True]
