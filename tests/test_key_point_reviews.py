"""Explain reviews keep each key point's grader status and the learner's final tick (`points`, a letter a
point): the column arrives by a migration that keeps old reviews, it round-trips through record_review,
undo and progress files (old files without it still import), and `quizapp stats` lists the key points
the grader misses most."""

from __future__ import annotations

import json
import sqlite3
from collections import Counter
from collections.abc import Iterator
from contextlib import closing
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from quizapp.cli import main
from quizapp.content.catalog import load_catalog
from quizapp.content.questions import ExplainQuestion
from quizapp.errors import QuizappError
from quizapp.progress.reader import import_progress, read_progress_file
from quizapp.progress.writer import export_progress
from quizapp.reports.stats import compute_stats
from quizapp.reports.text import render_stats
from quizapp.store import SCHEMA_VERSION, QuestionRef, Store, get_review, open_store, reviews_for
from quizapp.store.migrations import drop_tally_triggers
from quizapp.store.reviews import delete_review, iter_reviews
from quizapp.store.stats_queries import point_disagreements, review_totals
from quizapp.study import make_scheduler, record_review
from quizapp.study.scheduler import rerate_review, undo_review

NOW = datetime(2025, 6, 1, 12, 0, tzinfo=UTC)
PLAIN = make_scheduler(fuzzing=False)


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    with open_store(tmp_path / "progress.db", now=NOW) as opened:
        yield opened


def _log(store: Store, qid: str, points: str | None, *, at: datetime = NOW, mode: str = "drill") -> int:
    outcome = record_review(
        store,
        QuestionRef(qid, qid.split("/")[0]),
        seed=1, answer="because the scores grow with d_k", correct=True, rating=3, duration_ms=900, now=at,
        mode=mode, scheduler=PLAIN, points=points,  # type: ignore[arg-type]
    )  # fmt: skip
    return outcome.review.id


def _expected(codes: list[tuple[str, str]]) -> dict[tuple[str, int], tuple[int, int]]:
    """(question, point from 1) -> (missed, over-credited), counted letter by letter in Python."""
    missed: Counter[tuple[str, int]] = Counter()
    over: Counter[tuple[str, int]] = Counter()
    for qid, code in codes:
        for i, letter in enumerate(code, 1):
            missed[qid, i] += letter in "MX"
            over[qid, i] += letter == "c"
    return {k: (missed[k], over[k]) for k in missed | over if missed[k] or over[k]}


# --------------------------------------------------------------------------- the migration


def test_an_old_database_keeps_its_reviews_and_gains_the_points_column(tmp_path: Path) -> None:
    """A progress.db of schema version 3 (before `points`), with reviews in it, opens in this version:
    every review is kept, unchanged and without points, the column and its index are there, and a new
    review saves its points."""
    path = tmp_path / "progress.db"
    with open_store(path, now=NOW) as store:
        for day in range(3):
            _log(store, f"d/q{day}", None, at=NOW + timedelta(days=day), mode="study")
        before = [r for r in iter_reviews(store.conn)]
        totals = review_totals(store)
    with closing(sqlite3.connect(path, isolation_level=None)) as old:  # as quizapp 3's schema left it
        old.execute("DROP INDEX reviews_point_disagreements")
        old.execute("ALTER TABLE reviews DROP COLUMN points")
        old.execute("PRAGMA user_version = 3")
        assert "points" not in {r[1] for r in old.execute("PRAGMA table_info(reviews)")}
    with open_store(path, now=NOW) as store:
        assert store.conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        columns = {r[1]: r[2] for r in store.conn.execute("PRAGMA table_info(reviews)")}
        assert columns["points"] == "TEXT"
        indexes = {r[0] for r in store.conn.execute("SELECT name FROM sqlite_master WHERE type = 'index'")}
        assert "reviews_point_disagreements" in indexes
        assert list(iter_reviews(store.conn)) == before and all(r.points is None for r in before)
        assert review_totals(store) == totals
        new_id = _log(store, "d/q0", "CmX", at=NOW + timedelta(days=4))
        assert (got := get_review(store, new_id)) is not None and got.points == "CmX"
        assert store.integrity_ok()


