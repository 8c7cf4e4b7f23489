"""The study session state machine: answers are saved before feedback, each hint rung lowers the best
rating, flashcards show their intervals, explain answers wait for their key points, and broken questions
never end a session."""

from __future__ import annotations

import random
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from quizapp.content.catalog import Catalog, load_catalog
from quizapp.content.instance import Instance
from quizapp.content.units import to_display
from quizapp.errors import QuizappError
from quizapp.store import Store, open_store, review_count, reviews_for
from quizapp.study import QuestionSet, fresh_seed, make_scheduler, preview_intervals
from quizapp.study.session import ExplainPending, Feedback, StudySession, Unreadable
from quizapp.study.session_state import UNDO_LIMIT

T0 = datetime(2025, 3, 3, 9, 30, tzinfo=UTC)


class Clock:
    """A clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = T0

    def __call__(self) -> datetime:
        return self.now

    def tick(self, seconds: float) -> None:
        self.now += timedelta(seconds=seconds)


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    return load_catalog(use_cache=False)


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    with open_store(tmp_path / "p.db", now=T0) as opened:
        yield opened


def _all(catalog: Catalog, kind: str) -> list[str]:
    return sorted(q for q in catalog.questions if catalog.questions[q].type == kind)


def _first(catalog: Catalog, kind: str, *, with_misconception: bool = False) -> str:
    for qid in sorted(catalog.questions):
        if catalog.questions[qid].type != kind:
            continue
        inst = catalog.instance(qid, 1)
        if with_misconception and not (inst.derivation and inst.derivation.misconceptions):
            continue
        return qid
    raise AssertionError(f"the bank has no {kind} question")


def _drill(catalog: Catalog, store: Store, qid: str, clock: Clock, seed: int = 3) -> StudySession:
    return StudySession.start(
        catalog,
        store,
        QuestionSet.from_catalog(catalog),
        mode="drill",
        clock=clock,
        rng=random.Random(seed),
        question_ids=(qid,),
        fuzzing=False,
    )


def _right_answer(inst: Instance) -> str:
    return inst.expected_text()


def test_a_right_answer_is_saved_before_the_feedback_comes_back(catalog: Catalog, store: Store) -> None:
    qid = _first(catalog, "numeric")
    clock = Clock()
    session = _drill(catalog, store, qid, clock)
    card = session.current
    assert card is not None
    clock.tick(5)
    result = session.submit(_right_answer(card.instance))
    assert isinstance(result, Feedback) and result.verdict.correct
    saved = reviews_for(store, qid)
    assert [r.id for r in saved] == [result.review_id]
    assert saved[0].seed == card.instance.seed and saved[0].mode == "drill" and saved[0].duration_ms == 5000
    assert session.progress().done == 1 and session.progress().left is None


def test_a_known_misconception_is_diagnosed_and_saved(catalog: Catalog, store: Store) -> None:
    qid = _first(catalog, "numeric", with_misconception=True)
    session = _drill(catalog, store, qid, Clock())
    inst = session.current.instance if session.current else None
    assert inst is not None and inst.derivation is not None
    wrong = next(m for m in inst.derivation.misconceptions if m.value != inst.expected)
    assert isinstance(wrong.value, (int, float))
    result = session.submit(repr(to_display(wrong.value, inst.unit)))
    assert isinstance(result, Feedback)
    assert not result.verdict.correct and result.rating == 1
    assert result.verdict.diagnosis_id is not None
    assert reviews_for(store, qid)[0].diagnosis_id == result.verdict.diagnosis_id


@pytest.mark.parametrize("rungs", [1, 2, 3])
def test_each_rung_of_the_hint_ladder_lowers_the_best_rating_by_one(
    catalog: Catalog, store: Store, rungs: int
) -> None:
    qid = next(
        q
        for q in _all(catalog, "numeric")
        if len(catalog.instance(q, 0).derivation.steps) > 1  # type: ignore[union-attr]
    )
    session = _drill(catalog, store, qid, Clock())
    card = session.current
    assert card is not None and card.instance.derivation is not None
    steps = card.instance.derivation.steps
    hints = [session.hint() for _ in range(rungs)]
    assert [h.rung for h in hints if h] == list(range(1, rungs + 1))
    assert steps[0].formula in hints[0].text and steps[0].substituted not in hints[0].text.split(": ", 1)[1]
    if rungs == 3:
        assert all(s.substituted in hints[2].text for s in steps[:-1]) and session.hint() is None
    result = session.submit(_right_answer(card.instance))  # 0 seconds: Easy without hints
    assert isinstance(result, Feedback) and result.verdict.correct
    assert result.rating == {1: 3, 2: 2, 3: 1}[rungs] == [4, 3, 2, 1][rungs]
    assert hints[-1] is not None and hints[-1].cap == {1: "Good", 2: "Hard", 3: "Again"}[rungs]


def test_an_unreadable_answer_is_not_saved_and_can_be_fixed(catalog: Catalog, store: Store) -> None:
    qid = _first(catalog, "numeric")
    session = _drill(catalog, store, qid, Clock())
    assert isinstance(session.submit("about a lot"), Unreadable)
    assert review_count(store) == 0 and not session.answered
    card = session.current
    assert card is not None
    assert isinstance(session.submit(_right_answer(card.instance)), Feedback)


def test_flashcard_ratings_show_fsrs_intervals_in_study_mode(catalog: Catalog, store: Store) -> None:
    qid = _first(catalog, "flashcard")
    questions = QuestionSet.from_catalog(catalog).select(question_ids=[qid])
    session = StudySession.start(
        catalog, store, questions, mode="study", clock=Clock(), rng=random.Random(1), fuzzing=False
    )
    choices = session.reveal()
    expected = preview_intervals(None, make_scheduler(fuzzing=False), now=T0)
    assert [c.interval for c in choices] == [p.label for p in expected]
    result = session.rate(3)
    assert result.scheduled and result.rating == 3 and result.verdict.correct
    assert reviews_for(store, qid)[0].rating == 3
    assert session.advance() is None and session.finished  # the only card is scheduled for later


def test_explain_waits_for_key_points_and_escape_still_saves_it(catalog: Catalog, store: Store) -> None:
    qid = _first(catalog, "explain")
    session = _drill(catalog, store, qid, Clock())
    pending = session.submit("Sharing K and V heads shrinks the cache.")
    assert isinstance(pending, ExplainPending) and pending.key_points
    assert review_count(store) == 0
    session.tick([0])
    saved = session.close()
    assert saved is not None and saved.covered == (0,)
    assert reviews_for(store, qid)[0].answer == "Sharing K and V heads shrinks the cache."


def test_all_key_points_ticked_rates_the_explanation_as_known(catalog: Catalog, store: Store) -> None:
    qid = _first(catalog, "explain")
    session = _drill(catalog, store, qid, Clock())
    pending = session.submit("My answer")
    assert isinstance(pending, ExplainPending)
    result = session.finish_explain(range(len(pending.key_points)))
    assert result.verdict.correct and result.rating >= 3


def test_instance_seeds_come_from_the_injected_rng(catalog: Catalog, store: Store) -> None:
    session = StudySession.start(
        catalog,
        store,
        QuestionSet.from_catalog(catalog),
        mode="cram",
        clock=Clock(),
        rng=random.Random(42),
        fuzzing=False,
    )
    assert session.current is not None
    assert session.current.instance.seed == fresh_seed(random.Random(42))


def test_a_question_that_cannot_be_built_is_skipped_and_reported(catalog: Catalog, store: Store) -> None:
    ids = sorted(catalog.questions)[:2]

    class Broken:
        def instance(self, question_id: str, seed: int) -> Instance:
            if question_id == ids[0]:
                raise QuizappError("template failed")
            return catalog.instance(question_id, seed)

    questions = QuestionSet.from_catalog(catalog).select(question_ids=ids)
    session = StudySession.start(
        Broken(), store, questions, mode="cram", clock=Clock(), rng=random.Random(0), fuzzing=False
    )
    shown = []
    while session.current is not None:
        shown.append(session.current.instance.question_id)
        session.advance()
    assert shown == [ids[1]]
    assert len(session.problems) == 1 and ids[0] in session.problems[0]


def test_an_empty_selection_is_refused_with_a_message(catalog: Catalog, store: Store) -> None:
    with pytest.raises(QuizappError, match="No question"):
        StudySession.start(
            catalog,
            store,
            QuestionSet.from_catalog(catalog),
            mode="drill",
            clock=Clock(),
            rng=random.Random(0),
            question_ids=("no-such-question",),
        )


# ---------------------------------------------------------------------------- grade yourself, undo


def _study(catalog: Catalog, store: Store, qids: list[str], clock: Clock) -> StudySession:
    questions = QuestionSet.from_catalog(catalog).select(question_ids=qids)
    return StudySession.start(
        catalog, store, questions, mode="study", clock=clock, rng=random.Random(1), fuzzing=False
    )


def _card_row(store: Store, qid: str) -> tuple[object, ...] | None:
    """The card's stored row, column by column: what "exactly as before" is checked against."""
    row = store.conn.execute("SELECT * FROM cards WHERE question_id = ?", (qid,)).fetchone()
    return None if row is None else tuple(row)


