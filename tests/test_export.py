"""Export and backup: the .apkg reads back as Anki's zip-of-SQLite, the progress JSON round-trips exactly,
and import refuses files that are not ours, naming the problem, without touching the database."""

from __future__ import annotations

import html
import json
import re
import sqlite3
import subprocess
import sys
import zipfile
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from engine import Derivation, Step, format_quantity
from quizapp.content.instance import ChoiceOption, Instance
from quizapp.errors import QuizappError
from quizapp.progress.reader import import_progress
from quizapp.progress.writer import export_progress, progress_document
from quizapp.reports.anki import ANKI_SEEDS, anki_seed, export_anki, formula_mathjax
from quizapp.store import (
    InterviewAnswer,
    InterviewConfig,
    QuestionRef,
    Settings,
    Store,
    add_interview_answer,
    finish_interview,
    open_store,
    review_count,
    save_settings,
    set_flagged,
    set_suspended,
    start_interview,
)
from quizapp.study import make_scheduler, record_review

NOW = datetime(2025, 5, 4, 10, 11, 12, 345678, tzinfo=UTC)


def _numeric(seed: int) -> Instance:
    d_model, n_heads = 512 + 64 * seed, 8
    d_head = d_model // n_heads
    derivation = Derivation(
        calculator="head_dim",
        value=d_head,
        unit="",
        steps=(Step("head size", "d_head = d_model / n_heads", f"{d_model} / {n_heads}", d_head),),
    )
    return Instance(
        question_id="dims-head-size",
        deck_id="dims",
        deck_title="Dimensions & shapes",
        kind="numeric",
        seed=seed,
        prompt=f"With d_model = {d_model} and {n_heads} heads, what is `d_head`?",
        expected=d_head,
        derivation=derivation,
        explanation="Each head gets an equal **slice** of d_model.",
        tags=("d-head",),
    )


FIXED: dict[str, Instance] = {
    "basics-induction": Instance(
        "basics-induction", "basics", "Basics", "flashcard", 0, "What is an induction head?",
        "A head that finds an earlier copy of the current token and attends to the token after it.",
        explanation="Olsson et al. 2022.", tags=("interpretability",),
    ),
    "basics-wo": Instance(
        "basics-wo", "basics", "Basics", "choice", 0, "What does W_O do that heads cannot do alone?",
        frozenset({"b"}),
        options=(
            ChoiceOption("a", "Scales scores by 1/sqrt(d_k)", False, "That happens inside each head."),
            ChoiceOption("b", "Mixes information across heads", True, ""),
        ),
        explanation="Concatenation keeps heads apart; W_O mixes them.",
    ),
    "basics-why-gqa": Instance(
        "basics-why-gqa", "basics", "Basics", "explain", 0, "Why did GQA become standard?",
        "It shrinks the KV cache with little quality loss.",
        key_points=("KV cache memory", "bandwidth at decode time", "quality close to MHA <vs> MQA"),
        explanation="See Ainslie et al. 2023.",
    ),
}  # fmt: skip


@dataclass
class StubCatalog:
    """The two things export needs from a catalog: question ids, and an instance for (id, seed)."""

    questions: Mapping[str, Any]

    def instance(self, question_id: str, seed: int) -> Instance:
        if question_id == "dims-head-size":
            return _numeric(seed)
        if question_id == "broken":
            raise ValueError("template failed for seed 0")
        return FIXED[question_id]


def _read_apkg(path: Path, tmp_path: Path) -> tuple[list[tuple[str, ...]], list[str], int]:
    """(note fields, deck names, card count) from an .apkg: a zip holding an SQLite collection."""
    with zipfile.ZipFile(path) as z:
        assert "collection.anki2" in z.namelist()
        z.extract("collection.anki2", tmp_path)
    conn = sqlite3.connect(tmp_path / "collection.anki2")
    try:
        notes = [
            tuple(flds.split("\x1f")) for (flds,) in conn.execute("SELECT flds FROM notes ORDER BY sfld")
        ]
        decks = [d["name"] for d in json.loads(conn.execute("SELECT decks FROM col").fetchone()[0]).values()]
        cards = conn.execute("SELECT count(*) FROM cards").fetchone()[0]
    finally:
        conn.close()
    return notes, decks, cards


