"""Provides instantiation: a Question and a seed become an Instance with sampled numbers and engine answers.

Params are drawn from `np.random.default_rng(seed)` in the order the deck declares them (derived `calc`
params after the others), so the same seed always gives the same instance. Every number comes from a
param or from `engine.calculate`; the prompt is filled by quizapp.content.template, never by `str.format`.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Callable, Mapping
from typing import Any, NamedTuple

import numpy as np

import engine
from engine.exercises import EXERCISES
from quizapp.content import scenario  # (scenario calls back into this module for each step)
from quizapp.content.blind_spots import blind_spots
from quizapp.content.code_inputs import input_spec
from quizapp.content.code_question import CodeQuestion
from quizapp.content.instance import ChoiceOption, Instance
from quizapp.content.param_specs import CalcParam, ParamSpec
from quizapp.content.params import pick_params, place_params
from quizapp.content.patterns import PointSpec, RejectSpec
from quizapp.content.questions import (
    ChoiceQuestion,
    ComputedQuestion,
    ExplainQuestion,
    FlashcardQuestion,
    ShapeQuestion,
)
from quizapp.content.scenario_question import ScenarioExplain, ScenarioQuestion, ScenarioStep
from quizapp.content.schema import Question
from quizapp.content.template import TemplateError, lookup, render
from quizapp.content.tolerance import Tolerance, resolve_tolerance
from quizapp.content.units import to_display, unit
from quizapp.errors import InstanceError, QuizappError

Calculate = Callable[[str, Mapping[str, Any]], engine.Derivation]
Loc = tuple[str | int, ...]
Resolver = Callable[[Mapping[str, Any]], dict[str, Any]]
LETTERS = "abcdefghijklmnopqrstuvwxyz"
REDRAWS = 25
"""Draws tried for a seed before one with a blind spot is kept anyway (the quality gates then say so)."""


def explain_parts(question: ExplainQuestion | FlashcardQuestion | ScenarioExplain) -> dict[str, Any]:
    """The Instance fields a reader needs: each key point with its forms (a point written as plain text has
    none), and the misconceptions, their points counted from 0."""
    points = question.key_points
    specs = tuple(PointSpec(p) if isinstance(p, str) else PointSpec(p.text, p.accept, p.core) for p in points)
    return {
        "key_points": tuple(p.text for p in specs),
        "point_specs": specs,
        "rejects": tuple(
            RejectSpec(r.id, r.forms, r.text, r.correction, None if r.point is None else r.point - 1)
            for r in question.reject
        ),
    }


def option_order(question_id: str, seed: int, n_options: int) -> list[int]:
    """The order a choice question's options take at `seed`: a permutation drawn from a stable hash of the
    seed and the question id, so at one seed the right answers of different questions land in different
    places (a shared order would let a learner answer by position). Python's hash() is salted per run, so
    sha256 is used instead: the same (id, seed) gives the same letters on every machine."""
    digest = hashlib.sha256(f"option-order\0{question_id}\0{seed}".encode()).digest()
    rng = np.random.default_rng(int.from_bytes(digest[:8], "big"))
    return [int(i) for i in rng.permutation(n_options)]  # (n_options,)


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
    redraw = bool(question.params) and not isinstance(
        question, (ChoiceQuestion, FlashcardQuestion, ExplainQuestion, CodeQuestion)
    )
    for attempt in range(REDRAWS if redraw else 1):
        values = sample_params(question.params, rng, calculate)
        inst = build_instance(question, values, rng, deck_id=deck_id, deck_title=deck_title, seed=seed,
                              calculate=calculate)  # fmt: skip
        # a draw where a wrong method passes, or the question's own trap gives the right answer, cannot
        # teach what the question is for: the generator goes on to the next draw (still fixed by `seed`)
        if not redraw or attempt == REDRAWS - 1 or not blind_spots(inst):
            break
    return inst


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
    """The rest of `instantiate` once the params are drawn from `rng` (a choice question's options are
    ordered by `option_order`, not by `rng`)."""
    try:
        prompt = render(question.prompt, values)
    except TemplateError as exc:
        raise prompt_error(question, exc) from None
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
        order = option_order(question.id, seed, len(question.options))
        options = tuple(
            ChoiceOption(
                LETTERS[i],
                question.options[j].text,
                question.options[j].correct,
                question.options[j].feedback,
            )
            for i, j in enumerate(order)
        )
        expected = frozenset(o.key for o in options if o.correct)
        return Instance(
            kind="choice", expected=expected, options=options, multiple=question.multiple, **common
        )
    if isinstance(question, FlashcardQuestion) and question.typed:  # typed in and read, as an explanation
        return Instance(kind="explain", expected=question.back, **explain_parts(question), **common)
    if isinstance(question, FlashcardQuestion):
        return Instance(kind="flashcard", expected=question.back, **common)
    if isinstance(question, ExplainQuestion):
        return Instance(kind="explain", expected=question.model_answer, **explain_parts(question), **common)
    if isinstance(question, CodeQuestion):
        exercise = EXERCISES[question.exercise]  # checked when the deck loaded
        return Instance(
            kind="code",
            expected=exercise.solution,
            exercise=exercise.id,
            starter=question.starter or exercise.starter,
            mistakes=tuple((m, "") if isinstance(m, str) else (m.id, m.text) for m in question.mistakes),
            code_tolerance=(question.tolerance.rtol, question.tolerance.atol) if question.tolerance else None,
            code_inputs=input_spec(question),
            **common,
        )
    if isinstance(question, ScenarioQuestion):
        return scenario.build_scenario(question, values, common, calculate)
    answer = compute_answer(question, resolve_args(question.args, values, loc=("args",)), calculate)
    derivation = answer.derivation
    if question.heatmap_in_prompt and derivation.heatmap is None:
        raise InstanceError(
            f"heatmap_in_prompt is set, but calculator {question.calculator!r} draws no heatmap for these "
            "args",
            loc=("heatmap_in_prompt",),
        )
    return Instance(
        kind=question.type,
        expected=answer.expected,
        unit=answer.unit,
        base_unit=derivation.unit,
        tolerance=answer.tolerance,
        derivation=derivation,
        heatmap=derivation.heatmap,
        prompt_heatmap=question.heatmap_in_prompt,
        answer_format=question.answer_format or "",
        unordered=isinstance(question, ShapeQuestion) and question.unordered,
        trap=question.trap,
        **common,
    )


def prompt_error(question: Question, exc: TemplateError) -> InstanceError:
    """A prompt that cannot be filled, as the InstanceError naming the prompt's field."""
    field = "front" if isinstance(question, FlashcardQuestion) else "prompt"
    return InstanceError(exc.message, loc=(field,), offset=exc.offset)


