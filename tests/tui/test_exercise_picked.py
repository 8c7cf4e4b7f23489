"""An exercise picked in the coding-exercise picker is asked until it is solved, then ends: a wrong answer
asks it again (with fresh numbers), a right one ends the drill, and Enter goes back to the picker, where it
shows as solved."""

from __future__ import annotations

from collections.abc import Callable

from textual.widgets import OptionList, TextArea

from engine.exercises import EXERCISES
from engine.exercises.base import source_as
from quizapp.content.catalog import Catalog
from quizapp.tui.app import QuizApp
from quizapp.tui.screens.exercises import ExercisePickerScreen
from quizapp.tui.screens.home import HomeScreen
from quizapp.tui.screens.study import StudyScreen
from quizapp.tui.widgets.code_editor import CodeArea
from tests.tui.helpers import loaded, press, text_of, until

SIZE = (100, 40)


async def test_a_picked_exercise_is_retried_when_wrong_and_ends_back_in_the_picker_once_solved(
    new_app: Callable[..., QuizApp], catalog: Catalog
) -> None:
    code = [o.question_id for o in catalog.question_outlines() if o.deck_id == "code"]
    qid = next(q for q in code if q in EXERCISES and EXERCISES[q].mistakes)
    exercise = EXERCISES[qid]
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
        picker = app.screen
        options = picker.query_one("#exercises", OptionList)
        await until(pilot, lambda: options.option_count == len(code) + 1, "every exercise listed")
        options.highlighted = options.get_option_index(qid)
        await press(pilot, "enter")
        await until(pilot, lambda: isinstance(app.screen, StudyScreen), "the exercise")
        screen = app.screen
        assert isinstance(screen, StudyScreen)

        def editor() -> TextArea:
            return screen.query_one(CodeArea).query_one(TextArea)

        def still_on_it() -> bool:
            return app.screen is screen

        editor().load_text(source_as(exercise.mistakes[0].compute, exercise.function))
        await press(pilot, "ctrl+s")
        assert "Not quite" in text_of(app, "#verdict")
        await press(pilot, "enter")  # wrong: the same exercise again, to retry
        assert still_on_it() and not screen.session.finished
        assert screen.session.current is not None and screen.session.current.instance.question_id == qid

        editor().load_text(exercise.solution)
        await press(pilot, "ctrl+s")
        assert "Correct" in text_of(app, "#verdict")
        await press(pilot, "enter")  # solved: the drill ends instead of asking it a third time
        assert screen.session.finished and screen.session.current is None
        if still_on_it():  # the "session complete" summary: Enter goes back
            await press(pilot, "enter")
        await until(pilot, lambda: app.screen is picker, "back in the picker")

        def line() -> str:
            return str(options.get_option_at_index(options.get_option_index(qid)).prompt)

        await until(pilot, lambda: "solved" in line(), "the exercise marked solved")
