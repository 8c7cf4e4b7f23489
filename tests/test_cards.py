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
from quizapp.store import QuestionRef, Store, get_card, open_store, reviews_for
from quizapp.store.cards import write_card
from quizapp.study import make_scheduler, record_review
from quizapp.study.browser import CardFilter, apply_action, card_detail, list_cards
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


def _answer(store: Store, ref: QuestionRef, rating: int, when: datetime) -> None:
    record_review(
        store, ref, seed=1, answer="x", correct=rating > 1, rating=rating, duration_ms=4000, now=when,
        scheduler=PLAIN,
    )  # fmt: skip


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


def test_actions_suspend_bury_reset_and_study_now_change_what_study_counts(store: Store) -> None:
    decks = [("kv", [r.question_id for r in REFS[:5]])]
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