def test_the_suggested_rating_comes_with_every_ratings_interval_and_can_be_overridden(
    catalog: Catalog, store: Store
) -> None:
    qid = _first(catalog, "numeric")
    clock = Clock()
    session = _study(catalog, store, [qid], clock)
    card = session.current
    assert card is not None
    clock.tick(20)
    feedback = session.submit(_right_answer(card.instance))
    assert isinstance(feedback, Feedback) and feedback.verdict.correct
    expected = preview_intervals(None, make_scheduler(fuzzing=False), now=clock.now)
    assert [c.interval for c in feedback.choices] == [p.label for p in expected]
    assert feedback.suggested == feedback.rating and session.can_override
    again = session.override(1)
    assert again.rating == 1 and again.next_interval == feedback.choices[0].interval
    reviews = reviews_for(store, qid)
    assert [r.rating for r in reviews] == [1]  # re-rated in place: one review, not two
    assert reviews[0].reviewed_at == clock.now and review_count(store) == 1
    easy = session.override(4)
    assert easy.next_interval == feedback.choices[3].interval
    assert [r.rating for r in reviews_for(store, qid)] == [4]


@pytest.mark.parametrize("kind", ["numeric", "flashcard"])
def test_undo_restores_the_card_byte_for_byte_and_asks_the_question_again(
    catalog: Catalog, store: Store, kind: str
) -> None:
    qids = _all(catalog, kind)[:2]
    clock = Clock()
    session = _study(catalog, store, qids, clock)
    first = session.current
    assert first is not None
    qid = first.instance.question_id
    # a first review of a new card: after undo the question has no card row at all, as before
    before_first = _card_row(store, qid)
    saved = session.rate(3) if kind == "flashcard" else session.submit(_right_answer(first.instance))
    assert isinstance(saved, Feedback) and review_count(store) == 1
    back = session.undo()
    assert back.instance.question_id == qid and back.instance.seed == first.instance.seed
    assert _card_row(store, qid) == before_first and review_count(store) == 0
    assert session.progress().done == 0 and not session.can_undo
    # a second review of a card already scheduled: undo restores the scheduled row exactly
    session.rate(1) if kind == "flashcard" else session.submit("0")
    scheduled = _card_row(store, qid)
    assert scheduled is not None
    session.advance()
    clock.tick(3600)
    while session.current is not None and session.current.instance.question_id != qid:
        session.rate(3) if kind == "flashcard" else session.submit("1")
        session.advance()
    assert session.current is not None, "the card rated Again came back within the hour"
    session.rate(4) if kind == "flashcard" else session.submit(_right_answer(session.current.instance))
    assert _card_row(store, qid) != scheduled
    session.undo()
    assert _card_row(store, qid) == scheduled


