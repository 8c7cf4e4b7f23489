"""Deck authors get exact, located messages for broken decks; templates and params behave; the cache works."""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

import engine
from quizapp import paths
from quizapp.content import deck_cache, deck_validation
from quizapp.content import load as loader
from quizapp.content.instantiate import sample_params
from quizapp.content.param_specs import MatrixParam, MatrixSpec, RangeParam
from quizapp.content.questions import FlashcardQuestion
from quizapp.content.schema import Deck
from quizapp.content.template import TemplateError, parse_template, render
from quizapp.content.units import UNITS

ROOT = Path(__file__).resolve().parent.parent
BROKEN = Path("tests/broken_decks")
FIXTURES = Path("tests/fixtures/decks")


@pytest.fixture(autouse=True)
def _repo_root(monkeypatch: pytest.MonkeyPatch) -> None:
    """Messages show paths relative to the working folder; run from the repo root like a deck author."""
    monkeypatch.chdir(ROOT)
    loader.reset_memos()


def _problems(*sources: Path) -> list[str]:
    from quizapp.content.catalog import load_catalog

    catalog = load_catalog(sources, include_default=False, use_cache=False)
    return [str(p) for p in catalog.problems]


# --------------------------------------------------------------------------- exact messages


def _seed_failure_message() -> str:
    """After file:, the message for the first seed that draws d_model=100 (the second choice), in the
    engine's own words."""
    seed = next(s for s in range(50) if np.random.default_rng(s).integers(2) == 1)
    with pytest.raises(ValueError) as info:
        engine.calculate("head_dim", d_model=100, n_heads=8)
    where = "10:32: question 'seed-failure-head-dim', field 'params.d_head.args'"
    return f"{where}: with seed {seed}: head_dim: {info.value}"


