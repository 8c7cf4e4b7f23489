"""Import's fast path (issue 35): records in export's own layout are checked in plain code instead of a
record model each. It must never accept what the models refuse, must give the very rows they give, and the
checks across records (repeated ids, reviews without a card, unsafe ids) must still catch a problem in any
chunk of a large file. The load drops and builds the indexes in the transaction that loads the rows."""

from __future__ import annotations

import copy
import json
import sqlite3
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError
from pydantic_core import from_json

from quizapp.errors import QuizappError
from quizapp.progress import export_layout
from quizapp.progress.format import HEAD, RECORD_SECTIONS
from quizapp.progress.long_strings import MAX_STRING_BYTES
from quizapp.progress.plain_json import ADAPTERS, CHUNK
from quizapp.progress.plain_records import PLAIN_ROWS
from quizapp.progress.reader import SourceChecked, _load_json, check_progress_file, import_progress
from quizapp.progress.record_checks import CardRow, RecordChecks
from quizapp.progress.writer import export_progress
from quizapp.store import QuestionRef, backup, card_id_for, open_store, review_count
from quizapp.store.backup import FreshDatabase
from quizapp.study import record_review

NOW = datetime(2025, 6, 1, 12, 0, tzinfo=UTC)

CARD: dict[str, Any] = {
    "question_id": "deck-q1", "card_id": card_id_for("deck-q1"), "deck_id": "deck", "state": 2, "step": None,
    "stability": 8.5, "difficulty": 5.25, "due": "2025-06-09T01:00:02.428314+00:00",
    "last_review": "2025-05-31T01:00:02.000000+00:00", "introduced": "2024-02-29T23:59:59.999999+00:00",
    "reps": 12, "lapses": 4, "suspended": False, "flagged": True,
}  # fmt: skip
REVIEW: dict[str, Any] = {
    "id": 1, "question_id": "deck-q1", "deck_id": "deck", "reviewed_at": "2025-05-31T01:00:02.000000+00:00",
    "seed": -(2**63), "answer": "2*80*8*128 B", "correct": False, "rating": 1, "duration_ms": 0,
    "diagnosis": "Forgot the factor 2", "diagnosis_id": "kv-x2", "mode": "study", "state_before": None,
    "scheduled": True,
}  # fmt: skip


def _with(record: dict[str, Any], key: str, value: Any) -> dict[str, Any]:
    changed = copy.deepcopy(record)
    changed[key] = value
    return changed


def _without(record: dict[str, Any], key: str) -> dict[str, Any]:
    return {k: v for k, v in record.items() if k != key}


