"""A progress.db written by the previous version opens in this one: migrations run forward, nothing lost."""

from __future__ import annotations

import sqlite3
from contextlib import closing
from datetime import UTC, datetime
from pathlib import Path

from quizapp.store import SCHEMA_VERSION, QuestionRef, get_card, open_store, reviews_for
from quizapp.study import record_review

NOW = datetime(2025, 6, 1, 12, 0, tzinfo=UTC)


def test_a_version_1_database_gains_the_overview_index_and_keeps_every_review(tmp_path: Path) -> None:
    path = tmp_path / "progress.db"
    with open_store(path, now=NOW) as store:
        record_review(
            store, QuestionRef("q1", "deck"), seed=7, answer="42", correct=True, rating=3, duration_ms=5,
            now=NOW,
        )  # fmt: skip
    with closing(sqlite3.connect(path, isolation_level=None)) as old:  # back to a file version 1 wrote
        old.execute("DROP INDEX cards_overview")
        old.execute("PRAGMA user_version = 1")
    assert SCHEMA_VERSION == 2
    with open_store(path, now=NOW) as store:
        assert store.conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        names = {r[0] for r in store.conn.execute("SELECT name FROM sqlite_master WHERE type = 'index'")}
        assert "cards_overview" in names
        assert [r.seed for r in reviews_for(store, "q1")] == [7]
        card = get_card(store, "q1")
        assert card is not None and card.due is not None
        assert store.integrity_ok()
