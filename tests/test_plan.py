"""The interview plan: new cards per day, expected reviews, and each deck's recall on the day.

Fixed UTC datetimes and fuzzing off; every retrievability the plan predicts is checked against fsrs's own
`get_card_retrievability` on the card the store holds.
"""

from __future__ import annotations

import json
import math
import random
import re
from collections.abc import Iterator
from dataclasses import dataclass, replace
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from fsrs import Card, Rating

from quizapp.cli import main
from quizapp.content.deck import DeckRef
from quizapp.errors import QuizappError
from quizapp.reports.overview import build_overview
from quizapp.reports.stats import compute_stats
from quizapp.store import (
    QuestionRef,
    Store,
    get_card,
    load_settings,
    open_store,
    save_setting,
    save_settings,
    set_suspended,
)
from quizapp.store.fsrs_inputs import card_memories
from quizapp.store.settings import check_interview_date
from quizapp.store.stats_queries import recent_answer_times
from quizapp.study import QuestionSet, make_scheduler, record_review
from quizapp.study.budget import DEFAULT_SECONDS, LONGEST_ANSWER_SECONDS, LeftOut, Work, answer_times, triage
from quizapp.study.limits import daily_new_limit
from quizapp.study.plan import FINAL_DAYS, Plan, PlanQuestion, make_plan
from quizapp.study.session import StudySession
from quizapp.study.stored_plan import interview_plan

T0 = datetime(2026, 11, 20, 9, 0, tzinfo=UTC)
NOW = datetime(2026, 11, 24, 9, 0, tzinfo=UTC)
PLAIN = make_scheduler(fuzzing=False)
DECKS = (
    DeckRef("deck-a", "Deck A", ("a1", "a2", "a3", "a4")),
    DeckRef("deck-b", "Deck B", ("b1", "b2")),
    DeckRef("deck-c", "Deck C", ("c1", "c2", "c3")),
)


@pytest.fixture
def store() -> Iterator[Store]:
    with open_store(None, now=T0) as opened:
        for qid, rating, when in (
            ("a1", Rating.Good, T0),
            ("a1", Rating.Good, T0 + timedelta(minutes=10)),
            ("a2", Rating.Easy, T0),
            ("b1", Rating.Again, T0 + timedelta(days=1)),
        ):
            record_review(
                opened,
                QuestionRef(qid, f"deck-{qid[0]}"),
                seed=1,
                answer="x",
                correct=rating > Rating.Again,
                rating=int(rating),
                duration_ms=1000,
                now=when,
                scheduler=PLAIN,
            )
        yield opened


def plan_for(store: Store, interview: date) -> Plan:
    return make_plan(
        DECKS, card_memories(store), interview=interview, today=NOW.date(), now=NOW, scheduler=PLAIN
    )


def _card(store: Store, qid: str) -> Card:
    record = get_card(store, qid)
    assert record is not None
    return record.to_fsrs(NOW)


def test_recall_on_the_day_is_fsrs_retrievability_with_unseen_cards_as_zero(store: Store) -> None:
    interview = date(2026, 12, 3)
    plan = plan_for(store, interview)
    at = NOW + timedelta(days=(interview - NOW.date()).days)
    fsrs_r = {qid: PLAIN.get_card_retrievability(_card(store, qid), at) for qid in ("a1", "a2", "b1")}
    by_id = {d.deck_id: d for d in plan.readiness.decks}
    assert by_id["deck-a"].recall == pytest.approx((fsrs_r["a1"] + fsrs_r["a2"]) / 4)
    assert by_id["deck-b"].recall == pytest.approx(fsrs_r["b1"] / 2)
    assert by_id["deck-c"].recall == 0 and by_id["deck-c"].seen == 0
    assert plan.recall == pytest.approx(sum(fsrs_r.values()) / 9)
    assert 0 < fsrs_r["b1"] < fsrs_r["a1"] < 1, "a lapsed card is remembered worse than a learnt one"


def test_new_cards_are_spread_over_the_days_before_the_interview(store: Store) -> None:
    plan = plan_for(store, date(2026, 11, 27))  # 3 days left, 6 unseen
    assert (plan.days_left, plan.unseen, plan.new_per_day) == (3, 6, 2)
    assert math.ceil(plan.unseen / plan.days_left) == plan.new_per_day
    tomorrow = plan_for(store, date(2026, 11, 25))
    assert tomorrow.new_per_day == 6, "with one day left, every unseen card is today's"