def test_anki_export_writes_one_card_per_question_with_the_derivation_on_the_back(tmp_path: Path) -> None:
    ids = ["basics-induction", "basics-wo", "basics-why-gqa", "dims-head-size", "broken"]
    catalog = StubCatalog(dict.fromkeys(ids))
    result = export_anki(catalog, tmp_path / "out.apkg", now=NOW)
    assert (result.notes, result.decks) == (4, 2)
    assert result.skipped == (("broken", "template failed for seed 0"),)
    notes, decks, cards = _read_apkg(tmp_path / "out.apkg", tmp_path)
    assert cards == 4
    assert {"quizapp::Basics", "quizapp::Dimensions & shapes"} <= set(decks)
    by_id = {fields[3]: fields for fields in notes}
    assert set(by_id) == set(ids) - {"broken"}
    numeric = _numeric(anki_seed("dims-head-size"))
    front, back, explanation, _ = by_id["dims-head-size"]
    assert "<code>d_head</code>" in front and str(numeric.expected) in back
    _assert_derivation_shown(back, numeric.derivation)
    assert "<strong>slice</strong>" in explanation
    assert "Mixes information across heads" in by_id["basics-wo"][1]
    assert "That happens inside each head." in by_id["basics-wo"][1]
    assert "&lt;vs&gt;" in by_id["basics-why-gqa"][1]
    assert "attends to the token after it" in by_id["basics-induction"][1]


def test_anki_export_of_one_deck_and_of_an_unknown_deck(tmp_path: Path) -> None:
    catalog = StubCatalog(dict.fromkeys(["basics-wo", "dims-head-size"]))
    assert export_anki(catalog, tmp_path / "d.apkg", now=NOW, deck_ids=["dims"]).notes == 1
    with pytest.raises(QuizappError, match="No deck matches nope"):
        export_anki(catalog, tmp_path / "x.apkg", now=NOW, deck_ids=["nope"])
    with pytest.raises(QuizappError, match="no questions to export"):
        export_anki(StubCatalog({}), tmp_path / "x.apkg", now=NOW)
    assert not (tmp_path / "x.apkg").exists()


USER_DECK = """\
id: my-notes
title: My attention notes
topic: basics
description: A user's own deck, loaded through the real catalog.
questions:
  - id: my-notes-induction
    type: flashcard
    difficulty: 1
    tags: [heads]
    front: What is an induction head?
    back: A head that attends to the token after an earlier copy of the current token.
    explanation: Olsson et al. 2022.
  - id: my-notes-wo
    type: choice
    difficulty: 2
    tags: [wo]
    prompt: What does W_O do that the heads cannot do alone?
    options:
      - text: Mixes information across heads
        correct: true
      - text: Scales the scores by 1/sqrt(d_k)
        feedback: That is the scaling inside each head, before the softmax.
    explanation: Concatenation keeps the heads apart; W_O mixes them.
  - id: my-notes-why-gqa
    type: explain
    difficulty: 3
    tags: [gqa]
    prompt: Why did grouped-query attention become standard?
    model_answer: It shrinks the KV cache, which bounds decoding speed, at little cost in quality.
    key_points:
      - the KV cache dominates memory at long context
      - decoding is memory-bandwidth bound
      - quality stays close to multi-head attention
    explanation: Ainslie et al. 2023.
"""


