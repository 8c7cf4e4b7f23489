"""The mock interview without a screen: seeded question choice, the countdown on an injected clock, silent
grading with every answer saved at once, skip and flag, time up, and the report that can be reopened."""

from __future__ import annotations

import random
import sqlite3
from collections.abc import Iterator
from contextlib import closing
from dataclasses import fields
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import settings as hsettings
from hypothesis import strategies as st

from quizapp.content.catalog import Catalog, load_catalog
from quizapp.errors import QuizappError
from quizapp.interview.report import ReportItem, summary_line
from quizapp.interview.session import TIME_UP, InterviewSession, Saved, format_clock, open_report
from quizapp.interview.setup import (
    DIFFICULTY_MIXES,
    candidates,
    choose,
    config_from_settings,
    parse_count,
    parse_tags,
    setup_defaults,
)
from quizapp.store import (
    InterviewConfig,
    Settings,
    Store,
    get_card,
    load_interview,
    open_store,
    reviews_for,
    save_setting,
)
from quizapp.store.interviews import list_interviews
from quizapp.study import QuestionSet
from quizapp.study.session import Unreadable
from tests.tui.interview_helpers import right_answer, wrong_answer

DECKS = Path(__file__).parent / "tui" / "interview_decks"
T0 = datetime(2025, 3, 3, 9, 30, tzinfo=UTC)


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    loaded = load_catalog([DECKS], include_default=False, use_cache=False)
    assert not loaded.skipped, loaded.skipped
    return loaded


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    with open_store(tmp_path / "progress.db", now=T0) as opened:
        yield opened


def _start(catalog: Catalog, store: Store, seed: int = 1, **config: object) -> InterviewSession:
    cfg = InterviewConfig(**{"questions": 5, "minutes": 10, **config})  # type: ignore[arg-type]
    return InterviewSession.start(
        catalog, store, QuestionSet.from_catalog(catalog), cfg, rng=random.Random(seed), now=T0
    )


def test_the_same_seed_asks_the_same_questions_with_the_same_numbers(catalog: Catalog, store: Store) -> None:
    a, b = _start(catalog, store, seed=3), _start(catalog, store, seed=3)
    assert [(inst.question_id, inst.seed) for _, inst in a.plan] == [
        (inst.question_id, inst.seed) for _, inst in b.plan
    ]
    assert a.id != b.id  # two saved interviews


def test_interviews_never_ask_flashcards_and_ask_easier_questions_first(
    catalog: Catalog, store: Store
) -> None:
    session = _start(catalog, store, questions=50)
    kinds = {inst.kind for _, inst in session.plan}
    assert "flashcard" not in kinds
    assert len(session.plan) == len(candidates(catalog, QuestionSet.from_catalog(catalog), session.config))
    difficulties = [inst.difficulty for _, inst in session.plan]
    assert difficulties == sorted(difficulties)
    assert session.config.questions == len(session.plan)  # the saved set-up says how many were asked


def test_tags_and_decks_narrow_the_questions(catalog: Catalog, store: Store) -> None:
    session = _start(catalog, store, tags=("kv-cache", "shapes"))
    assert {inst.question_id for _, inst in session.plan} == {"mock-kv-cache", "mock-scores-shape"}
    with pytest.raises(QuizappError, match="no-such-tag"):
        _start(catalog, store, tags=("no-such-tag",))
    with pytest.raises(QuizappError, match="Unknown deck"):
        _start(catalog, store, deck_ids=("nope",))


@pytest.mark.parametrize(
    "config",
    [
        {"questions": 0},
        {"minutes": 0},
        {"minutes": 601},
        {"difficulty_mix": (1, 1)},
        {"difficulty_mix": (0, 0, 0)},
    ],
)
def test_impossible_set_ups_are_refused_with_a_message(
    catalog: Catalog, store: Store, config: dict[str, object]
) -> None:
    with pytest.raises(QuizappError):
        _start(catalog, store, **config)