def test_reviews_per_day_count_due_cards_and_the_reviews_new_cards_bring(store: Store) -> None:
    near, far = plan_for(store, date(2026, 11, 26)), plan_for(store, date(2027, 1, 24))
    assert near.reviews_per_day >= 1
    assert far.new_per_day == 1 and far.reviews_per_day >= 1


def test_suspended_cards_are_not_planned(store: Store) -> None:
    before = plan_for(store, date(2026, 12, 3))
    set_suspended(store, QuestionRef("c1", "deck-c"), True)
    after = plan_for(store, date(2026, 12, 3))
    assert after.unseen == before.unseen - 1


def test_the_last_days_focus_on_the_weakest_decks(store: Store) -> None:
    far = plan_for(store, NOW.date() + timedelta(days=FINAL_DAYS + 1))
    near = plan_for(store, NOW.date() + timedelta(days=FINAL_DAYS))
    assert far.focus == ()
    weakest = min(near.readiness.decks, key=lambda d: d.recall)
    assert near.focus == (weakest.deck_id,)


def test_a_passed_interview_says_so(store: Store) -> None:
    plan = plan_for(store, date(2026, 11, 1))
    assert plan.passed and "was on 1 Nov" in plan.summary()


def test_the_summary_line_reads_like_the_home_screen(store: Store) -> None:
    plan = plan_for(store, date(2026, 12, 3))
    assert plan.summary().startswith("Interview 9 days left: ")
    assert "recall on 3 Dec if you stopped now:" in plan.summary()


