"""Stats: the calendar, true retention, mastery, the due forecast, misconceptions and time spent, and the
text report. Expected numbers are recomputed in Python from the stored reviews and cards."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from datetime import UTC, date, datetime, timedelta, timezone

import pytest
from fsrs import State

from quizapp.reports.stats import CALENDAR_DAYS, FORECAST_DAYS, compute_stats, streak
from quizapp.reports.text import SHADES, render_stats, shade
from quizapp.store import CardRecord, QuestionRef, Store, card_id_for, open_store, reviews_for
from quizapp.store.cards import write_card
from quizapp.store.stats_queries import reviews_per_day
from quizapp.study import make_scheduler, record_review

NOW = datetime(2025, 6, 15, 18, 0, tzinfo=UTC)
PLAIN = make_scheduler(fuzzing=False)


@pytest.fixture
def store() -> Iterator[Store]:
    with open_store(None, now=NOW) as opened:
        yield opened


def log(
    store: Store, qid: str, when: datetime, *, rating: int = 3, mode: str = "drill", **kw: object
) -> None:
    record_review(
        store,
        QuestionRef(qid, qid.split("/")[0]),
        seed=0,
        answer="a",
        correct=rating > 1,
        rating=rating,
        duration_ms=kw.pop("duration_ms", 1000),  # type: ignore[arg-type]
        now=when,
        mode=mode,  # type: ignore[arg-type]
        scheduler=PLAIN,
        **kw,  # type: ignore[arg-type]
    )


def test_the_calendar_counts_reviews_per_day_for_a_year_ending_today(store: Store) -> None:
    days_ago = [0, 0, 0, 1, 2, 2, 10, 100, 364, 365, 400]
    for i, n in enumerate(days_ago):
        log(store, f"d/q{i}", NOW - timedelta(days=n, hours=1), duration_ms=1000 * (i + 1))
    stats = compute_stats(store, now=NOW)
    assert len(stats.calendar) == CALENDAR_DAYS
    assert stats.calendar[-1].day == NOW.date() and stats.today == NOW.date()
    expected = Counter(NOW.date() - timedelta(days=n) for n in days_ago if n < CALENDAR_DAYS)
    assert {d.day: d.reviews for d in stats.calendar if d.reviews} == expected
    assert stats.calendar[-1].seconds == 1 + 2 + 3
    assert stats.reviews_today == 3
    assert stats.total_reviews == len(days_ago)
    assert stats.total_seconds == sum(i + 1 for i in range(len(days_ago)))
    assert stats.streak_days == 3


def test_days_are_the_users_local_days(store: Store) -> None:
    log(store, "d/q", datetime(2025, 6, 14, 23, 30, tzinfo=UTC))  # 01:30 on 15 June at UTC+2
    local_now = NOW.astimezone(timezone(timedelta(hours=2)))
    assert compute_stats(store, now=local_now).reviews_today == 1
    assert compute_stats(store, now=NOW).reviews_today == 0


def test_a_streak_survives_until_today_is_over() -> None:
    from quizapp.reports.stats import DayCount

    def cal(*counts: int) -> tuple[DayCount, ...]:
        return tuple(DayCount(date(2025, 1, 1) + timedelta(days=i), n, 0.0) for i, n in enumerate(counts))

    assert streak(cal(1, 0, 2, 3, 0)) == 2
    assert streak(cal(1, 0, 2, 3, 1)) == 3
    assert streak(cal(0, 0)) == 0


def test_true_retention_counts_only_scheduled_reviews_of_cards_in_review_state(store: Store) -> None:
    when = NOW - timedelta(days=200)
    for qid, ratings in {"a/q1": [4, 3, 1, 3, 3, 2], "a/q2": [4, 1, 3, 4], "b/q3": [3, 3, 3, 3]}.items():
        for rating in ratings:
            log(store, qid, when, rating=rating, mode="study")
            when += timedelta(days=3)
    log(store, "a/q1", when, rating=1, mode="drill")  # not scheduled: never counts
    stats = compute_stats(store, now=NOW)
    expected = {}
    for qid in ("a/q1", "a/q2", "b/q3"):
        for r in reviews_for(store, qid):
            if r.scheduled and r.state_before == State.Review:
                passed, total = expected.get(r.deck_id, (0, 0))
                expected[r.deck_id] = (passed + (r.rating > 1), total + 1)
    assert {r.deck_id: (r.passed, r.total) for r in stats.retention} == expected
    assert stats.overall_retention == sum(p for p, _ in expected.values()) / sum(
        t for _, t in expected.values()
    )


def _card(
    qid: str, deck: str, state: State, stability: float | None, due: datetime | None, **kw: bool
) -> CardRecord:
    return CardRecord(
        question_id=qid,
        card_id=card_id_for(qid),
        deck_id=deck,
        state=state,
        step=None if state == State.Review else 0,
        stability=stability,
        difficulty=5.0 if stability else None,
        due=due,
        last_review=None if due is None else NOW - timedelta(days=1),
        **kw,
    )


def test_mastery_is_the_share_of_review_cards_with_stability_of_21_days_or_more(store: Store) -> None:
    cards = [
        _card("a1", "a", State.Review, 21.0, NOW),
        _card("a2", "a", State.Review, 40.0, NOW),
        _card("a3", "a", State.Review, 20.9, NOW),
        _card("a4", "a", State.Learning, 30.0, NOW),
        _card("a5", "a", State.Learning, None, None),
        _card("b1", "b", State.Relearning, 50.0, NOW),
    ]
    with store.transaction() as conn:
        for c in cards:
            write_card(conn, c)
    mastery = {m.deck_id: m for m in compute_stats(store, now=NOW).mastery}
    assert (mastery["a"].cards, mastery["a"].in_review, mastery["a"].mastered) == (5, 3, 2)
    assert mastery["a"].share == 2 / 3 and mastery["a"].share_of(10) == 0.2
    assert mastery["b"].share is None and mastery["b"].share_of(0) == 0.0


def test_the_forecast_counts_unsuspended_due_cards_per_day_overdue_on_today(store: Store) -> None:
    dues = {
        "o1": NOW - timedelta(days=3),
        "o2": NOW - timedelta(minutes=1),
        "t1": NOW + timedelta(hours=2),
        "t2": NOW + timedelta(days=1),
        "t3": NOW + timedelta(days=1, hours=1),
        "t4": NOW + timedelta(days=29),
        "far": NOW + timedelta(days=45),
    }
    with store.transaction() as conn:
        for qid, due in dues.items():
            write_card(conn, _card(qid, "a", State.Review, 5.0, due))
        write_card(conn, _card("sus", "a", State.Review, 5.0, NOW - timedelta(days=1), suspended=True))
        write_card(conn, _card("new", "a", State.Learning, None, None))
    stats = compute_stats(store, now=NOW)
    assert len(stats.forecast) == FORECAST_DAYS and stats.forecast[0].day == NOW.date()
    assert stats.overdue == 2
    expected = Counter(
        max(due.date(), NOW.date()) for due in dues.values() if due.date() < NOW.date() + timedelta(30)
    )
    assert {d.day: d.due for d in stats.forecast if d.due} == expected


def test_the_most_frequent_diagnoses_name_their_questions(store: Store) -> None:
    for qid, diag, n in [("k/q1", "forgot-kv", 3), ("k/q2", "forgot-kv", 1), ("k/q2", "gib-vs-gb", 2)]:
        for i in range(n):
            log(
                store,
                qid,
                NOW - timedelta(minutes=10 * i),
                rating=1,
                diagnosis=f"text {diag}",
                diagnosis_id=diag,
            )
    log(store, "k/q3", NOW, rating=3)
    diagnoses = compute_stats(store, now=NOW).diagnoses
    assert [(d.diagnosis_id, d.count, d.question_ids) for d in diagnoses] == [
        ("forgot-kv", 4, ("k/q1", "k/q2")),
        ("gib-vs-gb", 2, ("k/q2",)),
    ]
    assert diagnoses[0].label == "text forgot-kv"


def test_a_wrong_choice_is_counted_per_question_and_option_never_across_questions(store: Store) -> None:
    answers = [
        ("c/q1", "option c is wrong: Set the two terms equal", 2),
        ("c/q2", "option c is wrong: Memory grows with the cache", 1),
        ("c/q1", "option b is wrong: Halving the heads halves the cache", 1),
    ]
    for qid, text, n in answers:
        for i in range(n):
            log(
                store,
                qid,
                NOW - timedelta(minutes=i),
                rating=1,
                diagnosis=text,
                diagnosis_id="choice-wrong-option",
            )
    for i in range(3):
        log(store, f"k/q{i}", NOW, rating=1, diagnosis="Forgot the 2 for K and V", diagnosis_id="forgot-kv")
    diagnoses = compute_stats(store, now=NOW).diagnoses
    assert [(d.label, d.count, d.question_ids) for d in diagnoses] == [
        ("Forgot the 2 for K and V", 3, ("k/q0", "k/q1", "k/q2")),
        ("option c is wrong: Set the two terms equal", 2, ("c/q1",)),
        ("option b is wrong: Halving the heads halves the cache", 1, ("c/q1",)),
        ("option c is wrong: Memory grows with the cache", 1, ("c/q2",)),
    ]


def test_the_text_report_fits_80_columns_and_shows_every_section(store: Store) -> None:
    for i in range(40):
        log(
            store,
            f"deck-a/q{i % 7}",
            NOW - timedelta(days=i % 30, hours=i % 5),
            rating=1 + i % 4,
            mode="study",
        )
    log(store, "deck-a/q1", NOW, rating=1, diagnosis="Forgot the 2 for K and V", diagnosis_id="forgot-kv")
    long = (  # as the grader words a bare number read in the unit asked for
        "a bare number is read in GFLOPs, the unit asked for; 68,719,476,736 is right in FLOPs, so write "
        "the unit"
    )
    log(store, "deck-a/q2", NOW, rating=1, diagnosis=long, diagnosis_id="slip-bare-number-unit")
    text = render_stats(compute_stats(store, now=NOW), deck_titles={"deck-a": "Attention basics"})
    assert all(len(line) <= 80 for line in text.splitlines())
    for needle in ("Reviews, last 365 days: 42", "True retention", "Mastery", "Due, next 30 days"):
        assert needle in text
    assert "Attention basics" in text and "Forgot the 2 for K and V" in text
    assert "right in FLOPs, so write the unit [deck-a/q2]" in " ".join(text.split())  # wrapped, whole
    assert any(ch in text for ch in SHADES[1:])


def test_shades_grow_with_the_count() -> None:
    assert [shade(n, 8) for n in (0, 1, 2, 4, 6, 8)] == [
        SHADES[0],
        SHADES[1],
        SHADES[1],
        SHADES[2],
        SHADES[3],
        SHADES[4],
    ]


def test_calendar_days_follow_daylight_saving_time(store: Store) -> None:
    from zoneinfo import ZoneInfo

    berlin = ZoneInfo("Europe/Berlin")  # clocks went forward on 30 March 2025: that day had 23 hours
    for local in (datetime(2025, 3, 30, 0, 30), datetime(2025, 3, 30, 23, 30), datetime(2025, 3, 31, 0, 30)):
        log(store, "d/q", local.replace(tzinfo=berlin).astimezone(UTC))
    stats = compute_stats(store, now=datetime(2025, 3, 31, 12, 0, tzinfo=berlin))
    assert [(d.day.day, d.reviews) for d in stats.calendar[-2:]] == [(30, 2), (31, 1)]


def test_a_25_hour_day_keeps_its_last_hour_and_the_calendar_is_one_query(store: Store) -> None:
    from zoneinfo import ZoneInfo

    berlin = ZoneInfo("Europe/Berlin")  # clocks went back on 26 October 2025: that day had 25 hours
    for local in (
        datetime(2025, 10, 26, 0, 30),
        datetime(2025, 10, 26, 23, 30),
        datetime(2025, 10, 27, 0, 30),
    ):
        log(store, "d/q", local.replace(tzinfo=berlin).astimezone(UTC))
    statements: list[str] = []
    store.conn.set_trace_callback(statements.append)
    calendar = reviews_per_day(store, now=datetime(2025, 10, 27, 12, 0, tzinfo=berlin))
    store.conn.set_trace_callback(None)
    assert [(d.day.day, d.reviews) for d in calendar[-2:]] == [(26, 2), (27, 1)]
    assert len(statements) == 1