def test_the_set_up_starts_from_the_users_interview_settings() -> None:
    config = config_from_settings(Settings(interview_questions=7, interview_minutes=20))
    assert (config.questions, config.minutes, config.update_schedule) == (7, 20, False)
    assert parse_tags("kv-cache, GQA  kv-cache") == ("kv-cache", "gqa")
    assert parse_count(" 12 ", "minutes", 1, 60) == 12
    with pytest.raises(QuizappError, match="whole number"):
        parse_count("ten", "minutes", 1, 60)


def test_the_countdown_runs_on_the_injected_clock(catalog: Catalog, store: Store) -> None:
    session = _start(catalog, store, minutes=2)
    assert session.countdown(T0) == "2:00"
    assert session.countdown(T0 + timedelta(seconds=0.5)) == "2:00"  # rounded up: 0:00 only when it is up
    assert session.countdown(T0 + timedelta(seconds=61)) == "0:59"
    assert not session.time_up(T0 + timedelta(seconds=119))
    assert session.time_up(T0 + timedelta(minutes=2))
    assert format_clock(0) == "0:00"


def test_answers_are_saved_silently_as_they_are_given(catalog: Catalog, store: Store) -> None:
    session = _start(catalog, store, seed=5)
    first = session.current
    assert first is not None
    assert first.instance.kind != "explain"  # easiest first: the explain question is the hardest
    unread = session.submit("a lot??", now=T0 + timedelta(seconds=5))
    assert isinstance(unread, Unreadable)
    assert not load_interview(store, session.id).answers  # nothing saved for unreadable text
    saved = session.submit(right_answer(first.instance), now=T0 + timedelta(seconds=40))
    assert isinstance(saved, Saved) and saved.next is not None
    assert not hasattr(saved, "correct")  # no feedback during the run
    stored = load_interview(store, session.id).answers
    assert len(stored) == 1 and stored[0].seconds == 40.0
    assert stored[0].correct
    assert saved.next.shown_at == T0 + timedelta(seconds=40)


def test_an_answer_and_its_review_are_saved_together_or_not_at_all(catalog: Catalog, store: Store) -> None:
    session = _start(catalog, store, seed=5)
    first = session.current
    assert first is not None
    before = len(reviews_for(store, first.instance.question_id))
    with closing(sqlite3.connect(store.path)) as other:  # the interview row vanishes under the session
        other.execute("DELETE FROM interviews WHERE id = ?", (session.id,))
        other.commit()
    with pytest.raises(QuizappError, match="no saved interview"):
        session.submit(right_answer(first.instance), now=T0 + timedelta(seconds=40))
    assert len(reviews_for(store, first.instance.question_id)) == before, "the review was rolled back too"


def test_skip_flag_and_time_up_end_up_in_the_report(catalog: Catalog, store: Store) -> None:
    session = _start(catalog, store, seed=2, minutes=5)
    t = T0
    asked = [inst for _, inst in session.plan]
    numeric = [i for i, inst in enumerate(asked) if inst.kind in ("numeric", "tensor") and inst.derivation]
    assert numeric, "the frozen deck has numeric questions"
    # answer everything before the first numeric question right, flag and skip it, then time runs out
    for inst in asked[: numeric[0]]:
        t += timedelta(seconds=30)
        assert isinstance(session.submit(right_answer(inst), now=t), Saved)
    assert session.toggle_flag() is True
    t += timedelta(seconds=10)
    session.skip(now=t)
    open_question = session.current
    assert open_question is not None
    typed = wrong_answer(open_question.instance) if open_question.instance.derivation else "12"
    session.end(typed, now=T0 + timedelta(minutes=6))
    report = session.finish(now=T0 + timedelta(minutes=6))

    items = report.items
    skipped = items[numeric[0]]
    assert skipped.skipped and skipped.flagged and skipped.outcome == "skipped"
    last = items[-1]
    assert last.answer == typed and not last.correct
    assert last.seconds == pytest.approx((session.deadline - open_question.shown_at).total_seconds())
    assert report.not_reached == len(asked) - len(items)
    assert report.finished_at is not None
    expected_right = sum(1 for inst in asked[: numeric[0]] if inst.kind != "explain")
    assert report.correct == expected_right
    # each question carries its expected answer and, for numbers, the engine's derivation
    for item, inst in zip(items, asked, strict=False):
        assert item.prompt == inst.prompt
        if inst.kind in ("numeric", "shape"):
            assert item.derivation_text == inst.derivation.to_text()  # type: ignore[union-attr]
            assert item.expected == inst.expected_text()


