"""The plan's and readiness's fast path (NumPy over the catalog's cards only) against the straightforward
one: fsrs's own get_card_retrievability card by card, on random small stores with real SQLite and fsrs."""

from __future__ import annotations

import math
from datetime import UTC, date, datetime, timedelta

import pytest
from fsrs import Rating, Scheduler
from fsrs.scheduler import DEFAULT_PARAMETERS
from hypothesis import given, settings
from hypothesis import strategies as st

from quizapp.content.deck import DeckRef
from quizapp.store import QuestionRef, Store, get_card, open_store, set_suspended
from quizapp.store.fsrs_inputs import card_memories
from quizapp.study import record_review
from quizapp.study.budget import KNOWN_RECALL, LeftOut, Work, minutes_a_day, triage
from quizapp.study.plan import _reviews_of_new, make_plan
from quizapp.study.readiness import READINESS_DAYS, forgetting_decay, readiness, recall_table

T0 = datetime(2026, 11, 1, 9, 0, tzinfo=UTC)
NOW = datetime(2026, 11, 24, 9, 0, tzinfo=UTC)
DECKS = (
    DeckRef("deck-a", "Deck A", ("a1", "a2", "a3", "a4")),
    DeckRef("deck-b", "Deck B", ("b1", "b2")),
    DeckRef("deck-c", "Deck C", ("c1", "c2", "c3")),
    DeckRef("empty", "Empty", ()),
)
ORPHANS = ("gone1", "gone2")
"""Cards of questions no longer in any deck: in the store, never in the plan."""
QIDS = tuple(q for deck in DECKS for q in deck.question_ids)

review = st.tuples(
    st.sampled_from(QIDS + ORPHANS),
    st.sampled_from([Rating.Again, Rating.Hard, Rating.Good, Rating.Easy]),
    st.integers(min_value=0, max_value=22 * 24 * 60),  # minutes after T0
)


def _scheduler(decay: float) -> Scheduler:
    weights = list(DEFAULT_PARAMETERS)
    weights[20] = decay
    return Scheduler(tuple(weights), enable_fuzzing=False)


def _fill(
    store: Store, reviews: list[tuple[str, Rating, int]], suspended: set[str], plain: Scheduler
) -> None:
    for qid, rating, minutes in sorted(reviews, key=lambda r: r[2]):
        record_review(
            store,
            QuestionRef(qid, "deck-" + qid[0] if qid not in ORPHANS else "gone"),
            seed=1,
            answer="x",
            correct=rating > Rating.Again,
            rating=int(rating),
            duration_ms=1000,
            now=T0 + timedelta(minutes=minutes),
            scheduler=plain,
        )
    for qid in sorted(suspended):
        set_suspended(store, QuestionRef(qid, "deck-" + qid[0] if qid not in ORPHANS else "gone"), True)


def _fsrs_recall(store: Store, qid: str, at: datetime, plain: Scheduler) -> float | None:
    """fsrs's own retrievability of the stored card at `at`; None for a question never scheduled."""
    record = get_card(store, qid)
    if record is None or record.due is None or record.stability is None or record.last_review is None:
        return None
    return float(plain.get_card_retrievability(record.to_fsrs(at), at))


@settings(max_examples=40, deadline=None)
@given(
    reviews=st.lists(review, max_size=25),
    suspended=st.sets(st.sampled_from(QIDS + ORPHANS), max_size=3),
    days=st.integers(min_value=-2, max_value=12),
    decay=st.sampled_from([float(DEFAULT_PARAMETERS[20]), 0.2, 0.5]),
)
def test_the_fast_plan_and_readiness_equal_fsrs_card_by_card(
    reviews: list[tuple[str, Rating, int]], suspended: set[str], days: int, decay: float
) -> None:
    plain = _scheduler(decay)
    with open_store(None, now=T0) as store:
        _fill(store, reviews, suspended, plain)
        interview = NOW.date() + timedelta(days=days)
        at = NOW + timedelta(days=days if days >= 0 else READINESS_DAYS)  # a passed day: readiness's horizon
        memories = card_memories(store, QIDS)
        assert set(memories.question_ids) <= set(QIDS), "cards outside the decks are not read"

        table = recall_table(memories, QIDS, at, forgetting_decay(plain.parameters))
        expected = {q: _fsrs_recall(store, q, at, plain) for q in QIDS}
        for i, qid in enumerate(QIDS):
            record = get_card(store, qid)
            assert bool(table.seen[i]) == (expected[qid] is not None)
            assert bool(table.suspended[i]) == bool(record and record.suspended)
            assert table.recall[i] == pytest.approx(expected[qid] or 0.0, abs=1e-9)

        plan = make_plan(DECKS, memories, interview=interview, today=NOW.date(), now=NOW, scheduler=plain)
        everything = make_plan(
            DECKS, card_memories(store), interview=interview, today=NOW.date(), now=NOW, scheduler=plain
        )
        assert plan == everything, "reading only the decks' cards changes nothing"

        at_us = int(at.timestamp() * 1_000_000)
        off = {q for q in QIDS if (c := get_card(store, q)) is not None and c.suspended}
        unseen = [q for q in QIDS if q not in off and expected[q] is None]
        due = [
            q
            for q in QIDS
            if q not in off
            and expected[q] is not None
            and (c := get_card(store, q)) is not None
            and c.due is not None
            and c.due.timestamp() * 1_000_000 < at_us
        ]
        assert plan.unseen == len(unseen)
        assert plan.new_per_day == (math.ceil(len(unseen) / max(days, 1)) if unseen else 0)
        per_day = plan.new_per_day
        from_new = _reviews_of_new(len(unseen), per_day, days, plain, NOW)
        assert plan.reviews_per_day == math.ceil((len(due) + from_new) / max(days, 1))
        for outlook, deck in zip(plan.readiness.decks, DECKS, strict=True):
            qids = deck.question_ids
            assert outlook.deck_id == deck.id and outlook.questions == len(qids)
            assert outlook.seen == sum(1 for q in qids if expected[q] is not None)
            want = sum(expected[q] or 0.0 for q in qids) / len(qids) if qids else 0.0
            assert outlook.recall == pytest.approx(want, abs=1e-9)
        assert plan.recall == pytest.approx(sum(r or 0.0 for r in expected.values()) / len(QIDS), abs=1e-9)

        ready = readiness(
            DECKS,
            memories,
            today=NOW.date(),
            now=NOW,
            interview=interview,
            decay=forgetting_decay(plain.parameters),
        )
        assert ready == plan.readiness, "the plan carries readiness itself, from its one recall table"
        assert ready.on == (interview if days >= 0 else NOW.date() + timedelta(days=7))