VARIANTS: dict[str, list[Any]] = {
    "reviews": [
        REVIEW,
        _with(REVIEW, "points", "cmxCMX"),
        _with(REVIEW, "points", None),
        *(_with(REVIEW, "points", bad) for bad in ("", "cmq", "c\n", "c" * 65, 5, ["c"])),
        *(_with(REVIEW, "id", bad) for bad in (0, -1, 2**63, True, 1.0, "1", None)),
        *(_with(REVIEW, "seed", bad) for bad in (2**63, -(2**63) - 1, 1.5, False)),
        *(_with(REVIEW, "rating", bad) for bad in (0, 5, True, 3.0, "3")),
        *(_with(REVIEW, "mode", bad) for bad in ("Study", "", None, 1)),
        *(_with(REVIEW, "state_before", bad) for bad in (0, 4, True, 2.0, [2])),
        *(_with(REVIEW, "correct", bad) for bad in (0, 1, "true", None)),
        *(_with(REVIEW, key, bad) for key in ("answer", "question_id", "deck_id") for bad in (None, 1)),
        *(_with(REVIEW, "diagnosis_id", bad) for bad in (3, {"a": 1})),
        *(_with(REVIEW, "duration_ms", bad) for bad in (-1, 2**63, 1e3)),
        *(
            _with(REVIEW, "reviewed_at", bad)
            for bad in (
                "2025-05-31T01:00:02+00:00",  # valid, but not as export writes it
                "2025-05-31T01:00:02.000000Z",
                "2025-05-31T01:00:02.000000+01:00",
                "2025-05-31 01:00:02.000000+00:00",
                "2025-05-31T01:00:02.000000",
                "1969-12-31T23:59:59.999999+00:00",
                "2400-01-01T00:00:00.000000+00:00",
                "1970-01-01T00:00:00.000000+00:00",
                "2399-12-31T23:59:59.999999+00:00",
                "2025-02-29T01:00:02.000000+00:00",
                "2025-05-31T24:00:00.000000+00:00",
                "2025-05-31T23:59:60.000000+00:00",
                "\uff12025-05-31T01:00:02.000000+00:00",  # a full-width digit
                "2025-05-31T01:00:02.000000+00:00\n",
                "2025-05-31T01:00:02.000000+00:00\n2025-05-31T01:00:02.000000+00:00",  # two in one
                1748653202,
                None,
            )
        ),
        _with(REVIEW, "extra", 1),
        _without(REVIEW, "scheduled"),
        {"question_id": REVIEW["question_id"], **_without(REVIEW, "question_id")},  # another key order
        [1, 2],
    ],
    "cards": [
        CARD,
        _with(_with(_with(CARD, "state", 1), "step", 0), "last_review", None),
        _with(_with(CARD, "due", None), "introduced", None),
        *(_with(CARD, "card_id", bad) for bad in (-1, 2**63, True, 1.0)),
        *(_with(CARD, "state", bad) for bad in (0, 4, True, 2.0)),
        *(_with(CARD, "step", bad) for bad in (-1, 2**63, 0.0, False)),
        *(_with(CARD, key, bad) for key in ("stability", "difficulty") for bad in (5, "5.0", True, 1e308)),
        *(_with(CARD, key, bad) for key in ("reps", "lapses") for bad in (-1, 2**63, None, 3.0)),
        *(_with(CARD, key, bad) for key in ("suspended", "flagged") for bad in (0, None, "false")),
        *(_with(CARD, "due", bad) for bad in ("2025-06-09", "2025-06-09T01:00:02.428314-01:00", 0)),
        _with(CARD, "last_review", "2025-05-31T01:00:02.000000+00:00 "),
        _with(CARD, "extra", None),
        _without(CARD, "flagged"),
        {"card_id": CARD["card_id"], **_without(CARD, "card_id")},
    ],
}  # fmt: skip
"""Export's own records, and records it would never write: another type, range, format, key or order."""


def _checks(section: str) -> RecordChecks:
    checks = RecordChecks(Path("in.json"))
    if section == "reviews":
        checks.questions.add(REVIEW["question_id"])  # its card came in an earlier chunk
    return checks


def _model_rows(section: str, text: bytes) -> list[tuple[Any, ...]] | None:
    """The rows the record models and the checks across records give for a chunk; None if they refuse."""
    try:
        records = ADAPTERS[section].validate_json(text)
        checks = _checks(section)
        rows = checks.cards(0, records) if section == "cards" else checks.reviews(0, records)
    except (ValidationError, QuizappError):
        return None
    return [tuple(row) for row in rows]


def _plain_rows(section: str, text: bytes) -> list[tuple[Any, ...]] | None:
    """The rows of the plain checks and the same checks across records; None if a check refuses, or the
    plain checks hand the chunk to the models."""
    try:
        rows = PLAIN_ROWS[section](from_json(text, allow_inf_nan=False))
    except ValueError:  # as export_layout: then read as plain JSON
        return None
    if rows is None:
        return None
    try:
        if section == "cards":
            return [tuple(row) for row in _checks(section).card_rows(0, [CardRow._make(r) for r in rows])]
        return _checks(section).review_rows(0, rows)
    except QuizappError:
        return None