def test_undo_of_an_earlier_card_puts_the_unanswered_one_back_in_line(catalog: Catalog, store: Store) -> None:
    qids = _all(catalog, "numeric")[:3]
    session = _drill_many(catalog, store, qids)
    first = session.current
    assert first is not None
    session.submit("1")
    second = session.advance()
    assert second is not None
    again = session.undo()
    assert again.instance.question_id == first.instance.question_id
    session.submit(_right_answer(again.instance))
    assert session.advance() is not None
    assert session.current is not None
    assert session.current.instance.question_id == second.instance.question_id


def test_undo_goes_back_the_last_undo_limit_answers_and_older_ones_stay_saved(
    catalog: Catalog, store: Store
) -> None:
    qids = _all(catalog, "numeric")[: UNDO_LIMIT + 3]
    assert len(qids) == UNDO_LIMIT + 3, "the bank has too few numeric questions for this test"
    session = _drill_many(catalog, store, qids)
    asked: list[str] = []
    for _ in qids:
        card = session.current
        assert card is not None
        asked.append(card.instance.question_id)
        assert isinstance(session.submit("1"), Feedback)
        session.advance()
    for expected in reversed(asked[3:]):
        assert session.can_undo
        assert session.undo().instance.question_id == expected
    assert not session.can_undo
    assert review_count(store) == 3
    assert [len(reviews_for(store, q)) for q in asked[:3]] == [1, 1, 1]


