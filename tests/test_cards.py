"""The card browser: every card's state, due date, interval, reps, lapses and last rating, filtered and
paged; one card's history; suspend, unsuspend, bury, reset and study now; and `quizapp cards`.

Real SQLite and real fsrs, fixed UTC datetimes; expected intervals come from the stored cards."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from fsrs import State

from quizapp.cli import main
from quizapp.content.deck import DeckRef
from quizapp.store import QuestionRef, Store, get_card, open_store, reviews_for
from quizapp.store.cards import write_card
from quizapp.store.reviews import ReviewMode
from quizapp.study import make_scheduler, record_review
from quizapp.study.browser import CARD_ORDERS, CardFilter, apply_action, card_detail, list_cards, next_order
from quizapp.study.counts import due_counts

NOW = datetime(2025, 5, 2, 9, 0, tzinfo=UTC)
PLAIN = make_scheduler(fuzzing=False)
REFS = [QuestionRef(f"kv-{i}", "kv") for i in range(5)] + [
    QuestionRef(f"mask-{i}", "masks") for i in range(3)
]


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    with open_store(tmp_path / "p.db", now=NOW) as opened:
        yield opened


def _answer(store: Store, ref: QuestionRef, rating: int, when: datetime, mode: ReviewMode = "study") -> None:
    record_review(
        store, ref, seed=1, answer="x", correct=rating > 1, rating=rating, duration_ms=4000, now=when,
        scheduler=PLAIN, mode=mode,
    )  # fmt: skip


def _at_due(store: Store, ref: QuestionRef, rating: int) -> None:
    """Answers `ref` when fsrs (as stored) next asks it."""
    card = get_card(store, ref.question_id)
    assert card is not None and card.due is not None
    _answer(store, ref, rating, card.due)


def _lapse(store: Store, ref: QuestionRef, lapses: int, start: datetime) -> None:
    """Learns `ref` (Good, Good) and then forgets it `lapses` times, each at its due date."""
    _answer(store, ref, 3, start)
    for _ in range(lapses):
        while (card := get_card(store, ref.question_id)) is not None and card.state != State.Review:
            _at_due(store, ref, 3)
        _at_due(store, ref, 1)


def test_every_question_is_listed_with_its_cards_state_due_interval_and_last_rating(store: Store) -> None:
    _answer(store, REFS[0], 3, NOW - timedelta(days=5))
    _answer(store, REFS[0], 4, NOW - timedelta(days=5, minutes=-10))
    _answer(store, REFS[1], 1, NOW - timedelta(minutes=30))
    page = list_cards(store, REFS, now=NOW, limit=None)
    assert page.total == len(REFS) == len(page.cards)
    by_id = {c.question_id: c for c in page.cards}
    stored = get_card(store, "kv-0")
    assert stored is not None and stored.due is not None and stored.last_review is not None
    kv0 = by_id["kv-0"]
    assert kv0.state == "review" and kv0.due == stored.due and kv0.reps == 2 and kv0.last_rating == 4
    assert kv0.interval_days == pytest.approx((stored.due - stored.last_review).total_seconds() / 86_400)
    assert by_id["kv-1"].state == "learning" and by_id["kv-1"].last_rating == 1
    assert by_id["kv-2"].state == "new" and by_id["kv-2"].due is None and by_id["kv-2"].last_rating is None
    doc = kv0.to_json()
    assert {"question_id", "deck_id", "state", "due", "interval_days", "reps", "lapses", "suspended"} <= set(
        doc
    )
    assert doc["due"] == stored.due.isoformat()


def test_filters_and_pages_follow_the_store(store: Store) -> None:
    _answer(store, REFS[1], 1, NOW - timedelta(minutes=30))  # due again after one minute: due now
    _answer(store, REFS[6], 3, NOW)  # due in ten minutes: not yet
    apply_action(store, REFS[3], "suspend", now=NOW)
    leech = get_card(store, "kv-1")
    assert leech is not None
    write_card(store.conn, leech.__class__(**{**leech.__dict__, "flagged": True}))
    store.conn.commit()
    ids = lambda f: [c.question_id for c in list_cards(store, REFS, f, now=NOW, limit=None).cards]  # noqa: E731
    assert ids(CardFilter(due=True)) == ["kv-1"]
    assert ids(CardFilter(suspended=True)) == ["kv-3"]
    assert ids(CardFilter(leeches=True)) == ["kv-1"]
    assert ids(CardFilter(deck_id="masks")) == ["mask-0", "mask-1", "mask-2"]
    assert ids(CardFilter(search="MASK-1")) == ["mask-1"]
    assert ids(CardFilter(search="softmax")) == []
    texts = {"kv-4": "How big is the KV cache with softmax in fp32?"}
    assert [
        c.question_id
        for c in list_cards(store, REFS, CardFilter(search="softmax"), now=NOW, texts=texts).cards
    ] == ["kv-4"]
    first = list_cards(store, REFS, now=NOW, limit=3, offset=0)
    second = list_cards(store, REFS, now=NOW, limit=3, offset=3)
    assert first.total == second.total == 8 and len(first.cards) == len(second.cards) == 3
    assert [c.question_id for c in first.cards + second.cards] == [r.question_id for r in REFS[:6]]


def test_a_card_only_drilled_is_new_with_its_drills_counted_apart_from_its_reps(store: Store) -> None:
    _answer(store, REFS[2], 3, NOW - timedelta(hours=2), mode="drill")
    _answer(store, REFS[2], 1, NOW - timedelta(hours=1), mode="drill")
    _answer(store, REFS[0], 3, NOW - timedelta(days=1))
    _answer(store, REFS[0], 4, NOW - timedelta(hours=3), mode="cram")
    by_id = {c.question_id: c for c in list_cards(store, REFS, now=NOW, limit=None).cards}
    drilled, studied = by_id["kv-2"], by_id["kv-0"]
    assert get_card(store, "kv-2") is not None and len(reviews_for(store, "kv-2")) == 2
    assert (drilled.state, drilled.reps, drilled.drills, drilled.last_rating) == ("new", 0, 2, 1)
    assert (studied.reps, studied.drills) == (1, 1)
    assert by_id["kv-1"].drills == 0 and by_id["kv-1"].to_json()["drills"] == 0
    assert card_detail(store, REFS[2], now=NOW).card.drills == 2


def _ids_in(store: Store, order: str) -> list[str]:
    page = list_cards(store, REFS, CardFilter(order=order), now=NOW, limit=None)  # type: ignore[arg-type]
    assert page.total == len(REFS)
    return [c.question_id for c in page.cards]


def test_cards_sort_by_due_date_lapses_and_weakest_recall_with_new_cards_last(store: Store) -> None:
    _lapse(store, REFS[1], 2, NOW - timedelta(days=60))  # kv-1
    _lapse(store, REFS[5], 1, NOW - timedelta(days=40))  # mask-0
    _answer(store, REFS[3], 3, NOW - timedelta(days=30))  # kv-3
    _at_due(store, REFS[3], 4)
    _answer(store, REFS[6], 1, NOW - timedelta(minutes=30))  # mask-1, in learning
    _answer(store, REFS[7], 3, NOW - timedelta(hours=5), mode="drill")  # mask-2: still new
    _answer(store, REFS[4], 4, NOW - timedelta(days=2))  # kv-4: remembered well, then made due now
    apply_action(store, REFS[4], "study-now", now=NOW)
    cards = {r.question_id: get_card(store, r.question_id) for r in REFS}
    scheduled = {q: c for q, c in cards.items() if c is not None and c.due is not None}
    new_in_catalog_order = [r.question_id for r in REFS if r.question_id not in scheduled]
    assert new_in_catalog_order == ["kv-0", "kv-2", "mask-2"]

    assert _ids_in(store, "catalog") == [r.question_id for r in REFS]
    due = sorted(scheduled, key=lambda q: (scheduled[q].due, q))
    assert _ids_in(store, "due") == due + new_in_catalog_order
    assert len({c.due for c in scheduled.values()}) == len(scheduled), "distinct due dates: order is tested"

    lapsed = {q: c.lapses for q, c in scheduled.items() if c.lapses}
    assert lapsed == {"kv-1": 2, "mask-0": 1}
    rest = [r.question_id for r in REFS if r.question_id not in lapsed]
    assert _ids_in(store, "lapses") == ["kv-1", "mask-0", *rest]

    recall = {q: PLAIN.get_card_retrievability(c.to_fsrs(NOW), NOW) for q, c in scheduled.items()}
    assert len(set(recall.values())) == len(recall), f"distinct recall, so the order is tested: {recall}"
    weakest = sorted(recall, key=lambda q: recall[q])
    assert _ids_in(store, "retention") == weakest + new_in_catalog_order
    assert weakest != due, "recall ranks otherwise than the due date here"


def test_a_sort_keeps_the_filter_and_pages_through_the_sorted_list(store: Store) -> None:
    _lapse(store, REFS[7], 1, NOW - timedelta(days=40))  # mask-2
    _lapse(store, REFS[1], 3, NOW - timedelta(days=90))  # kv-1
    masks = list_cards(store, REFS, CardFilter(deck_id="masks", order="lapses"), now=NOW, limit=None)
    assert [c.question_id for c in masks.cards] == ["mask-2", "mask-0", "mask-1"]
    first = list_cards(store, REFS, CardFilter(order="lapses"), now=NOW, limit=2)
    second = list_cards(store, REFS, CardFilter(order="lapses"), now=NOW, limit=2, offset=2)
    assert [c.question_id for c in first.cards + second.cards] == ["kv-1", "mask-2", "kv-0", "kv-2"]
    names = [name for name, _ in CARD_ORDERS]
    assert [next_order(n) for n in names] == [*names[1:], names[0]]


def test_actions_suspend_bury_reset_and_study_now_change_what_study_counts(store: Store) -> None:
    decks = [DeckRef("kv", "KV", tuple(r.question_id for r in REFS[:5]))]
    _answer(store, REFS[0], 3, NOW - timedelta(days=3))
    _answer(store, REFS[0], 3, NOW - timedelta(days=3, minutes=-10))
    before = due_counts(store, decks, now=NOW)
    assert "suspended" in apply_action(store, REFS[2], "suspend", now=NOW)
    assert due_counts(store, decks, now=NOW).unseen == before.unseen - 1
    apply_action(store, REFS[2], "unsuspend", now=NOW)
    assert due_counts(store, decks, now=NOW) == before
    apply_action(store, REFS[0], "bury", now=NOW)
    assert list_cards(store, REFS[:1], now=NOW).cards[0].buried
    assert due_counts(store, decks, now=NOW).review == before.review - 1
    apply_action(store, REFS[4], "study-now", now=NOW)
    card = get_card(store, "kv-4")
    assert card is not None and card.due == NOW and card.state == State.Learning
    due_now = list_cards(store, REFS, CardFilter(due=True), now=NOW).cards
    assert [(c.question_id, c.buried) for c in due_now] == [("kv-0", True), ("kv-4", False)]
    apply_action(store, REFS[0], "reset", now=NOW)
    reset = get_card(store, "kv-0")
    assert reset is not None and reset.is_new and reset.reps == 0 and reset.stability is None
    assert len(reviews_for(store, "kv-0")) == 2, "the history is kept"
    detail = card_detail(store, REFS[0], now=NOW)
    assert detail.card.state == "new" and [r.rating for r in detail.history] == [3, 3]


def test_cli_cards_lists_every_card_as_json_and_acts(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["cards", "--json"]) == 0
    cards = json.loads(capsys.readouterr().out)
    assert len(cards) > 400 and all(c["state"] == "new" and c["due"] is None for c in cards)
    qid = cards[0]["question_id"]
    assert main(["cards", "study-now", qid]) == 0
    assert "due now" in capsys.readouterr().out
    assert main(["cards", "--due", "--json"]) == 0
    due = json.loads(capsys.readouterr().out)
    assert [c["question_id"] for c in due] == [qid] and due[0]["state"] == "learning"
    assert main(["cards", "suspend", qid]) == 0
    assert main(["cards", "--suspended"]) == 0
    out = capsys.readouterr().out
    assert qid[:39] in out and "suspended" in out and "1 card" in out
    assert main(["cards", "--id", qid, "--json"]) == 0
    detail = json.loads(capsys.readouterr().out)
    assert detail["question_id"] == qid and detail["suspended"] and detail["history"] == []
    assert main(["cards", "--search", "llama", "--json"]) == 0
    found = json.loads(capsys.readouterr().out)
    assert found and len(found) < len(cards)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["cards", "suspend"], "Name the cards"),
        (["cards", "--id", "no-such-question"], "no question with id"),
        (["cards", "reset", "no-such-question"], "no question with id"),
        (["cards", "--deck", "no-such-deck"], "no deck"),
        (["cards", "frobnicate"], "invalid choice"),
    ],
)
def test_cli_cards_refuses_bad_input_with_exit_2(
    args: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    try:
        code = main(args)
    except SystemExit as exc:  # argparse's own refusal of an unknown action
        code = exc.code  # type: ignore[assignment]
    assert code == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def test_quizapp_code_lists_each_exercise_with_its_solved_status(capsys: pytest.CaptureFixture[str]) -> None:
    from quizapp.content.catalog import load_catalog
    from quizapp.reports.exercises import exercise_statuses

    catalog = load_catalog()
    with open_store(None, now=NOW) as store:
        statuses = exercise_statuses(store, catalog)
        assert statuses and all(s.status == "new" and s.attempts == 0 for s in statuses)
        first, second = statuses[0], statuses[1]
        for qid, correct in (
            (first.question_id, False),
            (first.question_id, True),
            (second.question_id, False),
        ):
            ref = QuestionRef(qid, catalog.deck_of(qid).id)
            record_review(
                store, ref, seed=0, answer="def f(): ...", correct=correct, rating=3 if correct else 1,
                duration_ms=60_000, now=NOW, mode="drill",
            )  # fmt: skip
        after = {s.question_id: s for s in exercise_statuses(store, catalog)}
    assert after[first.question_id].status == "solved" and after[first.question_id].attempts == 2
    assert after[second.question_id].status == "tried" and after[second.question_id].last_attempt == NOW
    assert main(["code", "--json"]) == 0
    rows = {r["id"]: r for r in json.loads(capsys.readouterr().out)}
    assert rows[first.exercise_id]["status"] == "solved" and rows[second.exercise_id]["status"] == "tried"
    assert main(["code"]) == 0
    out = capsys.readouterr().out
    assert f"{first.exercise_id:<24} solved" in out and "2 tries" in out
