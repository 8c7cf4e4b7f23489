"""The fast cold load keeps its promises: the cache written in the background is whole and the same as a
synchronous one, a torn cache file is never trusted, the seed checks name the same first failing seed
as instantiating every seed would, and checking ahead during the parse changes no result."""

from __future__ import annotations

import hashlib
import re
import threading
from pathlib import Path
from typing import Any, ClassVar

import pytest
import yaml
import yaml_rs
from hypothesis import given, settings
from hypothesis import strategies as st

from quizapp import paths
from quizapp.content import deck_cache, deck_validation
from quizapp.content import load as loader
from quizapp.content.catalog import load_catalog
from quizapp.content.checks import during_parse as ahead
from quizapp.content.checks import proof_cache as proven
from quizapp.content.checks import static as deckcheck
from quizapp.content.checks.seeds import SEEDS, seed_issues, unproven
from quizapp.content.instantiate import instantiate
from quizapp.content.problems import Issue
from quizapp.content.schema import Deck, Question
from quizapp.errors import InstanceError

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures" / "decks"

# Templates some seeds break and others do not, and some that always pass: a float range under a
# format spec, a derived param under a spec or a field, an answer or a derived param that only some
# draws make impossible, a matrix under a field, and plain placeholders the static checks prove.
TRICKY = """\
id: tricky
title: Templates that only some seeds break
topic: testing
questions:
  - id: t-float-spec
    type: flashcard
    params: {x: {range: [1, 4], step: 0.5}}
    front: "x = {x:d}"
    back: b
    explanation: e
  - id: t-float-spec-choice
    type: choice
    params: {x: {range: [0, 3], step: 1.5}}
    prompt: "x = {x:d}"
    options: [{text: a, correct: true}, {text: b, feedback: no}]
    explanation: e
  - id: t-derived-spec
    type: numeric
    params:
      h: {choices: [8, 16, 32, 3]}
      kv: {choices: [1, 2, 5]}
      ratio: {calc: kv_cache_savings, args: {n_heads: h, n_kv_heads: kv}}
    prompt: "ratio {ratio:d}, {h} heads"
    calculator: kv_cache_savings
    args: {n_heads: h, n_kv_heads: kv}
    explanation: e
  - id: t-derived-field
    type: numeric
    params:
      d_model: {choices: [512, 768]}
      n_heads: {value: 8}
      d_head: {calc: head_dim, args: {d_model: d_model, n_heads: n_heads}}
    prompt: "d_head = {d_head.x}"
    calculator: head_dim
    args: {d_model: d_model, n_heads: n_heads}
    explanation: e
  - id: t-answer-some-seeds
    type: numeric
    params:
      d_model: {choices: [512, 512, 768, 100, 1024, 512, 2048]}
      n_heads: {choices: [8, 16]}
    prompt: "d = {d_model}, h = {n_heads}"
    calculator: head_dim
    args: {d_model: d_model, n_heads: n_heads}
    explanation: e
  - id: t-derived-some-seeds
    type: numeric
    params:
      d_model: {choices: [512, 768, 500, 512, 1024]}
      n_heads: {value: 8}
      d_head: {calc: head_dim, args: {d_model: d_model, n_heads: n_heads}}
    prompt: "d = {d_model}, d_k = {d_head}"
    calculator: attention_parameters
    args: {d_model: d_model, n_heads: n_heads}
    explanation: e
  - id: t-shape-some-seeds
    type: shape
    params:
      d_model: {choices: [512, 768, 777, 2048, 4096, 1024]}
      h: {choices: [8, 16]}
    prompt: "{d_model} {h}"
    calculator: attention_shape
    args: {stage: heads, batch: 2, seq_len: 4, d_model: d_model, n_heads: h}
    explanation: e
  - id: t-matrix-field
    type: tensor
    params:
      q: {matrix: {rows: 2, cols: 2, low: -2, high: 2}}
      k: {matrix: {rows: 2, cols: 2, low: -2, high: 2}}
      v: {matrix: {rows: 2, cols: 2, low: -2, high: 2}}
    prompt: "{q.0.1:+d} {k.1} {v}"
    calculator: attention_entry
    args: {q: q, k: k, v: v, row: 0, col: 1}
    explanation: e
  - id: t-passes
    type: numeric
    params:
      cfg: {choices: [{d_model: 512, n_heads: 8}, {d_model: 768, n_heads: 12}]}
      x: {range: [1, 3], step: 0.5}
    prompt: "{cfg.d_model:,} / {cfg.n_heads} with {x} and {x:.2f}"
    calculator: head_dim
    args: {d_model: cfg.d_model, n_heads: cfg.n_heads}
    explanation: e
"""