def test_a_wrong_number_is_diagnosed_in_the_report(catalog: Catalog, store: Store) -> None:
    session = _start(catalog, store, tags=("kv-cache",))
    asked = session.current
    assert asked is not None
    inst = asked.instance
    wrong = wrong_answer(inst)
    session.submit(wrong, now=T0 + timedelta(seconds=20))
    report = session.finish(now=T0 + timedelta(seconds=20))
    item = report.items[0]
    from quizapp.grading import grade

    verdict = grade(inst, wrong)
    assert item.diagnosis == verdict.diagnosis and item.diagnosis
    assert item.astray_step == verdict.step
    assert report.headline == "0/1 right (0%)"
    assert [(t.topic, t.correct, t.scored) for t in report.topics] == [("mock-interview", 0, 1)]


def test_time_up_with_nothing_typed_counts_as_not_answered(catalog: Catalog, store: Store) -> None:
    session = _start(catalog, store, minutes=1)
    session.end("", now=T0 + timedelta(minutes=1))
    report = session.finish(now=T0 + timedelta(minutes=1))
    assert report.items[0].skipped and report.items[0].diagnosis == TIME_UP
    assert report.items[0].outcome == "no answer"
    assert report.items[0].seconds == 60.0


def test_reviews_are_logged_and_the_schedule_moves_only_when_chosen(catalog: Catalog, store: Store) -> None:
    for update in (False, True):
        session = _start(catalog, store, tags=("parameters",), update_schedule=update)
        asked = session.current
        assert asked is not None
        session.submit(right_answer(asked.instance), now=T0 + timedelta(seconds=30))
        reviews = reviews_for(store, "mock-parameters")
        assert reviews[-1].mode == "interview" and reviews[-1].correct
        card = get_card(store, "mock-parameters")
        assert card is not None
        assert (card.due is not None) == update


def test_a_question_never_answered_is_scheduled_good_at_most_and_easy_once_on_record(
    catalog: Catalog, store: Store
) -> None:
    """With the schedule updated, a fast right first answer must not send a card met for the first time
    days away (Easy); once an answer is on record, a fast right answer may be Easy again."""
    due_after = []
    for n, seed in enumerate((1, 2)):
        t = T0 + timedelta(days=30 * n)
        config = InterviewConfig(questions=5, minutes=10, tags=("parameters",), update_schedule=True)
        questions = QuestionSet.from_catalog(catalog)
        session = InterviewSession.start(catalog, store, questions, config, rng=random.Random(seed), now=t)
        asked = session.current
        assert asked is not None and asked.instance.question_id == "mock-parameters"
        answered = t + timedelta(seconds=2)  # well under a third of the target time: Easy if not new
        assert isinstance(session.submit(right_answer(asked.instance), now=answered), Saved)
        card = get_card(store, "mock-parameters")
        assert card is not None and card.due is not None
        due_after.append(card.due - answered)
    ratings = [r.rating for r in reviews_for(store, "mock-parameters")]
    assert ratings == [3, 4]
    assert due_after[0] < timedelta(days=1) < due_after[1]  # Good: a learning step; Easy: days away


def test_a_saved_interview_reopens_with_the_same_report(
    catalog: Catalog, store: Store, tmp_path: Path
) -> None:
    session = _start(catalog, store, seed=9)
    t = T0
    for _ in range(3):
        asked = session.current
        assert asked is not None
        t += timedelta(seconds=25)
        session.submit(right_answer(asked.instance), now=t)
    report = session.finish(now=t)
    store.close()
    with open_store(tmp_path / "progress.db", now=t) as again:
        reopened = open_report(again, catalog, session.id)
    assert [_plain(i) for i in reopened.items] == [_plain(i) for i in report.items]
    assert (reopened.score_text, reopened.topics, reopened.title) == (
        report.score_text,
        report.topics,
        report.title,
    )


