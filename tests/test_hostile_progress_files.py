"""Someone else's progress database or export target (issue 33, item 7): every database is opened with
`trusted_schema` off, triggers and views quizapp did not make are removed (and the user told) before
anything is written, and an export never opens or replaces a FIFO, a device or a socket."""

from __future__ import annotations

import socket
import sqlite3
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

import pytest

from quizapp.errors import QuizappError
from quizapp.progress.writer import export_progress
from quizapp.store import QuestionRef, open_store, reviews_for
from quizapp.store.backup import FreshDatabase
from quizapp.store.connection import OUR_TRIGGERS, connect
from quizapp.store.migrations import MIGRATIONS
from quizapp.study import record_review

ROOT = Path(__file__).resolve().parent.parent
NOW = datetime(2025, 6, 1, 12, 0, tzinfo=UTC)


def _quizapp(*args: str, home: Path) -> subprocess.CompletedProcess[str]:
    env = {"QUIZAPP_HOME": str(home), "PATH": "/usr/bin:/bin", "PYTHONIOENCODING": "utf-8"}
    return subprocess.run(
        [sys.executable, "-m", "quizapp", *args],
        capture_output=True, text=True, timeout=60, cwd=ROOT, env=env, check=False,
    )  # fmt: skip


def _answer(store: object, seed: int) -> None:
    record_review(
        store,  # type: ignore[arg-type]
        QuestionRef("deck-q1", "deck"),
        seed=seed,
        answer="42",
        correct=True,
        rating=3,
        duration_ms=5_000,
        now=NOW,
        mode="drill",
    )


def test_every_connection_has_trusted_schema_off_so_the_schema_cannot_call_a_function(tmp_path: Path) -> None:
    with open_store(tmp_path / "progress.db", now=NOW) as store:
        assert store.conn.execute("PRAGMA trusted_schema").fetchone() == (0,)
        with FreshDatabase(store) as fresh:  # the file an import fills
            assert fresh.conn.execute("PRAGMA trusted_schema").fetchone() == (0,)
    theirs = sqlite3.connect(tmp_path / "theirs.db")
    try:  # a view that calls a function with side effects (one the reading program happens to define)
        theirs.create_function("side_effect", 0, lambda: 1)
        theirs.execute("CREATE VIEW v AS SELECT side_effect()")
    finally:
        theirs.close()
    calls: list[int] = []
    conn = connect(tmp_path / "theirs.db")
    try:
        conn.create_function("side_effect", 0, lambda: calls.append(1) or 1)
        with pytest.raises(sqlite3.OperationalError, match="unsafe use of side_effect"):
            conn.execute("SELECT * FROM v").fetchall()
    finally:
        conn.close()
    assert not calls


def _crafted(path: Path) -> None:
    """A real progress database, then what an attacker adds: a trigger that deletes every new review, one
    of ours with its body changed, and a view."""
    with open_store(path, now=NOW) as store:
        _answer(store, 1)
    conn = sqlite3.connect(path)
    try:
        conn.executescript(
            "CREATE TRIGGER eat_reviews AFTER INSERT ON reviews BEGIN DELETE FROM reviews; END;"
            "DROP TRIGGER reviews_tally_delete;"
            "CREATE TRIGGER reviews_tally_delete AFTER DELETE ON reviews BEGIN DELETE FROM cards; END;"
            'CREATE VIEW "odd""name" AS SELECT * FROM reviews;'
        )
    finally:
        conn.close()


def test_a_crafted_db_loses_its_triggers_and_views_before_anything_is_saved_and_the_user_is_told(
    tmp_path: Path,
) -> None:
    db = tmp_path / "crafted.db"
    _crafted(db)
    with open_store(db, now=NOW) as store:
        assert store.notice is not None
        assert "held 3 trigger(s) or view(s) quizapp did not make" in store.notice, store.notice
        for name in ("trigger 'eat_reviews'", "trigger 'reviews_tally_delete'", "view 'odd\"name'"):
            assert name in store.notice, store.notice
        _answer(store, 2)  # the app says "saved": it is
        assert [r.seed for r in reviews_for(store, "deck-q1")] == [1, 2]
        rows = store.conn.execute(
            "SELECT type, name, sql FROM sqlite_master WHERE type IN ('trigger', 'view')"
        )
        assert {name: sql for _, name, sql in rows} == OUR_TRIGGERS  # ours are back, word for word
    with open_store(db, now=NOW) as store:
        assert store.notice is None, "told once: the file holds only ours now"


def test_the_command_line_says_what_it_removed_and_goes_on(tmp_path: Path, isolated_home: Path) -> None:
    db = tmp_path / "crafted.db"
    _crafted(db)
    out = _quizapp("--db", str(db), "stats", home=isolated_home)
    assert out.returncode == 0, out.stderr
    assert "quizapp: The progress database" in out.stderr and "eat_reviews" in out.stderr, out.stderr


def test_a_database_quizapp_made_has_nothing_removed(tmp_path: Path) -> None:
    for _ in range(2):
        with open_store(tmp_path / "progress.db", now=NOW) as store:
            assert store.notice is None
            _answer(store, 1)


def test_the_migrations_make_no_trigger_or_view_that_is_not_listed_as_ours() -> None:
    conn = sqlite3.connect(":memory:")
    try:
        made: dict[str, str] = {}
        for migration in MIGRATIONS:
            migration(conn)
            rows = conn.execute("SELECT name, sql FROM sqlite_master WHERE type IN ('trigger', 'view')")
            made.update(dict(rows))
    finally:
        conn.close()
    assert made == OUR_TRIGGERS


def _fifo(tmp_path: Path) -> Path:
    import os

    path = tmp_path / "backup.json"
    os.mkfifo(path)  # nobody reads it: writing to it, or opening it to look inside, waits for ever
    return path


@pytest.mark.parametrize("force", [False, True])
def test_an_export_onto_a_fifo_is_refused_at_once(tmp_path: Path, isolated_home: Path, force: bool) -> None:
    fifo = _fifo(tmp_path)
    for what in ("progress", "anki"):
        out = _quizapp("export", what, str(fifo), *(["--force"] * force), home=isolated_home)
        assert out.returncode == 2, out.stderr
        assert f"Cannot write {fifo}: it is a FIFO (named pipe), and quizapp writes only regular files" in (
            out.stderr
        )
        assert fifo.is_fifo(), "the FIFO was neither opened nor replaced"


def test_an_export_onto_a_device_or_a_socket_is_refused(tmp_path: Path, isolated_home: Path) -> None:
    out = _quizapp("export", "progress", "/dev/null", "--force", home=isolated_home)
    assert out.returncode == 2 and "it is a character device" in out.stderr, out.stderr
    server = socket.socket(socket.AF_UNIX)
    try:
        server.bind(str(tmp_path / "s.json"))
        with open_store(tmp_path / "progress.db", now=NOW) as store:
            with pytest.raises(QuizappError, match="it is a socket, and quizapp writes only regular files"):
                export_progress(store, tmp_path / "s.json", now=NOW)
            with pytest.raises(QuizappError, match="it is a FIFO"):
                export_progress(store, _fifo(tmp_path), now=NOW)
    finally:
        server.close()
