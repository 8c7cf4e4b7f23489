"""The stats screen lists the key points of explain answers the grader misses most (counted off the event
loop, as every other figure), and shows no such section while the learner never overruled it."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from pathlib import Path

from quizapp.content.catalog import Catalog
from quizapp.content.questions import ExplainQuestion
from quizapp.store import QuestionRef, open_store
from quizapp.study import record_review
from quizapp.tui.app import QuizApp
from quizapp.tui.screens.stats import StatsScreen
from tests.tui.helpers import NOW, SIZE, loaded, press, text_of, until


def _log(db: Path, catalog: Catalog, codes: list[str]) -> tuple[str, tuple[str, ...]]:
    qid = next(q for q in sorted(catalog.questions) if catalog.type_of(q) == "explain")
    question = catalog.question(qid)
    assert isinstance(question, ExplainQuestion)
    n = len(question.point_texts)
    with open_store(db, now=NOW) as store:
        for k, code in enumerate(codes):
            record_review(
                store, QuestionRef(qid, catalog.deck_fields(qid).id), seed=k, answer="…", correct=True,
                rating=3, duration_ms=1000, now=NOW - timedelta(hours=k), mode="drill",
                points=code.ljust(n, "m"),
            )  # fmt: skip
    return qid, question.point_texts


async def test_the_stats_screen_names_the_key_points_the_grader_misses(
    new_app: Callable[..., QuizApp], catalog: Catalog, db_file: Path
) -> None:
    qid, texts = _log(db_file, catalog, ["CMm", "cXm", "Cmm"])
    app = new_app()
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        await press(pilot, "t")
        await until(pilot, lambda: bool(app.screen.query("#point-misses")), "the key points listed")
        assert isinstance(app.screen, StatsScreen)
        lines = text_of(app, "#point-misses").splitlines()
        assert lines[0].startswith(f"{qid}, point 2: {texts[1]}") and lines[0].endswith("2× missed")
        assert lines[1].startswith(f"{qid}, point 1: {texts[0]}") and lines[1].endswith("1× over-credited")
        assert len(lines) == 2


async def test_no_disagreement_shows_no_key_point_section(
    new_app: Callable[..., QuizApp], catalog: Catalog, db_file: Path
) -> None:
    _log(db_file, catalog, ["Cmm", "mmm"])
    app = new_app()
    async with app.run_test(size=SIZE) as pilot:
        await loaded(app, pilot)
        await press(pilot, "t")
        await until(pilot, lambda: bool(app.screen.query("#deck-stats")), "the stats counted")
        assert isinstance(app.screen, StatsScreen)
        assert not app.screen.query("#point-misses")