def _expected() -> dict[str, list[str]]:
    calculators = ", ".join(sorted(engine.CALCULATORS))
    units = ", ".join(repr(u) for u in UNITS)
    literal_hint = "a literal text value goes in a {value: ...} param"
    types = "numeric, tensor, shape, choice, flashcard, explain, code, scenario"
    kinds = "a parameter needs exactly one of the keys value, choices, range, preset, calc, matrix"
    return {
        "yaml_syntax.yaml": [
            "8:9: YAML syntax error: did not find expected ',' or ']' "
            "(while parsing a flow sequence started at line 7:12)"
        ],
        "duplicate_key.yaml": [
            "9:5: YAML syntax error: the key 'back' appears twice in one mapping (first at line 8)"
        ],
        "not_a_mapping.yaml": [
            "1:1: a deck file is a mapping with id, title, topic, description and questions"
        ],
        "unknown_keys.yaml": [
            "4:1: field 'decription': unknown key 'decription' (did you mean 'description'?)",
            "11:5: question 'unknown-keys-card', field 'dificulty': unknown key "
            "'dificulty' (did you mean 'difficulty'?)",
            "12:5: question 'unknown-keys-choice', field 'prompt': missing required key 'prompt'",
            "14:5: question 'unknown-keys-choice', field 'promt': unknown key 'promt' "
            "(did you mean 'prompt'?)",
            "18:9: question 'unknown-keys-choice', field 'options[0].colour': unknown key "
            "'colour'; allowed: text, correct, feedback",
        ],
        "wrong_types.yaml": [
            "7:5: question 'wrong-types-card', field 'difficulty': should be a valid integer, got 'hard'",
            "8:5: question 'wrong-types-card', field 'tags': should be a list, got 'lots'",
            "14:5: question 'wrong-types-explain', field 'difficulty': should be less than "
            "or equal to 3, got 4",
            "17:5: question 'wrong-types-explain', field 'key_points': should have at least 3 items, not 2",
            "20:5: question 'Wrong_Types_Id', field 'type': unknown question type "
            f"'flashcrd'; use one of {types}",
            "22:5: question '#4': should be a mapping (key: value lines), got 'just a string'",
        ],
        "duplicate_ids.yaml": [
            "10:5: question 'duplicate-ids-card', field 'id': duplicate question id "
            "'duplicate-ids-card' (also at line 5)"
        ],
        "calculators.yaml": [
            "8:5: question 'calculators-unknown', field 'calculator': unknown calculator "
            f"'kv_cache_byte' (did you mean 'kv_cache_bytes'?); known: {calculators}",
            "20:7: question 'calculators-bad-args', field 'args.n_head': calculator "
            f"'head_dim' has no argument 'n_head' (did you mean 'n_heads'?); it takes "
            f"{', '.join(a.name for a in engine.CALCULATORS['head_dim'].args)}",
            "21:7: question 'calculators-bad-args', field 'args.n_heads': true does not "
            "fit: the argument 'n_heads' needs an integer",
            "27:5: question 'calculators-missing-arg', field 'args': calculator 'head_dim' "
            f"needs argument 'n_heads' ({engine.CALCULATORS['head_dim'].arg('n_heads').meaning})",
            "34:5: question 'calculators-bad-unit', field 'unit': unit 'GiB' does not "
            "measure a plain number, which calculator 'head_dim' gives; use one of \"\" (no unit)",
            "41:5: question 'calculators-unknown-unit', field 'unit': unknown unit 'Gib'; "
            f"known units: {units}",
            "44:5: question 'calculators-shape-as-numeric', field 'type': calculator "
            "'attention_shape' gives a shape; use type: shape",
            "47:58: question 'calculators-shape-as-numeric', field 'args.stage': 'scores' "
            f"refers to no param (params: none); {literal_hint}",
            "53:58: question 'calculators-text-literal', field 'args.stage': 'scores' "
            f"refers to no param (params: none); {literal_hint}",
            "53:73: question 'calculators-text-literal', field 'args.kv_len': 2.5 does not "
            "fit: the argument 'kv_len' needs an integer",
        ],
        "references.yaml": [
            "11:11: question 'references-placeholder', field 'prompt': placeholder {heads} "
            "has no param (params: cfg)",
            "11:32: question 'references-placeholder', field 'prompt': placeholder "
            "{cfg.d_k}: 'cfg' has no field 'd_k' (it has d_model, n_heads)",
            "13:34: question 'references-placeholder', field 'args.n_heads': 'cfg' has no "
            "field 'heads' (it has d_model, n_heads)",
            "19:30: question 'references-unknown-param', field 'prompt': a lone '{': write "
            "'{{' for a literal brace",
            "21:24: question 'references-unknown-param', field 'args.n_heads': 'h' refers "
            f"to no param (params: d); {literal_hint}",
            "27:37: question 'references-group', field 'prompt': '{cfg.d_model:q}' has an "
            "unsupported format spec 'q' (try ',' , '.2f' or '.3g')",
            "32:5: question 'references-preset-no-source', field 'source': a question "
            "about real models needs a source (paper, config.json)",
        ],
        "params.yaml": [
            f"8:7: question 'params-specs', field 'params.both': {kinds}, got "
            "{'value': 1, 'choices': [1, 2]}",
            f"9:7: question 'params-specs', field 'params.none': {kinds}, got {{'step': 2}}",
            "10:19: question 'params-specs', field 'params.backwards.range': the range's low end "
            "8 is above its high end 1",
            "11:15: question 'params-specs', field 'params.empty.choices': should have at least "
            "1 item, not 0",
            "13:7: question 'params-specs', field 'params.bad-name': param names are letters, "
            "digits and _ (not starting with a digit), got 'bad-name'",
            "14:23: question 'params-specs', field 'params.grid.matrix.rows': should be greater "
            "than or equal to 1, got 0",
        ],
        "choice_and_explain.yaml": [
            "11:9: question 'choice-and-explain-no-correct', field 'options[1]': a "
            "wrong option needs feedback that says why it is wrong",
            "16:5: question 'choice-and-explain-two-correct', field 'options': 2 "
            "options are correct; set multiple: true or mark only one correct",
            "20:5: question 'choice-and-explain-points', field 'explanation': "
            "missing required key 'explanation'",
            "24:5: question 'choice-and-explain-points', field 'key_points': should "
            "have at most 6 items, not 7",
            "27:5: question 'choice-and-explain-empty', field 'front': should not be empty",
        ],
        "seed_failure.yaml": [_seed_failure_message()],
    }


def test_every_broken_deck_has_an_expected_message() -> None:
    names = {p.name for p in BROKEN.glob("*.yaml")} - {"duplicate_across.yaml"}
    assert names == set(_expected())