class Answer(NamedTuple):
    """What a computed question expects, in the unit it asks for, and how it was worked out."""

    expected: int | float | tuple[int, ...]
    unit: str
    tolerance: Tolerance | None
    derivation: engine.Derivation


def compute_answer(
    question: ComputedQuestion | ScenarioStep, args: Mapping[str, Any], calculate: Calculate
) -> Answer:
    """Runs a numeric, tensor or shape question's calculator on its resolved args; raises InstanceError
    when the result does not fit the question. Shared by `build_instance` and the seed checks (which skip
    the rest of an instance), so both accept and refuse exactly the same draws."""
    derivation = run_calculator(calculate, question.calculator, args, loc=("args",))
    value = derivation.value
    if isinstance(question, ShapeQuestion):
        if not isinstance(value, tuple):
            raise InstanceError(
                f"calculator {question.calculator!r} gives a number, not a shape; use type: numeric",
                loc=("type",),
            )
        return Answer(tuple(int(v) for v in value), question.unit or "shape", None, derivation)
    if isinstance(value, tuple):
        raise InstanceError(
            f"calculator {question.calculator!r} gives a shape; use type: shape", loc=("type",)
        )
    if not math.isfinite(value):
        raise InstanceError(
            f"calculator {question.calculator!r} gave {value!r}, not a finite number", loc=("args",)
        )
    shown_unit = derivation.unit if question.unit is None else question.unit
    tolerance = _tolerance(question, value, shown_unit)
    return Answer(value, shown_unit, tolerance, derivation)


def _tolerance(question: ComputedQuestion | ScenarioStep, value: int | float, shown_unit: str) -> Tolerance:
    """The question's tolerance: an estimate's, the declared one, or the default for its value."""
    try:
        asked = unit(shown_unit)
        shown = to_display(value, shown_unit)
    except QuizappError as exc:
        raise InstanceError(str(exc), loc=("unit",)) from None
    return resolve_tolerance(question.tolerance, question.estimate, asked.dimension, asked.name, shown)


def sample_params(
    params: Mapping[str, ParamSpec], rng: np.random.Generator, calculate: Calculate = engine_calculate
) -> dict[str, Any]:
    """Draws every param in declaration order, then derives `calc` params once their inputs exist."""
    return derive_params(params, place_params(params, pick_params(params, rng)), calculate)


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


def _follow(ref: str, name: str, fields: tuple[str, ...], values: Mapping[str, Any]) -> Any:
    if name not in values:
        known = ", ".join(sorted(values)) or "none"
        raise TemplateError(f"{ref!r} refers to no param (params: {known})", name=name)
    return lookup(values[name], fields, name=name) if fields else values[name]


def arg_resolver(args: Mapping[str, Any], *, loc: Loc) -> Resolver:
    """Replaces references by param values; numbers, booleans and lists pass through as literals.

    Each reference is split once, here, because the seed checks resolve the same args at many draws.
    """
    refs = {key: (raw, *_split(raw)) for key, raw in args.items() if isinstance(raw, str)}

    def resolve(values: Mapping[str, Any]) -> dict[str, Any]:
        out = dict(args)
        for key, (ref, name, fields) in refs.items():
            try:
                out[key] = _follow(ref, name, fields, values)
            except TemplateError as exc:
                raise InstanceError(exc.message, loc=(*loc, key)) from None
        return out

    return resolve


def _split(ref: str) -> tuple[str, tuple[str, ...]]:
    name, *fields = ref.split(".")
    return name, tuple(fields)


def resolve_args(args: Mapping[str, Any], values: Mapping[str, Any], *, loc: Loc) -> dict[str, Any]:
    """Resolves one args mapping at one draw (see arg_resolver)."""
    return arg_resolver(args, loc=loc)(values)


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
