"""Provides the draws: what the generator gives each param of a question, and the values that makes.

Params are drawn in the order the deck declares them; a derived `calc` param draws nothing (quizapp.
instantiate derives it afterwards). A draw plan lists the generator calls a params mapping makes, so
the seed checks, which try 50 seeds of every template, can share the picks of templates with the same
plan and turn picks into values with each spec looked at once (`placer`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np
import numpy.typing as npt

import engine
from quizapp.content.param_specs import (
    CalcParam,
    ChoicesParam,
    MatrixParam,
    ParamSpec,
    PresetParam,
    RangeParam,
    ValueParam,
)
from quizapp.errors import InstanceError

Pick = int | npt.NDArray[np.int64] | None
"""What the generator gave one param: an index or a step count, a matrix, or nothing (a fixed value)."""
Draws = tuple[int | bytes | None, ...]
Placer = Callable[[tuple[Pick, ...]], dict[str, Any]]


def pick_params(params: Mapping[str, ParamSpec], rng: np.random.Generator) -> tuple[Pick, ...]:
    """What the generator gives each param that is not derived, in declaration order: an index or a
    step count, a matrix, or None for a fixed value. It depends only on the generator's state and on
    `draw_plan(params)`."""
    return draw_picks(draw_plan(params), rng)


def draw_picks(plan: tuple[Any, ...], rng: np.random.Generator) -> tuple[Pick, ...]:
    """The generator calls a `draw_plan` stands for, made in order; a checker that drew the same plan
    for many templates calls this once per seed instead of reading every param spec again."""
    integers = rng.integers
    picks: list[Pick] = []
    for n in plan:
        if n is None:
            picks.append(None)
        elif type(n) is tuple:
            picks.append(integers(n[0], n[1] + 1, size=(n[2], n[3])))  # (rows, cols)
        else:
            picks.append(int(integers(n)))
    return tuple(picks)


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
    return placer(params)(picks)


def placer(params: Mapping[str, ParamSpec]) -> Placer:
    """`place_params` for one params mapping, each spec read once: the seed checks place 50 draws."""
    drawn = [(name, spec) for name, spec in params.items() if not isinstance(spec, CalcParam)]
    steps = [(name, _value_of(name, spec)) for name, spec in drawn]

    def place(picks: tuple[Pick, ...]) -> dict[str, Any]:
        return {name: value(pick) for (name, value), pick in zip(steps, picks, strict=True)}

    return place


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


def _value_of(name: str, spec: ParamSpec) -> Callable[[Pick], Any]:
    """How one param's value follows from what the generator gave it."""
    if isinstance(spec, ValueParam):
        fixed = spec.value
        return lambda pick: fixed
    if isinstance(spec, ChoicesParam):
        choices = spec.choices

        def choice(pick: Pick) -> Any:
            return choices[pick] if isinstance(pick, int) else _undrawable(name)

        return choice
    if isinstance(spec, RangeParam):
        low, high = spec.range
        step = spec.step
        if all(isinstance(x, int) for x in (low, high, step)):
            start, stride = int(low), int(step)
            return lambda pick: start + pick * stride if isinstance(pick, int) else _undrawable(name)
        flow, fstep = float(low), float(step)
        return lambda pick: round(flow + pick * fstep, 10) if isinstance(pick, int) else _undrawable(name)
    if isinstance(spec, PresetParam):
        keys = spec.preset

        def preset(pick: Pick) -> Any:
            if not isinstance(pick, int):
                return _undrawable(name)
            key = keys[pick]
            if key not in engine.PRESETS:
                raise InstanceError(f"unknown preset {key!r}", loc=("params", name, "preset"))
            return engine.PRESETS[key]

        return preset
    if isinstance(spec, MatrixParam):
        return lambda pick: pick.tolist() if isinstance(pick, np.ndarray) else _undrawable(name)
    return lambda pick: _undrawable(name)  # pragma: no cover


def _undrawable(name: str) -> Any:
    raise InstanceError(f"param {name!r} cannot be drawn", loc=("params", name))  # pragma: no cover
