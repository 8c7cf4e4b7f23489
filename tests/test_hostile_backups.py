"""Hostile progress files and tampered databases: an import never lets in a card the scheduler cannot use,
a damaged card row is started again (with a message) instead of failing every answer, and whatever export
writes, import reads back."""

from __future__ import annotations

import json
import math
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from quizapp.errors import QuizappError
from quizapp.progress.reader import import_progress
from quizapp.progress.writer import export_progress, progress_document
from quizapp.store import QuestionRef, Store, get_card, open_store, review_count
from quizapp.store.cards import unsound
from quizapp.study import make_scheduler, record_review
from tests.test_export import NOW, _dump, _fill


@pytest.fixture
def filled(tmp_path: Path) -> Iterator[Store]:
    with open_store(tmp_path / "a.db", now=NOW) as store:
        _fill(store)
        yield store


def _review_card(doc: dict[str, Any]) -> dict[str, Any]:
    return next(c for c in doc["cards"] if c["state"] == 2)


def _write(path: Path, doc: dict[str, Any]) -> Path:
    path.write_text(json.dumps(doc, allow_nan=True), encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"stability": None}, "a card in review has no stability"),
        ({"stability": math.nan}, r"not JSON .*NaN and Infinity, for one, are not JSON numbers"),
        ({"stability": math.inf}, r"not JSON .*NaN and Infinity, for one, are not JSON numbers"),
        ({"stability": -1.0}, r"stability -1\.0 is not a number from 0\.001"),
        ({"difficulty": 11.5}, r"difficulty 11\.5 is not a number from 1 to 10"),
        ({"reps": 2**63}, r"not JSON .*a whole number of 2\^63 or more"),
        ({"lapses": -3}, r"lapses: Input should be greater than or equal to 0"),
        ({"due": "0001-01-01T00:00:00Z"}, r"due: .*not a date from 1970 to 2399"),
        ({"step": None, "state": 3}, "a learning card has no learning step"),
    ],
)
def test_a_card_the_scheduler_cannot_use_is_refused_and_nothing_changes(
    filled: Store, tmp_path: Path, change: dict[str, Any], message: str
) -> None:
    doc = json.loads(json.dumps(progress_document(filled, now=NOW)))
    _review_card(doc).update(change)
    before = _dump(filled)
    with pytest.raises(QuizappError, match=message):
        import_progress(filled, _write(tmp_path / "in.json", doc), now=NOW)
    assert _dump(filled) == before


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("duration_ms", -5, r"reviews\[0\]\.duration_ms: Input should be greater than or equal to 0"),
        ("seed", 2**70, r"not JSON .*a whole number of 2\^63 or more"),
        ("reviewed_at", "0001-01-01T00:00:00+00:00", r"reviews\[0\]\.reviewed_at: .*from 1970 to 2399"),
        ("id", 0, r"reviews\[0\]\.id: Input should be greater than or equal to 1"),
    ],
)
def test_review_numbers_and_dates_out_of_range_are_refused_by_field(
    filled: Store, tmp_path: Path, field: str, value: Any, message: str
) -> None:
    doc = json.loads(json.dumps(progress_document(filled, now=NOW)))
    doc["reviews"][0][field] = value
    with pytest.raises(QuizappError, match=message):
        import_progress(filled, _write(tmp_path / "in.json", doc), now=NOW)


def test_an_unknown_section_is_refused_before_the_records_are_checked(filled: Store, tmp_path: Path) -> None:
    doc = json.loads(json.dumps(progress_document(filled, now=NOW)))
    doc["reviews"] = doc["reviews"] * 200  # 2,400 reviews, every one of them a duplicate id
    doc["reviews"][0]["id"] = 0  # a record that fails its own check, were the records checked first
    doc["notes"] = ["x" * 1000] * 20
    path = _write(tmp_path / "big.json", doc)
    # refused on the top-level keys, before any record: an unknown section may be huge, and validating
    # millions of records first would take seconds and much memory
    with pytest.raises(QuizappError, match=r"unknown section 'notes'"):
        import_progress(filled, path, now=NOW)


def _tamper(store: Store, question_id: str, **columns: Any) -> None:
    """Writes a card row as a foreign program or a damaged disk might, bypassing the store."""
    with sqlite3.connect(store.path) as conn:
        conn.execute("PRAGMA ignore_check_constraints = ON")  # as a program that ignores our schema
        sets = ", ".join(f"{name} = ?" for name in columns)
        conn.execute(f"UPDATE cards SET {sets} WHERE question_id = ?", (*columns.values(), question_id))
    conn.close()


