"""Focus moves without restyling a whole page: Textual restyles a widget and everything under it when it
gains or loses focus, and a scrolling body that took focus (a flashcard, a form's first frame) cost every
widget of the card or form its styles again, twice: some 8 ms a flashcard, 35 ms opening the mock
interview's set-up at 100x32. The screens' own keys scroll the body instead, and focus goes straight to
the field that types."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager

from textual.dom import DOMNode
from textual.widgets import Input

from quizapp.content.catalog import Catalog
from quizapp.tui.app import QuizApp
from quizapp.tui.screens.interview_setup import InterviewSetupScreen
from quizapp.tui.widgets.study_body import StudyBody
from tests.tui.helpers import SIZE, current, loaded, opened, press, question_ids


@contextmanager
def restyled(app: QuizApp) -> Iterator[list[DOMNode]]:
    """Every node whose styles (and its descendants') the app updated inside the block, in order."""
    roots: list[DOMNode] = []
    update = app.update_styles

    def observed(node: DOMNode, animate: bool = True) -> None:
        roots.append(node)
        update(node, animate=animate)

    app.update_styles = observed  # type: ignore[method-assign]
    try:
        yield roots
    finally:
        del app.update_styles


async def test_a_flashcard_and_the_card_after_it_never_restyle_the_body(
    new_app: Callable[..., QuizApp], catalog: Catalog
) -> None:
    flashcards = question_ids(catalog, "flashcard")[:1]
    typed = question_ids(catalog, "numeric")[:1]
    app = new_app()
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        app.start_session("drill", question_ids=(*flashcards, *typed))
        screen = await opened(app, pilot)
        while current(screen).kind != "flashcard":  # the drill's order is its own
            screen.query_one("#answer", Input).value = current(screen).expected_text()
            await press(pilot, "enter", "enter")
        with restyled(app) as roots:
            await press(pilot, "space")  # the back and its ratings
            assert screen.revealed and app.focused is None
            body = screen.query_one(StudyBody)
            scrolled = body.scroll_y
            await press(pilot, "end")  # the screen's keys scroll the body
            assert body.scroll_y >= scrolled
            await press(pilot, "3")  # rated: the typed card follows, its input focused
            assert current(screen).kind == "numeric"
            assert app.focused is screen.query_one("#answer", Input)
        assert not [node for node in roots if isinstance(node, StudyBody)], roots


async def test_the_interview_set_up_opens_with_its_first_field_focused_and_no_form_restyled(
    new_app: Callable[..., QuizApp],
) -> None:
    app = new_app()
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        with restyled(app) as roots:
            await press(pilot, "i")
            setup = app.screen
            assert isinstance(setup, InterviewSetupScreen)
            assert app.focused is setup.query_one("#setup-questions", Input)
        body = setup.query_one("#setup-body")
        assert body not in roots, [type(node).__name__ for node in roots]