def test_anki_export_through_the_real_catalog_of_a_users_deck(tmp_path: Path) -> None:
    from quizapp.content.catalog import load_catalog

    (tmp_path / "my-notes.yaml").write_text(USER_DECK, encoding="utf-8")
    catalog = load_catalog([tmp_path / "my-notes.yaml"], include_default=False, use_cache=False)
    assert not catalog.problems, catalog.problems
    result = export_anki(catalog, tmp_path / "mine.apkg", now=NOW)
    notes, decks, cards = _read_apkg(tmp_path / "mine.apkg", tmp_path)
    assert (result.notes, result.decks, cards, result.skipped) == (3, 1, 3, ())
    assert "quizapp::My attention notes" in decks
    backs = {fields[3]: fields[1] for fields in notes}
    assert "earlier copy of the current token" in backs["my-notes-induction"]
    assert "Mixes information across heads" in backs["my-notes-wo"]
    assert "decoding is memory-bandwidth bound" in backs["my-notes-why-gqa"]


def test_cli_exports_the_users_decks_to_anki(isolated_home: Path, tmp_path: Path) -> None:
    (isolated_home / "decks").mkdir()
    (isolated_home / "decks" / "my-notes.yaml").write_text(USER_DECK, encoding="utf-8")
    out = _cli("export", "anki", str(tmp_path / "cli.apkg"), "--deck", "my-notes")
    assert out.returncode == 0, out.stderr
    assert "3 cards in 1 decks" in out.stdout
    notes, _, _ = _read_apkg(tmp_path / "cli.apkg", tmp_path)
    assert {fields[3] for fields in notes} == {"my-notes-induction", "my-notes-wo", "my-notes-why-gqa"}


def test_anki_export_of_the_bundled_catalog_covers_every_question(tmp_path: Path) -> None:
    from quizapp.content.catalog import load_catalog

    catalog = load_catalog()
    if not catalog.questions:
        pytest.skip("no bundled question loads yet")
    result = export_anki(catalog, tmp_path / "all.apkg", now=NOW)
    notes, _, cards = _read_apkg(tmp_path / "all.apkg", tmp_path)
    assert result.skipped == ()
    assert len(notes) == cards == result.notes == len(catalog.questions)
    fronts = {fields[3]: fields[0] for fields in notes}
    backs = {fields[3]: fields[1] for fields in notes}
    for qid in catalog.questions:
        inst = catalog.instance(qid, seed=anki_seed(qid))
        if inst.derivation is not None:
            _assert_derivation_shown(backs[qid], inst.derivation)
        assert "<br>" not in fronts[qid], "a YAML line wrap is a soft wrap, not a line break"
        assert "bare number" not in fronts[qid], "the app's typing hints have no place in Anki"
    assert sum("\\(" in back for back in backs.values()) > 40, "formulas are typeset with MathJax"


def _assert_derivation_shown(back: str, derivation: Derivation | None) -> None:
    """Every step's label, numbers and value are on the back, then the result."""
    assert derivation is not None
    for step in derivation.steps:
        assert html.escape(step.label) in back and html.escape(step.substituted) in back
        assert html.escape(format_quantity(step.value, step.unit)) in back
    assert f"Result: <b>{html.escape(format_quantity(derivation.value, derivation.unit))}</b>" in back


def test_anki_choice_cards_do_not_give_the_answer_away_by_its_letter() -> None:
    """Every card used to be seed 0, so 130 of 131 single-answer cards had the right answer at "b"."""
    from collections import Counter

    from quizapp.content.catalog import load_catalog

    catalog = load_catalog()
    seeds = {qid: anki_seed(qid) for qid in catalog.questions}
    assert all(0 <= s < ANKI_SEEDS for s in seeds.values())
    assert len(set(seeds.values())) > ANKI_SEEDS // 2, "the seeds vary from card to card"
    assert anki_seed("basics-wo") == anki_seed("basics-wo"), "an export made again is the same card"
    letters: Counter[str] = Counter()
    for qid in catalog.questions:
        inst = catalog.instance(qid, seed=seeds[qid])
        if inst.kind == "choice" and not inst.multiple and isinstance(inst.expected, frozenset):
            letters.update(inst.expected)
    assert sum(letters.values()) > 100
    assert max(letters.values()) <= 0.4 * sum(letters.values()), letters


