"""Flashcards (Space reveals, 1-4 rate with each rating's next interval) and explain questions (read point
by point, the ticks starting from the reading, the learner's changes saved as disagreements)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from pathlib import Path

from textual.pilot import Pilot
from textual.widgets import Button, SelectionList, Static, TextArea

from quizapp.content.catalog import Catalog
from quizapp.content.instance import Instance
from quizapp.grading.explain_grade import grade_explain, read_answer
from quizapp.grading.explain_reading import core_unfound, points_code
from quizapp.grading.rating import RATING_NAMES
from quizapp.store import open_store, reviews_for
from quizapp.store.settings import save_setting
from quizapp.study import make_scheduler, preview_intervals
from quizapp.study.scheduler import interview_deadline
from quizapp.study.views import EASY_HELD
from quizapp.tui.app import QuizApp
from quizapp.tui.screens.study import StudyScreen
from quizapp.tui.widgets.key_points import KeyPointList
from tests.tui.helpers import NOW, SEED, SIZE, current, drill, loaded, press, question_ids, text_of


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
        assert "Space to reveal" in text_of(app, "#answer-hint")
        await press(pilot, "space")
        await pilot.pause()
        assert text_of(app, "#answer-hint") == ""  # the back is shown: that reminder no longer applies
        instructions = " ".join(str(s.render()) for s in screen.query(".instructions").results(Static))
        assert "Press 1-4" in instructions and EASY_HELD not in instructions  # no interview date
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

        await press(pilot, "ctrl+z")  # the rating and the move on were one step: one undo takes both back
        assert reviews_for(app.backend.store, qid) == ()  # type: ignore[union-attr]
        assert not screen.query("#session-done")
        assert current(screen).question_id == qid


async def test_an_explain_answer_shows_the_model_answer_and_rates_the_ticked_key_points(
    new_app: Callable[..., QuizApp], catalog: Catalog
) -> None:
    qid = question_ids(catalog, "explain")[0]
    app = new_app()
    text = "Each head attends in its own subspace."
    async with app.run_test(size=SIZE) as pilot:
        screen, inst = await _explained(app, pilot, qid, text)
        points = screen.query_one("#key-points", SelectionList)
        assert points.has_focus and points.option_count == len(inst.key_points)
        read = read_answer(inst, text).covered()
        assert set(points.selected) == read  # the ticks start from the reading
        await press(pilot, "space")  # the learner has the last word: the first point changes
        ticked = read ^ {0}
        await press(pilot, "enter")
        await pilot.pause()
        assert f"{len(ticked)}/{len(inst.key_points)} key points" in text_of(app, "#verdict")
        saved = reviews_for(app.backend.store, qid)  # type: ignore[union-attr]
        assert [r.answer for r in saved] == [text]
        assert saved[0].rating == grade_explain(inst, text, ticked, seconds=0.0, new_card=True).rating


async def test_a_ticked_key_point_reads_differently_from_an_unticked_one_without_colour(
    new_app: Callable[..., QuizApp], catalog: Catalog
) -> None:
    qid = question_ids(catalog, "explain")[0]
    app = new_app()
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await drill(app, pilot, qid)
        screen.query_one("#explain-text", TextArea).text = "Each head attends in its own subspace."
        await press(pilot, "ctrl+s")
        points = screen.query_one("#key-points", KeyPointList)
        assert len(current(screen).key_points) >= 3

        def box(line: int) -> str:
            """The characters before the point's number, as drawn (the text alone, no colour)."""
            text = points.render_line(line).text
            return text[: text.index(f"{line + 1}. ")]

        points.deselect_all()  # whatever the reading ticked, from none
        await press(pilot, "space", "down", "down", "space")  # tick the first and third points
        assert points.selected == [0, 2]
        ticked, unticked = box(0), box(1)
        assert ticked.strip() and ticked != unticked, "a ticked box looks like an unticked one"
        assert box(2) == ticked  # the highlight does not change what the box says
        await press(pilot, "up")
        assert box(1) == unticked and box(2) == ticked
        await press(pilot, "up", "space")  # untick the first again
        assert points.selected == [2] and box(0) == unticked