@pytest.mark.parametrize("name", sorted(_expected()))
def test_broken_deck_gives_exact_located_messages(name: str) -> None:
    expected = [f"tests/broken_decks/{name}:{line}" for line in _expected()[name]]
    assert _problems(BROKEN / name) == expected


def test_a_template_that_breaks_only_at_a_later_seed_names_that_seed(tmp_path: Path) -> None:
    """A template's first draw is checked with the full derivation and later draws with the value-only
    run; a failure at a later draw is still found, at the first seed that breaks, in the engine's words."""
    drawn = [1 + int(np.random.default_rng(s).integers(9)) for s in range(50)]  # h: {range: [1, 9]}
    seed, heads = next((s, h) for s, h in enumerate(drawn) if 512 % h)
    assert seed > 0
    with pytest.raises(ValueError) as info:
        engine.calculate("head_dim", d_model=512, n_heads=heads)
    deck = tmp_path / "later.yaml"
    deck.write_text(
        "id: later\ntitle: t\ntopic: t\nquestions:\n"
        "  - id: later-heads\n    type: numeric\n    params:\n      h: {range: [1, 9]}\n"
        "    prompt: 512 wide, {h} heads; how wide is a head?\n    calculator: head_dim\n"
        "    args: {d_model: 512, n_heads: h}\n    explanation: e\n"
    )
    assert _problems(deck) == [
        f"{deck}:11:5: question 'later-heads', field 'args': with seed {seed}: head_dim: {info.value}"
    ]


def test_a_duplicate_id_across_files_names_both_places() -> None:
    problems = _problems(FIXTURES, BROKEN / "duplicate_across.yaml")
    assert problems == [
        "tests/broken_decks/duplicate_across.yaml:10:5: question 'sample-card', field 'id': "
        "duplicate question id 'sample-card', already used at tests/fixtures/decks/sample.yaml:107:5"
    ]


def test_a_deck_id_used_twice_skips_the_second_file(tmp_path: Path) -> None:
    copy = tmp_path / "again.yaml"
    copy.write_text((FIXTURES / "sample.yaml").read_text().replace("id: sample-", "id: again-"))
    first = "tests/fixtures/decks/sample.yaml:2:1"
    assert _problems(FIXTURES, copy) == [
        f"{copy}:2:1: field 'id': duplicate deck id 'sample', already used at {first}"
    ]


def test_a_missing_path_and_a_non_utf8_file_are_problems_not_crashes(tmp_path: Path) -> None:
    bad = tmp_path / "latin1.yaml"
    bad.write_bytes(b"id: x\ntitle: caf\xe9\n")
    problems = _problems(tmp_path / "nowhere.yaml", bad)
    assert problems[0].endswith("nowhere.yaml:1:1: no such deck file or folder")
    assert problems[1].endswith("latin1.yaml:2:1: the file is not UTF-8 text")


# --------------------------------------------------------------------------- schema


def _sample_deck() -> Deck:
    return Deck.model_validate(deck_validation.parse_yaml((FIXTURES / "sample.yaml").read_text()))


def test_target_seconds_default_by_difficulty_unless_given() -> None:
    deck = _sample_deck()
    by_id = {q.id: q for q in deck.questions}
    assert by_id["sample-head-dim"].target_seconds == 60
    assert by_id["sample-kv-cache"].target_seconds == 90
    assert by_id["sample-explain"].target_seconds == 150
    card = FlashcardQuestion.model_validate(
        {"id": "c", "type": "flashcard", "front": "f", "back": "b", "explanation": "e", "target_seconds": 12}
    )
    assert card.target_seconds == 12
    assert card.prompt == "f"


def test_models_are_frozen_and_forbid_unknown_keys() -> None:
    deck = _sample_deck()
    with pytest.raises(ValidationError):
        deck.questions[0].id = "other"  # type: ignore[misc]
    with pytest.raises(ValidationError):
        Deck.model_validate({"id": "d", "title": "t", "topic": "t", "questions": [], "extra": 1})


def test_json_schema_lists_every_question_type() -> None:
    schema = Deck.model_json_schema()
    text = json.dumps(schema)
    for kind in ("numeric", "tensor", "shape", "choice", "flashcard", "explain"):
        assert f'"const": "{kind}"' in text
    assert schema["additionalProperties"] is False