def test_formulas_of_symbols_become_mathjax_and_formulas_with_words_stay_text() -> None:
    assert formula_mathjax("d_k = d_model / h") == "\\(d_{k} = d_{\\mathrm{model}} / h\\)"
    assert formula_mathjax("2 x n_kv_heads x d") == "\\(2 \\times n_{\\mathrm{kv\\_heads}} \\times d\\)"
    assert formula_mathjax("s = q . k / sqrt(d_k)") == "\\(s = q \\cdot k / \\sqrt{d_{k}}\\)"
    assert formula_mathjax("2 B T d^2") == "\\(2 B T d^{2}\\)"
    assert formula_mathjax("h / n_kv; each KV head serves h / n_kv query heads").startswith("<code>")
    assert formula_mathjax("x_i < 2^k") == "\\(x_{i} &lt; 2^{k}\\)", "HTML-escaped inside the delimiters"


def _fill(store: Store) -> None:
    """Some of everything: scheduled and drill reviews, suspended/flagged cards, settings, an interview."""
    scheduler = make_scheduler(fuzzing=False)
    when = NOW - timedelta(days=30)
    for i in range(12):
        ref = QuestionRef(f"q{i % 4}", "deck-" + "ab"[i % 2], 1 + i % 3, ("t",))
        diagnosed = i % 3 == 0
        record_review(
            store,
            ref,
            seed=i,
            answer=f"answer ünïcode {i}",
            correct=not diagnosed,
            rating=1 + i % 4,
            duration_ms=1000 + i,
            now=when,
            mode="study" if i % 5 else "drill",
            scheduler=scheduler,
            diagnosis="Used GB for GiB" if diagnosed else None,
            diagnosis_id="gb-gib" if diagnosed else None,
        )
        when += timedelta(days=2, microseconds=7)
    set_suspended(store, QuestionRef("q1", "deck-b"), True)
    set_flagged(store, QuestionRef("q9", "deck-z"), True)
    save_settings(store, Settings(desired_retention=0.87, new_per_day=7, theme="nord"))
    interview = start_interview(store, InterviewConfig(questions=2, deck_ids=("deck-a",), seed=3), now=NOW)
    add_interview_answer(
        store, interview, InterviewAnswer("q0", "deck-a", 5, "P?", "42", True, "42", seconds=3.25)
    )
    add_interview_answer(
        store,
        interview,
        InterviewAnswer("q2", "deck-a", 6, "Q?", "", False, "7", "skipped", None, 0.5, True, True),
    )
    finish_interview(store, interview, now=NOW + timedelta(minutes=9))


def _dump(store: Store) -> dict[str, list[tuple[Any, ...]]]:
    tables = ("cards", "reviews", "interviews", "interview_answers", "settings")
    return {t: store.conn.execute(f"SELECT * FROM {t} ORDER BY 1, 2").fetchall() for t in tables}


@pytest.fixture
def filled(tmp_path: Path) -> Iterator[Store]:
    with open_store(tmp_path / "a.db", now=NOW) as store:
        _fill(store)
        yield store


def test_progress_export_then_import_reproduces_the_database_exactly(filled: Store, tmp_path: Path) -> None:
    export_progress(filled, tmp_path / "a.json", now=NOW)
    assert json.loads((tmp_path / "a.json").read_text(encoding="utf-8")) == progress_document(filled, now=NOW)
    with open_store(tmp_path / "b.db", now=NOW) as other:
        counts = import_progress(other, tmp_path / "a.json", now=NOW)
        assert counts.backup is None
        assert (counts.cards, counts.reviews, counts.interviews) == (5, 12, 1)
        assert _dump(other) == _dump(filled)
        export_progress(other, tmp_path / "b.json", now=NOW)
        assert progress_document(other, now=NOW) == progress_document(filled, now=NOW)
    assert (tmp_path / "a.json").read_text(encoding="utf-8") == (tmp_path / "b.json").read_text(
        encoding="utf-8"
    )