def _drill_many(catalog: Catalog, store: Store, qids: list[str]) -> StudySession:
    return StudySession.start(
        catalog,
        store,
        QuestionSet.from_catalog(catalog),
        mode="drill",
        clock=Clock(),
        rng=random.Random(5),
        question_ids=qids,
        fuzzing=False,
    )


def test_i_dont_know_shows_the_answer_and_saves_again(catalog: Catalog, store: Store) -> None:
    qid = _first(catalog, "numeric")
    session = _study(catalog, store, [qid], Clock())
    card = session.current
    assert card is not None
    feedback = session.dont_know()
    assert feedback.rating == 1 and not feedback.verdict.correct
    assert card.instance.expected_text() in feedback.verdict.message
    assert [r.rating for r in reviews_for(store, qid)] == [1]


def test_i_dont_know_on_a_flashcard_shows_its_back_as_the_answer(catalog: Catalog, store: Store) -> None:
    qid = _first(catalog, "flashcard")
    session = _study(catalog, store, [qid], Clock())
    card = session.current
    assert card is not None
    message = session.dont_know().verdict.message
    assert message.startswith(f"The answer: {card.instance.expected_text().strip()}")
    assert "model answer" not in message and "own words" not in message


def test_the_right_number_without_its_unit_or_a_little_rounded_earns_hard_not_again(
    catalog: Catalog, store: Store
) -> None:
    from quizapp.grading import grade

    qid = "kv-cache-anchor-gqa"  # 10 GiB: 10,737,418,240 bytes
    inst = catalog.instance(qid, 0)
    assert isinstance(inst.expected, int)
    bare = grade(inst, str(inst.expected), seconds=10)  # the byte count, written without "B"
    assert not bare.correct and bare.diagnosis_id == "slip-bare-number-unit" and bare.rating == 2
    shown = to_display(inst.expected, inst.unit)
    exact = catalog.instance("real-models-attn-params-per-layer", 0)  # an exact count, to 6 figures in M
    assert isinstance(exact.expected, int)
    rounded = grade(
        exact, f"{exact.expected:.4g} params", seconds=10
    )  # the count rounded to 4 figures: too early
    assert not rounded.correct and rounded.diagnosis_id == "slip-rounding" and rounded.rating == 2
    wrong = grade(inst, f"{shown / 2:g} {inst.unit}", seconds=10)  # the missing x2: a real mistake
    assert wrong.rating == 1


