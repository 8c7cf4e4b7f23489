"""The suggested rating heeds the card's recent history: a card missed earlier today (in an interview or
any other mode) is never suggested Easy, however fast the right answer comes."""

from __future__ import annotations

import random
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from quizapp.content.catalog import Catalog, load_catalog
from quizapp.grading.rating import EASY, GOOD, suggest
from quizapp.store import QuestionRef, Store, open_store
from quizapp.study import QuestionSet, record_review
from quizapp.study.session import Feedback, StudySession

T0 = datetime(2025, 3, 3, 9, 30, tzinfo=UTC)


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    return load_catalog(use_cache=False)


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    with open_store(tmp_path / "p.db", now=T0) as opened:
        yield opened


def test_a_fast_right_answer_after_a_miss_today_is_good_not_easy() -> None:
    plain = suggest(True, seconds=5, target_seconds=90)
    after_miss = suggest(True, seconds=5, target_seconds=90, missed_today=True)
    assert plain.rating == EASY
    assert after_miss == suggest(True, seconds=5, target_seconds=90, missed_today=True)
    assert after_miss.rating == GOOD and "missed earlier today" in after_miss.reason


def _answer_right(catalog: Catalog, store: Store, qid: str, at: datetime) -> Feedback:
    session = StudySession.start(
        catalog,
        store,
        QuestionSet.from_catalog(catalog),
        mode="drill",
        clock=lambda: at,
        rng=random.Random(3),
        question_ids=(qid,),
        fuzzing=False,
    )
    card = session.current
    assert card is not None
    result = session.submit(card.instance.expected_text())  # at once: well inside a third of the target
    assert isinstance(result, Feedback) and result.verdict.correct
    return result


@pytest.mark.parametrize(("later", "rating"), [(timedelta(minutes=3), GOOD), (timedelta(days=1), EASY)])
def test_a_card_missed_in_an_interview_is_not_suggested_easy_the_same_day(
    catalog: Catalog, store: Store, later: timedelta, rating: int
) -> None:
    qid = "kv-cache-anchor-gqa"
    deck = catalog.deck_fields(qid).id
    for when, correct in ((T0 - timedelta(days=2), True), (T0, False)):  # seen before, then missed
        record_review(
            store,
            QuestionRef(qid, deck),
            seed=7,
            answer="80 GiB",
            correct=correct,
            rating=3 if correct else 1,
            duration_ms=20_000,
            now=when,
            mode="interview",
        )
    feedback = _answer_right(catalog, store, qid, T0 + later)
    assert feedback.verdict.rating == rating, feedback.verdict.reason
    assert (rating == GOOD) == ("missed earlier today" in feedback.verdict.reason)
