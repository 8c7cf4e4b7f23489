"""A progress.db written by an earlier version opens in this one: migrations run forward, nothing lost."""

from __future__ import annotations

import sqlite3
from contextlib import closing
from datetime import UTC, datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from quizapp.store import SCHEMA_VERSION, QuestionRef, get_card, open_store, reviews_for
from quizapp.store.migrations import drop_tally_triggers
from quizapp.store.reviews import delete_review
from quizapp.store.stats_queries import retention_by_deck, review_totals, reviews_per_day
from quizapp.study import record_review

NOW = datetime(2025, 6, 1, 12, 0, tzinfo=UTC)


def _back_to(path: Path, version: int) -> None:
    """Turns the file into one an earlier quizapp wrote: what later migrations add is taken out."""
    with closing(sqlite3.connect(path, isolation_level=None)) as old:
        if version < 4:
            old.execute("DROP INDEX reviews_point_disagreements")
            old.execute("ALTER TABLE reviews DROP COLUMN points")
        if version < 3:
            drop_tally_triggers(old)
            old.execute("DROP TABLE review_tally")
            old.execute("DROP TABLE retention_tally")
        if version < 2:
            old.execute("DROP INDEX cards_overview")
        old.execute(f"PRAGMA user_version = {version}")


def _review(store: object, qid: str, *, at: datetime, rating: int = 3, ms: int = 5) -> None:
    record_review(
        store,  # type: ignore[arg-type]
        QuestionRef(qid, "deck"), seed=7, answer="42", correct=rating > 1, rating=rating, duration_ms=ms,
        now=at,
    )  # fmt: skip


def test_a_version_1_database_gains_the_overview_index_and_keeps_every_review(tmp_path: Path) -> None:
    path = tmp_path / "progress.db"
    with open_store(path, now=NOW) as store:
        _review(store, "q1", at=NOW)
    _back_to(path, 1)
    with open_store(path, now=NOW) as store:
        assert store.conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        names = {r[0] for r in store.conn.execute("SELECT name FROM sqlite_master WHERE type = 'index'")}
        assert "cards_overview" in names
        assert [r.seed for r in reviews_for(store, "q1")] == [7]
        card = get_card(store, "q1")
        assert card is not None and card.due is not None
        assert store.integrity_ok()


def _counted_from_reviews(store: object) -> tuple[int, float, list[tuple[str, int, int]]]:
    conn = store.conn  # type: ignore[attr-defined]
    n, ms = conn.execute("SELECT count(*), coalesce(sum(duration_ms), 0) FROM reviews").fetchone()
    decks = conn.execute(
        "SELECT deck_id, sum(rating > 1), count(*) FROM reviews WHERE scheduled = 1 AND state_before = 2"
        " GROUP BY deck_id ORDER BY deck_id"
    ).fetchall()
    return n, ms / 1000, decks


def test_a_version_2_database_gains_tallies_that_match_its_reviews_and_follow_new_ones(
    tmp_path: Path,
) -> None:
    """The stats read running totals; a file from before them is counted once on opening, and from then on
    every saved or undone review moves them (the calendar too, day by day in a zone with a half-hour
    offset)."""
    path = tmp_path / "progress.db"
    with open_store(path, now=NOW) as store:
        for day in range(40):  # enough days for a card to come back in review state
            for qid in ("q1", "q2", "q3"):
                card = get_card(store, qid)
                at = NOW + timedelta(days=day, minutes=7 * day)
                if card is None or card.due is None or card.due <= at:
                    _review(store, qid, at=at, rating=1 if day % 5 == 0 else 3, ms=1000 + day)
    _back_to(path, 2)
    later = NOW + timedelta(days=45)
    with open_store(path, now=later) as store:
        n, seconds, decks = _counted_from_reviews(store)
        assert review_totals(store) == (n, pytest.approx(seconds, abs=1e-9))  # a float sum: not bit-exact
        assert decks and [(r.deck_id, r.passed, r.total) for r in retention_by_deck(store)] == decks
        kolkata = later.astimezone(ZoneInfo("Asia/Kolkata"))
        calendar = reviews_per_day(store, now=kolkata, days=60)
        assert sum(d.reviews for d in calendar) == n
        for day in calendar:
            start = datetime.combine(day.day, datetime.min.time(), tzinfo=kolkata.tzinfo)
            (expected,) = store.conn.execute(
                "SELECT count(*) FROM reviews WHERE reviewed_us >= ? AND reviewed_us < ?",
                (int(start.timestamp() * 1e6), int((start + timedelta(days=1)).timestamp() * 1e6)),
            ).fetchone()
            assert day.reviews == expected, day
        _review(store, "q1", at=later, rating=3, ms=4000)
        assert review_totals(store) == (n + 1, pytest.approx(seconds + 4, abs=1e-9))
        (last,) = store.conn.execute("SELECT max(id) FROM reviews").fetchone()
        with store.transaction() as conn:
            delete_review(conn, last)
        assert review_totals(store) == (n, pytest.approx(seconds, abs=1e-9))  # a float sum: not bit-exact
        assert [(r.deck_id, r.passed, r.total) for r in retention_by_deck(store)] == decks


def test_a_file_whose_tally_triggers_were_dropped_gets_them_back_and_counts_afresh(tmp_path: Path) -> None:
    path = tmp_path / "progress.db"
    with open_store(path, now=NOW) as store:
        _review(store, "q1", at=NOW, ms=2000)
    with closing(sqlite3.connect(path, isolation_level=None)) as other:  # another tool's edits
        other.execute("DROP TRIGGER reviews_tally_insert")
        other.execute(
            "INSERT INTO reviews (question_id, deck_id, reviewed_us, seed, answer, correct, rating,"
            " duration_ms, mode, scheduled) SELECT question_id, deck_id, reviewed_us + 1, seed, answer,"
            " correct, rating, 3000, mode, 0 FROM reviews"
        )
    with open_store(path, now=NOW) as store:
        assert review_totals(store) == (2, 5.0)
        _review(store, "q1", at=NOW + timedelta(days=2), ms=1000)
        assert review_totals(store) == (3, 6.0)