def _plain(item: ReportItem) -> tuple[object, ...]:
    """A report item without its Derivation object (rebuilt on reopening, so a different object)."""
    return (*(getattr(item, f.name) for f in fields(item) if f.name != "derivation"), item.derivation_text)


@hsettings(max_examples=100)
@given(
    count=st.integers(1, 8),
    mix=st.sampled_from(sorted(DIFFICULTY_MIXES.values())),
    seed=st.integers(0, 2**31 - 1),
)
def test_choose_picks_distinct_questions_easiest_first(
    catalog: Catalog, count: int, mix: tuple[int, ...], seed: int
) -> None:
    pool = QuestionSet.from_catalog(catalog)
    chosen = choose(pool, count, mix, random.Random(seed))
    assert len(chosen) == min(count, len(pool))
    assert len({r.question_id for r in chosen}) == len(chosen)
    assert [r.difficulty for r in chosen] == sorted(r.difficulty for r in chosen)


def test_an_interview_asks_at_most_one_coding_question_and_grades_it(store: Store) -> None:
    from engine.exercises import EXERCISES

    bank = load_catalog(use_cache=False)
    questions = QuestionSet.from_catalog(bank)
    cfg = InterviewConfig(questions=12, minutes=30, deck_ids=("code", "dimensions"))
    coding = []
    for seed in range(6):
        session = InterviewSession.start(bank, store, questions, cfg, rng=random.Random(seed), now=T0)
        coding.append([inst for _, inst in session.plan if inst.kind == "code"])
    assert all(len(found) <= 1 for found in coding) and any(coding)
    seed = next(i for i, found in enumerate(coding) if found)
    session = InterviewSession.start(bank, store, questions, cfg, rng=random.Random(seed), now=T0)
    while (asked := session.current) is not None:
        inst = asked.instance
        answer = EXERCISES[inst.exercise].solution if inst.kind == "code" else ""
        if inst.kind == "code":
            assert not isinstance(session.submit(answer, now=T0 + timedelta(minutes=1)), Unreadable)
        else:
            session.skip(now=T0 + timedelta(minutes=1))
    report = session.finish(now=T0 + timedelta(minutes=2))
    graded = [item for item in report.items if item.kind == "code"]
    assert len(graded) == 1 and graded[0].outcome == "right"


# -- report and history agree; set-up remembered; misses to review; rounded answers; coding question ----


def test_the_report_and_the_history_agree_on_answered_skipped_and_right(
    catalog: Catalog, store: Store
) -> None:
    session = _start(catalog, store, seed=4, questions=5)
    t = T0
    kinds = []
    while (asked := session.current) is not None:
        inst = asked.instance
        kinds.append(inst.kind)
        t += timedelta(seconds=20)
        n = asked.number
        if n == 2:
            session.skip(now=t)
        elif inst.kind == "explain":
            session.submit("Heads attend to different subspaces.", now=t)
        elif n % 2:
            session.submit(right_answer(inst), now=t)
        else:
            session.submit(wrong_answer(inst), now=t)
    report = session.finish(now=t)
    assert "explain" in kinds, "the frozen deck's explain question is asked: it is not scored"
    (summary,) = list_interviews(store)
    assert (summary.answered, summary.skipped, summary.correct, summary.scored) == (
        report.answered,
        report.skipped,
        report.correct,
        report.scored,
    )
    assert report.answered == 4 and report.skipped == 1, "a skip is not an answer"
    _, answered, right, _ = summary_line(summary)
    assert answered == "4/5, 1 skipped"
    assert right == report.headline.replace(" right", "")
    assert f"{report.answered} answered" in report.score_text and "1 skipped" in report.score_text


def test_the_set_up_form_starts_from_the_last_set_up(catalog: Catalog, store: Store) -> None:
    assert setup_defaults(store) == config_from_settings(Settings())
    _start(catalog, store, questions=3, minutes=12, tags=("kv-cache", "parameters"), difficulty_mix=(1, 1, 1))
    last = setup_defaults(store)
    assert (last.questions, last.minutes, last.tags, last.difficulty_mix) == (
        3,
        12,
        ("kv-cache", "parameters"),
        (1, 1, 1),
    )
    assert last.seed == 0 and last.misses_to_review is True


