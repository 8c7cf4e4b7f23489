"""Faults the store must survive: SIGKILL mid-write, two writers at once, corrupt files, newer schemas,
and data folders that cannot be written. Nothing the user did may be lost or silently deleted."""

from __future__ import annotations

import hashlib
import random
import re
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from quizapp.errors import QuizappError
from quizapp.store import SCHEMA_VERSION, QuestionRef, open_store, review_count
from quizapp.study import make_scheduler, record_review

NOW = datetime(2025, 6, 1, 12, 0, 0, tzinfo=UTC)

# A writer that says "ready" once imported, waits for a line on stdin, then records reviews (forever when
# count is -1), printing each review's id only after record_review returned (after the commit), flushing
# so the parent sees it even if the writer is killed a moment later.
WRITER = """
import sys
from datetime import UTC, datetime, timedelta
from quizapp.store import QuestionRef, open_store
from quizapp.study import make_scheduler, record_review

path, tag, count = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
print("ready", flush=True)
sys.stdin.readline()
base = datetime(2025, 1, 1, tzinfo=UTC) + timedelta(days=tag)
store = open_store(path, now=base)
scheduler = make_scheduler(fuzzing=False)
i = 0
while count < 0 or i < count:
    question = QuestionRef(f"q{i % 20}", "faults")
    outcome = record_review(
        store, question, seed=i, answer=f"{tag}:{i}", correct=i % 3 > 0, rating=1 + i % 4,
        duration_ms=i, now=base + timedelta(seconds=i), scheduler=scheduler,
    )
    sys.stdout.write(f"{outcome.review.id}\\n")
    sys.stdout.flush()
    i += 1
"""


def _writer(path: Path, tag: int, count: int = -1) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-c", WRITER, str(path), str(tag), str(count)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _go(writer: subprocess.Popen[str]) -> None:
    """Waits until the writer has imported everything, then lets it start writing."""
    assert writer.stdin is not None and writer.stdout is not None
    assert writer.stdout.readline() == "ready\n"
    writer.stdin.write("go\n")
    writer.stdin.flush()


def _review_ids(path: Path) -> dict[int, str]:
    conn = sqlite3.connect(path)
    try:
        assert conn.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
        if conn.execute("SELECT count(*) FROM sqlite_master WHERE name = 'reviews'").fetchone()[0] == 0:
            return {}  # killed before the schema was created
        return dict(conn.execute("SELECT id, answer FROM reviews"))
    finally:
        conn.close()


def test_reviews_whose_commit_returned_survive_sigkill_at_random_moments(tmp_path: Path) -> None:
    """Fifty writers, each killed at a random moment after it has committed at least one review (so the
    kill lands mid-work however fast or slow this machine is); every review whose commit returned stays."""
    path = tmp_path / "progress.db"
    rng = random.Random(2025)
    committed: set[int] = set()
    waiting = _writer(path, 0)  # the next writer starts Python while the current one is being killed
    try:
        for round_no in range(50):
            child, waiting = waiting, _writer(path, round_no + 1)
            _go(child)
            assert child.stdout is not None
            first = int(child.stdout.readline())  # one commit has returned: the writer is mid-stream
            time.sleep(rng.uniform(0.0, 0.03))
            child.send_signal(signal.SIGKILL)
            out, err = child.communicate(timeout=30)
            assert child.returncode == -signal.SIGKILL, err
            printed = {first, *(int(line) for line in out.split())}
            stored = _review_ids(path)
            assert printed <= stored.keys(), f"round {round_no}: lost {sorted(printed - stored.keys())}"
            assert all(stored[i].startswith(f"{round_no}:") for i in printed)
            committed |= printed
    finally:
        waiting.kill()
        waiting.communicate()
    assert committed <= _review_ids(path).keys()
    assert len(committed) >= 50, "every round committed before its kill"


def test_two_processes_recording_at_once_lose_nothing_and_never_see_locked(tmp_path: Path) -> None:
    path = tmp_path / "progress.db"
    with open_store(path, now=NOW):
        pass
    writers = [_writer(path, tag, 500) for tag in (1, 2)]
    for w in writers:
        _go(w)
    results = [w.communicate(timeout=120) for w in writers]
    for w, (out, err) in zip(writers, results, strict=True):
        assert w.returncode == 0, err
        assert "locked" not in err
        assert len(out.split()) == 500
    stored = _review_ids(path)
    assert len(stored) == 1000
    for tag in (1, 2):
        mine = sorted(int(a.split(":")[1]) for a in stored.values() if a.startswith(f"{tag}:"))
        assert mine == list(range(500))