async def test_ctrl_z_gives_an_explanation_back_with_the_text_written(
    new_app: Callable[..., QuizApp], catalog: Catalog
) -> None:
    qid = question_ids(catalog, "explain")[0]
    app = new_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await drill(app, pilot, qid)
        area = screen.query_one("#explain-text", TextArea)
        first, second = "Each head attends in its own subspace.", "Heads split d_model into h parts."
        area.text = first
        await press(pilot, "ctrl+s", "space", "enter")  # submit, tick a point, save
        assert [r.answer for r in reviews_for(app.backend.store, qid)] == [first]  # type: ignore[union-attr]
        await press(pilot, "enter")  # the next card (the same question, other numbers)
        area = screen.query_one("#explain-text", TextArea)
        assert area.text == "" and area.has_focus
        area.text = second
        await press(pilot, "ctrl+s")  # its key points wait to be ticked...
        await press(pilot, "ctrl+z")  # ...when Ctrl+Z takes the first answer back
        assert not reviews_for(app.backend.store, qid)  # type: ignore[union-attr]
        area = screen.query_one("#explain-text", TextArea)
        assert area.text == first and area.has_focus and not area.disabled  # to fix, not to retype
        await press(pilot, "end", "!")
        assert area.text == first + "!"
        await press(pilot, "ctrl+s", "enter")  # saved again, as fixed
        saved = reviews_for(app.backend.store, qid)  # type: ignore[union-attr]
        assert [r.answer for r in saved] == [first + "!"]
        await press(pilot, "enter")  # the question set aside by the undo comes back as it was left
        assert screen.query_one("#explain-text", TextArea).text == second


async def test_with_an_interview_ahead_a_new_flashcard_says_why_easy_comes_back_as_good(
    new_app: Callable[..., QuizApp], catalog: Catalog, db_file: Path
) -> None:
    """Before an interview Easy keeps the learning steps (issue 26's rule), so Good and Easy show the same
    interval: the card says why, rather than look like Easy does nothing."""
    qid = question_ids(catalog, "flashcard")[0]
    with open_store(db_file, now=NOW) as store:
        save_setting(store, "interview_date", (NOW + timedelta(days=5)).date().isoformat())
    deadline = interview_deadline((NOW + timedelta(days=5)).date().isoformat(), NOW)
    intervals = [
        p.label for p in preview_intervals(None, make_scheduler(fuzzing=False), now=NOW, deadline=deadline)
    ]
    assert intervals[2] == intervals[3]  # Good and Easy: the same learning step
    app = new_app()
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        app.start_session("study", question_ids=(qid,))
        await pilot.pause()
        await press(pilot, "space")
        await pilot.pause()
        screen = app.screen
        labels = [str(b.label) for b in screen.query(Button) if (b.id or "").startswith("rate-")]
        assert labels[2].endswith(intervals[2]) and labels[3].endswith(intervals[3])
        instructions = " ".join(str(s.render()) for s in screen.query(".instructions").results(Static))
        assert EASY_HELD in instructions


async def _explained(app: QuizApp, pilot: Pilot[None], qid: str, text: str) -> tuple[StudyScreen, Instance]:
    """Drills `qid`, types `text` as its explanation and submits it: the reading waits to be saved."""
    screen = await drill(app, pilot, qid)
    screen.query_one("#explain-text", TextArea).text = text
    await press(pilot, "ctrl+s")
    await pilot.pause()
    return screen, current(screen)


def _readable(inst: Instance) -> bool:
    """The question's key points carry accepted forms: the app reads the answer itself."""
    return bool(inst.point_specs) and all(p.accept for p in inst.point_specs)


