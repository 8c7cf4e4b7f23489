"""Provides the deck JSON Schema that standard validators and editors understand (draft 2020-12).

pydantic's `Deck.model_json_schema()` is the starting point, but it speaks OpenAPI in places: the question
union carries a `discriminator`, which standard validators ignore, so a `oneOf` over six question types
blames every type for one mistake; and bounds on a union come out as pydantic's `ge`/`gt`/`le`/`lt`, which
validators ignore too. This module rewrites those into plain JSON Schema, dispatches each question and
each param to its one model with `if`/`then`, and adds what only the engine knows: the calculators, their
argument names, the model presets and the units, so an editor completes and checks them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import engine
from quizapp.content.schema import Deck
from quizapp.content.units import UNITS

DRAFT = "https://json-schema.org/draft/2020-12/schema"
Schema = dict[str, Any]

RENAMED: dict[str, str] = {
    "ge": "minimum",
    "gt": "exclusiveMinimum",
    "le": "maximum",
    "lt": "exclusiveMaximum",
    "multiple_of": "multipleOf",
}
"""pydantic's constraint names (left on unions it cannot push them into) and their JSON Schema names."""
_TIGHTER: dict[str, Callable[[float, float], float]] = {
    "minimum": max,
    "exclusiveMinimum": max,
    "maximum": min,
    "exclusiveMaximum": min,
}

SCHEMA_MAPS = frozenset({"properties", "patternProperties", "$defs", "dependentSchemas"})
"""Keywords whose value maps names (not keywords) to subschemas."""
SCHEMA_LISTS = frozenset({"allOf", "anyOf", "oneOf", "prefixItems"})
SCHEMA_VALUES = frozenset(
    {
        "items",
        "additionalProperties",
        "not",
        "if",
        "then",
        "else",
        "contains",
        "propertyNames",
        "unevaluatedItems",
        "unevaluatedProperties",
        "contentSchema",
    }
)
QUESTION_CALCULATOR_DEFS = ("NumericQuestion", "TensorQuestion", "ShapeQuestion", "ScenarioStep")


def deck_json_schema() -> Schema:
    """The deck schema in standard JSON Schema, with the engine's calculators, arguments, presets, units."""
    schema: Schema = {"$schema": DRAFT, **Deck.model_json_schema()}
    schema["title"] = "quizapp deck"
    defs: Schema = schema.setdefault("$defs", {})
    for node in subschemas(schema):
        _standard_keywords(node)
        _dispatch_discriminator(node)
        _dispatch_by_key(node, defs)
        _constrain_key_names(node)
    _add_engine_enums(defs)
    _add_calculator_args(defs)
    return schema


# --------------------------------------------------------------------------- walking


def subschemas(schema: Schema) -> Iterator[Schema]:
    """Every schema object in `schema`, parents before children; data (`enum`, `default`) is skipped.

    A parent is yielded before its children are listed, so a caller may rewrite it and the walk goes on
    into what it put there.
    """
    yield schema
    for keyword in list(schema):
        value = schema.get(keyword)
        if keyword in SCHEMA_MAPS and isinstance(value, dict):
            children = [v for v in value.values() if isinstance(v, dict)]
        elif keyword in SCHEMA_LISTS and isinstance(value, list):
            children = [v for v in value if isinstance(v, dict)]
        elif keyword in SCHEMA_VALUES and isinstance(value, dict):
            children = [value]
        else:
            continue
        for child in children:
            yield from subschemas(child)


def keywords(schema: Schema) -> Iterator[str]:
    """Every keyword used anywhere in `schema` (property and definition names are not keywords)."""
    for node in subschemas(schema):
        yield from node


# --------------------------------------------------------------------------- rewrites


def _standard_keywords(node: Schema) -> None:
    """Renames pydantic's bound keywords to JSON Schema's, keeping the tighter bound if both are there."""
    for old, new in RENAMED.items():
        if old not in node:
            continue
        value = node.pop(old)
        tighter = _TIGHTER.get(new)
        node[new] = tighter(node[new], value) if tighter and new in node else value


def _dispatch_discriminator(node: Schema) -> None:
    """Turns an OpenAPI `oneOf` + `discriminator` into `if type == X then X's schema`, per type.

    Standard validators ignore `discriminator`, so a `oneOf` reports a mistake against every type; with
    the dispatch a mistake in a numeric question is reported against the numeric question's rules only.
    """
    found = node.get("discriminator")
    if not isinstance(found, dict) or "oneOf" not in node:
        return
    key: str = found["propertyName"]
    by_ref = {ref: value for value, ref in found["mapping"].items()}
    refs = [member["$ref"] for member in node["oneOf"]]
    values = [by_ref[ref] for ref in refs]
    del node["discriminator"], node["oneOf"]
    node.update(
        {
            "type": "object",
            "required": [key],
            "properties": {key: {"enum": values}},
            "allOf": [
                {"if": {"properties": {key: {"const": value}}, "required": [key]}, "then": {"$ref": ref}}
                for value, ref in zip(values, refs, strict=True)
            ],
        }
    )


