"""The printed deck schema, checked by third-party validators (check-jsonschema, python-jsonschema) as an
editor or CI would use it: every bundled deck passes, and a broken deck is blamed for the right rule."""

from __future__ import annotations

import inspect
import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator, ValidationError

import engine
from quizapp.content.json_schema import args_def, keywords, subschemas
from quizapp.content.schema_common import QUESTION_TYPES

ROOT = Path(__file__).resolve().parent.parent
DECKS = sorted((ROOT / "content").glob("*.yaml"))
OTHER_TYPES = [t for t in QUESTION_TYPES if t not in ("numeric",)]
METADATA_AND_CORE = {
    "$schema", "$id", "$defs", "$comment", "$anchor", "$dynamicAnchor", "$vocabulary", "then", "else",
    "title", "description", "default", "examples", "deprecated", "readOnly", "writeOnly",
    "contentMediaType", "contentEncoding", "contentSchema",
}  # fmt: skip
"""Draft 2020-12 keywords that python-jsonschema keeps no validator function for."""

_HEADER = "id: broken\ntitle: Broken deck\ntopic: broken\nquestions:\n"
_NUMERIC = """\
  - id: broken-head-dim
    type: numeric
    prompt: "A model of width {d_model} has 8 heads. How wide is each head?"
    calculator: head_dim
    trap: divided-by-wrong
    explanation: the width is split evenly across the heads.
"""


@pytest.fixture(scope="module")
def schema_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The schema exactly as `quizapp schema` prints it, saved as a user would save it."""
    home = tmp_path_factory.mktemp("schema-home")
    script = Path(sys.executable).with_name("quizapp")
    command = [str(script)] if script.exists() else [sys.executable, "-m", "quizapp"]
    env = {"QUIZAPP_HOME": str(home), "PATH": "/usr/bin:/bin", "PYTHONIOENCODING": "utf-8"}
    out = subprocess.run(
        [*command, "schema"], capture_output=True, text=True, timeout=120, cwd=ROOT, env=env, check=True
    )
    path = home / "deck.schema.json"
    path.write_text(out.stdout, encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def schema(schema_file: Path) -> dict[str, Any]:
    return dict(json.loads(schema_file.read_text(encoding="utf-8")))


def _check_jsonschema(schema_file: Path, *decks: Path) -> subprocess.CompletedProcess[str]:
    """Runs the check-jsonschema CLI, verbose so every underlying error is printed, not only the best."""
    command = [sys.executable, "-m", "check_jsonschema", "--no-cache", "--color", "never", "--verbose"]
    return subprocess.run(
        [*command, "--schemafile", str(schema_file), *map(str, decks)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def _deck(tmp_path: Path, question: str, name: str = "broken.yaml") -> Path:
    path = tmp_path / name
    path.write_text(_HEADER + question, encoding="utf-8")
    return path


def _errors(schema: dict[str, Any], deck: Path) -> list[ValidationError]:
    """Every error python-jsonschema finds in a deck file, as an editor's validator would."""
    import yaml

    instance = yaml.safe_load(deck.read_text(encoding="utf-8"))
    return list(Draft202012Validator(schema).iter_errors(instance))


def _leaves(errors: list[ValidationError]) -> Iterator[ValidationError]:
    """The errors with their underlying causes (an `if`/`then` or `anyOf` nests them)."""
    for error in errors:
        yield error
        yield from _leaves(list(error.context or []))


# --------------------------------------------------------------------------- the schema itself


def test_schema_is_valid_draft_2020_12(schema: dict[str, Any]) -> None:
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    Draft202012Validator.check_schema(schema)


def test_schema_uses_only_standard_keywords(schema: dict[str, Any]) -> None:
    used = set(keywords(schema))
    assert "discriminator" not in used
    assert "discriminator" not in json.dumps(schema)
    assert not used - set(Draft202012Validator.VALIDATORS) - METADATA_AND_CORE
    assert {"minimum", "maximum", "exclusiveMinimum"} <= used


