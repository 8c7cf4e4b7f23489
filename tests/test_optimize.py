"""FSRS optimisation: weights fitted to the user's own reviews, used by the scheduler, refused politely."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta

import pytest
from fsrs import Card, Rating, Scheduler

from quizapp.cli import main
from quizapp.errors import QuizappError
from quizapp.store import QuestionRef, Store, load_settings, open_store, reviews_for
from quizapp.store.cards import iter_cards
from quizapp.store.fsrs_inputs import scheduled_reviews
from quizapp.study import make_scheduler, record_review, scheduler_for
from quizapp.study.optimize import MIN_ITEMS, optimize, training_items

T0 = datetime(2026, 1, 5, 9, 0, tzinfo=UTC)
DAY_US = 86_400 * 1_000_000


def test_items_end_on_a_review_from_a_later_day_and_keep_the_whole_history_before_it() -> None:
    t = int(T0.timestamp() * 1_000_000)
    history = [
        ("a", t, 3),
        ("a", t + 600_000_000, 3),  # ten minutes later: a learning step, no item of its own
        ("a", t + 3 * DAY_US, 1),
        ("a", t + 4 * DAY_US, 3),
        ("b", t, 4),  # a card seen once gives no item
    ]
    assert training_items(history) == [
        [(3, 0), (3, 0), (1, 3)],
        [(3, 0), (3, 0), (1, 3), (3, 1)],
    ]


def _study(store: Store, cards: int, rounds: int, seed: int) -> None:
    """A learner who forgets faster than fsrs's defaults expect: answers decay with the gap."""
    rng = random.Random(seed)
    scheduler = make_scheduler(fuzzing=False)
    for c in range(cards):
        ref = QuestionRef(f"q{c}", "deck")
        when = T0 + timedelta(hours=c)
        for r in range(rounds):
            gap = rng.choice((1, 2, 4, 8))
            rating = Rating.Good if rng.random() < 0.9 ** (gap / 2) else Rating.Again
            record_review(
                store, ref, seed=r, answer="x", correct=rating > 1, rating=int(rating),
                duration_ms=900, now=when, scheduler=scheduler,
            )  # fmt: skip
            when += timedelta(days=gap)


def test_too_few_reviews_are_refused_naming_the_count() -> None:
    with open_store(None, now=T0) as store:
        _study(store, cards=5, rounds=3, seed=1)
        with pytest.raises(QuizappError, match=rf"at least {MIN_ITEMS} .* you have 10\."):
            optimize(scheduled_reviews(store))


def test_fitted_weights_predict_the_history_better_and_the_scheduler_uses_them(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with open_store(None, now=T0) as store:
        _study(store, cards=60, rounds=4, seed=2)
        result = optimize(scheduled_reviews(store))
    assert result.items == 180 and len(result.parameters) == 21
    assert result.log_loss_after < result.log_loss_before
    assert main(["optimize"]) == 0
    out = capsys.readouterr().out
    assert "Fitted on 180 reviews." in out and "Saved" in out
    with open_store(None, now=T0) as store:
        saved = load_settings(store).fsrs_parameters
        assert saved == pytest.approx(result.parameters)
        assert tuple(scheduler_for(store).parameters) == pytest.approx(saved)
    assert main(["optimize", "--reset"]) == 0
    with open_store(None, now=T0) as store:
        assert load_settings(store).fsrs_parameters == ()
        assert tuple(scheduler_for(store).parameters) == tuple(make_scheduler().parameters)


def test_the_cli_refuses_politely_on_an_empty_history(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["optimize"]) == 2
    assert "you have 0" in capsys.readouterr().err


def test_optimize_recomputes_every_cards_memory_state_and_reports_rmse(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with open_store(None, now=T0) as store:
        _study(store, cards=60, rounds=4, seed=2)
        before = {c.question_id: (c.stability, c.difficulty) for c in iter_cards(store.conn)}
    assert main(["optimize"]) == 0
    out = capsys.readouterr().out
    assert "RMSE" in out and "memory state of 60 card(s) was recomputed" in out
    with open_store(None, now=T0) as store:
        scheduler = Scheduler(parameters=load_settings(store).fsrs_parameters, enable_fuzzing=False)
        changed = 0
        for card in iter_cards(store.conn):
            replayed = None
            for review in reviews_for(store, card.question_id):
                replayed = replayed or Card(card_id=1, due=review.reviewed_at)
                replayed, _ = scheduler.review_card(replayed, Rating(review.rating), review.reviewed_at)
            assert replayed is not None
            assert (card.stability, card.difficulty) == pytest.approx(
                (replayed.stability, replayed.difficulty)
            )
            changed += (card.stability, card.difficulty) != pytest.approx(before[card.question_id])
        assert changed >= 50, "the new weights reach the cards already seen"
        kept = {c.question_id: (c.stability, c.difficulty, c.due) for c in iter_cards(store.conn)}
    # fitting again from the fitted weights finds nothing better: refused, and nothing changes
    assert main(["optimize"]) == 1
    err = capsys.readouterr().err
    assert "Refused" in err and "nothing was changed" in err and "RMSE" in err
    with open_store(None, now=T0) as store:
        assert {c.question_id: (c.stability, c.difficulty, c.due) for c in iter_cards(store.conn)} == kept
