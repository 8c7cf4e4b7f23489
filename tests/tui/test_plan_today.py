"""Home shows today's share of the interview plan (issue 37): how many questions from how many decks and
which comes first, and `s` asks exactly that one first."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from pathlib import Path

from quizapp.content.catalog import Catalog
from quizapp.reports.plan_text import queue_line
from quizapp.store import open_store, save_setting
from quizapp.study import QuestionSet
from quizapp.study.session import StudySession
from quizapp.tui.app import QuizApp
from quizapp.workspace import Workspace
from tests.tui.helpers import NOW, SIZE, current, loaded, opened, press, text_of


async def test_home_names_todays_queue_and_study_asks_its_first_question_first(
    new_app: Callable[..., QuizApp], db_file: Path, catalog: Catalog
) -> None:
    with open_store(db_file, now=NOW) as store:
        save_setting(store, "interview_date", (NOW + timedelta(days=4)).date().isoformat())
        save_setting(store, "daily_minutes", 60)
        ws = Workspace(store=store, preloaded=catalog)
        queue = StudySession.today_queue(
            catalog, store, QuestionSet.from_catalog(catalog), now=NOW, plan_questions=ws.plan_questions
        )
    deck_of = {q: d.id for d in catalog.deck_refs() for q in d.question_ids}
    app = new_app()
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        await app.workers.wait_for_complete()
        await pilot.pause()
        shown = " ".join(text_of(app, "#home-plan").split())
        assert " ".join(queue_line(queue, deck_of).split()) in shown
        await press(pilot, "s")
        screen = await opened(app, pilot)
        assert current(screen).question_id == queue[0]
