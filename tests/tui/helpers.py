"""Provides helpers for the TUI tests: pick questions of a kind, open a drill, read what the screen shows."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from textual.pilot import Pilot

from quizapp.content.catalog import Catalog
from quizapp.content.instance import Instance
from quizapp.content.units import to_display
from quizapp.grading.grade import grade
from quizapp.store import QuestionRef, open_store
from quizapp.study import make_scheduler, record_review
from quizapp.tui.app import QuizApp
from quizapp.tui.screens.study import StudyScreen

NOW = datetime(2025, 3, 3, 9, 30, tzinfo=UTC)
SEED = 7
SIZE = (100, 32)


def question_ids(
    catalog: Catalog, kind: str, accept: Callable[[Instance], bool] = lambda _: True
) -> list[str]:
    """Ids of questions of `kind` whose instance at SEED passes `accept`, in id order."""
    found = []
    for qid in sorted(catalog.questions):
        if catalog.questions[qid].type != kind:
            continue
        if accept(catalog.instance(qid, SEED)):
            found.append(qid)
    return found


async def loaded(app: QuizApp, pilot: Pilot[None]) -> None:
    """Waits until the catalog worker has handed over the backend. The worker starts after the first
    refresh, so it may not exist yet when this is first called: look again until it has run."""
    for _ in range(6000):  # the cap only bounds a hang on a busy machine
        await app.workers.wait_for_complete()
        await pilot.pause()
        if app.backend is not None:
            return
        await pilot.pause(0.01)
    raise AssertionError("the catalog worker never handed over the backend")


async def settled(pilot: Pilot[Any]) -> None:
    """Waits for the screen's workers (a save, the next card, Explore's forward pass, the study bar's
    recount) and the redraw their messages cause, until no new worker follows (a rating's save starts
    the worker that draws the next card)."""
    for _ in range(200):
        await pilot.pause()
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()
        if not any(worker.is_running for worker in pilot.app.workers):
            return
    raise AssertionError("the workers never settled")


async def until(pilot: Pilot[Any], ready: Callable[[], bool], what: str) -> None:
    """Waits (on a condition, not a fixed time) until `ready()`; the cap (a minute or more) only bounds a
    hang on a busy machine."""
    for _ in range(6000):
        await settled(pilot)
        if ready():
            return
        await pilot.pause(0.01)
    raise AssertionError(f"never happened: {what}")


async def press(pilot: Pilot[Any], *keys: str) -> None:
    """Presses keys one by one, each after the writes the one before started (answers are graded and saved
    in a worker) have finished and been drawn, as they would be at a person's typing speed."""
    for key in keys:
        await pilot.press(key)
        await settled(pilot)


async def drill(app: QuizApp, pilot: Pilot[None], qid: str) -> StudyScreen:
    """Opens a drill of one question and returns the study screen showing it."""
    await loaded(app, pilot)
    app.start_session("drill", question_ids=(qid,))
    return await opened(app, pilot)


async def opened(app: QuizApp, pilot: Pilot[None]) -> StudyScreen:
    """Waits until the session a key or a call asked for was started (in a worker) and its screen shows."""
    for _ in range(500):
        await settled(pilot)
        if isinstance(app.screen, StudyScreen):
            await pilot.pause()
            return app.screen
        await pilot.pause(0.01)
    raise AssertionError(f"no study screen opened; the screen is {app.screen!r}")


def current(screen: StudyScreen) -> Instance:
    card = screen.session.current
    assert card is not None
    return card.instance


def text_of(app: QuizApp, selector: str) -> str:
    """The plain text a Static shows (for asserting what the user reads)."""
    widget = app.screen.query_one(selector)
    return str(widget.render())


def with_misconception(inst: Instance) -> bool:
    return bool(inst.derivation and any(m.value != inst.expected for m in inst.derivation.misconceptions))


def seed_history(db: Path, catalog: Catalog) -> tuple[str, str]:
    """Three days of answers, the wrong ones graded by the real grader; returns (question, diagnosis id)."""
    qid = question_ids(catalog, "numeric", with_misconception)[0]
    deck = catalog.deck_of(qid).id
    scheduler = make_scheduler(fuzzing=False)
    diagnosis_id = ""
    with open_store(db, now=NOW) as store:
        for days_ago, seed in ((2, 11), (1, 12), (0, 13)):
            inst = catalog.instance(qid, seed)
            assert inst.derivation is not None
            wrong = next(m for m in inst.derivation.misconceptions if m.value != inst.expected)
            assert isinstance(wrong.value, (int, float))
            answer = repr(to_display(wrong.value, inst.unit))
            verdict = grade(inst, answer)
            assert verdict.diagnosis_id is not None
            diagnosis_id = verdict.diagnosis_id
            record_review(
                store,
                QuestionRef(qid, deck),
                seed=seed,
                answer=answer,
                correct=False,
                rating=1,
                duration_ms=30_000,
                now=NOW - timedelta(days=days_ago),
                mode="study",
                diagnosis=verdict.diagnosis,
                diagnosis_id=verdict.diagnosis_id,
                scheduler=scheduler,
            )
    return qid, diagnosis_id