@pytest.fixture(autouse=True)
def _fresh() -> None:
    loader.reset_memos()


def _tricky() -> list[tuple[Question, Any]]:
    data = yaml_rs.loads(TRICKY, parse_datetime=False)
    return list(zip(Deck.model_validate(data).questions, data["questions"], strict=True))


def _by_instantiating(question: Question) -> list[Issue]:
    """What the seed checks must find: the first of the 50 seeds a learner could not be given."""
    for seed in SEEDS:
        try:
            instantiate(question, deck_id="d", deck_title="d", seed=seed)
        except InstanceError as exc:
            return [Issue(exc.loc, f"with seed {seed}: {exc.message}", exc.offset)]
    return []


def test_the_seed_checks_name_the_first_seed_instantiation_fails_at() -> None:
    checked = 0
    for question, _ in _tricky():
        if deckcheck.static_issues(question):
            continue
        expected = _by_instantiating(question)
        assert seed_issues(question, to_fill=unproven(question)) == expected, question.id
        assert seed_issues(question) == expected, question.id  # the whole prompt filled at every seed
        checked += 1
    assert checked >= 8
    first_failures = [issues[0].message for q, _ in _tricky() if (issues := _by_instantiating(q))]
    assert any(not m.startswith("with seed 0:") for m in first_failures)  # the value-only path fails too


def test_only_placeholders_the_static_checks_cannot_prove_are_filled_at_every_seed() -> None:
    found = {q.id: [ph.text for ph in unproven(q)] for q, _ in _tricky()}
    assert found["t-passes"] == ["{x:.2f}"]  # a range under a spec: only its ends were tried
    assert found["t-float-spec"] == ["{x:d}"]
    assert found["t-derived-spec"] == ["{ratio:d}"]
    assert found["t-matrix-field"] == ["{q.0.1:+d}", "{k.1}"]


def test_a_cache_written_in_the_background_is_whole_and_the_same_as_a_synchronous_one(tmp_path: Path) -> None:
    sources = [FIXTURES / "sample.yaml", *sorted(paths.bundled_content_dir().glob("*.yaml"))[:3]]
    cold = load_catalog(sources, include_default=False)
    deck_cache.finish_cache_writes()
    for source in sources:
        raw = source.read_bytes()
        key = deck_cache.cache_key(hashlib.sha256(raw).hexdigest())
        written = deck_cache.cache_file(key).read_bytes()
        outcome, parsed = deck_validation.validate_deck(raw)
        by_hand = tmp_path / f"{source.stem}.json"
        deck_cache.write_cache(by_hand, outcome, parsed)
        assert written == by_hand.read_bytes()
    loader.reset_memos()
    warm = load_catalog(sources, include_default=False)
    assert list(warm.questions) == list(cold.questions)
    assert all(warm.questions[qid] == cold.questions[qid] for qid in cold.questions)