# --------------------------------------------------------------------------- templates and params

_plain = st.text(alphabet=st.characters(blacklist_characters="{}", blacklist_categories=("Cs",)), max_size=80)
_names = st.from_regex(r"[a-z_][a-z0-9_]{0,8}", fullmatch=True)


@settings(max_examples=100)
@given(_plain)
def test_text_without_braces_renders_unchanged(text: str) -> None:
    assert render(text, {}) == text


@settings(max_examples=100)
@given(st.text(max_size=80))
def test_doubled_braces_render_as_literal_braces(text: str) -> None:
    escaped = text.replace("{", "{{").replace("}", "}}")
    assert render(escaped, {}) == text


@settings(max_examples=100)
@given(st.text(max_size=40))
def test_any_text_either_parses_or_raises_a_template_error(text: str) -> None:
    try:
        parse_template(text)
    except TemplateError as exc:
        assert 0 <= exc.offset <= len(text)


@settings(max_examples=100)
@given(_names, _names, st.integers(-(10**12), 10**12), _plain)
def test_placeholders_fill_from_params_and_fields(name: str, field: str, value: int, text: str) -> None:
    template = f"{text}{{{name}}}|{{{name}_g.{field}:,}}"
    out = render(template, {name: value, f"{name}_g": {field: value}})
    assert out == f"{text}{value}|{value:,}"


def test_a_template_cannot_reach_attributes_outside_fields() -> None:
    model = engine.MODELS[next(iter(engine.MODELS))]
    for template in ("{m.__class__}", "{m.__dict__}", "{s.upper}", "{d.keys}"):
        with pytest.raises(TemplateError):
            render(template, {"m": model, "s": "text", "d": {"a": 1}})
    assert render("{m}", {"m": model}) == model.name


def test_a_matrix_renders_as_a_fenced_block() -> None:
    out = render("A =\n{a}", {"a": [[1, -2], [30, 4]]})
    assert out == "A =\n```\n[[ 1, -2],\n [30,  4]]\n```"


_bounds = st.integers(-50, 50)


@settings(max_examples=100)
@given(_bounds, st.integers(0, 40), st.integers(1, 7), st.integers(0, 2**32))
def test_a_range_param_stays_on_its_grid_and_repeats_for_a_seed(
    low: int, width: int, step: int, seed: int
) -> None:
    spec = RangeParam(range=(low, low + width), step=step)
    first = sample_params({"x": spec}, np.random.default_rng(seed))["x"]
    again = sample_params({"x": spec}, np.random.default_rng(seed))["x"]
    assert first == again
    assert low <= first <= low + width
    assert (first - low) % step == 0


@settings(max_examples=50)
@given(st.floats(0, 10), st.floats(0.01, 2), st.integers(0, 2**32))
def test_a_float_range_param_stays_inside(low: float, step: float, seed: int) -> None:
    spec = RangeParam(range=(low, low + 3.0), step=step)
    value = sample_params({"x": spec}, np.random.default_rng(seed))["x"]
    assert low - 1e-9 <= value <= low + 3.0 + 1e-9


def test_a_matrix_param_draws_both_of_its_inclusive_bounds() -> None:
    """The schema says low and high are inclusive: over a few seeds every value from low to high shows."""
    spec = MatrixParam(matrix=MatrixSpec(rows=3, cols=4, low=-1, high=1))
    seen: set[int] = set()
    for seed in range(10):
        drawn = np.asarray(sample_params({"a": spec}, np.random.default_rng(seed))["a"])
        assert drawn.shape == (3, 4)
        seen |= set(drawn.ravel().tolist())
    assert seen == {-1, 0, 1}
    one_value = MatrixParam(matrix=MatrixSpec(rows=2, cols=2, low=5, high=5))  # low == high is allowed
    drawn = sample_params({"a": one_value}, np.random.default_rng(0))["a"]
    assert np.asarray(drawn).tolist() == [[5, 5], [5, 5]]


# --------------------------------------------------------------------------- the cache


def _cache_files() -> list[Path]:
    deck_cache.finish_cache_writes()
    return sorted((paths.cache_dir() / "decks").glob("*.json"))


