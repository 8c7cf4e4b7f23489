"""Rolling daily backups: one copy before the first write of a day, the newest seven kept, each copy a whole
database, only the default database backed up, and a folder that cannot be written only warns."""

from __future__ import annotations

import json
import os
import sqlite3
import stat
import threading
from collections.abc import Iterator
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

import pytest

from quizapp import paths
from quizapp.cli import main
from quizapp.store import QuestionRef, Store, open_store, save_setting
from quizapp.store.reviews import review_count
from quizapp.store.rolling_backup import (
    KEEP_DAYS,
    DailyBackup,
    automatic_backup,
    backup_files,
    backup_path,
)
from quizapp.study import record_review

START = datetime(2025, 3, 3, 12, 0).astimezone()  # local noon: the local day is 2025-03-03 in every zone


class Clock:
    """A clock the test moves by hand."""

    def __init__(self, now: datetime) -> None:
        self.now = now

    def __call__(self) -> datetime:
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock(START)


@pytest.fixture
def warnings_seen() -> list[str]:
    return []


@pytest.fixture
def store(tmp_path: Path, clock: Clock, warnings_seen: list[str]) -> Iterator[Store]:
    backup = DailyBackup(folder=tmp_path / "backups", clock=clock, report=warnings_seen.append)
    with open_store(tmp_path / "progress.db", now=START, backup=backup) as opened:
        yield opened


def answer(store: Store, when: datetime, n: int = 0) -> None:
    record_review(
        store,
        QuestionRef(f"q{n}", "deck"),
        seed=n,
        answer="42",
        correct=True,
        rating=3,
        duration_ms=900,
        now=when,
    )


def copied(store: Store) -> None:
    """Waits for the day's copy, which is made in a thread of its own while the write goes ahead."""
    assert store.backup is not None
    store.backup.wait()


def test_the_first_write_of_a_day_makes_one_copy_and_later_writes_do_not(
    store: Store, clock: Clock, tmp_path: Path, warnings_seen: list[str]
) -> None:
    folder = tmp_path / "backups"
    assert not folder.exists(), "opening the database writes nothing and copies nothing"
    answer(store, clock.now)
    copied(store)
    first = backup_path(folder, START.date())
    assert [p for _, p in backup_files(folder)] == [first]
    before = first.stat()
    clock.now += timedelta(hours=3)
    answer(store, clock.now, 1)
    save_setting(store, "new_per_day", 5)
    copied(store)
    assert [p for _, p in backup_files(folder)] == [first]
    after = first.stat()
    assert (after.st_mtime_ns, after.st_size) == (before.st_mtime_ns, before.st_size)
    assert sorted(p.name for p in folder.iterdir()) == [first.name], "no partial or journal files left"
    assert warnings_seen == []


def test_another_process_the_same_day_finds_the_copy_and_leaves_it(
    tmp_path: Path, clock: Clock, warnings_seen: list[str]
) -> None:
    folder = tmp_path / "backups"
    for n in range(2):  # two runs of quizapp on one day
        backup = DailyBackup(folder=folder, clock=clock, report=warnings_seen.append)
        with open_store(tmp_path / "progress.db", now=START, backup=backup) as store:
            answer(store, clock.now, n)
    (only,) = backup_files(folder)
    with sqlite3.connect(only[1]) as copy:
        assert copy.execute("SELECT count(*) FROM reviews").fetchone() == (0,), (
            "taken before the day's writes"
        )
    copy.close()


def test_nine_days_of_writes_keep_the_newest_seven(store: Store, clock: Clock, tmp_path: Path) -> None:
    folder = tmp_path / "backups"
    (folder / "notes.txt").parent.mkdir(parents=True)
    (folder / "notes.txt").write_text("mine", encoding="utf-8")
    for day in range(9):
        clock.now = START + timedelta(days=day)
        answer(store, clock.now, day)
    copied(store)
    kept = [d for d, _ in backup_files(folder)]
    assert kept == [START.date() + timedelta(days=d) for d in range(2, 9)] and len(kept) == KEEP_DAYS
    assert (folder / "notes.txt").read_text(encoding="utf-8") == "mine", "only our own files are deleted"


def test_a_copy_is_a_whole_database_with_the_reviews_so_far(
    store: Store, clock: Clock, tmp_path: Path
) -> None:
    for n in range(3):
        answer(store, clock.now, n)
    clock.now += timedelta(days=1)
    answer(store, clock.now, 3)  # the next day's copy holds the three answers before it
    copied(store)
    copy = backup_path(tmp_path / "backups", clock.now.date())
    assert not copy.with_name(copy.name + "-wal").exists(), "one self-contained file"
    with open_store(copy, now=clock.now) as restored:
        assert restored.integrity_ok() and review_count(restored) == 3
    assert review_count(store) == 4, "the live database is untouched"


