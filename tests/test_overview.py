"""The home screen's numbers: new, due and mastered per deck, today's count, the streak, the first run."""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from quizapp.content.deck import DeckRef
from quizapp.reports.overview import build_overview
from quizapp.reports.stats import compute_stats
from quizapp.store import QuestionRef, Store, open_store, save_setting
from quizapp.study import QuestionSet, make_scheduler, record_review
from quizapp.study.counts import DueCounts, due_counts
from quizapp.study.session import StudySession

NOW = datetime(2025, 3, 3, 9, 30, tzinfo=UTC)
DECKS = (
    DeckRef("deck-a", "Deck A", ("a1", "a2", "a3")),
    DeckRef("deck-b", "Deck B", ("b1",)),
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
    empty = build_overview(store, (DeckRef("empty", "Empty", ()),), now=NOW)
    assert empty.decks[0].mastery == 0.0 and empty.questions == 0


def test_home_counts_do_not_load_the_planner() -> None:
    """Home's deck counts run at start-up: they need the daily new-card limit, not the interview plan.
    (The scheduler and the queues come with quizapp.study's plain imports: about 5 ms, in the worker
    that loads the decks, which imports the scheduler for the plan anyway.)"""
    import subprocess
    import sys

    code = "import sys, quizapp.reports.overview; print(' '.join(sys.modules))"
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    modules = set(loaded.stdout.split())
    assert "quizapp.study.limits" in modules
    assert not modules & {"quizapp.study.plan", "quizapp.study.stored_plan"}


# -- one count everywhere: New, Learning, Review -----------------------------------------------------


class _Source:
    """Flashcards that ask nothing: the counts are all these checks look at."""

    def instance(self, question_id: str, seed: int) -> Any:
        return _Flashcard(question_id, seed)


@dataclass(frozen=True)
class _Flashcard:
    question_id: str
    seed: int
    kind: str = "flashcard"
    derivation: None = None

    def expected_text(self) -> str:
        return "back"


def test_home_study_and_stats_agree_through_bury_suspend_undo_and_the_new_limit(tmp_path: Path) -> None:
    decks = [DeckRef(f"deck-{d}", f"Deck {d}", tuple(f"{d}{i}" for i in range(6))) for d in "ab"]
    refs = QuestionSet.of(QuestionRef(q, d.id) for d in decks for q in d.question_ids)
    clock = _Clock(NOW)
    with open_store(tmp_path / "p.db", now=NOW) as store:
        save_setting(store, "new_per_day", 4)
        for qid in ("a0", "a1", "b0"):  # three cards learned three days ago: due now, in review
            for minutes in (0, 10):
                _answer(store, qid, NOW - timedelta(days=3, minutes=-minutes))
        session = StudySession.start(_Source(), store, refs, mode="study", clock=clock, rng=random.Random(1))

        def agree() -> DueCounts:
            counts = due_counts(store, decks, now=clock())
            home = build_overview(store, decks, now=clock())
            stats = compute_stats(store, now=clock(), decks=decks)
            assert home.counts == counts == stats.counts
            assert home.study_now == counts.total == session.progress().left
            assert home.due == counts.due and min(home.new, home.new_left_today) == counts.new
            return counts

        first = agree()
        assert (first.new, first.learning, first.review) == (4, 0, 3) and first.unseen == 9
        shown = session.current
        assert shown is not None and shown.reason == "due"
        session.rate(1)  # forgotten: relearning, back in minutes
        forgotten = agree()
        assert forgotten.review == 2 and forgotten.learning == 0
        session.advance()
        session.set_aside("bury")
        assert agree().total == forgotten.total - 1
        session.set_aside("suspend")
        assert agree().total == forgotten.total - 2
        session.undo()
        session.undo()
        assert agree() == forgotten
        while session.current is not None and session.current.reason != "new":
            session.rate(3)
            session.advance()
        assert session.current is not None
        session.rate(3)  # a new card introduced: one fewer new allowed today, one more in learning later
        introduced = agree()
        assert introduced.new == 3 and introduced.new_left_today == 3
        session.undo()
        assert agree().new == 4
        clock.now += timedelta(minutes=11)  # the forgotten card's relearning step is due
        assert agree().learning == 1


class _Clock:
    def __init__(self, now: datetime) -> None:
        self.now = now

    def __call__(self) -> datetime:
        return self.now