def test_a_miss_goes_to_review_unless_the_setting_is_off(catalog: Catalog, store: Store) -> None:
    for qid in ("mock-kv-cache", "mock-parameters"):
        assert get_card(store, qid) is None
    session = _start(catalog, store, tags=("kv-cache",), questions=1)
    asked = session.current
    assert asked is not None
    session.submit(wrong_answer(asked.instance), now=T0 + timedelta(seconds=30))
    card = get_card(store, "mock-kv-cache")
    assert card is not None and card.due is not None and card.due <= T0 + timedelta(minutes=2)
    assert reviews_for(store, "mock-kv-cache")[-1].scheduled
    skipped = _start(catalog, store, tags=("parameters",), questions=1)
    skipped.skip(now=T0 + timedelta(seconds=40))
    card = get_card(store, "mock-parameters")
    assert (
        card is not None
        and card.due == T0 + timedelta(seconds=40)
        and not reviews_for(store, "mock-parameters")
    )
    save_setting(store, "interview_misses_to_review", False)
    kept = _start(catalog, store, tags=("shapes",), questions=1)
    asked = kept.current
    assert asked is not None and kept.config.misses_to_review is False
    kept.submit("(1, 1)", now=T0 + timedelta(seconds=50))
    assert get_card(store, "mock-scores-shape") is None or get_card(store, "mock-scores-shape").due is None  # type: ignore[union-attr]


def test_an_exact_integer_rounded_to_three_figures_is_right_in_an_interview_only(
    catalog: Catalog, store: Store
) -> None:
    from quizapp.grading import grade

    inst = catalog.instance("mock-parameters", 1)
    assert inst.expected == 1_048_576
    for text in ("1.05M", "1.05e6", "1.05 M"):
        study = grade(inst, text, seconds=5)
        assert not study.correct, "study keeps its tolerance"
        verdict = grade(inst, text, seconds=5, interview=True)
        assert verdict.correct and verdict.rating == 3 and "1,048,576" in verdict.message
        assert verdict.reason.startswith("Good: right to 3 significant figures")
    assert not grade(inst, "1.1M", seconds=5, interview=True).correct
    assert grade(inst, "1048576", seconds=5, interview=True).rating == 4  # exact, fast, seen: as before
    session = _start(catalog, store, tags=("parameters",), questions=1)
    asked = session.current
    assert asked is not None and isinstance(asked.instance.expected, int)
    rounded = f"{asked.instance.expected:.2e}"  # 3 significant figures, as 1.05e+06
    assert float(rounded) != asked.instance.expected
    session.submit(rounded, now=T0 + timedelta(seconds=20))
    report = session.finish(now=T0 + timedelta(seconds=20))
    assert report.items[0].correct and report.headline == "1/1 right (100%)"
    assert reviews_for(store, "mock-parameters")[-1].rating == 3


def test_an_interview_of_six_or_more_asks_one_coding_question_when_its_deck_is_chosen(store: Store) -> None:
    bank = load_catalog(use_cache=False)
    questions = QuestionSet.from_catalog(bank)
    for seed in range(8):
        for count, want in ((6, 1), (12, 1), (5, None)):
            cfg = InterviewConfig(questions=count, minutes=30, deck_ids=("code", "dimensions", "parameters"))
            session = InterviewSession.start(bank, store, questions, cfg, rng=random.Random(seed), now=T0)
            coding = [inst for _, inst in session.plan if inst.kind == "code"]
            if want is None:
                assert len(coding) <= 1
            else:
                assert len(coding) == want, (seed, count)
            assert [inst.difficulty for _, inst in session.plan] == sorted(
                i.difficulty for _, i in session.plan
            )
    cfg = InterviewConfig(questions=8, minutes=30, deck_ids=("dimensions",))
    session = InterviewSession.start(bank, store, questions, cfg, rng=random.Random(1), now=T0)
    assert not [inst for _, inst in session.plan if inst.kind == "code"]