def test_cli_plan_sets_the_date_prints_per_deck_and_refuses_bad_dates(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["plan"]) == 2
    assert "No interview date is set" in capsys.readouterr().err
    assert main(["plan", "--date", "2999-02-30"]) == 2
    assert "2999-02-30 is not a day of the calendar" in capsys.readouterr().err
    assert main(["plan", "--date", "30/11/2999"]) == 2
    assert "YYYY-MM-DD" in capsys.readouterr().err
    assert main(["plan", "--date", "2001-01-01"]) == 2
    err = capsys.readouterr().err
    assert "already passed" in err and "quizapp plan --clear" in err  # not "leave it empty": refused here
    assert main(["plan", "--date", "2999-01-01", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["interview"] == "2999-01-01" and doc["unseen"] == doc["questions"] > 100
    assert len(doc["decks"]) >= 11 and doc["new_per_day"] >= 1
    assert main(["plan"]) == 0
    text = capsys.readouterr().out
    assert (
        text.startswith("Interview on Tue 1 Jan 2999") and "Deck" not in text and "recall on the day" in text
    )
    assert main(["plan", "--clear"]) == 0
    with open_store(None, now=NOW) as opened:
        assert load_settings(opened).interview_date == ""


def test_a_date_raises_the_daily_new_limit_to_meet_every_question_and_never_lowers_it() -> None:
    today = date(2026, 11, 24)
    assert daily_new_limit(20, "", unseen=231, today=today) == 20, "no date: the setting"
    assert daily_new_limit(20, "2026-12-03", unseen=231, today=today) == 26  # ceil(231 / 9)
    assert daily_new_limit(40, "2026-12-03", unseen=231, today=today) == 40, "the setting is the floor"
    assert daily_new_limit(20, "2026-11-20", unseen=231, today=today) == 20, "a passed date changes nothing"


def test_a_study_session_and_home_follow_the_planned_limit(tmp_path: Path) -> None:
    refs = QuestionSet.of(QuestionRef(f"q{i}", f"deck-{i % 3}") for i in range(90))
    decks = [DeckRef(f"deck-{d}", f"Deck {d}", tuple(f"q{i}" for i in range(d, 90, 3))) for d in range(3)]
    clock = lambda: NOW  # noqa: E731
    with open_store(tmp_path / "progress.db", now=NOW) as store:
        save_setting(store, "new_per_day", 5)
        plain = StudySession.start(_Source(), store, refs, mode="study", clock=clock, rng=random.Random(1))
        assert plain.new_per_day is None and plain.progress().left == 5
        assert build_overview(store, decks, now=NOW).new_left_today == 5
        save_setting(store, "interview_date", (NOW + timedelta(days=3)).date().isoformat())
        planned = StudySession.start(_Source(), store, refs, mode="study", clock=clock, rng=random.Random(1))
        assert planned.new_per_day == 30 and planned.progress().left == 30  # 90 unseen over 3 days
        assert build_overview(store, decks, now=NOW).new_left_today == 30


class _Source:
    """Instances are never shown in these checks; any question asks nothing."""

    def instance(self, question_id: str, seed: int) -> Any:
        return _Instance(question_id, seed)


@dataclass(frozen=True)
class _Instance:
    question_id: str
    seed: int
    kind: str = "flashcard"


# -- minutes and triage --------------------------------------------------------------------------------

KINDS = {
    "a1": PlanQuestion("numeric", 1),
    "a2": PlanQuestion("numeric", 1),
    "a3": PlanQuestion("numeric", 3),
    "a4": PlanQuestion("choice", 2),
    "b1": PlanQuestion("flashcard", 1),
    "b2": PlanQuestion("code", 3),
    "c1": PlanQuestion("explain", 2),
    "c2": PlanQuestion("choice", 1),
    "c3": PlanQuestion("shape", 3),
}


def timed_plan(store: Store, interview: date, **kw: Any) -> Plan:
    return make_plan(
        DECKS,
        card_memories(store),
        interview=interview,
        today=NOW.date(),
        now=NOW,
        scheduler=PLAIN,
        questions=KINDS,
        **kw,
    )


def test_answer_times_are_the_learners_median_per_type_once_there_are_three() -> None:
    guess = answer_times([])
    assert guess["numeric"].seconds == DEFAULT_SECONDS["numeric"] and not guess["numeric"].own
    times = answer_times([("numeric", 20.0), ("numeric", 40.0), ("numeric", 5000.0), ("choice", 3.0)])
    assert times["numeric"].own and times["numeric"].answers == 3
    assert times["numeric"].seconds == 40.0  # the median; a walk-away answer counts as LONGEST_ANSWER
    assert not times["choice"].own and times["choice"].seconds == DEFAULT_SECONDS["choice"]
    assert answer_times([("code", 9999.0)] * 3)["code"].seconds == LONGEST_ANSWER_SECONDS


def test_minutes_a_day_follow_the_learners_own_pace(store: Store) -> None:
    slow = answer_times([(k, 2 * s) for k, s in DEFAULT_SECONDS.items() for _ in range(3)])
    plain = timed_plan(store, date(2026, 11, 27))
    doubled = timed_plan(store, date(2026, 11, 27), times=slow)
    assert plain.minutes_per_day > 0 and plain.minutes_needed == plain.minutes_per_day
    reading = timed_plan(
        store, date(2026, 11, 27), times=answer_times([(k, 0.0) for k in DEFAULT_SECONDS] * 3)
    )
    answering = plain.minutes_per_day - reading.minutes_per_day  # instant answers leave only the reading
    assert answering > 0 and reading.minutes_per_day > 0
    assert doubled.minutes_per_day == pytest.approx(reading.minutes_per_day + 2 * answering)
    assert not plain.left_out and plain.budget_minutes is None


def test_a_card_costs_its_answer_and_the_reading_of_its_feedback() -> None:
    """Fast answers (or Ctrl+O) never plan more cards than the feedback leaves time to read."""
    from quizapp.study.budget import READING_SECONDS, seconds_for

    instant = answer_times([(k, 0.0) for k in DEFAULT_SECONDS] * 3)
    for kind in DEFAULT_SECONDS:
        assert instant[kind].own and instant[kind].seconds == 0.0
        assert seconds_for(instant, kind) == READING_SECONDS[kind] > 0
        assert seconds_for({}, kind) == DEFAULT_SECONDS[kind] + READING_SECONDS[kind]


def test_a_budget_leaves_out_low_priority_decks_first_and_fits(store: Store) -> None:
    full = timed_plan(store, date(2026, 11, 27))
    budget = full.minutes_needed * 0.75
    plan = timed_plan(store, date(2026, 11, 27), budget_minutes=budget, low_priority={"deck-c"})
    assert plan.minutes_per_day <= budget and plan.minutes_needed == full.minutes_needed
    assert plan.left_out[0] == LeftOut("deck", "deck-c", "deck-c", plan.left_out[0].reason)
    assert "low priority" in plan.left_out[0].reason
    roomy = timed_plan(store, date(2026, 11, 27), budget_minutes=full.minutes_needed + 1)
    assert not roomy.left_out and roomy.minutes_per_day == full.minutes_per_day


def test_without_low_priority_decks_known_reviews_then_each_decks_hardest_new_questions_go(
    store: Store,
) -> None:
    full = timed_plan(store, date(2026, 11, 27))
    plan = timed_plan(store, date(2026, 11, 27), budget_minutes=full.minutes_needed * 0.6)
    assert plan.left_out and all(i.kind == "question" for i in plan.left_out)
    assert plan.minutes_per_day <= full.minutes_needed * 0.6
    reasons = [i.reason.split(":")[0] for i in plan.left_out]
    stages = [r.split(",")[0] for r in reasons]
    assert stages == sorted(stages, key=["already known", "new", "review"].index), stages
    new = [i for i in plan.left_out if i.reason.startswith("new")]
    assert new and KINDS[new[0].id].difficulty == 3
    for item in new:  # a deck keeps its basics: what it leaves out is at least as hard as what it keeps
        kept = [KINDS[q].difficulty for q in plan.order if q[0] == item.id[0]]
        assert kept and max(kept) <= KINDS[item.id].difficulty, (item, plan.order)
    assert plan.new_per_day <= full.new_per_day


def test_what_a_budget_leaves_out_reads_the_same_by_index_slice_and_loop(store: Store) -> None:
    full = timed_plan(store, date(2026, 11, 27))
    plan = timed_plan(
        store, date(2026, 11, 27), budget_minutes=full.minutes_needed * 0.3, low_priority={"deck-c"}
    )
    items = list(plan.left_out)  # the questions' LeftOut are made as they are read
    assert items[0].kind == "deck" and any(i.kind == "question" for i in items)
    assert len(plan.left_out) == len(items)
    assert [plan.left_out[i] for i in range(len(items))] == items
    assert plan.left_out[-1] == items[-1] and plan.left_out[1:3] == tuple(items[1:3])
    assert plan.left_out == tuple(items) and hash(plan.left_out) == hash(tuple(items))
    with pytest.raises(IndexError):
        plan.left_out[len(items)]


def test_a_zero_budget_leaves_everything_out() -> None:
    work = [Work(f"q{i}", "d", 1 + i % 3, i % 2 == 0, 60.0, 0.9 if i % 2 else 0.0) for i in range(10)]
    kept, left = triage(work, days=3, budget_minutes=0, low_priority=())
    assert not kept and len(left) == 10
    first = left[0]
    assert (
        first.id == "q3" and first.reason == "already known: 90% on the day without a review (difficulty 1)"
    )
    kept, left = triage(work, days=3, budget_minutes=1, low_priority=())
    planned = sum(w.seconds for w in kept)  # the work's priced seconds, not a measured time
    budget = 1 * 60 * 3  # one minute a day for three days
    assert planned <= budget and left


def test_the_learners_recent_answer_times_come_from_the_store(store: Store) -> None:
    times = recent_answer_times(store)
    assert sorted(times) == sorted([("a1", 1000), ("a1", 1000), ("a2", 1000), ("b1", 1000)])
    assert len(recent_answer_times(store, limit=2)) == 2


def test_cli_plan_fits_a_budget_and_names_what_it_leaves_out(capsys: pytest.CaptureFixture[str]) -> None:
    day = (datetime.now().astimezone().date() + timedelta(days=5)).isoformat()
    assert main(["plan", "--date", day, "--minutes", "60", "--low-priority", "code", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert 0 < doc["minutes_per_day"] <= 60 and doc["budget_minutes"] == 60
    assert doc["left_out"][0] == {"kind": "deck", "id": "code", "deck_id": "code", "reason": ANY_TEXT}
    assert all(item["id"] and item["reason"] for item in doc["left_out"])
    assert len({item["id"] for item in doc["left_out"]}) == len(doc["left_out"]) > 1  # every one, once
    assert doc["low_priority_decks"] == ["code"]
    with open_store(None, now=NOW) as opened:
        settings = load_settings(opened)
        assert settings.daily_minutes == 60 and settings.low_priority_decks == ("code",)
    assert main(["plan"]) == 0
    text = capsys.readouterr().out
    assert "Left out to fit the budget" in text and "min a day" in text
    assert max(len(line) for line in text.splitlines()) <= 80
    time_part = re.sub(r"[ \n]+", " ", text[text.index("  Time ") : text.index("  Budget ")])  # not NBSP
    # nothing answered yet: every kind's time is a guess, and the text says so (not "your answer times")
    assert "your pace" not in time_part and "a first guess until you answer 3 of a kind" in time_part
    assert "\u00a0" in time_part and "code\u00a05\u00a0min" in time_part  # a kind and its time never split
    assert main(["plan", "--normal-priority", "code", "--minutes", "0", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["left_out"] == [] and doc["budget_minutes"] is None and doc["low_priority_decks"] == []


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--date", ""], "YYYY-MM-DD"),
        (["--date", "   "], "YYYY-MM-DD"),
        (["--date", "2001-01-01"], "already passed"),
        (["--low-priority", "no-such-deck"], "no deck 'no-such-deck'"),
    ],
)
def test_cli_plan_refuses_bad_input_with_exit_2(
    args: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["plan", *args]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def test_a_past_interview_date_is_refused_by_the_settings_check_too(store: Store) -> None:
    today = date(2026, 11, 24)
    assert check_interview_date("", today) == "" and check_interview_date("2026-11-24", today) == "2026-11-24"
    with pytest.raises(QuizappError, match="already passed"):
        check_interview_date("2026-11-23", today)
    with pytest.raises(QuizappError, match="already passed"):
        save_settings(store, replace(load_settings(store), interview_date="2026-11-01"), today=today)
    assert load_settings(store).interview_date == ""
    saved = save_settings(store, replace(load_settings(store), interview_date="2026-12-01"), today=today)
    assert saved.interview_date == "2026-12-01"


class _AnyText(str):
    def __eq__(self, other: object) -> bool:
        return isinstance(other, str) and bool(other)

    __hash__ = str.__hash__


ANY_TEXT = _AnyText()


def test_with_a_budget_study_home_and_stats_take_the_plans_new_cards_a_day(tmp_path: Path) -> None:
    refs = QuestionSet.of(QuestionRef(f"q{i:02d}", f"deck-{i % 3}", 1 + i % 3) for i in range(90))
    decks = [DeckRef(f"deck-{d}", f"Deck {d}", tuple(f"q{i:02d}" for i in range(d, 90, 3))) for d in range(3)]
    kinds = {r.question_id: PlanQuestion(("numeric", "code", "flashcard")[i % 3], r.difficulty)
             for i, r in enumerate(refs.ordered)}  # fmt: skip
    clock = lambda: NOW  # noqa: E731
    with open_store(tmp_path / "progress.db", now=NOW) as store:
        save_setting(store, "new_per_day", 5)
        save_setting(store, "interview_date", (NOW + timedelta(days=3)).date().isoformat())
        save_setting(store, "daily_minutes", 30)
        plan = interview_plan(store, decks, now=NOW, questions=kinds)
        assert plan is not None and plan.left_out, "the budget leaves cards out"
        assert 0 < plan.new_per_day < 30, "fewer than ceil(90 unseen / 3 days)"
        session = StudySession.start(
            _Source(), store, refs, mode="study", clock=clock, rng=random.Random(1), plan_questions=kinds
        )
        assert session.new_per_day == plan.new_per_day
        assert session.counts().new == plan.new_per_day == session.progress().left
        home = build_overview(store, decks, now=NOW, questions=kinds)
        assert home.counts == session.counts()
        stats = compute_stats(store, now=NOW, decks=decks, questions=kinds)
        assert stats.counts == session.counts()
        save_setting(store, "daily_minutes", 0)
        unbudgeted = StudySession.start(
            _Source(), store, refs, mode="study", clock=clock, rng=random.Random(1), plan_questions=kinds
        )
        assert unbudgeted.new_per_day == 30, "with no budget, as before: ceil(90 unseen / 3 days)"