@pytest.mark.parametrize(
    "columns",
    [
        {"stability": -1.0},
        {"stability": float("inf")},
        {"stability": None, "state": 2},
        {"difficulty": "abc"},
        {"state": 7},
        {"due_us": 2**62},
        {"reps": -4},
    ],
)
def test_a_tampered_card_is_started_again_with_a_message_and_can_be_answered_and_exported(
    filled: Store, tmp_path: Path, columns: dict[str, Any]
) -> None:
    ref = QuestionRef("q0", "deck-a")
    _tamper(filled, "q0", **columns)
    card = get_card(filled, "q0")
    assert card is not None and card.repaired and card.is_new

    outcome = record_review(
        filled, ref, seed=1, answer="1", correct=True, rating=3, duration_ms=10, now=NOW,
        scheduler=make_scheduler(),
    )  # fmt: skip
    assert outcome.repaired == card.repaired and outcome.scheduled
    saved = get_card(filled, "q0")
    assert saved is not None and saved.repaired is None and unsound(saved) is None
    assert not saved.is_new  # scheduled again by FSRS from a fresh start

    # whatever export writes, import takes back
    export_progress(filled, tmp_path / "p.json", now=NOW)
    with open_store(tmp_path / "b.db", now=NOW) as other:
        import_progress(other, tmp_path / "p.json", now=NOW)
        assert review_count(other) == review_count(filled)


def test_a_tampered_card_is_exported_as_the_fresh_card_it_became(filled: Store, tmp_path: Path) -> None:
    _tamper(filled, "q1", stability=float("-inf"), state=2)
    export_progress(filled, tmp_path / "p.json", now=NOW)
    with open_store(tmp_path / "b.db", now=NOW) as other:
        import_progress(other, tmp_path / "p.json", now=NOW)
        card = get_card(other, "q1")
        assert card is not None and card.is_new and card.repaired is None


def test_a_large_backup_is_checked_as_a_stream_not_held_in_memory(filled: Store, tmp_path: Path) -> None:
    import tracemalloc

    from quizapp.progress.reader import read_progress_file

    doc = json.loads(json.dumps(progress_document(filled, now=NOW)))
    template = doc["reviews"][0]
    path = tmp_path / "large.json"
    with path.open("w", encoding="utf-8") as fh:  # 30,000 long reviews of the first card, one per line
        head = {k: doc[k] for k in ("format", "version", "exported_at", "cards", "interviews", "settings")}
        fh.write(json.dumps(head)[:-1] + ', "reviews": [\n')
        words = "an explanation typed out in full, as explain answers are " * 24  # about 1,400 characters
        fh.write(
            ",\n".join(
                json.dumps({**template, "id": i + 1, "answer": f"{i}: {words}"}) for i in range(30_000)
            )
        )
        fh.write("\n]}\n")
    size = path.stat().st_size
    tracemalloc.start()
    try:
        checked = read_progress_file(path)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert checked.reviews == 30_000
    assert peak < size / 4, (peak, size)  # chunks and the set of review ids, never the whole document
    with open_store(tmp_path / "big.db", now=NOW) as other:
        assert import_progress(other, path, now=NOW).reviews == 30_000
        assert review_count(other) == 30_000


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"version": True}, "of version True"),
        ({"version": 1.0}, "of version 1.0"),
        ({"settings": {"no_such_setting": 1}}, "unknown setting 'no_such_setting'"),
        ({"settings": {"theme": "\x1b]52;c;ZXZpbA==\x07nord"}}, r"theme must be a theme's name"),
        ({"settings": {"theme": "x" * 500}}, r"theme must be a theme's name"),
    ],
)
def test_a_version_or_setting_of_the_wrong_type_is_refused(
    filled: Store, tmp_path: Path, change: dict[str, Any], message: str
) -> None:
    from quizapp.progress.reader import read_progress_file

    doc = {**json.loads(json.dumps(progress_document(filled, now=NOW))), **change}
    with pytest.raises(QuizappError, match=message):
        read_progress_file(_write(tmp_path / "bad.json", doc))


def test_a_huge_string_is_refused_in_one_linear_pass_before_any_parser(filled: Store, tmp_path: Path) -> None:
    from quizapp.progress.long_strings import MAX_STRING_BYTES
    from quizapp.progress.reader import read_progress_file

    doc = json.loads(json.dumps(progress_document(filled, now=NOW)))
    doc["reviews"][0]["answer"] = "\\" + '"' + "a" * (3 * MAX_STRING_BYTES)  # escaped quotes do not end it
    with pytest.raises(QuizappError, match="a string of more than 1 MiB"):
        read_progress_file(_write(tmp_path / "huge.json", doc))
    doc["reviews"][0]["answer"] = "b" * (MAX_STRING_BYTES // 2)  # long, but under the cap: imported
    assert read_progress_file(_write(tmp_path / "long.json", doc)).reviews == len(doc["reviews"])


def test_standard_input_is_copied_only_up_to_the_size_limit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import io
    import sys

    from quizapp.commands import progress as command
    from quizapp.progress import format as progress_format

    monkeypatch.setattr(progress_format, "MAX_FILE_BYTES", 3 << 20)

    class Endless(io.RawIOBase):
        """A stream that never ends: the copy must stop on its own."""

        def readable(self) -> bool:
            return True

        def readinto(self, buffer: Any) -> int:
            buffer[:] = b"x" * len(buffer)
            return len(buffer)

    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BufferedReader(Endless())))
    target = tmp_path / "copy.json"
    with pytest.raises(QuizappError, match=r"more than 0 GiB|far larger"):
        command._copy_stdin(target)
    assert target.stat().st_size <= 3 << 20