def test_a_folder_that_cannot_be_written_only_warns_and_the_write_happens(
    tmp_path: Path, clock: Clock, warnings_seen: list[str]
) -> None:
    if os.geteuid() == 0:  # root writes through chmod: a folder under a regular file fails for everyone
        blocker = tmp_path / "a-file"
        blocker.write_text("", encoding="utf-8")
        folder = blocker / "backups"
    else:
        folder = tmp_path / "read-only"
        folder.mkdir()
        folder.chmod(stat.S_IRUSR | stat.S_IXUSR)
    backup = DailyBackup(folder=folder, clock=clock, report=warnings_seen.append)
    try:
        with open_store(tmp_path / "progress.db", now=START, backup=backup) as store:
            answer(store, clock.now)
            answer(store, clock.now, 1)
            assert review_count(store) == 2
    finally:
        if folder.is_dir():
            folder.chmod(stat.S_IRWXU)
    (warning,) = warnings_seen  # once, not on every answer
    assert "Could not back up" in warning and str(folder) in warning and "still saved" in warning
    assert not folder.is_dir() or not list(folder.iterdir())


def test_only_the_default_database_is_backed_up_automatically(tmp_path: Path, isolated_home: Path) -> None:
    assert automatic_backup(tmp_path / "elsewhere.db", datetime.now, print) is None
    assert automatic_backup(":memory:", datetime.now, print) is None
    default = automatic_backup(None, datetime.now, print)
    assert default is not None and default.folder == isolated_home / "backups"
    assert automatic_backup(paths.db_path(None), datetime.now, print) is not None


def test_commands_back_up_the_default_database_and_a_copy_restores_through_import(
    isolated_home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with open_store(None, now=START) as earlier:  # yesterday's progress (opened without backups)
        save_setting(earlier, "interview_date", "2999-01-01")
    assert main(["plan", "--date", "2999-02-02"]) == 0
    (entry,) = backup_files(isolated_home / "backups")
    assert entry[0] == date.today()
    assert main(["--db", str(tmp_path / "other.db"), "plan", "--date", "2999-01-01"]) == 0
    assert len(backup_files(isolated_home / "backups")) == 1, "a --db database is not backed up"
    # the README's restore: export the copy, import it (the progress it replaces is kept aside)
    dump = tmp_path / "restore.json"
    assert main(["--db", str(entry[1]), "export", "progress", str(dump)]) == 0
    assert main(["import", "progress", str(dump)]) == 0
    capsys.readouterr()
    assert main(["plan", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["interview"] == "2999-01-01"


def test_the_day_is_the_local_calendar_day_of_the_clock(tmp_path: Path, warnings_seen: list[str]) -> None:
    late = datetime(2025, 3, 3, 23, 59, tzinfo=UTC)
    backup = DailyBackup(folder=tmp_path / "b", clock=lambda: late, report=warnings_seen.append)
    with open_store(tmp_path / "progress.db", now=late, backup=backup) as store:
        save_setting(store, "new_per_day", 4)
    assert [d for d, _ in backup_files(tmp_path / "b")] == [late.astimezone().date()]


def test_the_first_answer_of_a_day_is_saved_while_its_copy_is_made_elsewhere(
    tmp_path: Path, clock: Clock
) -> None:
    """The copy runs off the answer's path (its own thread), yet holds the database as it was before the
    answer, and closing the store waits for it: whole, in place, no partial file left."""
    folder = tmp_path / "backups"
    threads: list[str] = []
    backup = DailyBackup(folder=folder, clock=clock, report=lambda _: None)
    with open_store(tmp_path / "progress.db", now=START, backup=backup) as store:
        clock.now = START - timedelta(days=1)
        for n in range(3):  # yesterday's answers
            answer(store, clock.now, n)
        clock.now = START
        answer(store, clock.now, 3)  # the first of today
        assert backup._copying is not None, "the copy was handed to a thread of its own"
        threads.append(backup._copying.name)
        assert review_count(store) == 4, "the answer is committed whether or not the copy has finished"
    copy = backup_path(folder, START.date())
    assert sorted(p.name for p in folder.iterdir()) == sorted(
        [copy.name, backup_path(folder, (START - timedelta(days=1)).date()).name]
    ), "whole, in place, no partial file"
    with open_store(copy, now=clock.now) as restored:
        assert restored.integrity_ok() and review_count(restored) == 3, "the state before the answer"
    assert threads == ["daily backup"]


def test_a_failed_copy_is_reported_from_its_own_thread_and_never_raises_into_the_answer(
    tmp_path: Path, clock: Clock
) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("", encoding="utf-8")
    seen: list[tuple[str, bool]] = []
    backup = DailyBackup(
        folder=blocker / "backups",
        clock=clock,
        report=lambda text: seen.append((text, threading.current_thread() is threading.main_thread())),
    )
    with open_store(tmp_path / "progress.db", now=START, backup=backup) as store:
        answer(store, clock.now)
        assert review_count(store) == 1
    ((text, on_main),) = seen
    assert "Could not back up" in text and not on_main, "reported by the copy's thread, not the answer's"