def test_a_version_1_database_migrates_all_the_way(tmp_path: Path) -> None:
    """From the very first schema (no overview index, no tallies, no points) forward in one opening."""
    path = tmp_path / "progress.db"
    with open_store(path, now=NOW) as store:
        _log(store, "d/q", None)
    with closing(sqlite3.connect(path, isolation_level=None)) as old:
        old.execute("DROP INDEX reviews_point_disagreements")
        old.execute("ALTER TABLE reviews DROP COLUMN points")
        drop_tally_triggers(old)
        old.execute("DROP TABLE review_tally")
        old.execute("DROP TABLE retention_tally")
        old.execute("DROP INDEX cards_overview")
        old.execute("PRAGMA user_version = 1")
    with open_store(path, now=NOW) as store:
        assert [r.points for r in reviews_for(store, "d/q")] == [None]
        assert review_totals(store) == (1, 0.9)
        _log(store, "d/q", "cM")
        assert [r.points for r in reviews_for(store, "d/q")] == [None, "cM"]


# --------------------------------------------------------------------------- record_review and undo


def test_points_round_trip_through_record_review(store: Store) -> None:
    outcome = record_review(
        store, QuestionRef("e/why", "e"), seed=3, answer="it keeps the variance at one", correct=True,
        rating=3, duration_ms=1500, now=NOW, mode="study", scheduler=PLAIN, points="CmX",
    )  # fmt: skip
    assert outcome.review.points == "CmX"
    assert get_review(store, outcome.review.id) == outcome.review
    assert [r.points for r in reviews_for(store, "e/why")] == ["CmX"]
    rerated = rerate_review(store, QuestionRef("e/why", "e"), outcome, 4, scheduler=PLAIN)
    assert rerated.review.points == "CmX" and rerated.review.rating == 4
    assert [(r.points, r.rating) for r in reviews_for(store, "e/why")] == [("CmX", 4)]
    _log(store, "e/why", None)  # any other answer keeps none
    assert [r.points for r in reviews_for(store, "e/why")] == ["CmX", None]


@pytest.mark.parametrize("bad", ["", "CmZ", "c m", "cmx" * 30])
def test_a_points_code_that_is_not_one_is_refused_and_nothing_is_saved(store: Store, bad: str) -> None:
    with pytest.raises(QuizappError, match="letters cmxCMX"):
        _log(store, "e/why", bad)
    assert reviews_for(store, "e/why") == ()
    with pytest.raises(sqlite3.IntegrityError):  # the table holds it too, whoever writes
        store.conn.execute(
            "INSERT INTO reviews (question_id, deck_id, reviewed_us, seed, answer, correct, rating,"
            " duration_ms, mode, scheduled, points) VALUES ('e/why', 'e', 0, 0, '', 1, 3, 0, 'drill', 0, ?)",
            (bad,),
        )


def test_undoing_a_review_takes_its_points_with_it(store: Store) -> None:
    outcome = record_review(
        store, QuestionRef("e/why", "e"), seed=3, answer="x", correct=False, rating=1, duration_ms=10,
        now=NOW, mode="study", scheduler=PLAIN, points="MmC",
    )  # fmt: skip
    assert point_disagreements(store) != ()
    undo_review(store, outcome)
    assert reviews_for(store, "e/why") == () and point_disagreements(store) == ()
    kept = _log(store, "e/why", "cmm")
    gone = _log(store, "e/why", "Xmm")
    with store.transaction() as conn:
        assert delete_review(conn, gone)
    assert get_review(store, gone) is None
    assert [(d.question_id, d.point, d.missed, d.over_credited) for d in point_disagreements(store)] == [
        ("e/why", 1, 0, 1)
    ]
    assert get_review(store, kept) is not None