def test_a_torn_cache_file_is_never_read_as_valid() -> None:
    source = FIXTURES / "sample.yaml"
    load_catalog([source], include_default=False)
    deck_cache.finish_cache_writes()
    key = deck_cache.cache_key(hashlib.sha256(source.read_bytes()).hexdigest())
    cache = deck_cache.cache_file(key)
    whole = cache.read_bytes()
    assert deck_cache.read_cache(key) is not None
    for cut in (0, 1, 40, 64, 65, 66, len(whole) // 3, len(whole) // 2, len(whole) - 1):
        cache.write_bytes(whole[:cut])
        assert deck_cache.read_cache(key) is None, cut
    loader.reset_memos()
    again = load_catalog([source], include_default=False)  # rebuilt from the YAML, then cached afresh
    assert "sample-card" in again.questions and not again.problems
    deck_cache.finish_cache_writes()
    assert cache.read_bytes() == whole


def test_clearing_the_memory_waits_for_the_writes_so_the_next_load_is_warm(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    first = load_catalog([FIXTURES], include_default=False)
    loader.reset_memos()

    def refuse(text: str) -> None:
        raise AssertionError("parsed YAML although the cache was written")

    monkeypatch.setattr(deck_validation, "parse_yaml", refuse)
    assert list(load_catalog([FIXTURES], include_default=False).questions) == list(first.questions)


def _big_deck(tmp_path: Path) -> Path:
    """The sample deck's questions and the tricky ones, repeated with fresh ids: failing templates sit
    both in the head the ahead thread parses and after it."""
    items = [*yaml_rs.loads((FIXTURES / "sample.yaml").read_text())["questions"]]
    items += yaml_rs.loads(TRICKY)["questions"]
    questions = [{**q, "id": f"r{i}-{q['id']}"} for i in range(6) for q in items]
    deck = {"id": "big", "title": "Big", "topic": "testing", "questions": questions}
    path = tmp_path / "big.yaml"
    path.write_text(yaml.safe_dump(deck, sort_keys=False))
    return path


class _PatientAhead(ahead.Ahead):
    """The real thread, only joined once it went through the whole head, so it proves all it can."""

    started: ClassVar[list[_PatientAhead]] = []

    def __init__(self, text: str) -> None:
        super().__init__(text)
        self.started.append(self)

    def stop(self) -> None:
        self._thread.join()


@pytest.mark.parametrize("patient", [False, True])
def test_checking_ahead_while_parsing_changes_no_result(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, patient: bool
) -> None:
    deck = _big_deck(tmp_path)
    monkeypatch.setattr(ahead, "MIN_TEXT", 10**12)
    without = [str(p) for p in load_catalog([deck], include_default=False, use_cache=False).problems]
    loader.reset_memos()
    monkeypatch.setattr(ahead, "MIN_TEXT", 0)
    monkeypatch.setattr(ahead, "HEAD", len(deck.read_text()) // 3)
    _PatientAhead.started.clear()
    if patient:
        monkeypatch.setattr(ahead, "Ahead", _PatientAhead)
    with_ahead = [str(p) for p in load_catalog([deck], include_default=False, use_cache=False).problems]
    assert with_ahead == without and len(without) > 6
    assert len(_PatientAhead.started) == patient


def test_the_head_start_records_only_templates_that_pass(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    text = _big_deck(tmp_path).read_text()
    monkeypatch.setattr(ahead, "HEAD", len(text) // 3)
    ahead.prove_head(text, threading.Event())
    outcomes = []
    for question, raw in _tricky():
        key = deckcheck.signature(question, raw)
        assert key is not None
        outcomes.append(proven.passed(key))
        assert outcomes[-1] == (not _by_instantiating(question) and not deckcheck.static_issues(question))
    assert any(outcomes) and not all(outcomes)


def test_a_stopped_or_confused_head_start_proves_nothing_and_never_raises(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    text = _big_deck(tmp_path).read_text()
    monkeypatch.setattr(ahead, "HEAD", len(text) // 3)
    stop = threading.Event()
    stop.set()
    ahead.prove_head(text, stop)
    ahead.prove_head(text.replace("questions:", "questions: [", 1), threading.Event())  # does not parse
    ahead.prove_head("id: x\nquestions: 3\n", threading.Event())
    assert not any(proven.passed(deckcheck.signature(q, raw)) for q, raw in _tricky())


@settings(max_examples=300)
@given(st.text(alphabet="{}ab.:", max_size=40))
def test_brace_marks_keep_every_brace_and_the_text_a_template_parse_depends_on(text: str) -> None:
    assert proven.brace_marks(text) == "".join(re.findall(r"\{[^{}]*|\}", text))