def test_an_unchanged_deck_loads_from_the_cache_without_parsing(monkeypatch: pytest.MonkeyPatch) -> None:
    from quizapp.content.catalog import load_catalog

    first = load_catalog([FIXTURES], include_default=False)
    assert len(_cache_files()) == 1
    loader.reset_memos()

    def refuse(text: str) -> None:
        raise AssertionError("parsed YAML although the cache was warm")

    monkeypatch.setattr(deck_validation, "parse_yaml", refuse)
    again = load_catalog([FIXTURES], include_default=False)
    assert list(again.questions) == list(first.questions)
    assert again.questions["sample-kv-cache"] == first.questions["sample-kv-cache"]
    assert again.instance("sample-weight", 3).prompt == first.instance("sample-weight", 3).prompt


def test_a_damaged_cache_is_ignored_and_rebuilt() -> None:
    from quizapp.content.catalog import load_catalog

    load_catalog([FIXTURES], include_default=False)
    (cache,) = _cache_files()
    cache.write_bytes(cache.read_bytes()[:-40] + b"garbage")
    loader.reset_memos()
    catalog = load_catalog([FIXTURES], include_default=False)
    assert "sample-card" in catalog.questions and not catalog.problems
    (rebuilt,) = _cache_files()
    _, _, payload = rebuilt.read_bytes().partition(b"\n")
    assert not payload.endswith(b"garbage")


def test_an_edited_deck_is_checked_again(tmp_path: Path) -> None:
    from quizapp.content.catalog import load_catalog

    deck = tmp_path / "sample.yaml"
    deck.write_text((FIXTURES / "sample.yaml").read_text())
    assert not load_catalog([deck], include_default=False).problems
    deck.write_text(deck.read_text().replace("calculator: head_dim", "calculator: head_dims"))
    problems = load_catalog([deck], include_default=False).problems
    assert [p.field for p in problems] == ["calculator"]


def test_the_deck_cache_goes_to_xdg_cache_home_unless_quizapp_home_is_set(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, isolated_home: Path
) -> None:
    from quizapp.content.catalog import load_catalog

    xdg = tmp_path / "my-cache"
    monkeypatch.setenv("XDG_CACHE_HOME", str(xdg))
    monkeypatch.delenv("QUIZAPP_HOME")
    assert paths.cache_dir() == xdg / "quizapp"
    load_catalog([FIXTURES], include_default=False)
    assert len(_cache_files()) == 1 and _cache_files()[0].is_relative_to(xdg / "quizapp")
    assert not (paths.data_dir() / "cache").exists()  # not beside the progress database any more

    monkeypatch.setenv("QUIZAPP_HOME", str(isolated_home))  # a throwaway home keeps everything together
    assert paths.cache_dir() == isolated_home / "cache"


def test_an_unwritable_cache_folder_only_costs_speed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from quizapp.content.catalog import load_catalog

    blocker = tmp_path / "file-not-folder"
    blocker.write_text("x")
    monkeypatch.setattr(paths, "cache_dir", lambda: blocker / "cache")
    catalog = load_catalog([FIXTURES], include_default=False)
    assert "sample-card" in catalog.questions and not catalog.problems
    assert not os.path.exists(blocker / "cache")


def test_every_bundled_question_comes_back_from_the_cache_as_validated() -> None:
    from quizapp.content.catalog import load_catalog

    cold = load_catalog([paths.bundled_content_dir()], include_default=False)
    loader.reset_memos()
    warm = load_catalog([paths.bundled_content_dir()], include_default=False)
    assert list(warm.questions) == list(cold.questions)
    assert all(warm.questions[qid] == cold.questions[qid] for qid in cold.questions)


def test_a_value_json_cannot_hold_keeps_the_deck_out_of_the_cache(tmp_path: Path) -> None:
    from quizapp.content.catalog import load_catalog

    deck = tmp_path / "sets.yaml"
    text = (FIXTURES / "sample.yaml").read_text()
    card = "    type: flashcard\n"
    assert card in text
    deck.write_text(text.replace(card, card + "    params:\n      kinds: {value: !!set {a, b}}\n", 1))
    catalog = load_catalog([deck], include_default=False)
    assert not catalog.problems and "sample-card" in catalog.questions
    assert _cache_files() == []  # JSON would turn the set into a list: the deck is checked again each time
