"""The progress store: where it lives, how it is set up, and that cards, settings and interviews persist."""

from __future__ import annotations

import hashlib
import sqlite3
from contextlib import closing
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from quizapp.errors import QuizappError
from quizapp.store import (
    SCHEMA_VERSION,
    InterviewAnswer,
    InterviewConfig,
    QuestionRef,
    Settings,
    add_interview_answer,
    card_id_collisions,
    card_id_for,
    check_card_ids,
    finish_interview,
    get_card,
    list_interviews,
    load_interview,
    load_settings,
    open_store,
    reviews_for,
    save_setting,
    save_settings,
    set_flagged,
    set_suspended,
    start_interview,
)
from quizapp.store.migrations import MIGRATIONS, migrate, schema_version
from quizapp.study import record_review
from quizapp.study.scheduler import undo_review

NOW = datetime(2025, 3, 1, 9, 30, tzinfo=UTC)
Q = QuestionRef("kv-cache-llama", "kv-cache", 2, ("gqa",))


def test_the_database_is_created_in_quizapp_home(isolated_home: Path) -> None:
    with open_store(None, now=NOW) as store:
        assert store.path == isolated_home / "progress.db"
        assert store.notice is None
    assert (isolated_home / "progress.db").is_file()


def test_db_option_puts_the_database_anywhere_creating_folders(tmp_path: Path) -> None:
    path = tmp_path / "nested" / "folder" / "mine.db"
    with open_store(path, now=NOW) as store:
        assert store.path == path
    assert path.is_file()


def test_connection_uses_wal_busy_timeout_foreign_keys_and_full_sync() -> None:
    with open_store(None, now=NOW) as store:
        pragma = lambda name: store.conn.execute(f"PRAGMA {name}").fetchone()[0]  # noqa: E731
        assert pragma("journal_mode") == "wal"
        assert pragma("foreign_keys") == 1
        assert pragma("busy_timeout") >= 5000
        assert pragma("synchronous") == 2  # FULL
        assert pragma("user_version") == SCHEMA_VERSION


