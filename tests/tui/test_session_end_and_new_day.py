"""The end of a session, a new day and a moved clock, through real screens (issue 37, items 4 and 9): the
session end names the cards that come back and when, `w` waits for them and studies them when the first is
due, home counts again when the app's date turns, and QUIZAPP_TODAY moves the study queue."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from quizapp.content.catalog import Catalog
from quizapp.store import QuestionRef, open_store
from quizapp.study import make_scheduler, record_review
from quizapp.tui.app import QuizApp
from quizapp.tui.screens.home import HomeScreen
from tests.tui.helpers import NOW, SIZE, current, loaded, opened, press, question_ids, text_of, until


def _answered(db: Path, catalog: Catalog, qid: str, rating: int, when: datetime) -> None:
    """One study answer to `qid` at `when`, saved before the app opens."""
    with open_store(db, now=when) as store:
        record_review(
            store,
            QuestionRef(qid, catalog.deck_of(qid).id),
            seed=1,
            answer="x",
            correct=rating > 1,
            rating=rating,
            duration_ms=1000,
            now=when,
            mode="study",
            scheduler=make_scheduler(fuzzing=False),
        )


async def test_the_session_end_names_the_cards_that_come_back_and_w_studies_them_when_due(
    new_app: Callable[..., QuizApp], catalog: Catalog
) -> None:
    qid = question_ids(catalog, "flashcard")[0]
    moment = [NOW]
    app = new_app(now=lambda: moment[0])
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        app.start_session("study", question_ids=(qid,))
        screen = await opened(app, pilot)
        assert current(screen).question_id == qid
        await press(pilot, "space", "1")  # reveal, Again: its first learning step is a minute
        assert screen.phase == "done"
        done = text_of(app, "#session-done")
        assert "Session complete." in done
        assert "1 card comes back later today, at 09:31 (in 1 min)." in done
        assert "Press w to wait for it" in done
        await press(pilot, "w")
        assert "Waiting: 1 card comes back in 1:00 (at 09:31)" in text_of(app, "#session-done")
        moment[0] = NOW + timedelta(seconds=25)
        await until(pilot, lambda: "back in 0:35" in text_of(app, "#session-done"), "the countdown moves")
        assert screen.phase == "done"
        moment[0] = NOW + timedelta(minutes=1)
        await until(pilot, lambda: screen.phase == "question", "study goes on when the card is due")
        card = screen.session.current
        assert card is not None and card.instance.question_id == qid and card.reason == "due"
        assert not screen.query("#session-done")


async def test_with_nothing_left_today_the_session_end_says_when_the_next_card_is_due(
    new_app: Callable[..., QuizApp], catalog: Catalog
) -> None:
    qid = question_ids(catalog, "flashcard")[0]
    app = new_app()
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        app.start_session("study", question_ids=(qid,))
        await opened(app, pilot)
        await press(pilot, "space", "4")  # Easy: days away
        await until(pilot, lambda: "next card" in text_of(app, "#session-done"), "the next card named")
        done = text_of(app, "#session-done")
        assert "Nothing more is due today. The next card is due on " in done and " days)." in done
        assert "Press w" not in done
        await press(pilot, "w")
        assert "Waiting" not in text_of(app, "#session-done")


async def test_home_counts_again_when_the_apps_date_turns(
    new_app: Callable[..., QuizApp], catalog: Catalog, db_file: Path
) -> None:
    _answered(db_file, catalog, question_ids(catalog, "flashcard")[0], 3, NOW)
    moment = [NOW]
    app = new_app(now=lambda: moment[0])
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        await until(pilot, lambda: "1 answered today" in text_of(app, "#home-totals"), "today's counts")
        moment[0] = NOW.replace(hour=23, minute=59)
        await pilot.pause(0.1)
        assert "1 answered today" in text_of(app, "#home-totals")
        moment[0] = NOW + timedelta(days=1)  # past midnight, with home open
        await until(pilot, lambda: "0 answered today" in text_of(app, "#home-totals"), "the new day's counts")


@pytest.mark.parametrize(("today", "asked"), [("2030-01-01", False), ("2030-02-01", True)])
async def test_quizapp_today_moves_the_study_queue(
    today: str,
    asked: bool,
    new_app: Callable[..., QuizApp],
    catalog: Catalog,
    db_file: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    qid = question_ids(catalog, "flashcard")[0]
    _answered(db_file, catalog, qid, 4, datetime(2030, 1, 1, 12, tzinfo=UTC))  # due days later
    monkeypatch.setenv("QUIZAPP_TODAY", today)
    app = new_app(now=None)  # the system's clock, moved
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        app.start_session("study", question_ids=(qid,))
        if asked:
            card = (await opened(app, pilot)).session.current
            assert card is not None and card.instance.question_id == qid and card.reason == "due"
        else:
            said = "the empty session refused"
            await until(pilot, lambda: any("Nothing is due" in n.message for n in app._notifications), said)
            assert isinstance(app.screen, HomeScreen)
