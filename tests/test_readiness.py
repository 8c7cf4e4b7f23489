"""Readiness: per deck, the recall FSRS expects on the interview day (or in 7 days), unseen questions as 0.
Expected values come from fsrs's own get_card_retrievability on the stored cards."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, date, datetime, timedelta

import pytest

from quizapp.content.deck import DeckRef
from quizapp.reports.stats import compute_stats
from quizapp.reports.text import render_stats
from quizapp.store import QuestionRef, Store, get_card, open_store, save_setting
from quizapp.store.fsrs_inputs import card_memories
from quizapp.study import make_scheduler, record_review
from quizapp.study.readiness import READINESS_DAYS, forgetting_decay, readiness

NOW = datetime(2025, 6, 15, 9, 0, tzinfo=UTC)
PLAIN = make_scheduler(fuzzing=False)
DECKS = (
    DeckRef("kv", "KV cache", ("kv/a", "kv/b", "kv/c", "kv/d")),
    DeckRef("masks", "Masks", ("masks/a", "masks/b")),
)


@pytest.fixture
def store() -> Iterator[Store]:
    with open_store(None, now=NOW) as opened:
        yield opened


def _ready(store: Store, interview: date | None = None, now: datetime = NOW):  # type: ignore[no-untyped-def]
    return readiness(
        DECKS,
        card_memories(store),
        today=now.date(),
        now=now,
        interview=interview,
        decay=forgetting_decay(PLAIN.parameters),
    )


def _session(store: Store, qids: tuple[str, ...], start: datetime) -> datetime:
    """One sitting: each question answered Good until it leaves its learning steps."""
    when = start
    for qid in qids:
        ref = QuestionRef(qid, qid.split("/")[0])
        for _ in range(2):
            outcome = record_review(
                store, ref, seed=0, answer="a", correct=True, rating=3, duration_ms=20_000, now=when,
                scheduler=PLAIN,
            )  # fmt: skip
            when = max(when, outcome.card.due or when) + timedelta(seconds=1)
    return when


def test_readiness_rises_after_one_session_and_follows_fsrs_forgetting_curve(store: Store) -> None:
    before = _ready(store)
    assert before.recall == 0 and all(d.recall == 0 and d.seen == 0 for d in before.decks)
    end = _session(store, ("kv/a", "kv/b", "masks/a"), NOW)
    after = _ready(store, now=end)
    assert after.on == end.date() + timedelta(days=READINESS_DAYS) and not after.interview
    at = end + timedelta(days=READINESS_DAYS)
    expected = {
        q: PLAIN.get_card_retrievability(get_card(store, q).to_fsrs(at), at)
        for q in ("kv/a", "kv/b", "masks/a")
    }
    kv, masks = after.decks
    assert kv.seen == 2 and masks.seen == 1
    assert kv.recall == pytest.approx((expected["kv/a"] + expected["kv/b"]) / 4)
    assert masks.recall == pytest.approx(expected["masks/a"] / 2)
    assert after.recall == pytest.approx(sum(expected.values()) / 6)
    assert 0 < after.recall < 1 and after.recall > before.recall


def test_with_an_interview_date_readiness_is_for_that_day(store: Store) -> None:
    _session(store, ("kv/a",), NOW)
    day = NOW.date() + timedelta(days=3)
    ready = _ready(store, interview=day)
    assert ready.on == day and ready.interview
    assert "interview day" in ready.meaning and "never seen count as not known" in ready.meaning
    soon, later = ready.decks[0].recall, _ready(store, interview=day + timedelta(days=30)).decks[0].recall
    assert soon > later > 0  # the further the day, the more is forgotten
    past = _ready(store, interview=NOW.date() - timedelta(days=1))
    assert not past.interview and past.on == NOW.date() + timedelta(days=READINESS_DAYS)


def test_stats_show_readiness_with_its_meaning_within_80_columns(store: Store) -> None:
    save_setting(store, "interview_date", (NOW.date() + timedelta(days=5)).isoformat())
    _session(store, ("masks/a",), NOW)
    stats = compute_stats(store, now=NOW, decks=DECKS)
    assert stats.readiness is not None and stats.readiness.on == NOW.date() + timedelta(days=5)
    text = render_stats(stats)
    assert "Readiness on Fri 20 Jun" in text and "never seen count as not known" in text.replace("\n  ", " ")
    assert "(1/2 seen)" in text and "(0/4 seen)" in text
    assert max(len(line) for line in text.splitlines()) <= 80
    assert compute_stats(store, now=NOW).readiness is None