def _schema(store: Store) -> list[tuple[Any, ...]]:
    return store.conn.execute(
        "SELECT type, name, tbl_name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' ORDER BY 1, 2"
    ).fetchall()


def test_an_import_loads_rows_first_and_ends_with_every_index_and_trigger_of_a_new_database(
    filled: Store, tmp_path: Path
) -> None:
    """The import drops the indexes, loads the rows, then builds them (quizapp.store.backup.FreshDatabase):
    the database it installs has the same rows, every index and trigger a database the store creates has,
    and the queries that need an index use it."""
    export_progress(filled, tmp_path / "a.json", now=NOW)
    with open_store(tmp_path / "b.db", now=NOW) as other:
        import_progress(other, tmp_path / "a.json", now=NOW)
        with open_store(tmp_path / "new.db", now=NOW) as new:
            assert _schema(other) == _schema(new) == _schema(filled)
        assert any(kind == "index" for kind, *_ in _schema(other))
        assert _dump(other) == _dump(filled) and other.integrity_ok()
        plan = other.conn.execute(
            "EXPLAIN QUERY PLAN SELECT * FROM reviews WHERE question_id = ? ORDER BY reviewed_us", ("q",)
        ).fetchall()
        assert "reviews_by_card" in str(plan)


def test_an_empty_store_exports_and_imports(tmp_path: Path) -> None:
    with open_store(tmp_path / "empty.db", now=NOW) as store:
        counts = export_progress(store, tmp_path / "e.json", now=NOW)
        assert (counts.cards, counts.reviews, counts.interviews, counts.settings) == (0, 0, 0, 0)
        assert json.loads((tmp_path / "e.json").read_text(encoding="utf-8")) == progress_document(
            store, now=NOW
        )
        assert import_progress(store, tmp_path / "e.json", now=NOW).backup is None


def test_importing_over_progress_keeps_a_copy_of_what_it_replaced(filled: Store, tmp_path: Path) -> None:
    export_progress(filled, tmp_path / "a.json", now=NOW)
    before = _dump(filled)
    record_review(
        filled, QuestionRef("extra", "d"), seed=0, answer="", correct=True, rating=3, duration_ms=0, now=NOW
    )
    counts = import_progress(filled, tmp_path / "a.json", now=NOW)
    assert _dump(filled) == before
    assert counts.backup is not None and counts.backup.name.startswith("a.db.before-import-")
    with open_store(counts.backup, now=NOW) as kept:
        assert review_count(kept) == 13


def _valid_doc(filled: Store) -> dict[str, Any]:
    return json.loads(json.dumps(progress_document(filled, now=NOW)))


def _broken(doc: dict[str, Any], case: str) -> Any:
    if case == "wrong type":
        doc["cards"][0]["stability"] = "high"
    elif case == "card id":
        doc["cards"][0]["card_id"] += 1
    elif case == "orphan review":
        doc["reviews"][0]["question_id"] = "ghost"
    elif case == "bad setting":
        doc["settings"]["desired_retention"] = 5
    elif case == "missing field":
        del doc["reviews"][2]["rating"]
    elif case == "naive time":
        doc["reviews"][0]["reviewed_at"] = "2025-01-01T00:00:00"
    return doc