def _dispatch_by_key(node: Schema, defs: Schema) -> None:
    """Turns a `oneOf` of objects told apart by which key they have (the param specs: `value`, `range`,
    `calc`...) into `exactly one of the keys` plus `if it has key K then K's schema`, so a mistake inside a
    range param is reported against the range rules, not against all six kinds of param; a key no kind
    has (a typo) is named as such."""
    members = node.get("oneOf")
    if not isinstance(members, list) or "discriminator" in node:
        return
    keys = [_only_key(member, defs) for member in members]
    if not keys or None in keys or len(set(keys)) != len(keys):
        return
    names = {name for member in members for name in _target(member, defs).get("properties", {})}
    del node["oneOf"]
    node.update(
        {
            "type": "object",
            "propertyNames": {"enum": sorted(names)},
            "oneOf": [{"required": [key]} for key in keys],
            "allOf": [
                {"if": {"required": [key]}, "then": member} for key, member in zip(keys, members, strict=True)
            ],
        }
    )


def _only_key(member: Any, defs: Schema) -> str | None:
    """The one required key of a referenced closed object schema (None when it is not such a schema)."""
    target = _target(member, defs)
    required = target.get("required", [])
    closed = target.get("type") == "object" and target.get("additionalProperties") is False
    return required[0] if closed and len(required) == 1 else None


def _target(member: Any, defs: Schema) -> Schema:
    """The definition a bare `{"$ref": "#/$defs/X"}` points at ({} for anything else)."""
    if not isinstance(member, dict) or set(member) != {"$ref"}:
        return {}
    found = defs.get(str(member["$ref"]).removeprefix("#/$defs/"), {})
    return found if isinstance(found, dict) else {}


def _constrain_key_names(node: Schema) -> None:
    """A pydantic dict whose keys have a pattern becomes `patternProperties` alone, which lets any other
    key through; pydantic refuses such keys, so the schema says so with `propertyNames`."""
    patterns = node.get("patternProperties")
    closed = {"properties", "additionalProperties"} & set(node)
    if not isinstance(patterns, dict) or len(patterns) != 1 or closed:
        return
    node.setdefault("propertyNames", {"pattern": next(iter(patterns))})


# --------------------------------------------------------------------------- what the engine knows


def _add_engine_enums(defs: Schema) -> None:
    """Calculator names, units and model presets as enums an editor completes from."""
    calculators = sorted(engine.CALCULATORS)
    for name in QUESTION_CALCULATOR_DEFS:
        props = defs.get(name, {}).get("properties", {})
        if "calculator" in props and calculators:
            props["calculator"]["enum"] = calculators
        if "unit" in props:
            props["unit"]["anyOf"] = [{"enum": list(UNITS)}, {"type": "null"}]
    calc = defs.get("CalcParam", {}).get("properties", {})
    if "calc" in calc and calculators:
        calc["calc"]["enum"] = calculators
    preset = defs.get("PresetParam", {}).get("properties", {}).get("preset", {})
    if "items" in preset and engine.PRESETS:
        preset["items"]["enum"] = sorted(engine.PRESETS)


def _add_calculator_args(defs: Schema) -> None:
    """Per calculator, the argument names its `args` takes (from the engine's registry): completed by
    editors, and any other name is an error, as the engine's own argument check makes it one."""
    for name, calc in engine.CALCULATORS.items():
        defs[args_def(name)] = calculator_args_schema(calc)
    for def_name in QUESTION_CALCULATOR_DEFS:
        _dispatch_args(defs.get(def_name), "calculator")
    _dispatch_args(defs.get("CalcParam"), "calc")


def args_def(calculator: str) -> str:
    """The `$defs` name of a calculator's `args` schema."""
    return f"{calculator}.args"


def calculator_args_schema(calc: engine.Calculator) -> Schema:
    """The `args` mapping one calculator takes: its argument names, the required ones, nothing else."""
    schema: Schema = {
        "title": f"arguments of {calc.name}",
        "description": calc.summary,
        "type": "object",
        "properties": {arg.name: _arg_schema(arg) for arg in calc.args},
        "additionalProperties": False,
    }
    required = [arg.name for arg in calc.args if arg.required]
    if required:
        schema["required"] = required
    return schema


def _arg_schema(arg: engine.Arg) -> Schema:
    """One argument: its meaning for the editor's hover; the value may be a param reference or a literal."""
    schema: Schema = {"description": arg.meaning}
    if not arg.required and isinstance(arg.default, str | int | float):  # bool is an int
        schema["default"] = arg.default
    return schema


def _dispatch_args(model: Schema | None, key: str) -> None:
    """Adds `if <key> == NAME then args is NAME's args` for every calculator to a model's schema."""
    if model is None or key not in model.get("properties", {}):
        return
    rules = [
        {
            "if": {"properties": {key: {"const": name}}, "required": [key]},
            "then": _args_then(name, calc),
        }
        for name, calc in sorted(engine.CALCULATORS.items())
    ]
    model["allOf"] = [*model.get("allOf", []), *rules]


def _args_then(name: str, calc: engine.Calculator) -> Schema:
    """`args` must fit the calculator, and must be there when the calculator needs any argument."""
    then: Schema = {"properties": {"args": {"$ref": f"#/$defs/{args_def(name)}"}}}
    if any(arg.required for arg in calc.args):
        then["required"] = ["args"]
    return then
