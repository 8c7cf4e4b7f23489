"""The workspace: the store and catalog opened once for the app and the CLI, and the interview plan cached
until an answer is saved, a setting changes, another process writes, or the day turns."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from quizapp.content.catalog import Catalog, load_catalog
from quizapp.errors import QuizappError
from quizapp.records.interviews import InterviewConfig
from quizapp.records.settings import Settings
from quizapp.store import QuestionRef, open_store, save_setting, start_interview
from quizapp.study import make_scheduler, record_review
from quizapp.workspace import Workspace, busy_timeout_s, damaged, from_the_store, open_workspace

FIXTURES = Path(__file__).parent / "fixtures" / "decks"
NOW = datetime(2026, 11, 24, 9, 0, tzinfo=UTC)


@pytest.fixture(scope="module")
def sample() -> Catalog:
    return load_catalog([FIXTURES], include_default=False, use_cache=False)


@pytest.fixture
def ws(tmp_path: Path, sample: Catalog) -> Iterator[Workspace]:
    with open_workspace(tmp_path / "p.db", clock=lambda: NOW, catalog=sample) as opened:
        yield opened


def _answer(ws: Workspace, qid: str, when: datetime) -> None:
    record_review(
        ws.store,
        QuestionRef(qid, "sample"),
        seed=1,
        answer="x",
        correct=True,
        rating=3,
        duration_ms=1000,
        now=when,
        scheduler=make_scheduler(fuzzing=False),
    )


def test_without_an_interview_date_there_is_no_plan(ws: Workspace) -> None:
    assert ws.plan(NOW) is None
    assert ws.plan_line(NOW) == ""


def test_the_plan_is_reused_until_an_answer_is_saved(ws: Workspace) -> None:
    save_setting(ws.store, "interview_date", "2026-12-03")
    first = ws.plan(NOW)
    assert first is not None and first.unseen == len(ws.catalog.questions)
    assert ws.plan(NOW + timedelta(hours=2)) is first  # the same day, nothing saved: not built again
    _answer(ws, "sample-card", NOW)
    again = ws.plan(NOW)
    assert again is not first and again is not None and again.unseen == first.unseen - 1


def test_a_new_day_or_a_new_date_builds_the_plan_again(ws: Workspace) -> None:
    save_setting(ws.store, "interview_date", "2026-12-03")
    first = ws.plan(NOW)
    assert first is not None
    tomorrow = ws.plan(NOW + timedelta(days=1))
    assert tomorrow is not None and tomorrow.days_left == first.days_left - 1
    save_setting(ws.store, "interview_date", "2026-12-10")
    later = ws.plan(NOW + timedelta(days=1))
    assert later is not None and later.days_left == first.days_left + 6
    assert "Interview 15 days left" in ws.plan_line(NOW + timedelta(days=1))


def test_an_answer_saved_by_another_process_builds_the_plan_again(ws: Workspace, sample: Catalog) -> None:
    save_setting(ws.store, "interview_date", "2026-12-03")
    first = ws.plan(NOW)
    assert first is not None
    with Workspace(store=open_store(ws.store.path, now=NOW), preloaded=sample) as other:
        _answer(other, "sample-weight", NOW)
    again = ws.plan(NOW)
    assert again is not None and again.unseen == first.unseen - 1


def test_the_screens_read_settings_answers_and_interviews_through_the_workspace(ws: Workspace) -> None:
    """What the TUI used to import from the store: a saved setting reads back, the last answer that is not
    blank comes back for the code editor, and a saved interview is listed."""
    saved = ws.save_settings(Settings(new_per_day=7))
    assert saved.new_per_day == 7 and ws.settings() == saved
    assert ws.last_answer("sample-card") is None
    for when, text in (
        (NOW, "first"),
        (NOW + timedelta(minutes=1), "second"),
        (NOW + timedelta(minutes=2), " "),
    ):
        record_review(
            ws.store,
            QuestionRef("sample-card", "sample"),
            seed=1,
            answer=text,
            correct=False,
            rating=1,
            duration_ms=1000,
            now=when,
            scheduler=make_scheduler(fuzzing=False),
        )
    assert ws.last_answer("sample-card") == "second"
    start_interview(ws.store, InterviewConfig(questions=3), now=NOW)
    assert [s.questions for s in ws.interviews()] == [3]


def test_store_errors_are_classified_from_the_workspace() -> None:
    """The app's error report tells a closed store's SQLite error and a damaged page from a bug without
    importing the store (quizapp/tui never does)."""
    assert from_the_store(sqlite3.ProgrammingError("Cannot operate on a closed database."))
    assert not from_the_store(ValueError("a bug"))
    assert isinstance(damaged(sqlite3.DatabaseError("database disk image is malformed")), QuizappError)
    assert damaged(ValueError("a bug")) is None
    assert busy_timeout_s() > 0
