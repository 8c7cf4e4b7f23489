"""One rule for keys on every kind of question (issue 26): after the answer or the reveal, 1-4 saves that
rating and moves on; Enter (or Space) accepts the suggested rating and moves on; Ctrl+Z takes it back;
Ctrl+O shows the answer, saves Again and waits; a choice question takes Enter only once an option was
picked. Each rule is tried on a question of each kind from the bundled bank, and every rating is read
back from the progress database through a connection of the test's own."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from textual.pilot import Pilot
from textual.widgets import Input, OptionList, TextArea

from engine.exercises import EXERCISES
from quizapp.content.catalog import Catalog
from quizapp.content.instance import Instance
from quizapp.grading.grade import grade
from quizapp.store import ReviewRecord, open_store, reviews_for
from quizapp.tui.app import QuizApp
from quizapp.tui.screens.study import StudyScreen
from quizapp.tui.widgets.code_editor import CodeArea
from quizapp.tui.widgets.feedback import FeedbackPanel
from quizapp.tui.widgets.scenario import ScenarioInput
from tests.tui.helpers import NOW, SIZE, current, drill, loaded, press, question_ids, settled

KINDS = ("numeric", "tensor", "shape", "choice", "multiple", "flashcard", "explain", "code", "scenario")


def _ids(catalog: Catalog, kind: str) -> tuple[str, str]:
    """Two questions of `kind` ("multiple": a select-all choice question), so a card can move on."""
    found = []
    for qid in sorted(catalog.questions):
        q = catalog.questions[qid]
        want = "choice" if kind == "multiple" else kind
        if q.type != want:
            continue
        if want == "choice" and bool(catalog.instance(qid, 1).multiple) != (kind == "multiple"):
            continue
        found.append(qid)
        if len(found) == 2:
            return found[0], found[1]
    raise AssertionError(f"the bank has fewer than two {kind} questions")


def _saved(db: Path, qid: str) -> tuple[ReviewRecord, ...]:
    """The answers saved for `qid`, read through the test's own connection."""
    with open_store(db, now=NOW) as store:
        return reviews_for(store, qid)


async def _study(app: QuizApp, pilot: Pilot[None], ids: tuple[str, str]) -> StudyScreen:
    await loaded(app, pilot)
    app.start_session("study", question_ids=ids)
    for _ in range(3000):  # the cap only bounds a hang on a busy machine
        await settled(pilot)
        if isinstance(app.screen, StudyScreen) and app.screen.session.current is not None:
            return app.screen
        await pilot.pause(0.01)
    raise AssertionError("the study screen never opened")


async def _answer(screen: StudyScreen, pilot: Pilot[None], kind: str, catalog: Catalog) -> None:
    """Answers the question on screen as a learner would (right where the engine knows the answer), up
    to its feedback, or, for a flashcard, its revealed back."""
    inst = current(screen)
    if kind in ("numeric", "tensor", "shape"):
        screen.query_one("#answer", Input).value = inst.expected_text()
        await press(pilot, "enter")
    elif kind == "choice":
        await press(pilot, next(o.key for o in inst.options if o.correct), "enter")
    elif kind == "multiple":
        await press(pilot, *(o.key for o in inst.options if o.correct), "enter")
    elif kind == "flashcard":
        await press(pilot, "space")
    elif kind == "explain":
        screen.query_one("#explain-text", TextArea).text = inst.key_points[0]
        await press(pilot, "ctrl+s", "space", "enter")  # submit, tick the first key point, save
    elif kind == "code":
        exercise = str(getattr(catalog.questions[inst.question_id], "exercise", ""))
        screen.query_one(CodeArea).load(EXERCISES[exercise].solution)
        await press(pilot, "ctrl+s")
    elif kind == "scenario":
        box = screen.query_one(ScenarioInput).query_one("#scenario-input", Input)
        parts = [*inst.steps, *([inst.follow_up] if inst.follow_up is not None else [])]
        for part in parts:  # each step's number, then the part in words: its own model answer
            box.value = " ".join(part.expected_text().split())
            await press(pilot, "enter")
    else:
        raise AssertionError(kind)
    await settled(pilot)
    if kind == "flashcard":
        assert screen.revealed and not screen.session.answered
    else:
        assert screen.session.answered, f"the {kind} answer was not saved"
        assert screen.query_one(FeedbackPanel).display


def _moved_on(screen: StudyScreen, first: str) -> bool:
    card = screen.session.current
    return (
        card is not None
        and card.instance.question_id != first
        and not screen.session.answered
        and not screen.query_one(FeedbackPanel).display
    )


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("rating", [1, 2, 4])
async def test_a_number_key_after_the_answer_saves_that_rating_and_moves_on(
    new_app: Callable[..., QuizApp], catalog: Catalog, db_file: Path, kind: str, rating: int
) -> None:
    app = new_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await _study(app, pilot, _ids(catalog, kind))
        first = current(screen).question_id
        await _answer(screen, pilot, kind, catalog)
        await press(pilot, str(rating))
        assert [r.rating for r in _saved(db_file, first)] == [rating]
        assert _moved_on(screen, first)


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("key", ["enter", "space"])
async def test_enter_or_space_after_the_answer_accepts_the_suggested_rating_and_moves_on(
    new_app: Callable[..., QuizApp], catalog: Catalog, db_file: Path, kind: str, key: str
) -> None:
    app = new_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await _study(app, pilot, _ids(catalog, kind))
        first = current(screen).question_id
        await _answer(screen, pilot, kind, catalog)
        suggested = [r.rating for r in _saved(db_file, first)]
        await press(pilot, key)
        if kind == "flashcard":  # self-rated: the suggestion after the reveal is Good, as in Anki
            assert [r.rating for r in _saved(db_file, first)] == [3]
        else:
            assert len(suggested) == 1 and [r.rating for r in _saved(db_file, first)] == suggested
        assert _moved_on(screen, first)