def test_an_empty_store_plans_every_question_as_new() -> None:
    with open_store(None, now=T0) as store:
        plan = make_plan(
            DECKS,
            card_memories(store, QIDS),
            interview=date(2026, 11, 27),
            today=NOW.date(),
            now=NOW,
            scheduler=_scheduler(float(DEFAULT_PARAMETERS[20])),
        )
    assert plan.unseen == len(QIDS) and plan.recall == 0 and all(d.seen == 0 for d in plan.readiness.decks)
    assert plan.new_per_day == math.ceil(len(QIDS) / 3)


def _triage_one_by_one(
    work: list[Work],
    *,
    days: int,
    budget_minutes: float,
    low_priority: set[str],
    deck_recall: dict[str, float],
) -> tuple[tuple[Work, ...], tuple[LeftOut, ...]]:
    """The triage's order written out question by question (the module docstring's four steps)."""
    if minutes_a_day(work, days) <= budget_minutes:
        return tuple(work), ()
    budget = f"{budget_minutes:g} min a day"
    left: list[LeftOut] = []
    dropped: set[str] = set()
    total = sum(w.seconds for w in work)
    limit = budget_minutes * 60 * max(days, 1)
    for deck in sorted({w.deck_id for w in work if w.deck_id in low_priority}):
        total -= sum(w.seconds for w in work if w.deck_id == deck)
        dropped.update(w.question_id for w in work if w.deck_id == deck)
        left.append(
            LeftOut("deck", deck, deck, f"low priority: marked so, and not everything fits in {budget}")
        )
        if total <= limit + 1e-9:
            break
    stages = [
        (
            sorted(
                (w for w in work if not w.new and w.difficulty <= 2 and w.recall >= KNOWN_RECALL),
                key=lambda w: (w.difficulty, -w.recall, w.question_id),
            ),
            lambda w: (
                f"already known: {w.recall:.0%} on the day without a review (difficulty {w.difficulty})"
            ),
        ),
        (
            sorted(
                (w for w in work if w.new),
                key=lambda w: (-w.difficulty, -deck_recall.get(w.deck_id, 0.0), w.question_id),
            ),
            lambda w: f"new, difficulty {w.difficulty}: no time for it in {budget}",
        ),
        (
            sorted((w for w in work if not w.new), key=lambda w: (-w.recall, w.question_id)),
            lambda w: f"review: no time for it in {budget} ({w.recall:.0%} on the day without it)",
        ),
    ]
    for candidates, why in stages:
        for w in candidates:
            if total <= limit + 1e-9:
                break
            if w.question_id in dropped:
                continue
            total -= w.seconds
            dropped.add(w.question_id)
            left.append(LeftOut("question", w.question_id, w.deck_id, why(w)))
    return tuple(w for w in work if w.question_id not in dropped), tuple(left)


work_item = st.tuples(
    st.sampled_from(["d1", "d2", "d3"]),
    st.integers(min_value=1, max_value=3),
    st.booleans(),
    st.sampled_from([15.0, 30.0, 60.0, 90.5, 300.0]),
    st.sampled_from([0.0, 0.5, 0.79, 0.8, 0.95, 0.95]),
)


@settings(max_examples=200, deadline=None)
@given(
    items=st.lists(work_item, max_size=30),
    days=st.integers(min_value=0, max_value=6),
    budget=st.sampled_from([0.0, 1.0, 5.0, 12.5, 30.0]),
    low=st.sets(st.sampled_from(["d1", "d2", "d3"]), max_size=2),
)
def test_the_column_triage_leaves_out_what_the_one_by_one_triage_does(
    items: list[tuple[str, int, bool, float, float]], days: int, budget: float, low: set[str]
) -> None:
    work = [
        Work(f"q{i:02d}", deck, difficulty, new, seconds, 0.0 if new else recall)
        for i, (deck, difficulty, new, seconds, recall) in enumerate(items)
    ]
    deck_recall = {"d1": 0.3, "d2": 0.7}
    got = triage(work, days=days, budget_minutes=budget, low_priority=low, deck_recall=deck_recall)
    want = _triage_one_by_one(
        work, days=days, budget_minutes=budget, low_priority=low, deck_recall=deck_recall
    )
    assert got == want
