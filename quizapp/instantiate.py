"""Provides instantiation: a Question and a seed become an Instance with sampled numbers and engine answers.

Params are drawn from `np.random.default_rng(seed)` in the order the deck declares them (derived `calc`
params after the others), so the same seed always gives the same instance. Every number comes from a
param or from `engine.calculate`; the prompt is filled by quizapp.template, never by `str.format`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np
import numpy.typing as npt

import engine
from quizapp.errors import QuizappError
from quizapp.instance import ChoiceOption, Instance
from quizapp.schema import (
    CalcParam,
    ChoiceQuestion,
    ChoicesParam,
    ExplainQuestion,
    FlashcardQuestion,
    MatrixParam,
    ParamSpec,
    PresetParam,
    Question,
    RangeParam,
    ShapeQuestion,
    ValueParam,
)
from quizapp.template import TemplateError, lookup, render
from quizapp.tolerance import Tolerance, default_tolerance
from quizapp.units import to_display

Calculate = Callable[[str, Mapping[str, Any]], engine.Derivation]
Loc = tuple[str | int, ...]
Pick = int | npt.NDArray[np.int64] | None
"""What the generator gave one param: an index or a step count, a matrix, or nothing (a fixed value)."""
Draws = tuple[int | bytes | None, ...]
LETTERS = "abcdefghijklmnopqrstuvwxyz"


class InstanceError(QuizappError):
    """A question that cannot be made concrete for some seed; `loc` names the field inside the question."""

    def __init__(self, message: str, *, loc: Loc = (), offset: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.loc = loc
        self.offset = offset


def engine_calculate(name: str, args: Mapping[str, Any]) -> engine.Derivation:
    """The engine's single entry point, in the shape instantiation expects."""
    return engine.calculate(name, **args)


def instantiate(
    question: Question,
    *,
    deck_id: str,
    deck_title: str,
    seed: int,
    calculate: Calculate = engine_calculate,
) -> Instance:
    """Makes `question` concrete for `seed`; raises InstanceError naming the field that failed."""
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise InstanceError(f"a seed is a non-negative integer, got {seed!r}")
    rng = np.random.default_rng(seed)
    values = sample_params(question.params, rng, calculate)
    return build_instance(question, values, rng, deck_id=deck_id, deck_title=deck_title, seed=seed,
                          calculate=calculate)  # fmt: skip


def build_instance(
    question: Question,
    values: Mapping[str, Any],
    rng: np.random.Generator,
    *,
    deck_id: str,
    deck_title: str,
    seed: int,
    calculate: Calculate = engine_calculate,
) -> Instance:
    """The rest of `instantiate` once the params are drawn from `rng` (which goes on to shuffle options)."""
    field = "front" if isinstance(question, FlashcardQuestion) else "prompt"
    try:
        prompt = render(question.prompt, values)
    except TemplateError as exc:
        raise InstanceError(exc.message, loc=(field,), offset=exc.offset) from None
    common: dict[str, Any] = {
        "question_id": question.id,
        "deck_id": deck_id,
        "deck_title": deck_title,
        "seed": seed,
        "prompt": prompt,
        "explanation": question.explanation,
        "difficulty": question.difficulty,
        "tags": tuple(question.tags),
        "source": question.source,
        "target_seconds": float(question.target_seconds),
    }
    if isinstance(question, ChoiceQuestion):
        order = rng.permutation(len(question.options))  # (n_options,)
        options = tuple(
            ChoiceOption(
                LETTERS[i],
                question.options[j].text,
                question.options[j].correct,
                question.options[j].feedback,
            )
            for i, j in enumerate(order.tolist())
        )
        expected = frozenset(o.key for o in options if o.correct)
        return Instance(
            kind="choice", expected=expected, options=options, multiple=question.multiple, **common
        )
    if isinstance(question, FlashcardQuestion):
        return Instance(kind="flashcard", expected=question.back, **common)
    if isinstance(question, ExplainQuestion):
        return Instance(
            kind="explain", expected=question.model_answer, key_points=tuple(question.key_points), **common
        )
    args = resolve_args(question.args, values, loc=("args",))
    derivation = run_calculator(calculate, question.calculator, args, loc=("args",))
    value = derivation.value
    if isinstance(question, ShapeQuestion):
        if not isinstance(value, tuple):
            raise InstanceError(
                f"calculator {question.calculator!r} gives a number, not a shape; use type: numeric",
                loc=("type",),
            )
        return Instance(
            kind="shape",
            expected=tuple(int(v) for v in value),
            unit=question.unit or "shape",
            base_unit=derivation.unit,
            derivation=derivation,
            heatmap=derivation.heatmap,
            **common,
        )
    if isinstance(value, tuple):
        raise InstanceError(
            f"calculator {question.calculator!r} gives a shape; use type: shape", loc=("type",)
        )
    if not math.isfinite(value):
        raise InstanceError(
            f"calculator {question.calculator!r} gave {value!r}, not a finite number", loc=("args",)
        )
    shown_unit = derivation.unit if question.unit is None else question.unit
    tolerance = question.tolerance or _default_tolerance(value, shown_unit)
    return Instance(
        kind=question.type,
        expected=value,
        unit=shown_unit,
        base_unit=derivation.unit,
        tolerance=tolerance,
        derivation=derivation,
        heatmap=derivation.heatmap,
        **common,
    )


