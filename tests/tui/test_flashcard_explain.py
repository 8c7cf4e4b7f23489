"""Flashcards (Space reveals, 1-4 rate with each rating's next interval) and explain questions (model
answer, key points ticked, rating from the fraction covered)."""

from __future__ import annotations

from collections.abc import Callable

from textual.widgets import Button, SelectionList, TextArea

from quizapp.content.catalog import Catalog
from quizapp.store import reviews_for
from quizapp.study import make_scheduler, preview_intervals
from quizapp.tui.app import QuizApp
from quizapp.tui.screens.study import StudyScreen
from tests.tui.helpers import NOW, SIZE, current, drill, loaded, press, question_ids, text_of


async def test_a_flashcard_is_revealed_then_rated_with_its_next_interval(
    new_app: Callable[..., QuizApp], catalog: Catalog
) -> None:
    qid = question_ids(catalog, "flashcard")[0]
    app = new_app()
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        app.start_session("study", question_ids=(qid,))
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, StudyScreen)
        assert not screen.query("#flashcard")
        await press(pilot, "space")
        await pilot.pause()
        labels = [str(b.label) for b in screen.query(Button) if (b.id or "").startswith("rate-")]
        intervals = [p.label for p in preview_intervals(None, make_scheduler(fuzzing=False), now=NOW)]
        assert labels == [
            f"{n} {name} · {interval}"
            for n, name, interval in zip(
                (1, 2, 3, 4), ("Again", "Hard", "Good", "Easy"), intervals, strict=True
            )
        ]
        await press(pilot, "3")
        await pilot.pause()
        saved = reviews_for(app.backend.store, qid)  # type: ignore[union-attr]
        assert [(r.rating, r.mode, r.scheduled) for r in saved] == [(3, "study", True)]
        assert screen.query("#session-done")  # the only card is now scheduled for later


async def test_an_explain_answer_shows_the_model_answer_and_rates_the_ticked_key_points(
    new_app: Callable[..., QuizApp], catalog: Catalog
) -> None:
    qid = question_ids(catalog, "explain")[0]
    app = new_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await drill(app, pilot, qid)
        inst = current(screen)
        screen.query_one("#explain-text", TextArea).text = "Each head attends in its own subspace."
        await press(pilot, "ctrl+s")
        await pilot.pause()
        points = screen.query_one("#key-points", SelectionList)
        assert points.has_focus and points.option_count == len(inst.key_points)
        await press(pilot, "space")  # tick the first key point
        await press(pilot, "enter")
        await pilot.pause()
        assert f"1/{len(inst.key_points)} key points" in text_of(app, "#verdict")
        saved = reviews_for(app.backend.store, qid)  # type: ignore[union-attr]
        assert [r.answer for r in saved] == ["Each head attends in its own subspace."]
        assert saved[0].rating == 1  # one point of three or more is under half: Again