@pytest.mark.parametrize(
    ("case", "message"),
    [
        ("not json", "not a quizapp progress file: not JSON"),
        ("no marker", 'format marker "format": "quizapp-progress" is missing'),
        ("anki", 'format marker "format": "quizapp-progress" is missing'),
        ("version", "version 99; this quizapp reads version 1"),
        ("wrong type", r"cards\[0\]\.stability: Input should be a valid number"),
        ("missing field", r"reviews\[2\]\.rating: Field required"),
        ("naive time", r"reviews\[0\]\.reviewed_at: .*timezone"),
        ("card id", r"cards\[0\]\.card_id does not belong to question"),
        ("orphan review", r"reviews\[0\] is for 'ghost', which has no card"),
        ("bad setting", r"settings\.desired_retention: .*between 0\.7 and 0\.99"),
    ],
)
def test_import_refuses_files_that_are_not_ours_and_changes_nothing(
    filled: Store, tmp_path: Path, case: str, message: str
) -> None:
    path = tmp_path / "in.json"
    if case == "not json":
        path.write_text("PK\x03\x04 this is a zip, not json", encoding="utf-8")
    elif case == "no marker":
        path.write_text("[1, 2, 3]", encoding="utf-8")
    elif case == "anki":
        path.write_text(json.dumps({"format": "anki", "cards": []}), encoding="utf-8")
    elif case == "version":
        path.write_text(json.dumps({"format": "quizapp-progress", "version": 99}), encoding="utf-8")
    else:
        path.write_text(json.dumps(_broken(_valid_doc(filled), case)), encoding="utf-8")
    before = _dump(filled)
    with pytest.raises(QuizappError, match=message) as info:
        import_progress(filled, path, now=NOW)
    assert str(path) in str(info.value)
    assert _dump(filled) == before
    assert not list(tmp_path.glob("*.before-import-*"))


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "quizapp", *args], capture_output=True, text=True, timeout=60
    )


def test_cli_exports_imports_and_shows_stats_honouring_db(filled: Store, tmp_path: Path) -> None:
    out = _cli("--db", str(filled.path), "export", "progress", str(tmp_path / "p.json"))
    assert out.returncode == 0, out.stderr
    assert "5 cards, 12 reviews, 1 interviews" in out.stdout
    target = tmp_path / "restored" / "b.db"
    out = _cli("--db", str(target), "import", "progress", str(tmp_path / "p.json"))
    assert out.returncode == 0, out.stderr
    assert str(target) in out.stdout
    out = _cli("--db", str(target), "stats")
    assert out.returncode == 0, out.stderr
    assert "Reviews, last 365 days" in out.stdout and "Used GB for GiB" in out.stdout


def test_cli_import_of_a_foreign_file_is_one_line_not_a_traceback(tmp_path: Path) -> None:
    (tmp_path / "x.json").write_text('{"hello": 1}', encoding="utf-8")
    out = _cli("--db", str(tmp_path / "p.db"), "import", "progress", str(tmp_path / "x.json"))
    assert out.returncode == 2
    assert "is not a quizapp progress file" in out.stderr and "Traceback" not in out.stderr
    assert not (tmp_path / "p.db").exists()


def test_every_exported_line_is_what_json_itself_writes(filled: Store, tmp_path: Path) -> None:
    """Export fills fixed templates for speed; each record must still read as json.dumps writes it."""
    export_progress(filled, tmp_path / "a.json", now=NOW)
    records = [
        line.strip().rstrip(",")
        for line in (tmp_path / "a.json").read_text(encoding="utf-8").splitlines()
        if line.startswith("  {")
    ]
    assert len(records) == 5 + 12 + 1
    for text in records:
        assert json.dumps(json.loads(text), ensure_ascii=False) == text


def test_a_backup_laid_out_another_way_imports_the_same(filled: Store, tmp_path: Path) -> None:
    (tmp_path / "indented.json").write_text(json.dumps(_valid_doc(filled), indent=3), encoding="utf-8")
    with open_store(tmp_path / "b.db", now=NOW) as other:
        counts = import_progress(other, tmp_path / "indented.json", now=NOW)
        assert (counts.cards, counts.reviews, counts.interviews) == (5, 12, 1)
        assert _dump(other) == _dump(filled)