@pytest.mark.parametrize("section", ["reviews", "cards"])
def test_the_plain_checks_never_accept_what_the_record_models_refuse_and_give_their_very_rows(
    section: str,
) -> None:
    """Each variant alone and after a good record: a chunk is accepted or handed to the models whole."""
    good = VARIANTS[section][0]
    other = {"reviews": {**REVIEW, "id": 999}, "cards": {**CARD, "question_id": "deck-q0",
             "card_id": card_id_for("deck-q0")}}[section]  # fmt: skip
    accepted = 0
    for variant in VARIANTS[section]:
        for chunk in ([variant], [other, variant]):
            text = json.dumps(chunk).encode()
            models, plain = _model_rows(section, text), _plain_rows(section, text)
            if models is None:
                assert plain is None, variant
            elif plain is not None:
                assert plain == models, variant
                accepted += 1
    assert _plain_rows(section, json.dumps([good, other]).encode()) is not None
    assert accepted >= 4  # export's own records take the plain path


@pytest.mark.parametrize("number", ["NaN", "Infinity", "-Infinity", "1e400"])
def test_a_stability_that_is_no_finite_number_is_never_accepted(number: str) -> None:
    text = json.dumps([CARD]).replace('"stability": 8.5', f'"stability": {number}').encode()
    assert _plain_rows("cards", text) is None


def _export_layout(doc: dict[str, Any]) -> str:
    """A progress document written in export's layout: one record per line."""
    text = "{\n" + "".join(f" {json.dumps(key)}: {json.dumps(doc[key])},\n" for key in HEAD)
    for name in RECORD_SECTIONS:
        lines = ",\n".join("  " + json.dumps(record, ensure_ascii=False) for record in doc[name])
        text += f' "{name}": [\n{lines}\n ],\n' if lines else f' "{name}": [],\n'
    return text + f' "settings": {json.dumps(doc["settings"])}\n}}\n'


def _large_doc(tmp_path: Path) -> dict[str, Any]:
    """A real export of one answered question, its review repeated into more than two chunks."""
    with open_store(tmp_path / "source.db", now=NOW) as store:
        record_review(
            store, QuestionRef("deck-q1", "deck"), seed=1, answer="42", correct=True, rating=3,
            duration_ms=5_000, now=NOW, mode="study",
        )  # fmt: skip
        export_progress(store, tmp_path / "one.json", now=NOW)
    exported = (tmp_path / "one.json").read_text(encoding="utf-8")
    doc: dict[str, Any] = json.loads(exported)
    assert _export_layout(doc) == exported  # the helper writes export's own layout
    review = doc["reviews"][0]
    doc["reviews"] = [{**review, "id": n, "seed": n} for n in range(1, 2 * CHUNK + 101)]
    return doc


def test_a_large_export_in_its_own_layout_imports_every_review(tmp_path: Path) -> None:
    doc = _large_doc(tmp_path)
    (tmp_path / "large.json").write_text(_export_layout(doc), encoding="utf-8")
    with open_store(tmp_path / "target.db", now=NOW) as store:
        counts = import_progress(store, tmp_path / "large.json", now=NOW)
        assert (counts.cards, counts.reviews) == (1, 2 * CHUNK + 100)
        assert review_count(store) == 2 * CHUNK + 100


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"id": 11}, r"reviews\[{i}\]\.id 11 is repeated"),
        ({"question_id": "ghost"}, r"reviews\[{i}\] is for 'ghost', which has no card"),
        ({"deck_id": "deck\x1b[2J"}, r"reviews\[{i}\]\.deck_id holds control, escape"),
        ({"diagnosis_id": "kv\u200bx2"}, r"reviews\[{i}\]\.diagnosis_id holds control, escape"),
    ],
)
def test_a_problem_across_records_deep_in_a_large_file_is_found_and_named(
    tmp_path: Path, change: dict[str, Any], message: str
) -> None:
    """The checks across records look at a whole chunk at once; a problem in the third chunk is still
    refused, with the index of its review, and the database is untouched."""
    doc = _large_doc(tmp_path)
    index = 2 * CHUNK + 50
    doc["reviews"][index].update(change)
    (tmp_path / "bad.json").write_text(_export_layout(doc), encoding="utf-8")
    with open_store(tmp_path / "target.db", now=NOW) as store:
        with pytest.raises(QuizappError, match=message.format(i=index)):
            import_progress(store, tmp_path / "bad.json", now=NOW)
        assert review_count(store) == 0