def _default_tolerance(value: int | float, shown_unit: str) -> Tolerance:
    try:
        return default_tolerance(to_display(value, shown_unit))
    except QuizappError as exc:
        raise InstanceError(str(exc), loc=("unit",)) from None


def sample_params(
    params: Mapping[str, ParamSpec], rng: np.random.Generator, calculate: Calculate = engine_calculate
) -> dict[str, Any]:
    """Draws every param in declaration order, then derives `calc` params once their inputs exist."""
    return derive_params(params, place_params(params, pick_params(params, rng)), calculate)


def pick_params(params: Mapping[str, ParamSpec], rng: np.random.Generator) -> tuple[Pick, ...]:
    """What the generator gives each param that is not derived, in declaration order: an index or a
    step count, a matrix, or None for a fixed value. It depends only on the generator's state and on
    `draw_plan(params)`."""
    return tuple(_pick(spec, rng) for spec in params.values() if not isinstance(spec, CalcParam))


def draw_plan(params: Mapping[str, ParamSpec]) -> tuple[Any, ...]:
    """The generator calls `pick_params` makes, in order: the bound of each `integers(n)`, a matrix's
    bounds and shape, None for a fixed value. The same plan from the same state gives the same picks."""
    plan: list[Any] = []
    for spec in params.values():
        if isinstance(spec, MatrixParam):
            m = spec.matrix
            plan.append((m.low, m.high, m.rows, m.cols))
        elif not isinstance(spec, CalcParam):
            plan.append(_choices(spec))
    return tuple(plan)


def draw_key(picks: tuple[Pick, ...]) -> Draws:
    """The picks as a key (a matrix by its bytes): equal keys give equal params, so a checker can skip
    a seed whose picks an earlier seed made."""
    return tuple(p.tobytes() if isinstance(p, np.ndarray) else p for p in picks)


def draw_count(params: Mapping[str, ParamSpec]) -> int | None:
    """How many different picks `pick_params` can make (None when too many to matter: a matrix)."""
    count = 1
    for n in draw_plan(params):
        if isinstance(n, tuple):
            return None
        count *= n or 1
    return count


def place_params(params: Mapping[str, ParamSpec], picks: tuple[Pick, ...]) -> dict[str, Any]:
    """The value of each param that is not derived, from its pick."""
    drawn = iter(picks)
    return {
        name: _value(name, spec, next(drawn))
        for name, spec in params.items()
        if not isinstance(spec, CalcParam)
    }


def derive_params(
    params: Mapping[str, ParamSpec], drawn: Mapping[str, Any], calculate: Calculate = engine_calculate
) -> dict[str, Any]:
    """`drawn` plus the `calc` params, each derived once the params its args refer to exist."""
    values = dict(drawn)
    pending = [name for name, spec in params.items() if isinstance(spec, CalcParam)]
    while pending:
        ready = [n for n in pending if _inputs_ready(params[n], values, params)]
        if not ready:
            name = pending[0]
            raise InstanceError(
                f"param {name!r} depends on itself through its args (cycle among {', '.join(pending)})",
                loc=("params", name, "args"),
            )
        for name in ready:
            spec = params[name]
            assert isinstance(spec, CalcParam)
            where: Loc = ("params", name, "args")
            args = resolve_args(spec.args, values, loc=where)
            values[name] = run_calculator(calculate, spec.calc, args, loc=where).value
            pending.remove(name)
    return values