@pytest.mark.parametrize("how", ["suspend", "bury"])
def test_a_question_set_aside_leaves_the_queue_and_ctrl_z_brings_it_back(
    catalog: Catalog, store: Store, how: str
) -> None:
    qids = _all(catalog, "numeric")[:2]
    clock = Clock()
    session = _study(catalog, store, qids, clock)
    first = session.current
    assert first is not None
    following = session.set_aside(how)  # type: ignore[arg-type]
    assert following is not None and following.instance.question_id != first.instance.question_id
    session.submit(_right_answer(following.instance))
    session.override(4)  # Easy: out of the way for days (a new card is only ever suggested Good)
    assert session.advance() is None  # the set-aside question does not come back today
    # a new session the same day does not ask it either
    assert _study_or_none(catalog, store, qids, clock) is None
    if how == "bury":  # the next day it is back, its schedule untouched (still new)
        clock.tick(24 * 3600)
        again = _study_or_none(catalog, store, qids, clock)
        assert again is not None and again.instance.question_id == first.instance.question_id
        return
    clock.tick(30 * 24 * 3600)  # suspended stays out, however long it has been
    later = _study(catalog, store, qids, clock)
    assert later.current is None or later.current.instance.question_id != first.instance.question_id


def test_undo_of_a_suspend_brings_the_question_straight_back(catalog: Catalog, store: Store) -> None:
    qids = _all(catalog, "numeric")[:2]
    session = _study(catalog, store, qids, Clock())
    first = session.current
    assert first is not None
    session.set_aside("suspend")
    back = session.undo()
    assert back.instance.question_id == first.instance.question_id
    from quizapp.store.cards import suspended_ids

    assert suspended_ids(store) == ()


def _study_or_none(catalog: Catalog, store: Store, qids: list[str], clock: Clock) -> object:
    session = _study(catalog, store, qids, clock)
    return session.current


def test_in_the_last_days_the_new_cards_of_the_weakest_decks_come_first(
    catalog: Catalog, store: Store
) -> None:
    from quizapp.store import save_setting

    clock = Clock()
    decks = sorted({catalog.deck_of(q).id for q in catalog.questions})[:3]
    qids = [q for q in sorted(catalog.questions) if catalog.deck_of(q).id in decks]
    strong, weak = decks[0], decks[1:]
    # the first deck is well known: every card answered Easy a while ago
    questions = QuestionSet.from_catalog(catalog).select(question_ids=qids)
    from quizapp.study import record_review

    for ref in questions.ordered:
        if ref.deck_id == strong:
            record_review(
                store,
                ref,
                seed=1,
                answer="x",
                correct=True,
                rating=4,
                duration_ms=1000,
                now=T0,
                scheduler=make_scheduler(fuzzing=False),
            )
    clock.tick(2 * 24 * 3600)
    save_setting(store, "interview_date", (clock.now + timedelta(days=1)).date().isoformat())
    session = _study(catalog, store, qids, clock)
    assert session.focus_decks and strong not in session.focus_decks
    card = session.current
    assert card is not None and catalog.deck_of(card.instance.question_id).id in weak


def test_a_damaged_card_row_is_started_again_and_the_feedback_says_so(catalog: Catalog, store: Store) -> None:
    import sqlite3

    from quizapp.store import get_card

    qid = _first(catalog, "numeric")
    session = _drill(catalog, store, qid, Clock())
    card = session.current
    assert card is not None
    first = session.submit(_right_answer(card.instance))
    assert isinstance(first, Feedback) and first.notice is None
    with sqlite3.connect(store.path) as other:  # another program writes what FSRS cannot use
        other.execute("UPDATE cards SET state = 2, stability = -1.0 WHERE question_id = ?", (qid,))
    other.close()
    card = session.advance()
    assert card is not None
    result = session.submit(_right_answer(card.instance))
    assert isinstance(result, Feedback) and result.verdict.correct
    assert (
        result.notice and "stability -1.0" in result.notice and "started again as a new card" in result.notice
    )
    repaired = get_card(store, qid)
    assert repaired is not None and repaired.repaired is None and repaired.is_new
    assert len(reviews_for(store, qid)) == 2  # the history is kept