def test_the_load_drops_its_indexes_inside_the_transaction_that_loads_the_rows(tmp_path: Path) -> None:
    """As the benchmark's yardstick: the indexes are dropped, the rows loaded and the indexes built in one
    transaction, so until it commits the file on disk still has every index."""
    with open_store(tmp_path / "progress.db", now=NOW) as store:
        indexes = "SELECT count(*) FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL"
        (expected,) = store.conn.execute(indexes).fetchone()
        assert expected > 0
        with FreshDatabase(store) as fresh:
            assert fresh.conn.in_transaction
            assert fresh.conn.execute(indexes).fetchone() == (0,)  # within the load: none
            outside = sqlite3.connect(fresh.path)
            try:
                assert outside.execute(indexes).fetchone() == (expected,)  # not committed
            finally:
                outside.close()


def test_the_command_checks_a_file_once_and_a_path_given_directly_is_still_checked(tmp_path: Path) -> None:
    """`quizapp import progress` checks the file (size, strings, head) before it opens the database and
    hands import_progress that checked file, which does not scan it again; a plain path is checked."""
    doc = _large_doc(tmp_path)
    (tmp_path / "good.json").write_text(_export_layout(doc), encoding="utf-8")
    doc["reviews"][3]["answer"] = "a" * (MAX_STRING_BYTES + 1)
    (tmp_path / "huge.json").write_text(_export_layout(doc), encoding="utf-8")
    with open_store(tmp_path / "target.db", now=NOW) as store:
        with pytest.raises(QuizappError, match="a string of more than 1 MiB"):
            import_progress(store, tmp_path / "huge.json", now=NOW)
        checked = check_progress_file(tmp_path / "good.json")
        assert checked == SourceChecked(tmp_path / "good.json")
        assert import_progress(store, checked, now=NOW).reviews == 2 * CHUNK + 100


class _Collected:
    """A sink that keeps every row it is given."""

    def __init__(self) -> None:
        self.cards: list[tuple[Any, ...]] = []
        self.reviews: list[tuple[Any, ...]] = []

    def add_cards(self, rows: Sequence[Sequence[Any]]) -> None:
        self.cards += [tuple(row) for row in rows]

    def add_reviews(self, rows: Sequence[Sequence[Any]]) -> None:
        self.reviews += [tuple(row) for row in rows]

    def add_interview(self, interview: backup.InterviewRows) -> None:
        pass

    def add_settings(self, settings: dict[str, Any]) -> None:
        pass

    def clear(self) -> None:
        self.cards, self.reviews = [], []


@pytest.mark.parametrize("block", [64, 97, 331, 1000, 4096, export_layout.BLOCK])
def test_exports_layout_is_read_in_blocks_of_any_size_into_the_rows_plain_json_reading_gives(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, block: int
) -> None:
    """The fast reading (export's layout, plain checks, read a block at a time, a block ending anywhere in
    a line or in the section's closing line) takes the file, and gives the very rows of plain reading."""
    doc = _large_doc(tmp_path)
    doc["reviews"][7]["points"] = "cMx"
    (tmp_path / "large.json").write_text(_export_layout(doc), encoding="utf-8")
    monkeypatch.setattr(export_layout, "BLOCK", block)
    fast, plain = _Collected(), _Collected()
    path = tmp_path / "large.json"
    checked = export_layout.load_lines(path, fast, RecordChecks(path))  # NotOurLayout if it were not taken
    assert (checked.cards, checked.reviews) == (1, 2 * CHUNK + 100)
    _load_json(path, plain, RecordChecks(path))
    assert (fast.cards, fast.reviews) == (plain.cards, plain.reviews)
    assert fast.reviews[7][-1] == "cMx"
