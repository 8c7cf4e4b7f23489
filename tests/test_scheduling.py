"""Scheduling: answers move cards exactly as fsrs says, the queues offer the right cards, leeches are told.

Fixed UTC datetimes and fuzzing off; every expected interval comes from fsrs itself.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Iterator
from dataclasses import replace
from datetime import UTC, datetime, timedelta, timezone

import pytest
from fsrs import Card, Rating, Scheduler, State
from hypothesis import given
from hypothesis import strategies as st

from quizapp.errors import QuizappError
from quizapp.store import QuestionRef, Store, card_id_for, get_card, open_store, reviews_for, save_setting
from quizapp.study import (
    LEECH_LAPSES,
    QuestionSet,
    ReviewOutcome,
    cram_queue,
    drill_queue,
    format_interval,
    make_scheduler,
    next_card,
    preview_for,
    preview_intervals,
    record_review,
    scheduler_for,
    study_queue,
)
from quizapp.study.scheduler import interview_deadline, rerate_review, review_before

T0 = datetime(2025, 3, 1, 9, 0, tzinfo=UTC)
PLAIN = make_scheduler(fuzzing=False)
A1 = QuestionRef("attn-a1", "deck-a", 1)
A3 = QuestionRef("attn-a3", "deck-a", 3)
A2 = QuestionRef("attn-a2", "deck-a", 2)
B1 = QuestionRef("kv-b1", "deck-b", 1, ("gqa",))
B2 = QuestionRef("kv-b2", "deck-b", 2, ("gqa", "mqa"))
ALL = QuestionSet.of([A1, A3, B1, A2, B2])


@pytest.fixture
def store() -> Iterator[Store]:
    with open_store(None, now=T0) as opened:
        yield opened


def answer(
    store: Store,
    q: QuestionRef,
    rating: int,
    when: datetime,
    mode: str = "study",
    update_schedule: bool = False,
) -> ReviewOutcome:
    return record_review(
        store,
        q,
        seed=1,
        answer="x",
        correct=rating > 1,
        rating=rating,
        duration_ms=5000,
        now=when,
        mode=mode,  # type: ignore[arg-type]
        update_schedule=update_schedule,
        scheduler=PLAIN,
    )


def test_answers_move_the_card_exactly_as_fsrs_does(store: Store) -> None:
    reference = Scheduler(enable_fuzzing=False)
    card = Card(card_id=card_id_for(A1.question_id), due=T0)
    when = T0
    for rating in (Rating.Good, Rating.Good, Rating.Again, Rating.Hard, Rating.Easy, Rating.Good):
        card, _ = reference.review_card(card, rating, when)
        outcome = answer(store, A1, int(rating), when)
        stored = get_card(store, A1.question_id)
        assert stored == outcome.card
        assert (stored.state, stored.step, stored.due) == (card.state, card.step, card.due)
        assert (stored.stability, stored.difficulty, stored.last_review) == (
            card.stability,
            card.difficulty,
            card.last_review,
        )
        assert outcome.interval == card.due - when
        when = card.due
    assert stored.reps == 6 and stored.lapses == 1


def test_desired_retention_comes_from_settings(store: Store) -> None:
    save_setting(store, "desired_retention", 0.8)
    scheduler = scheduler_for(store, fuzzing=False)
    assert scheduler.desired_retention == 0.8 and not scheduler.enable_fuzzing
    assert scheduler_for(store).enable_fuzzing
    reference = Scheduler(desired_retention=0.8, enable_fuzzing=False)
    expected, _ = reference.review_card(Card(card_id=1, due=T0), Rating.Easy, T0)
    outcome = record_review(
        store, A1, seed=0, answer="", correct=True, rating=4, duration_ms=0, now=T0, scheduler=scheduler
    )
    assert outcome.card.due == expected.due


@pytest.mark.parametrize("mode", ["drill", "cram", "interview"])
def test_drill_cram_and_plain_interviews_never_change_the_schedule(store: Store, mode: str) -> None:
    answer(store, A1, 3, T0)
    before = get_card(store, A1.question_id)
    outcome = answer(store, A1, 1, T0 + timedelta(hours=1), mode)
    assert not outcome.scheduled and outcome.interval is None
    assert get_card(store, A1.question_id) == before
    assert [r.mode for r in reviews_for(store, A1.question_id)] == ["study", mode]
    assert [r.scheduled for r in reviews_for(store, A1.question_id)] == [True, False]


def test_an_interview_updates_the_schedule_when_the_user_chose_so(store: Store) -> None:
    outcome = answer(store, A1, 3, T0, "interview", update_schedule=True)
    expected, _ = PLAIN.review_card(Card(card_id=1, due=T0), Rating.Good, T0)
    assert outcome.scheduled and outcome.card.due == expected.due


def test_a_review_is_committed_before_record_review_returns(store: Store) -> None:
    outcome = answer(store, A1, 3, T0)
    with open_store(store.path, now=T0) as other:
        assert reviews_for(other, A1.question_id) == (outcome.review,)
        assert get_card(other, A1.question_id) == outcome.card


def test_bad_ratings_and_modes_are_refused_without_saving(store: Store) -> None:
    with pytest.raises(QuizappError, match="rating"):
        answer(store, A1, 5, T0)
    with pytest.raises(QuizappError, match="mode"):
        answer(store, A1, 3, T0, "party")
    assert reviews_for(store, A1.question_id) == ()


def test_after_eight_lapses_the_card_is_flagged_and_the_caller_told_once(store: Store) -> None:
    when = T0
    outcome = answer(store, A1, 4, when)  # graduates straight to review state
    told = []
    for _ in range(LEECH_LAPSES + 1):
        when = outcome.card.due
        outcome = answer(store, A1, 1, when)  # forgotten: a lapse
        assert outcome.lapsed
        told.append(outcome.became_leech)
        while outcome.card.state != State.Review:  # relearn until it is back in review
            when = outcome.card.due
            outcome = answer(store, A1, 3, when)
    assert told == [False] * (LEECH_LAPSES - 1) + [True, False]
    card = get_card(store, A1.question_id)
    assert card.lapses == LEECH_LAPSES + 1 and card.flagged


def test_the_preview_shows_each_ratings_interval_without_saving(store: Store) -> None:
    answer(store, A1, 3, T0)
    card = get_card(store, A1.question_id)
    when = T0 + timedelta(minutes=10)
    previews = preview_for(store, A1.question_id, make_scheduler(), now=when)  # fuzzing ignored for previews
    assert [p.rating for p in previews] == list(Rating)
    for p in previews:
        expected, _ = PLAIN.review_card(card.to_fsrs(when), p.rating, when)
        assert p.due == expected.due and p.interval == expected.due - when
        assert p.label == format_interval(expected.due - when)
    assert get_card(store, A1.question_id) == card
    fresh = Card(card_id=1, due=T0)
    expected_new = [PLAIN.review_card(fresh, r, T0)[0].due - T0 for r in Rating]
    assert [p.interval for p in preview_intervals(None, PLAIN, now=T0)] == expected_new
    # Again repeats the first learning step; Good moves on to the second (Anki's "1m ... 10m").
    assert expected_new[0] == PLAIN.learning_steps[0] and expected_new[2] == PLAIN.learning_steps[1]


def test_intervals_are_labelled_like_anki() -> None:
    labels = [
        format_interval(timedelta(seconds=s))
        for s in (30, 60, 600, 3 * 3600, 86_400, 3 * 86_400, 45 * 86_400, 400 * 86_400)
    ]
    assert labels == ["30s", "1m", "10m", "3h", "1d", "3d", "1.5mo", "1.1y"]


def test_study_queue_puts_due_cards_first_most_overdue_first(store: Store) -> None:
    answer(store, B1, 3, T0)  # due T0 + 10 min
    answer(store, A2, 1, T0 + timedelta(minutes=5))  # due T0 + 6 min: more overdue later
    queue = study_queue(store, ALL, now=T0 + timedelta(hours=1), rng=random.Random(1))
    assert [(i.question, i.reason) for i in queue.items[:2]] == [(A2, "due"), (B1, "due")]
    assert queue.due_count == 2
    assert [i.question for i in queue.items[2:]] == [A1, A3, B2]  # new: deck order, then difficulty


def test_new_cards_stop_at_the_daily_limit_minus_those_introduced_today(store: Store) -> None:
    answer(store, A1, 3, T0)
    answer(store, A2, 3, T0)
    later = T0 + timedelta(hours=2)
    queue = study_queue(store, ALL, now=later, rng=random.Random(1), new_per_day=3)
    assert queue.new_introduced_today == 2
    assert [i.question for i in queue.items if i.reason == "new"] == [A3]
    save_setting(store, "new_per_day", 2)
    assert study_queue(store, ALL, now=later, rng=random.Random(1)).new_count == 0
    tomorrow = study_queue(store, ALL, now=T0 + timedelta(days=1), rng=random.Random(1))
    assert tomorrow.new_count == 2 and tomorrow.new_introduced_today == 0


def test_the_day_for_the_new_card_limit_is_the_users_local_day(store: Store) -> None:
    answer(store, A1, 3, datetime(2025, 3, 1, 20, 0, tzinfo=UTC))  # 01:00 on 2 March in UTC+5
    tz = timezone(timedelta(hours=5))
    same_local_day = datetime(2025, 3, 2, 23, 0, tzinfo=tz)
    queue = study_queue(store, ALL, now=same_local_day, rng=random.Random(0), new_per_day=1)
    assert queue.new_introduced_today == 1 and queue.new_count == 0


def test_suspended_and_removed_questions_leave_the_queue_but_keep_history(store: Store) -> None:
    from quizapp.store import set_suspended

    answer(store, A1, 1, T0)
    answer(store, B1, 1, T0)
    set_suspended(store, B2, True)
    without_a1 = QuestionSet.of([A3, B1, A2, B2])  # A1 was deleted from the content
    queue = study_queue(store, without_a1, now=T0 + timedelta(days=1), rng=random.Random(0))
    assert [i.question for i in queue.items] == [B1, A2, A3]
    assert len(reviews_for(store, A1.question_id)) == 1
    assert next_card(store, without_a1, now=T0 + timedelta(days=1), rng=random.Random(0)).question == B1


def test_an_edited_question_keeps_its_card_and_history(store: Store) -> None:
    answer(store, A1, 3, T0)
    edited = replace(A1, deck_id="deck-renamed", difficulty=3, tags=("new-tag",))
    answer(store, edited, 3, T0 + timedelta(minutes=10))
    card = get_card(store, A1.question_id)
    assert card.reps == 2 and card.deck_id == "deck-renamed"
    assert [r.deck_id for r in reviews_for(store, A1.question_id)] == ["deck-a", "deck-renamed"]


def test_next_card_brings_a_failed_card_back_once_its_step_is_due(store: Store) -> None:
    outcome = answer(store, A1, 1, T0)
    rng = random.Random(3)
    assert next_card(store, ALL, now=T0, rng=rng, new_per_day=1) is None  # the only new slot was used
    item = next_card(store, ALL, now=outcome.card.due, rng=rng, new_per_day=1)
    assert item is not None and item.question == A1 and item.reason == "due"
    ahead = next_card(store, ALL, now=T0, rng=rng, new_per_day=1, learn_ahead=timedelta(minutes=20))
    assert ahead is not None and ahead.question == A1 and ahead.due == outcome.card.due


def test_drill_is_endless_fresh_and_limited_to_the_deck_or_tag() -> None:
    items = drill_queue(ALL.select(tag="gqa"), rng=random.Random(5))
    first = [next(items) for _ in range(20)]
    assert {i.question for i in first} == {B1, B2}
    assert len({i.seed for i in first}) == 20
    assert all(a.question != b.question for a, b in itertools.pairwise(first))
    deck = drill_queue(ALL.select(deck_id="deck-a"), rng=random.Random(5))
    assert {next(deck).question for _ in range(9)} == {A1, A2, A3}
    with pytest.raises(QuizappError, match="Nothing to drill"):
        next(drill_queue(ALL.select(tag="missing"), rng=random.Random(5)))


def test_cram_offers_everything_due_or_not_and_changes_no_schedule(store: Store) -> None:
    answer(store, B1, 4, T0)  # due in days
    answer(store, A2, 1, T0)  # due in a minute
    before = [get_card(store, q.question_id) for q in (A2, B1)]
    queue = cram_queue(store, ALL, rng=random.Random(0))
    assert [i.question for i in queue] == [A2, B1, A1, A3, B2]
    for item in queue:
        answer(store, item.question, 1, T0 + timedelta(hours=1), "cram")
    assert [get_card(store, q.question_id) for q in (A2, B1)] == before
    assert get_card(store, A1.question_id).is_new


# -- the interview date shapes the schedule -----------------------------------------------------------

RATINGS = st.lists(st.sampled_from(list(Rating)), min_size=1, max_size=12)


@given(ratings=RATINGS)
def test_without_an_interview_date_the_schedule_is_plain_fsrs(ratings: list[Rating]) -> None:
    card = mine = Card(card_id=7, due=T0)
    when = T0
    for rating in ratings:
        card, _ = PLAIN.review_card(card, rating, when)
        mine = review_before(PLAIN, mine, rating, when, None)
        assert mine == card
        when = card.due


@given(ratings=RATINGS, days=st.integers(1, 90), hour=st.integers(0, 23))
def test_with_a_date_every_card_answered_before_it_comes_back_before_it(
    ratings: list[Rating], days: int, hour: int
) -> None:
    start = T0.replace(hour=hour)
    deadline = interview_deadline((start + timedelta(days=days)).date().isoformat(), start)
    assert deadline is not None
    card, when = Card(card_id=7, due=start), start
    for rating in ratings:
        if when >= deadline:
            plain, _ = PLAIN.review_card(card, rating, when)
            assert review_before(PLAIN, card, rating, when, deadline) == plain  # the day itself: FSRS alone
            break
        card = review_before(PLAIN, card, rating, when, deadline)
        assert when < card.due < deadline, (rating, when, card.due, deadline)
        when = card.due


@given(days=st.integers(1, 60))
def test_easy_on_a_new_card_before_a_date_still_takes_the_learning_steps(days: int) -> None:
    deadline = interview_deadline((T0 + timedelta(days=days)).date().isoformat(), T0)
    new = Card(card_id=7, due=T0)
    easy = review_before(PLAIN, new, Rating.Easy, T0, deadline)
    good, _ = PLAIN.review_card(new, Rating.Good, T0)
    plain_easy, _ = PLAIN.review_card(new, Rating.Easy, T0)
    assert plain_easy.state == State.Review  # what FSRS alone does: skip the steps
    assert easy.state == State.Learning and easy.step == good.step and easy.due == good.due
    assert (easy.stability, easy.difficulty) == (plain_easy.stability, plain_easy.difficulty)


def test_a_saved_answer_and_its_preview_respect_the_date_in_settings(store: Store) -> None:
    save_setting(store, "interview_date", "2025-03-06")  # five days after T0
    deadline = datetime(2025, 3, 6, tzinfo=UTC)
    outcome = answer(store, A1, 4, T0)
    assert outcome.card.state == State.Learning and outcome.interval == PLAIN.learning_steps[1]
    when = outcome.card.due
    for rating in (4, 4, 3, 4):
        labels = {int(p.rating): p.due for p in preview_for(store, A1.question_id, PLAIN, now=when)}
        outcome = answer(store, A1, rating, when)
        assert outcome.card.due == labels[rating] and outcome.card.due < deadline
        when = outcome.card.due
    assert outcome.deadline == deadline
    rerated = rerate_review(store, A1, outcome, 4, scheduler=PLAIN)
    assert rerated.card.due is not None and rerated.card.due < deadline