def test_a_fast_right_answer_to_a_new_card_is_suggested_good_and_says_why(
    catalog: Catalog, store: Store
) -> None:
    qid = _first(catalog, "numeric")
    clock = Clock()
    session = _study(catalog, store, [qid], clock)
    card = session.current
    assert card is not None
    clock.tick(2)
    result = session.submit(_right_answer(card.instance))
    assert isinstance(result, Feedback) and result.rating == 3 == result.suggested
    assert result.verdict.reason == "Good: right in 2 s (a new card is never suggested Easy)"


@pytest.mark.parametrize("kind", ["numeric", "code"])
def test_a_drill_never_suggests_easy_for_a_question_never_answered_and_may_once_it_was(
    catalog: Catalog, store: Store, kind: str
) -> None:
    qid = _first(catalog, kind)
    clock = Clock()

    def fast_right_answer(session: StudySession) -> Feedback:
        card = session.current
        assert card is not None
        inst = card.instance
        clock.tick(2)  # well under a third of any question's target time
        result = session.submit(str(inst.expected) if kind == "code" else _right_answer(inst))
        assert isinstance(result, Feedback) and result.verdict.correct
        return result

    first = fast_right_answer(_drill(catalog, store, qid, clock))
    assert first.rating == 3 == first.suggested  # a first success: Good at most
    assert first.verdict.reason == "Good: right in 2 s (a new card is never suggested Easy)"
    assert reviews_for(store, qid)[0].rating == 3
    later = fast_right_answer(_drill(catalog, store, qid, clock, seed=4))  # another drill: seen once now
    assert later.rating == 4 == later.suggested


def test_undo_brings_the_question_back_with_what_was_written_and_not_with_i_dont_know(
    catalog: Catalog, store: Store
) -> None:
    numeric, explain = _first(catalog, "numeric"), _first(catalog, "explain")
    session = _drill_many(catalog, store, [numeric, explain])
    typed: dict[str, str] = {}
    for _ in range(2):
        card = session.current
        assert card is not None and card.answer == ""  # asked afresh: nothing written yet
        inst = card.instance
        if inst.kind == "explain":
            typed[inst.question_id] = "Heads attend in separate subspaces."
            assert isinstance(session.submit(typed[inst.question_id]), ExplainPending)
            session.finish_explain([0])
        else:
            typed[inst.question_id] = f"{_right_answer(inst)} "  # as typed, stray space and all
            assert isinstance(session.submit(typed[inst.question_id]), Feedback)
        session.advance()
    for _ in range(2):  # newest first
        back = session.undo()
        assert back.answer == typed[back.instance.question_id]
    session.dont_know()
    assert session.undo().answer == ""  # "I don't know" was not written by the learner


def test_undo_while_key_points_wait_keeps_that_explanation_for_when_it_is_asked_again(
    catalog: Catalog, store: Store
) -> None:
    qid = _first(catalog, "explain")
    session = _drill(catalog, store, qid, Clock())
    first = session.current
    assert first is not None
    session.submit("First answer.")
    session.finish_explain([0])
    session.advance()
    second = session.current
    assert second is not None
    assert isinstance(session.submit("Second answer, not yet rated."), ExplainPending)
    assert session.undo().answer == "First answer."
    session.submit("First answer, fixed.")
    session.finish_explain([0, 1])
    again = session.advance()
    assert again is not None and again.instance.seed == second.instance.seed
    assert again.answer == "Second answer, not yet rated."
    assert [r.answer for r in reviews_for(store, qid)] == ["First answer, fixed."]


def test_undo_brings_the_question_back_with_the_hints_it_used(catalog: Catalog, store: Store) -> None:
    qid = next(
        q
        for q in _all(catalog, "numeric")
        if len(catalog.instance(q, 0).derivation.steps) > 2  # type: ignore[union-attr]
    )
    clock = Clock()
    session = _study(catalog, store, [qid], clock)
    card = session.current
    assert card is not None
    shown = [session.hint(), session.hint()]
    clock.tick(5)
    first = session.submit(_right_answer(card.instance))
    assert isinstance(first, Feedback) and first.rating == 2 and first.verdict.reason == "Hard: 2 hints"
    back = session.undo()
    assert back.instance.question_id == qid
    assert session.hints_used == 2 and list(session.shown_hints()) == shown
    again = session.submit(_right_answer(back.instance))
    assert isinstance(again, Feedback) and again.rating == 2 and again.hints_used == 2