@pytest.mark.parametrize("kind", KINDS)
async def test_ctrl_z_after_moving_on_takes_the_answer_back(
    new_app: Callable[..., QuizApp], catalog: Catalog, db_file: Path, kind: str
) -> None:
    app = new_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await _study(app, pilot, _ids(catalog, kind))
        first = current(screen).question_id
        await _answer(screen, pilot, kind, catalog)
        written = screen.pane.answer_text()
        chosen = screen.query_one("#answer", OptionList).highlighted if kind == "choice" else None
        await press(pilot, "3")
        assert _moved_on(screen, first)
        await press(pilot, "ctrl+z")
        assert not _saved(db_file, first)
        assert current(screen).question_id == first and not screen.session.answered
        # the answer comes back with the question, to fix rather than retype (a case study's steps are
        # answered afresh; a flashcard has nothing written)
        assert screen.pane.answer_text() == written
        if kind == "choice":
            assert screen.query_one("#answer", OptionList).highlighted == chosen
        if kind in ("numeric", "tensor", "shape", "explain"):
            assert written and not screen.answer_empty
            await press(pilot, "backspace")  # the cursor waits after it: a key edits it, not replaces it
            assert screen.pane.answer_text() == written[:-1]


def _shown_answer(inst: Instance, catalog: Catalog) -> str:
    """A piece of the answer Ctrl+O must show, computed by the engine or read from the deck."""
    if inst.kind == "flashcard":
        return str(inst.expected).strip().splitlines()[0][:40]
    if inst.kind == "explain":
        return inst.key_points[-1][:40]
    if inst.kind == "code":
        return "model solution is below"  # the model solution itself is the panel's #explanation
    if inst.kind == "choice":
        return next(o.text for o in inst.options if o.correct)[:40]
    return inst.expected_text()[:40]


@pytest.mark.parametrize("kind", KINDS)
async def test_ctrl_o_shows_the_answer_saves_again_and_waits(
    new_app: Callable[..., QuizApp], catalog: Catalog, db_file: Path, kind: str
) -> None:
    app = new_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await _study(app, pilot, _ids(catalog, kind))
        inst = current(screen)
        await press(pilot, "ctrl+o")
        assert [r.rating for r in _saved(db_file, inst.question_id)] == [1]
        panel = screen.query_one(FeedbackPanel)
        assert panel.display and screen.session.answered
        assert current(screen).question_id == inst.question_id  # it waits for the learner
        shown = " ".join(str(w.render()) for w in panel.query("Static") if w.display)
        shown = " ".join(shown.split())
        expected = " ".join(_shown_answer(inst, catalog).split())
        assert expected.lower() in shown.lower(), f"{expected!r} not in the feedback"
        if inst.kind == "code":
            assert panel.query_one("#explanation").display
        assert panel.region.y < screen.size.height, "the answer is not on screen"
        await press(pilot, "enter")
        assert _moved_on(screen, inst.question_id)
        assert [r.rating for r in _saved(db_file, inst.question_id)] == [1]


async def test_enter_on_a_fresh_choice_question_does_not_answer_it(
    new_app: Callable[..., QuizApp], catalog: Catalog, db_file: Path
) -> None:
    app = new_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await _study(app, pilot, _ids(catalog, "choice"))
        inst = current(screen)
        await press(pilot, "enter")
        assert not screen.session.answered and not _saved(db_file, inst.question_id)
        assert any("Pick an option" in str(n.message) for n in app._notifications)
        await press(pilot, "down", "enter")  # moving the cursor is a pick: the second option is the answer
        assert screen.session.answered
        assert [r.answer for r in _saved(db_file, inst.question_id)] == [inst.options[1].key]


async def test_a_habitual_enter_after_feedback_does_not_answer_the_next_choice_question(
    new_app: Callable[..., QuizApp], catalog: Catalog, db_file: Path
) -> None:
    first, second = _ids(catalog, "choice")
    app = new_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await _study(app, pilot, (first, second))
        shown = current(screen).question_id
        await _answer(screen, pilot, "choice", catalog)
        await press(pilot, "enter", "enter")  # accept and go on, then Enter once more out of habit
        other = second if shown == first else first
        assert current(screen).question_id == other and not screen.session.answered
        assert not _saved(db_file, other)
        await press(pilot, "2", "enter")  # its number picks the second option
        assert [r.answer for r in _saved(db_file, other)] == [current(screen).options[1].key]


def test_every_kind_answers_right_through_the_grader(catalog: Catalog) -> None:
    """The typed answers the rule tests give are right by the real grader (so 'suggested' is real)."""
    for kind in ("numeric", "tensor", "shape"):
        qid = _ids(catalog, kind)[0]
        inst = catalog.instance(qid, 1)
        assert grade(inst, inst.expected_text()).correct, qid


async def test_scroll_keys_on_a_card_that_fits_do_nothing_rather_than_report_an_error(
    new_app: Callable[..., QuizApp], catalog: Catalog
) -> None:
    """Down or PageDown on a short card: nothing to scroll, so nothing happens (it used to show an
    "Internal error: SkipAction()" notice; the autouse fixture fails a test on any such report)."""
    short = min(question_ids(catalog, "numeric"), key=lambda q: len(catalog.question(q).prompt))
    app = new_app()
    async with app.run_test(size=(120, 60)) as pilot:
        screen = await drill(app, pilot, short)
        assert screen.body.max_scroll_y == 0  # it fits
        await press(pilot, "down", "pagedown", "end", "up", "pageup", "home")
        assert screen.body.scroll_y == 0 and app.screen is screen