def test_question_items_dispatch_on_their_type(schema: dict[str, Any]) -> None:
    items = schema["properties"]["questions"]["items"]
    assert "oneOf" not in items
    assert items["required"] == ["type"]
    assert items["properties"]["type"]["enum"] == list(QUESTION_TYPES)
    rules = {rule["if"]["properties"]["type"]["const"]: rule for rule in items["allOf"]}
    assert set(rules) == set(QUESTION_TYPES)
    for kind, rule in rules.items():
        assert rule["if"]["required"] == ["type"]
        target = schema["$defs"][rule["then"]["$ref"].removeprefix("#/$defs/")]
        assert target["properties"]["type"]["const"] == kind


def test_enums_come_from_the_engine(schema: dict[str, Any]) -> None:
    defs = schema["$defs"]
    for name in ("NumericQuestion", "TensorQuestion", "ShapeQuestion"):
        assert defs[name]["properties"]["calculator"]["enum"] == sorted(engine.CALCULATORS)
        assert "GiB" in defs[name]["properties"]["unit"]["anyOf"][0]["enum"]
    assert defs["CalcParam"]["properties"]["calc"]["enum"] == sorted(engine.CALCULATORS)
    assert defs["PresetParam"]["properties"]["preset"]["items"]["enum"] == sorted(engine.PRESETS)


def test_calculator_args_are_the_calculator_functions_keywords(schema: dict[str, Any]) -> None:
    """The names match the functions' own signatures (`worked` is the engine's switch, not an argument)."""
    for name, calc in engine.CALCULATORS.items():
        args = schema["$defs"][args_def(name)]
        keywords_taken = [p for p in inspect.signature(calc.fn).parameters if p != "worked"]
        assert list(args["properties"]) == keywords_taken, name
        assert args["additionalProperties"] is False
        needed = [a.name for a in calc.args if a.required]
        assert args.get("required", []) == needed, name


def test_every_calculator_question_dispatches_its_args(schema: dict[str, Any]) -> None:
    for name, key in [(n, "calculator") for n in ("NumericQuestion", "TensorQuestion", "ShapeQuestion")] + [
        ("CalcParam", "calc")
    ]:
        rules = schema["$defs"][name]["allOf"]
        by_calc = {r["if"]["properties"][key]["const"]: r["then"]["properties"]["args"] for r in rules}
        assert by_calc == {c: {"$ref": f"#/$defs/{args_def(c)}"} for c in engine.CALCULATORS}, name


def test_walk_reaches_every_definition(schema: dict[str, Any]) -> None:
    reached = {id(node) for node in subschemas(schema)}
    assert all(id(node) in reached for node in schema["$defs"].values())


# --------------------------------------------------------------------------- bundled decks


def test_every_bundled_deck_passes_check_jsonschema(schema_file: Path) -> None:
    assert len(DECKS) >= 20
    out = _check_jsonschema(schema_file, *DECKS)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "ok -- validation done" in out.stdout


# --------------------------------------------------------------------------- broken decks


def test_numeric_mistake_is_blamed_on_the_numeric_rules_only(
    schema_file: Path, schema: dict[str, Any], tmp_path: Path
) -> None:
    deck = _deck(tmp_path, _NUMERIC + "    args: [d_model, n_heads]\n")  # args is a mapping, not a list
    out = _check_jsonschema(schema_file, deck)
    assert out.returncode == 1
    assert "$.questions[0].args: ['d_model', 'n_heads'] is not of type 'object'" in out.stdout
    for other in OTHER_TYPES:
        assert f"'{other}' was expected" not in out.stdout
    for other_field in ("options", "front", "model_answer", "key_points", "Additional properties"):
        assert other_field not in out.stdout
    numeric = ["properties", "questions", "items", "allOf", QUESTION_TYPES.index("numeric"), "then"]
    errors = list(_leaves(_errors(schema, deck)))
    assert errors
    assert all(list(e.absolute_schema_path)[: len(numeric)] == numeric for e in errors)