def test_in_the_last_days_weak_decks_are_reviewed_before_new_cards_each_once(
    catalog: Catalog, store: Store
) -> None:
    from quizapp.store import save_setting
    from quizapp.study import record_review

    clock = Clock()
    deck = sorted({catalog.deck_of(q).id for q in catalog.questions})[0]
    questions = QuestionSet.from_catalog(catalog).select(deck_id=deck)
    seen = list(questions.ordered[:3])
    for ref in seen:  # three cards learned (Good, Good: due in a few days), the rest of the deck unseen
        for minutes in (0, 10):
            record_review(
                store, ref, seed=1, answer="x", correct=True, rating=3, duration_ms=1000,
                now=T0 + timedelta(minutes=minutes), scheduler=make_scheduler(fuzzing=False),
            )  # fmt: skip
    clock.tick(24 * 3600)
    save_setting(store, "interview_date", (clock.now + timedelta(days=2)).date().isoformat())
    session = StudySession.start(
        catalog, store, questions, mode="study", clock=clock, rng=random.Random(1), fuzzing=False
    )
    assert session.focus_decks == (deck,)
    asked = []
    while session.current is not None and len(asked) < 6:
        asked.append((session.current.instance.question_id, session.current.reason))
        clock.tick(20)
        session.dont_know()  # any kind of question: shown, saved as Again
        session.advance()
    seen_ids = {r.question_id for r in seen}
    assert {q for q, _ in asked[:3]} == seen_ids and all(why == "due" for _, why in asked[:3])
    assert all(q not in seen_ids for q, _ in asked[3:]), "a card reviewed early is not asked again at once"


def test_undo_in_one_window_never_overwrites_a_review_made_in_another(
    catalog: Catalog, store: Store, tmp_path: Path
) -> None:
    qid = _all(catalog, "flashcard")[0]
    mine = _study(catalog, store, [qid], Clock())
    assert mine.current is not None
    mine.rate(3)
    clock = Clock()
    clock.tick(30 * 86400)  # due again by then, in the other window
    with open_store(tmp_path / "p.db", now=clock.now) as other_window:
        theirs = _study(catalog, other_window, [qid], clock)
        assert theirs.current is not None
        theirs.rate(1)
        their_row = _card_row(other_window, qid)
    with pytest.raises(QuizappError, match="another quizapp window"):
        mine.undo()
    assert _card_row(store, qid) == their_row and review_count(store) == 2


def test_a_drill_until_solved_asks_again_after_a_miss_and_ends_once_right_unless_undone(
    catalog: Catalog, store: Store
) -> None:
    qids = _all(catalog, "numeric")[:2]
    session = StudySession.start(
        catalog,
        store,
        QuestionSet.from_catalog(catalog),
        mode="drill",
        clock=Clock(),
        rng=random.Random(5),
        question_ids=qids,
        fuzzing=False,
        until_solved=True,
    )
    asked: list[str] = []
    while session.current is not None and len(asked) < 10:
        card = session.current
        qid = card.instance.question_id
        wrong = qid not in asked  # each question missed once, then answered right
        asked.append(qid)
        session.submit("1e99" if wrong else _right_answer(card.instance))
        if len(asked) == 4:  # the last right answer taken back and missed instead: not solved after all
            session.undo()
            assert session.current is not None and session.current.instance.question_id == qid
            session.submit("1e99")
        session.advance()
    assert session.finished and session.current is None
    # each missed, then solved, and never asked again; the one whose right answer was undone, once more
    assert sorted(asked) == sorted([*qids, *qids, asked[3]])
    assert asked[4] == asked[3]