# --------------------------------------------------------------------------- the stats query


def test_the_stats_query_counts_both_directions_per_question_and_point(store: Store) -> None:
    codes = [
        ("e/a", "CmX"),  # point 3 missed (contradicted, ticked)
        ("e/a", "CMx"),  # point 2 missed (missing, ticked)
        ("e/a", "cMX"),  # point 1 over-credited, 2 and 3 missed
        ("e/a", "Cmx"),  # agrees everywhere
        ("e/b", "cccC"),  # points 1-3 over-credited
        ("e/b", "cCCC"),  # point 1 over-credited
        ("e/c", "CCCCCC"),  # agrees
        ("e/c", "mmmmmm"),  # agrees
    ]
    for n, (qid, code) in enumerate(codes):
        _log(store, qid, code, at=NOW + timedelta(minutes=n))
    _log(store, "e/a", None)
    expected = _expected(codes)
    found = point_disagreements(store, limit=50)
    assert {(d.question_id, d.point): (d.missed, d.over_credited) for d in found} == expected
    assert [d.total for d in found] == sorted((d.total for d in found), reverse=True)
    # the most disagreements first; among equals the most missed, then by question and point
    assert [(d.question_id, d.point) for d in found[:3]] == [("e/a", 2), ("e/a", 3), ("e/b", 1)]
    assert found[0].missed == 2 and found[2].over_credited == 2
    assert len(point_disagreements(store, limit=2)) == 2
    plan = " ".join(
        str(r[3])
        for r in store.conn.execute(
            "EXPLAIN QUERY PLAN SELECT question_id, points FROM reviews WHERE points GLOB '*[MXc]*'"
        )
    )
    assert "reviews_point_disagreements" in plan  # only the reviews with a disagreement are read


def test_no_disagreement_means_no_section(store: Store) -> None:
    _log(store, "e/a", "CmX".replace("X", "x"))
    _log(store, "e/a", None)
    stats = compute_stats(store, now=NOW)
    assert point_disagreements(store) == () and stats.point_misses == ()
    assert "grader misses" not in render_stats(stats)


# --------------------------------------------------------------------------- `quizapp stats`


def _explain_question() -> tuple[str, str, tuple[str, ...]]:
    catalog = load_catalog()
    for qid in catalog.questions:
        if catalog.type_of(qid) == "explain":
            question = catalog.question(qid)
            assert isinstance(question, ExplainQuestion)
            return qid, catalog.deck_fields(qid).id, question.point_texts
    raise AssertionError("the bundled decks have no explain question")