async def test_at_80x24_an_explanation_comes_back_read_point_by_point_with_its_evidence(
    new_app: Callable[..., QuizApp], catalog: Catalog
) -> None:
    qid = question_ids(catalog, "explain", _readable)[0]
    app = new_app()
    async with app.run_test(size=(80, 24)) as pilot:
        text = catalog.instance(qid, SEED).expected_text()  # the question's own model answer, typed
        screen, inst = await _explained(app, pilot, qid, text)
        reading = read_answer(inst, text)
        first = reading.points[0]
        assert first.status == "covered" and first.evidence is not None
        points = screen.query_one("#key-points", KeyPointList)
        assert set(points.selected) == set(range(len(inst.key_points)))  # every point read as covered
        assert points.render_line(0).text.lstrip("[x] ").startswith("✓ 1.")
        full = screen.query_one("#key-point-full", Static)
        shown = str(full.render())
        assert "✓ covered" in shown and first.evidence.text in shown
        # the statuses and the first point's evidence are on the screen, not below it
        assert points.region.y >= 0 and full.region.height > 0 and full.region.bottom <= 24
        assert "Good" in text_of(app, "#explain-rating")
        await press(pilot, "enter")
        await pilot.pause()
        (saved,) = reviews_for(app.backend.store, qid)  # type: ignore[union-attr]
        assert saved.rating == 3 and saved.points == "C" * len(inst.key_points)


async def test_a_tick_the_reader_did_not_give_is_saved_as_a_disagreement(
    new_app: Callable[..., QuizApp], catalog: Catalog
) -> None:
    qid = question_ids(catalog, "explain", _readable)[0]
    app = new_app()
    text = "I would have to think about that one."
    async with app.run_test(size=SIZE) as pilot:
        screen, inst = await _explained(app, pilot, qid, text)
        reading = read_answer(inst, text)
        assert not reading.covered() and reading.rating == 1  # nothing relevant said: Again
        assert screen.query_one("#key-points", KeyPointList).selected == []
        await press(pilot, "space", "enter")  # the learner claims the first point anyway
        await pilot.pause()
        (saved,) = reviews_for(app.backend.store, qid)  # type: ignore[union-attr]
        assert saved.points == points_code(reading, frozenset({0}))
        assert saved.points is not None and saved.points[0] == "M" and saved.points[1:].islower()


def _side_point_alone(catalog: Catalog) -> tuple[str, str]:
    """A question and an answer that states one side point (its own text) and not the core: what a
    paraphrase of the core the reader misses looks like to the rating."""
    for qid in question_ids(catalog, "explain", _readable):
        inst = catalog.instance(qid, SEED)
        for p in inst.point_specs:
            reading = read_answer(inst, p.text)
            if not p.core and core_unfound(reading.points, reading.covered(), reading.misconceptions):
                return qid, p.text
    raise AssertionError("no side point of the bank reads as stated on its own")


async def test_when_only_the_core_point_was_not_found_the_rating_line_names_the_tick_that_changes_it(
    new_app: Callable[..., QuizApp], catalog: Catalog
) -> None:
    qid, text = _side_point_alone(catalog)
    app = new_app()
    async with app.run_test(size=(80, 24)) as pilot:
        _, inst = await _explained(app, pilot, qid, text)
        reading = read_answer(inst, text)
        hint = core_unfound(reading.points, reading.covered(), reading.misconceptions)
        assert hint is not None and reading.rating == 1
        line = text_of(app, "#explain-rating")
        assert "Again" in line and f"Said point {hint.number} in other words? Tick it: " in line
        assert line.rstrip().endswith(RATING_NAMES[hint.rating])
        await press(pilot, *["down"] * (hint.number - 1), "space")  # the learner ticks the core point
        line = text_of(app, "#explain-rating")
        assert "Said point" not in line and RATING_NAMES[hint.rating] in line and "Again" not in line
        assert "(with your ticks)" in line