def test_a_backup_in_exports_layout_with_a_comma_missing_is_not_json(filled: Store, tmp_path: Path) -> None:
    export_progress(filled, tmp_path / "a.json", now=NOW)
    text = (tmp_path / "a.json").read_text(encoding="utf-8")
    first_review = text.index('  {"id": 1,')
    broken = text[: text.index("\n", first_review) - 1] + text[text.index("\n", first_review) :]
    (tmp_path / "b.json").write_text(broken, encoding="utf-8")
    with open_store(tmp_path / "b.db", now=NOW) as other:
        with pytest.raises(QuizappError, match="not a quizapp progress file: not JSON"):
            import_progress(other, tmp_path / "b.json", now=NOW)
        assert review_count(other) == 0
    assert [p.name for p in tmp_path.iterdir() if "importing" in p.name] == []


def test_an_import_reaches_another_quizapp_that_has_the_database_open(filled: Store, tmp_path: Path) -> None:
    export_progress(filled, tmp_path / "a.json", now=NOW)
    with open_store(tmp_path / "b.db", now=NOW) as mine, open_store(tmp_path / "b.db", now=NOW) as theirs:
        assert review_count(theirs) == 0
        counts = import_progress(mine, tmp_path / "a.json", now=NOW)
        assert counts.reviews == review_count(mine) == review_count(theirs) == 12
        assert _dump(theirs) == _dump(filled)


# ------------------------------------------------------------- issue 27: names, heatmaps, tags, re-import

from quizapp.content.catalog import load_catalog  # noqa: E402


def _notes(path: Path, tmp: Path) -> dict[str, tuple[int, str, str]]:
    """guid -> (mod, fields, tags) of an exported package."""
    with zipfile.ZipFile(path) as z:
        z.extract("collection.anki2", tmp)
    conn = sqlite3.connect(tmp / "collection.anki2")
    try:
        return {g: (m, f, t) for g, m, f, t in conn.execute("SELECT guid, mod, flds, tags FROM notes")}
    finally:
        conn.close()


def test_anki_names_render_in_math_mode_never_as_a_literal_backslash_underscore(tmp_path: Path) -> None:
    catalog = load_catalog([], use_cache=False)
    out = tmp_path / "all.apkg"
    export_anki(catalog, out, now=NOW)
    fields = "".join(f for _, f, _ in _notes(out, tmp_path).values())
    assert "\\text{kv\\_" not in fields and not re.search(r"\\text\{[^}]*\\_", fields)
    assert "\\mathrm{" in fields


def test_anki_heatmaps_are_coloured_tables_and_tags_carry_the_prefix(tmp_path: Path) -> None:
    catalog = load_catalog([], use_cache=False)
    out = tmp_path / "all.apkg"
    export_anki(catalog, out, now=NOW)
    notes = _notes(out, tmp_path)
    with_heatmap = [f for _, f, _ in notes.values() if "class='heatmap'" in f]
    assert with_heatmap and all("background:rgb(" in f for f in with_heatmap)
    for _, _, tags in notes.values():
        assert tags.split() and all(t.startswith("quizapp::") for t in tags.split())


def test_anki_re_export_keeps_unchanged_notes_identical_and_touches_only_changed_ones(tmp_path: Path) -> None:
    deck = tmp_path / "decks" / "mine.yaml"
    deck.parent.mkdir()
    deck.write_text(USER_DECK, encoding="utf-8")
    out = tmp_path / "mine.apkg"
    export_anki(load_catalog([deck], use_cache=False, include_default=False), out, now=NOW)
    first = _notes(out, tmp_path / "a")
    export_anki(
        load_catalog([deck], use_cache=False, include_default=False), out, now=NOW + timedelta(days=1)
    )
    assert _notes(out, tmp_path / "b") == first, "an unchanged export is identical, mod times included"
    deck.write_text(
        USER_DECK.replace("What is an induction head?", "What is an induction head, exactly?"),
        encoding="utf-8",
    )
    later = NOW + timedelta(days=2)
    export_anki(load_catalog([deck], use_cache=False, include_default=False), out, now=later)
    third = _notes(out, tmp_path / "c")
    changed = {g for g in third if third[g] != first.get(g)}
    assert len(changed) == 1 and third[changed.pop()][0] == int(later.timestamp())