def test_quizapp_stats_names_the_key_points_the_grader_misses_most(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    qid, deck, texts = _explain_question()
    db = tmp_path / "progress.db"
    n = len(texts)
    with open_store(db, now=NOW) as store:
        for k, code in enumerate(["C" + "M" + "m" * (n - 2), "C" + "X" + "m" * (n - 2), "c" + "m" * (n - 1)]):
            record_review(
                store, QuestionRef(qid, deck), seed=k, answer="…", correct=True, rating=3, duration_ms=100,
                now=NOW + timedelta(minutes=k), mode="drill", points=code,
            )  # fmt: skip
        record_review(  # a question the decks no longer have: named by id and number only
            store, QuestionRef("gone/explain", "gone"), seed=0, answer="…", correct=True, rating=3,
            duration_ms=100, now=NOW, mode="drill", points="mmM",
        )  # fmt: skip
    assert main(["--db", str(db), "stats"]) == 0
    out = capsys.readouterr().out
    assert all(len(line) <= 80 for line in out.splitlines())
    section = out.split("Key points the grader misses most:")[1].splitlines()
    joined = " ".join(" ".join(section).split())
    assert f"{qid}, point 2: {' '.join(texts[1].split())} 2× missed" in joined
    assert f"{qid}, point 1: {' '.join(texts[0].split())} 1× over-credited" in joined
    assert "gone/explain, point 3 1× missed" in joined
    assert joined.index(f"{qid}, point 2") < joined.index("gone/explain")  # most frequent first

    assert main(["--db", str(db), "stats", "--json"]) == 0
    misses = json.loads(capsys.readouterr().out)["point_misses"]
    assert misses[0] == {"question_id": qid, "point": 2, "text": texts[1], "missed": 2, "over_credited": 0}


def test_quizapp_stats_without_disagreements_has_no_such_section(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "progress.db"
    with open_store(db, now=NOW) as store:
        _log(store, "e/a", "Cmx")
    assert main(["--db", str(db), "stats"]) == 0
    assert "grader misses" not in capsys.readouterr().out


# --------------------------------------------------------------------------- progress files


def test_points_round_trip_through_a_progress_file(store: Store, tmp_path: Path) -> None:
    _log(store, "e/a", "CmX")
    _log(store, "e/a", None)
    _log(store, "e/b", "cM", mode="study")
    before = list(iter_reviews(store.conn))
    path = tmp_path / "progress.json"
    export_progress(store, path, now=NOW)
    text = path.read_text(encoding="utf-8")
    assert '"version": 2,' in text
    review_lines = [line for line in text.splitlines() if '"reviewed_at"' in line]
    assert [('"points"' in line) for line in review_lines] == [True, False, True]  # only where there are
    assert json.loads(text)["reviews"][0]["points"] == "CmX"
    with open_store(tmp_path / "other.db", now=NOW) as other:
        assert import_progress(other, path, now=NOW).reviews == 3
        assert list(iter_reviews(other.conn)) == before
        assert point_disagreements(other) == point_disagreements(store)
    plain = tmp_path / "plain.json"  # the same file in another layout reads the same
    plain.write_text(json.dumps(json.loads(text)), encoding="utf-8")
    with open_store(tmp_path / "third.db", now=NOW) as third:
        import_progress(third, plain, now=NOW)
        assert list(iter_reviews(third.conn)) == before


def test_a_version_1_progress_file_without_points_still_imports(store: Store, tmp_path: Path) -> None:
    """A file an earlier quizapp exported (version 1, no `points` anywhere) imports in both layouts."""
    _log(store, "e/a", None, mode="study")
    _log(store, "e/b", None)
    before = list(iter_reviews(store.conn))
    path = tmp_path / "new.json"
    export_progress(store, path, now=NOW)
    text = path.read_text(encoding="utf-8")
    assert '"points"' not in text
    old = tmp_path / "old.json"
    old.write_text(text.replace('"version": 2,', '"version": 1,', 1), encoding="utf-8")
    old_plain = tmp_path / "old-plain.json"
    old_plain.write_text(json.dumps(json.loads(old.read_text(encoding="utf-8")), indent=1), encoding="utf-8")
    for file in (old, old_plain):
        assert read_progress_file(file).reviews == 2
        with open_store(tmp_path / f"{file.stem}.db", now=NOW) as other:
            assert import_progress(other, file, now=NOW).reviews == 2
            restored = list(iter_reviews(other.conn))
            assert restored == before and all(r.points is None for r in restored)


def test_a_newer_progress_file_or_bad_points_are_refused(store: Store, tmp_path: Path) -> None:
    _log(store, "e/a", "Cm")
    path = tmp_path / "p.json"
    export_progress(store, path, now=NOW)
    doc = json.loads(path.read_text(encoding="utf-8"))
    newer = tmp_path / "newer.json"
    newer.write_text(json.dumps({**doc, "version": 3}), encoding="utf-8")
    with pytest.raises(QuizappError, match="version 3; this quizapp reads version 1 or 2"):
        read_progress_file(newer)
    doc["reviews"][0]["points"] = "Cz"
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(doc), encoding="utf-8")
    with pytest.raises(QuizappError, match=r"reviews\[0\]\.points: String should match pattern"):
        read_progress_file(bad)
