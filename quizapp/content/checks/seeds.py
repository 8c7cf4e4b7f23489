"""Provides the seed checks: every template instantiated at 50 seeds, the way a learner would meet it.

A seed whose draws an earlier seed made gives the same instance and is skipped, and so are the remaining
seeds once every possible draw was made. The first instance of a template is built in full; at the other
seeds only what can fail is done: each calculator runs with `worked=False`, which makes every check on the
arguments and computes the same value but skips writing the steps and misconceptions (several times the
cost of the rest), and only the placeholders the static checks could not prove are filled (the caller
names them). What a seed draws depends only on the template's draw plan, so templates with the same plan
share each seed's picks; the generator is restored from a remembered start state instead of being seeded
again, and derived params are memoised by their arguments (in quizapp.content.memos).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np

import engine
from engine import Derivation
from engine.calculator import calculate_value
from quizapp.content.instantiate import (
    arg_resolver,
    build_instance,
    compute_answer,
    derive_params,
    instantiate,
    prompt_error,
)
from quizapp.content.memos import MEMOS
from quizapp.content.param_specs import (
    CalcParam,
    ChoicesParam,
    MatrixParam,
    PresetParam,
    RangeParam,
    ValueParam,
)
from quizapp.content.params import Draws, Pick, draw_count, draw_key, draw_picks, draw_plan, placer
from quizapp.content.problems import Issue
from quizapp.content.questions import ChoiceQuestion, NumericQuestion, ShapeQuestion, TensorQuestion
from quizapp.content.schema import Question
from quizapp.content.template import Placeholder, TemplateError, fill, placeholders, render
from quizapp.errors import InstanceError

SEEDS: tuple[int, ...] = tuple(range(50))


def seed_issues(
    question: Question, *, seeds: Iterable[int] = SEEDS, to_fill: Sequence[Placeholder] | None = None
) -> list[Issue]:
    """Instantiates the question at every seed; the first failure is the issue.

    An instance depends only on the drawn param values (and a choice question's shuffle, which cannot
    fail), so a seed that draws what an earlier seed drew is already covered and is skipped, and once
    every possible draw was made (a few choices), the remaining seeds are too. `to_fill` names the
    prompt's placeholders that can fail to fill at some draw (the others filled for every value their
    param can take); None fills the whole prompt at every seed.
    """
    seed_list = list(seeds) if question.params or question.type == "choice" else [0]
    if question.type == "scenario":
        return _scenario_seed_issues(question, seed_list)
    params = question.params
    seen: set[Draws] = set()
    possible = draw_count(params)
    plan = draw_plan(params)
    # A choice question shuffles its options with the generator where the draws left it, so it draws
    # for itself; other templates share the picks of every template with the same plan.
    shared: dict[int, tuple[tuple[Pick, ...], Draws]] | None = (
        None if isinstance(question, ChoiceQuestion) else MEMOS.picks.setdefault(plan, {})
    )
    computed = question if isinstance(question, (NumericQuestion, TensorQuestion, ShapeQuestion)) else None
    resolve = arg_resolver(computed.args, loc=("args",)) if computed is not None else None
    place = placer(params)
    derived = any(isinstance(spec, CalcParam) for spec in params.values())
    rng = np.random.Generator(np.random.PCG64(0))
    for seed in seed_list:
        if len(seen) == possible:  # every draw there is was made: the other seeds repeat them
            break
        try:
            picked = shared.get(seed) if shared is not None else None
            if picked is None:
                _restart(rng, seed)  # the stream np.random.default_rng(seed) gives, as instantiate() draws
                picks = draw_picks(plan, rng)
                picked = (picks, draw_key(picks))
                if shared is not None:
                    shared[seed] = picked
            picks, key = picked
            if key in seen:
                continue
            first = not seen
            seen.add(key)
            if first:  # the first draw: a whole instance, worked derivations and all
                values = derive_params(params, place(picks), _memo_worked)
                inst = build_instance(
                    question, values, rng, deck_id="-", deck_title="-", seed=seed, calculate=_memo_worked
                )
                derivation = inst.derivation
            else:
                # Derived params recur across draws (a model's head width), so their results are
                # memoised; the answer's arguments differ at every new draw, so its calculator is just run.
                values = place(picks)
                if derived:
                    values = derive_params(params, values, _memo_value)
                _fill(question, values, to_fill)
                if computed is None or resolve is None:
                    continue
                derivation = compute_answer(computed, resolve(values), _value).derivation
        except InstanceError as exc:
            return [Issue(exc.loc, f"with seed {seed}: {exc.message}", exc.offset)]
        if computed is not None and derivation is None:  # pragma: no cover (engine bug)
            return [Issue(("calculator",), f"with seed {seed}: the calculator gave no derivation")]
    return []


def _scenario_seed_issues(question: Question, seeds: Sequence[int]) -> list[Issue]:
    """A scenario worked whole at every seed (each step's numbers depend on the earlier answers)."""
    for seed in seeds:
        try:
            instantiate(question, deck_id="-", deck_title="-", seed=seed)
        except InstanceError as exc:
            return [Issue(exc.loc, f"with seed {seed}: {exc.message}", exc.offset)]
    return []


def unproven(question: Question) -> tuple[Placeholder, ...]:
    """The prompt's placeholders that may still fail to fill at some seed once `static_issues` found
    nothing, so the seed checks fill only these: a derived param's (its values are known only once
    computed) and a range's or matrix's with a field or a format spec (the static checks tried only a
    range's ends and one matrix). A value, choices or preset param's was filled for every value the
    param can take, and a bare range number (an int or a float) or matrix of ints always fills."""
    params = question.params
    out = []
    for ph in placeholders(question.prompt):
        spec = params.get(ph.name)
        if isinstance(spec, (ValueParam, ChoicesParam, PresetParam)):
            continue
        if isinstance(spec, (RangeParam, MatrixParam)) and not ph.fields and not ph.spec:
            continue
        out.append(ph)
    return tuple(out)


def _fill(question: Question, values: Mapping[str, Any], to_fill: Sequence[Placeholder] | None) -> None:
    """Fills the prompt's placeholders `to_fill` (all of it when None), as `build_instance` would."""
    try:
        if to_fill is None:
            render(question.prompt, values)
        else:
            for seg in to_fill:
                fill(seg, values)
    except TemplateError as exc:
        raise prompt_error(question, exc) from None


def _restart(rng: np.random.Generator, seed: int) -> None:
    """Puts `rng` in the state a fresh `np.random.default_rng(seed)` has."""
    state = MEMOS.seed_states.get(seed)
    if state is None:
        state = MEMOS.seed_states[seed] = np.random.default_rng(seed).bit_generator.state
    rng.bit_generator.state = state


def _memo_worked(name: str, args: Mapping[str, Any]) -> Derivation:
    return _memo_calculate(name, args, worked=True)


def _memo_value(name: str, args: Mapping[str, Any]) -> Derivation:
    return _memo_calculate(name, args, worked=False)


def _value(name: str, args: Mapping[str, Any]) -> Derivation:
    return calculate_value(name, **args)


def _memo_calculate(name: str, args: Mapping[str, Any], *, worked: bool) -> Derivation:
    key = (worked, name, tuple(_memo_part(k, v) for k, v in args.items()))
    hit = MEMOS.calculations.get(key)
    if hit is None:
        if len(MEMOS.calculations) > 5_000:
            MEMOS.calculations.clear()
        try:
            hit = engine.calculate(name, **args) if worked else calculate_value(name, **args)
        except ValueError as exc:
            hit = exc
        except Exception as exc:  # a calculator bug must not crash the validator
            hit = ValueError(f"failed with {type(exc).__name__}: {exc}")
        MEMOS.calculations[key] = hit
    if isinstance(hit, ValueError):
        raise hit
    return hit


def _memo_part(name: str, value: Any) -> tuple[str, type | None, Any]:
    """An argument as part of a memo key: its type keeps 1, 1.0 and True apart; other values by repr."""
    kind = type(value)
    if kind is int or kind is str or kind is bool:
        return (name, kind, value)
    return (name, None, repr(value))