def _inputs_ready(spec: ParamSpec, values: Mapping[str, Any], params: Mapping[str, ParamSpec]) -> bool:
    assert isinstance(spec, CalcParam)
    for arg in spec.args.values():
        if isinstance(arg, str):
            name = arg.split(".", 1)[0]
            if name not in values and name in params:
                return False
    return True


def _pick(spec: ParamSpec, rng: np.random.Generator) -> Pick:
    if isinstance(spec, MatrixParam):
        m = spec.matrix
        return rng.integers(m.low, m.high + 1, size=(m.rows, m.cols))  # (rows, cols)
    n = _choices(spec)
    return None if n is None else int(rng.integers(n))


def _choices(spec: ParamSpec) -> int | None:
    """How many values a choices, preset or range param picks from (None when it draws nothing)."""
    if isinstance(spec, ChoicesParam):
        return len(spec.choices)
    if isinstance(spec, PresetParam):
        return len(spec.preset)
    if isinstance(spec, RangeParam):
        low, high = spec.range
        return math.floor((high - low) / spec.step + 1e-9) + 1
    return None


def _value(name: str, spec: ParamSpec, pick: Pick) -> Any:
    """One param's value from what the generator gave it."""
    if isinstance(spec, ValueParam):
        return spec.value
    if isinstance(spec, ChoicesParam) and isinstance(pick, int):
        return spec.choices[pick]
    if isinstance(spec, RangeParam) and isinstance(pick, int):
        low, high = spec.range
        if all(isinstance(x, int) for x in (low, high, spec.step)):
            return int(low) + pick * int(spec.step)
        return round(float(low) + pick * float(spec.step), 10)
    if isinstance(spec, PresetParam) and isinstance(pick, int):
        key = spec.preset[pick]
        if key not in engine.MODELS:
            raise InstanceError(f"unknown model preset {key!r}", loc=("params", name, "preset"))
        return engine.MODELS[key]
    if isinstance(spec, MatrixParam) and isinstance(pick, np.ndarray):
        return pick.tolist()
    raise InstanceError(f"param {name!r} cannot be drawn", loc=("params", name))  # pragma: no cover


def resolve_ref(ref: str, values: Mapping[str, Any]) -> Any:
    """The value a `name` or `name.field` reference points at."""
    name, *fields = ref.split(".")
    if name not in values:
        known = ", ".join(sorted(values)) or "none"
        raise TemplateError(f"{ref!r} refers to no param (params: {known})", name=name)
    return lookup(values[name], tuple(fields), name=name) if fields else values[name]


def resolve_args(args: Mapping[str, Any], values: Mapping[str, Any], *, loc: Loc) -> dict[str, Any]:
    """Replaces references by param values; numbers, booleans and lists pass through as literals."""
    out: dict[str, Any] = {}
    for key, raw in args.items():
        if not isinstance(raw, str):
            out[key] = raw
            continue
        try:
            out[key] = resolve_ref(raw, values)
        except TemplateError as exc:
            raise InstanceError(exc.message, loc=(*loc, key)) from None
    return out


def run_calculator(
    calculate: Calculate, name: str, args: Mapping[str, Any], *, loc: Loc
) -> engine.Derivation:
    """Runs a calculator and turns its ValueError into an InstanceError pointing at the argument."""
    try:
        return calculate(name, args)
    except Exception as exc:  # a ValueError from the engine, or a calculator bug: never a traceback
        message = str(exc) if isinstance(exc, ValueError) else f"failed with {type(exc).__name__}: {exc}"
        where = loc
        for key in args:
            if f"argument {key!r}" in message or f"argument(s) {key}" in message:
                where = (*loc, key)
                break
        if name not in engine.CALCULATORS:
            where = (*loc[:-1], "calc") if loc[0] == "params" else ("calculator",)
        raise InstanceError(f"{name}: {message}", loc=where) from None
