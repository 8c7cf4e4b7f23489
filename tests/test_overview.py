"""The home screen's numbers: new, due and mastered per deck, today's count, the streak, the first run."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from quizapp.reports.overview import DeckInfo, build_overview
from quizapp.store import QuestionRef, Store, open_store
from quizapp.study import make_scheduler, record_review

NOW = datetime(2025, 3, 3, 9, 30, tzinfo=UTC)
DECKS = (
    DeckInfo("deck-a", "Deck A", ("a1", "a2", "a3")),
    DeckInfo("deck-b", "Deck B", ("b1",)),
)


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    with open_store(tmp_path / "p.db", now=NOW) as opened:
        yield opened


def _answer(store: Store, qid: str, when: datetime, rating: int = 3, mode: str = "study") -> None:
    record_review(
        store,
        QuestionRef(qid, f"deck-{qid[0]}"),
        seed=1,
        answer="x",
        correct=rating > 1,
        rating=rating,
        duration_ms=1000,
        now=when,
        mode=mode,  # type: ignore[arg-type]
        scheduler=make_scheduler(fuzzing=False),
    )


def test_a_fresh_database_is_a_first_run_with_everything_new(store: Store) -> None:
    overview = build_overview(store, DECKS, now=NOW)
    assert overview.first_run
    assert [(r.deck_id, r.new, r.due, r.mastered) for r in overview.decks] == [
        ("deck-a", 3, 0, 0),
        ("deck-b", 1, 0, 0),
    ]
    assert overview.study_now == 4 and overview.streak_days == 0


def test_answers_move_cards_out_of_new_and_back_in_when_due(store: Store) -> None:
    _answer(store, "a1", NOW - timedelta(days=2), rating=1)  # learning steps are minutes long:
    _answer(store, "a2", NOW - timedelta(days=1))  # both are due again by now
    _answer(store, "b1", NOW, mode="drill")  # drill never schedules: b1 stays new
    overview = build_overview(store, DECKS, now=NOW)
    a, b = overview.decks
    assert (a.new, b.new) == (1, 1)
    assert (a.due, b.due, overview.due) == (2, 0, 2)
    assert overview.reviews_today == 1 and overview.streak_days == 3
    assert not overview.first_run


def test_mastery_is_a_share_of_all_the_deck_questions(store: Store) -> None:
    overview = build_overview(store, DECKS, now=NOW)
    assert overview.decks[0].mastery == 0.0
    empty = build_overview(store, (DeckInfo("empty", "Empty", ()),), now=NOW)
    assert empty.decks[0].mastery == 0.0 and empty.questions == 0


def test_home_counts_do_not_load_the_scheduler_or_the_queues() -> None:
    """Home's deck counts run at start-up: they need the daily new-card limit, not the study loop."""
    import subprocess
    import sys

    code = "import sys, quizapp.reports.overview; print(' '.join(sys.modules))"
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    modules = set(loaded.stdout.split())
    assert "quizapp.study.limits" in modules
    assert not modules & {"quizapp.study.scheduler", "quizapp.study.queues", "quizapp.study.plan"}