def test_unknown_question_type_names_the_known_types(schema_file: Path, tmp_path: Path) -> None:
    deck = _deck(tmp_path, _NUMERIC.replace("type: numeric", "type: numerical") + "    args: {}\n")
    out = _check_jsonschema(schema_file, deck)
    assert out.returncode == 1
    assert "$.questions[0].type: 'numerical' is not one of ['numeric', 'tensor'" in out.stdout
    assert "Additional properties" not in out.stdout


def test_unknown_calculator_argument_is_reported(schema_file: Path, tmp_path: Path) -> None:
    question = _NUMERIC + "    args: {d_model: 512, n_heads: 8, n_head: 8}\n"
    out = _check_jsonschema(schema_file, _deck(tmp_path, question))
    assert out.returncode == 1
    unexpected = "Additional properties are not allowed ('n_head' was unexpected)"
    assert f"$.questions[0].args: {unexpected}" in out.stdout


def test_unknown_argument_of_a_calc_param_is_reported(schema_file: Path, tmp_path: Path) -> None:
    params = "    params:\n      d_model: {calc: head_dim, args: {d_model: 512, heads: 8}}\n"
    out = _check_jsonschema(schema_file, _deck(tmp_path, _NUMERIC + params + "    args: {d_model: 1}\n"))
    assert out.returncode == 1
    assert "$.questions[0].params.d_model.args: 'n_heads' is a required property" in out.stdout
    assert "('heads' was unexpected)" in out.stdout
    assert "$.questions[0].args: 'n_heads' is a required property" in out.stdout


def test_bounds_are_standard_keywords(schema_file: Path, schema: dict[str, Any], tmp_path: Path) -> None:
    params = "    params:\n      d_model: {range: [64, 2.0e+15], step: 0}\n"
    deck = _deck(tmp_path, _NUMERIC + params + "    args: {d_model: d_model, n_heads: 8}\n")
    out = _check_jsonschema(schema_file, deck)
    assert out.returncode == 1
    assert "$.questions[0].params.d_model.step: 0 is less than or equal to the minimum of 0" in out.stdout
    assert "$.questions[0].params.d_model.range[1]: 2000000000000000.0 is greater than the maximum" in (
        out.stdout
    )
    failed = {(e.json_path, e.validator) for e in _leaves(_errors(schema, deck))}
    assert failed == {
        ("$.questions[0].params.d_model.step", "exclusiveMinimum"),
        ("$.questions[0].params.d_model.range[1]", "maximum"),
    }


def test_a_param_needs_exactly_one_kind(schema: dict[str, Any], tmp_path: Path) -> None:
    params = "    params:\n      d_model: {value: 512, range: [1, 2]}\n      n: {}\n"
    deck = _deck(tmp_path, _NUMERIC + params + "    args: {d_model: d_model, n_heads: 8}\n")
    failed = {(e.json_path, e.validator) for e in _errors(schema, deck)}
    assert ("$.questions[0].params.d_model", "oneOf") in failed
    assert ("$.questions[0].params.n", "oneOf") in failed


def test_param_names_follow_the_pattern(schema_file: Path, tmp_path: Path) -> None:
    params = "    params:\n      2d: {value: 512}\n"
    out = _check_jsonschema(schema_file, _deck(tmp_path, _NUMERIC + params + "    args: {d_model: 1}\n"))
    assert out.returncode == 1
    assert "'2d' does not match" in out.stdout


def test_a_misspelt_param_key_is_named(schema_file: Path, tmp_path: Path) -> None:
    params = "    params:\n      d_model: {rang: [64, 128]}\n"
    deck = _deck(tmp_path, _NUMERIC + params + "    args: {d_model: d_model, n_heads: 8}\n")
    out = _check_jsonschema(schema_file, deck)
    assert out.returncode == 1
    assert "$.questions[0].params.d_model: 'rang' is not one of ['args', 'calc', 'choices'" in out.stdout