def test_every_migration_runs_once_and_reopening_changes_nothing(tmp_path: Path) -> None:
    conn = sqlite3.connect(tmp_path / "raw.db", isolation_level=None)
    assert schema_version(conn) == 0
    assert migrate(conn) == len(MIGRATIONS)
    assert schema_version(conn) == SCHEMA_VERSION
    assert migrate(conn) == 0
    conn.close()
    with open_store(tmp_path / "raw.db", now=NOW) as store:
        tables = {r[0] for r in store.conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    assert {"cards", "reviews", "interviews", "interview_answers", "settings"} <= tables


def test_a_failed_migration_leaves_the_previous_version(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import quizapp.store.migrations as migrations

    def broken(conn: sqlite3.Connection) -> None:
        conn.execute("CREATE TABLE half_done (x)")
        raise RuntimeError("power cut")

    path = tmp_path / "m.db"
    open_store(path, now=NOW).close()  # a user's file at today's version
    with closing(sqlite3.connect(path)) as conn:
        tables = conn.execute("SELECT name FROM sqlite_master ORDER BY name").fetchall()
    monkeypatch.setattr(migrations, "MIGRATIONS", (*MIGRATIONS, broken))
    monkeypatch.setattr(migrations, "SCHEMA_VERSION", len(MIGRATIONS) + 1)
    # the next version's migration fails half-way; the store closes its connection (Python 3.13 warns of,
    # and this suite fails on, one left open) and the file is as it was
    with pytest.raises(RuntimeError, match="power cut"):
        open_store(path, now=NOW)
    with closing(sqlite3.connect(path)) as conn:
        assert schema_version(conn) == len(MIGRATIONS)
        assert conn.execute("SELECT name FROM sqlite_master ORDER BY name").fetchall() == tables


def test_card_id_is_the_first_8_bytes_of_sha256_as_a_positive_63_bit_int() -> None:
    digest = hashlib.sha256(b"kv-cache-llama").digest()
    assert card_id_for("kv-cache-llama") == int.from_bytes(digest[:8], "big") & (2**63 - 1)
    assert 0 <= card_id_for("x") < 2**63
    assert card_id_for("a") != card_id_for("b")


def test_a_card_id_collision_is_reported_never_merged() -> None:
    with open_store(None, now=NOW) as store:
        # Another question already holds the card id this question hashes to (a forged collision).
        store.conn.execute(
            "INSERT INTO cards (question_id, card_id, deck_id, state) VALUES (?, ?, ?, 1)",
            ("impostor", card_id_for(Q.question_id), "other"),
        )
        with pytest.raises(QuizappError, match=r"'kv-cache-llama'.*'impostor'"):
            record_review(
                store, Q, seed=1, answer="1", correct=True, rating=3, duration_ms=1, now=NOW, mode="drill"
            )
        assert reviews_for(store, Q.question_id) == ()


def test_collisions_in_a_question_list_are_found_in_pairs() -> None:
    def same_id(_: str) -> int:
        return 7

    assert card_id_collisions(["a", "b", "c"], same_id) == (("a", "b", 7), ("a", "c", 7))
    assert card_id_collisions(["a", "b", "a"]) == ()
    with pytest.raises(QuizappError, match=r"'a' and 'b'"):
        check_card_ids(["a", "b"], same_id)
    check_card_ids(["a", "b"])


def test_reviews_for_unknown_cards_are_refused_by_foreign_keys() -> None:
    with open_store(None, now=NOW) as store, pytest.raises(sqlite3.IntegrityError):
        store.conn.execute(
            "INSERT INTO reviews (question_id, deck_id, reviewed_us, seed, answer, correct, rating,"
            " duration_ms, mode, scheduled) VALUES ('ghost', 'd', 0, 0, '', 0, 1, 0, 'study', 0)"
        )


def test_a_review_keeps_every_field_across_reopening() -> None:
    with open_store(None, now=NOW) as store:
        outcome = record_review(
            store,
            Q,
            seed=42,
            answer="2*80*8*128 B",
            correct=False,
            rating=1,
            duration_ms=12_345,
            now=NOW,
            mode="drill",
            diagnosis="Forgot the factor 2 for K and V",
            diagnosis_id="forgot-kv-factor",
        )
    with open_store(None, now=NOW) as store:
        (review,) = reviews_for(store, Q.question_id)
    assert review == outcome.review
    assert (review.seed, review.answer, review.correct, review.rating) == (42, "2*80*8*128 B", False, 1)
    assert (review.duration_ms, review.mode, review.diagnosis_id) == (12_345, "drill", "forgot-kv-factor")
    assert review.reviewed_at == NOW and review.reviewed_at.tzinfo == UTC


def test_undoing_the_first_review_of_a_new_card_leaves_it_new_with_no_row() -> None:
    with open_store(None, now=NOW) as store:
        assert get_card(store, Q.question_id) is None
        first = record_review(
            store, Q, seed=1, answer="80 GiB", correct=True, rating=3, duration_ms=900, now=NOW
        )
        assert first.previous is None and first.scheduled and get_card(store, Q.question_id) is not None
        undo_review(store, first)
    with open_store(None, now=NOW) as store:  # what is on disk, as the next session finds it
        assert get_card(store, Q.question_id) is None
        assert reviews_for(store, Q.question_id) == ()
        again = record_review(
            store, Q, seed=2, answer="80 GiB", correct=True, rating=3, duration_ms=900, now=NOW
        )
    assert again.previous is None and again.review.state_before is None  # asked as a new card again
    assert again.card == first.card  # scheduled exactly as the first time was


def test_suspend_and_flag_are_stored_per_question() -> None:
    with open_store(None, now=NOW) as store:
        assert set_suspended(store, Q, True).suspended
        assert set_flagged(store, Q, True).flagged
        card = get_card(store, Q.question_id)
        assert card is not None and card.suspended and card.flagged and card.is_new
        assert not set_suspended(store, Q, False).suspended


def test_settings_have_the_documented_defaults() -> None:
    with open_store(None, now=NOW) as store:
        settings = load_settings(store)
    assert settings == Settings()
    assert (settings.desired_retention, settings.new_per_day) == (0.9, 20)
    assert (settings.interview_questions, settings.interview_minutes) == (10, 30)


def test_settings_are_saved_validated_and_survive_reopening() -> None:
    with open_store(None, now=NOW) as store:
        save_setting(store, "desired_retention", 0.85)
        save_settings(store, Settings(new_per_day=5, theme="nord", interview_minutes=45))
        for key, bad in [("desired_retention", 1.5), ("new_per_day", "many"), ("theme", ""), ("nope", 1)]:
            with pytest.raises(QuizappError, match=key):
                save_setting(store, key, bad)
    with open_store(None, now=NOW) as store:
        assert load_settings(store) == Settings(new_per_day=5, theme="nord", interview_minutes=45)


def test_a_hand_edited_setting_falls_back_to_its_default_and_unknown_keys_stay() -> None:
    with open_store(None, now=NOW) as store:
        store.conn.execute("INSERT INTO settings VALUES ('new_per_day', '\"lots\"'), ('future_key', '1')")
        assert load_settings(store).new_per_day == Settings().new_per_day
        assert store.conn.execute("SELECT value FROM settings WHERE key = 'future_key'").fetchone() == ("1",)


def test_a_mock_interview_report_is_saved_and_reopened() -> None:
    config = InterviewConfig(questions=2, minutes=15, deck_ids=("kv-cache",), update_schedule=True, seed=9)
    answers = [
        InterviewAnswer("q1", "kv-cache", 3, "How big?", "2 GiB", True, "2 GiB", seconds=41.5),
        InterviewAnswer(
            "q2", "kv-cache", 4, "Why GQA?", "", False, "Less memory", "skipped", None, 3.0, True, True
        ),
    ]
    with open_store(None, now=NOW) as store:
        interview_id = start_interview(store, config, now=NOW)
        assert [add_interview_answer(store, interview_id, a) for a in answers] == [0, 1]
        finish_interview(store, interview_id, now=NOW + timedelta(minutes=12))
    with open_store(None, now=NOW) as store:
        record = load_interview(store, interview_id)
        (summary,) = list_interviews(store)
        with pytest.raises(QuizappError, match="no saved interview"):
            load_interview(store, interview_id + 1)
    assert record.config == config
    assert record.answers == tuple(answers)
    assert (record.started_at, record.finished_at) == (NOW, NOW + timedelta(minutes=12))
    assert record.score == 1
    assert (summary.id, summary.answered, summary.correct, summary.questions) == (interview_id, 1, 1, 2)
    assert (summary.skipped, summary.scored) == (1, 2), "a skip is not an answer; both are scored"


def test_naive_datetimes_are_refused() -> None:
    with open_store(None, now=NOW) as store, pytest.raises(ValueError, match="timezone-aware"):
        start_interview(store, InterviewConfig(), now=datetime(2025, 1, 1))


def test_threads_sharing_one_store_take_turns_writing() -> None:
    import threading

    from quizapp.store import review_count

    with open_store(None, now=NOW) as store:

        def write(tag: int) -> None:
            for i in range(50):
                ref = QuestionRef(f"q{i % 5}", "d")
                record_review(
                    store,
                    ref,
                    seed=tag,
                    answer="",
                    correct=True,
                    rating=3,
                    duration_ms=0,
                    now=NOW,
                    mode="drill",
                )

        threads = [threading.Thread(target=write, args=(t,)) for t in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert review_count(store) == 200