def _files(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


def _assert_moved_aside(folder: Path, before: dict[str, bytes]) -> None:
    """The old bytes now live in progress.db.corrupt-<UTC stamp> (and its companions), unchanged."""
    stamp = NOW.strftime("%Y%m%dT%H%M%SZ")
    after = _files(folder)
    for name, data in before.items():
        moved = name.replace("progress.db", f"progress.db.corrupt-{stamp}", 1)
        assert after[moved] == data, f"{name} was not moved intact to {moved}"


def _usable(path: Path) -> None:
    with open_store(path, now=NOW) as store:
        record_review(
            store, QuestionRef("q", "d"), seed=0, answer="a", correct=True, rating=3, duration_ms=1, now=NOW
        )
        assert review_count(store) == 1 and store.integrity_ok()


def test_a_file_of_random_bytes_is_moved_aside_and_a_fresh_db_created(isolated_home: Path) -> None:
    path = isolated_home / "progress.db"
    path.write_bytes(random.Random(1).randbytes(8192))
    (isolated_home / "progress.db-wal").write_bytes(b"stale wal")
    before = _files(isolated_home)
    with open_store(None, now=NOW) as store:
        notice = store.notice
    stamp = NOW.strftime("%Y%m%dT%H%M%SZ")
    assert notice is not None and f"progress.db.corrupt-{stamp}" in notice and "nothing was deleted" in notice
    _assert_moved_aside(isolated_home, before)
    _usable(path)


@pytest.mark.parametrize("keep", [0.5, 50 / 4096])
def test_a_truncated_database_is_moved_aside_and_a_fresh_db_created(isolated_home: Path, keep: float) -> None:
    path = isolated_home / "progress.db"
    with open_store(path, now=NOW) as store:
        scheduler = make_scheduler(fuzzing=False)
        for i in range(300):
            ref = QuestionRef(f"q{i}", "d")
            record_review(
                store, ref, seed=i, answer="x" * 200, correct=True, rating=3, duration_ms=1, now=NOW,
                scheduler=scheduler,
            )  # fmt: skip
    data = path.read_bytes()
    path.write_bytes(data[: int(len(data) * keep)])
    before = _files(isolated_home)
    with open_store(path, now=NOW) as store:
        assert store.notice is not None and "moved to" in store.notice
        assert review_count(store) == 0
    _assert_moved_aside(isolated_home, before)


def test_a_database_with_a_garbled_schema_page_is_moved_aside(isolated_home: Path) -> None:
    path = isolated_home / "progress.db"
    with open_store(path, now=NOW):
        pass
    data = bytearray(path.read_bytes())
    data[100:4096] = random.Random(3).randbytes(3996)  # page 1 after the header: the schema b-tree
    path.write_bytes(bytes(data))
    before = _files(isolated_home)
    with open_store(path, now=NOW) as store:
        assert store.notice is not None and "malformed" in store.notice
    _assert_moved_aside(isolated_home, before)
    _usable(path)


def test_a_database_from_a_newer_quizapp_is_refused_and_left_untouched(isolated_home: Path) -> None:
    path = isolated_home / "progress.db"
    with open_store(path, now=NOW) as store:
        ref = QuestionRef("q", "d")
        record_review(store, ref, seed=0, answer="", correct=True, rating=3, duration_ms=0, now=NOW)
        store.conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    before = _files(isolated_home)
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    expected = rf"{re.escape(str(path))}.*newer quizapp.*version {SCHEMA_VERSION + 1}.*untouched"
    with pytest.raises(QuizappError, match=expected):
        open_store(path, now=NOW)
    assert _files(isolated_home) == before
    assert hashlib.sha256(path.read_bytes()).hexdigest() == digest


def test_a_data_folder_that_cannot_be_created_is_named(tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    with pytest.raises(
        QuizappError, match=f"Cannot create the data folder {re.escape(str(blocker / 'data'))}"
    ):
        open_store(blocker / "data" / "progress.db", now=NOW)


@pytest.fixture
def shared_tmp() -> Iterator[Path]:
    """A temp folder an unprivileged user can reach (pytest's own tmp is private to root)."""
    base = Path(tempfile.mkdtemp(prefix="quizapp-ro-"))
    base.chmod(0o755)
    try:
        yield base
    finally:
        for p in (base, *base.rglob("*")):
            if p.is_dir():
                p.chmod(0o755)
        shutil.rmtree(base)


def _open_error(path: Path) -> str:
    """The QuizappError message of opening `path`, as a user without root would get it."""
    code = (
        "import os, sys\nfrom datetime import UTC, datetime\nfrom quizapp.errors import QuizappError\n"
        "from quizapp.store import open_store\n"
        # Root ignores permissions: after the imports, become "nobody" (root's Python is not theirs to run).
        "if os.geteuid() == 0:\n    os.setgid(65534)\n    os.setuid(65534)\n"
        "try:\n    open_store(sys.argv[1], now=datetime(2025, 1, 1, tzinfo=UTC))\n"
        "except QuizappError as exc:\n    print(exc)\nelse:\n    print('OPENED')\n"
    )
    out = subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    return out.stdout.strip()


def test_a_read_only_data_folder_gets_a_message_naming_it(shared_tmp: Path) -> None:
    folder = shared_tmp / "data"
    folder.mkdir()
    folder.chmod(0o555)
    message = _open_error(folder / "progress.db")
    assert message.startswith(f"The data folder {folder} is read-only"), message


def test_a_missing_data_folder_under_a_read_only_parent_gets_a_message_naming_it(shared_tmp: Path) -> None:
    parent = shared_tmp / "locked"
    parent.mkdir()
    parent.chmod(0o555)
    message = _open_error(parent / "data" / "progress.db")
    assert message.startswith(f"Cannot create the data folder {parent / 'data'}"), message


def test_a_read_only_database_is_found_at_start_not_at_the_first_answer(shared_tmp: Path) -> None:
    folder = shared_tmp / "data"
    folder.mkdir()
    folder.chmod(0o777)  # the folder is writable (SQLite's -wal and -shm files), the database is not
    db = folder / "progress.db"
    with open_store(db, now=NOW) as store:
        record_review(store, QuestionRef("q", "d"), seed=1, answer="1", correct=True, rating=3,
                      duration_ms=5, now=NOW)  # fmt: skip
    db.chmod(0o444)
    before = db.read_bytes()
    message = _open_error(db)
    assert message.startswith(f"The progress database {db} is read-only"), message
    assert "chmod u+w" in message
    assert db.read_bytes() == before


def test_a_full_disk_is_reported_as_full_and_the_saved_answers_stay(tmp_path: Path) -> None:
    with open_store(tmp_path / "p.db", now=NOW) as store:
        ref = QuestionRef("q", "d")
        record_review(store, ref, seed=1, answer="1", correct=True, rating=3, duration_ms=5, now=NOW)
        pages = store.conn.execute("PRAGMA page_count").fetchone()[0]
        store.conn.execute(f"PRAGMA max_page_count = {pages}")  # SQLite's own "database or disk is full"
        with pytest.raises(QuizappError, match=r"The disk holding .* is full \([\d,]+ bytes free\)"):
            record_review(store, ref, seed=2, answer="x" * 200_000, correct=True, rating=3, duration_ms=5,
                          now=NOW)  # fmt: skip
        assert review_count(store) == 1


def test_a_damaged_page_found_while_running_names_the_backups_and_the_way_back(tmp_path: Path) -> None:
    import os
    import sqlite3
    import subprocess
    import sys
    from datetime import UTC, datetime

    from quizapp.store import open_store

    home = tmp_path / "home"
    home.mkdir()
    db = home / "progress.db"
    with open_store(db, now=datetime(2026, 1, 1, tzinfo=UTC)):
        pass
    raw = sqlite3.connect(db)
    raw.execute("PRAGMA journal_mode = DELETE")
    pages = [
        p
        for (p,) in raw.execute(
            "SELECT rootpage FROM sqlite_master WHERE tbl_name = 'reviews' AND rootpage > 0"
        )
    ]
    (size,) = raw.execute("PRAGMA page_size").fetchone()
    raw.close()
    with db.open("r+b") as fh:  # the reviews table's pages become noise; the header stays sound
        for page in pages:
            fh.seek((page - 1) * size)
            fh.write(b"\xa5" * size)
    root = Path(__file__).resolve().parent.parent
    env = {**os.environ, "QUIZAPP_HOME": str(home), "PYTHONPATH": str(root)}
    done = subprocess.run(
        [sys.executable, "-m", "quizapp", "stats"], capture_output=True, text=True, timeout=120, env=env
    )
    assert done.returncode == 2, done.stderr
    assert "internal error" not in done.stderr
    assert str(home / "backups") in done.stderr and "quizapp import progress" in done.stderr, done.stderr
