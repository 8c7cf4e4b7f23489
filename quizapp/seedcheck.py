"""Provides the seed checks: every template instantiated at 50 seeds, the way a learner would meet it.

A seed whose draws an earlier seed made gives the same instance and is skipped, and so are the remaining
seeds once every possible draw was made. The first instance of a template is built in full; the others
run each calculator with `worked=False`, which makes every check on the arguments and computes the same
value but skips writing the steps and misconceptions (several times the cost of the rest). What a seed
draws depends only on the template's draw plan, so templates with the same plan share each seed's
picks; the generator is restored from a remembered start state instead of being seeded again, and
derived params are memoised by their arguments. `forget()` drops all of that.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np

import engine
from engine import Derivation
from engine.calculator import calculate_value
from quizapp.instantiate import (
    Draws,
    InstanceError,
    Pick,
    build_instance,
    derive_params,
    draw_count,
    draw_key,
    draw_plan,
    pick_params,
    place_params,
)
from quizapp.problems import Issue
from quizapp.schema import ANSWER_TYPES, Question

SEEDS: tuple[int, ...] = tuple(range(50))

_CALC_MEMO: dict[tuple[bool, str, tuple[Any, ...]], Derivation | ValueError] = {}
_PICKS: dict[tuple[int, tuple[Any, ...]], tuple[tuple[Pick, ...], Draws]] = {}
"""(seed, draw plan) -> the picks and their key: templates with the same plan draw the same numbers."""
_SEED_STATES: dict[int, Mapping[str, Any]] = {}
"""Seed -> the state `np.random.default_rng(seed)` starts in: seeding (a SeedSequence hash) costs ten
times more than restoring a state, and the same 50 seeds are drawn for every template."""


def forget() -> None:
    """Drops the memoised calculator results, picks and seed states (for benchmarks and tests)."""
    _CALC_MEMO.clear()
    _PICKS.clear()
    _SEED_STATES.clear()


def seed_issues(question: Question, *, seeds: Iterable[int] = SEEDS) -> list[Issue]:
    """Instantiates the question at every seed; the first failure is the issue.

    An instance depends only on the drawn param values (and a choice question's shuffle, which cannot
    fail), so a seed that draws what an earlier seed drew is already covered and is skipped, and once
    every possible draw was made (a few choices), the remaining seeds are too.
    """
    seed_list = list(seeds) if question.params or question.type == "choice" else [0]
    params = question.params
    seen: set[Draws] = set()
    possible = draw_count(params)
    plan = draw_plan(params)
    # A choice question shuffles its options with the generator where the draws left it, so it draws
    # for itself; other templates share the picks of every template with the same plan.
    shared = question.type != "choice"
    rng = np.random.Generator(np.random.PCG64(0))
    for seed in seed_list:
        if len(seen) == possible:  # every draw there is was made: the other seeds repeat them
            break
        try:
            picked = _PICKS.get((seed, plan)) if shared else None
            if picked is None:
                _restart(rng, seed)  # the stream np.random.default_rng(seed) gives, as instantiate() draws
                picks = pick_params(params, rng)
                picked = (picks, draw_key(picks))
                if shared:
                    _PICKS[seed, plan] = picked
            picks, key = picked
            if key in seen:
                continue
            # Derived params recur across draws (a model's head width), so their results are memoised;
            # the answer's arguments differ at every new draw, so its calculator is just run.
            derive, answer = (_memo_value, _value) if seen else (_memo_worked, _memo_worked)
            seen.add(key)
            values = derive_params(params, place_params(params, picks), derive)
            inst = build_instance(
                question, values, rng, deck_id="-", deck_title="-", seed=seed, calculate=answer
            )
        except InstanceError as exc:
            return [Issue(exc.loc, f"with seed {seed}: {exc.message}", exc.offset)]
        if question.type in ANSWER_TYPES and inst.derivation is None:  # pragma: no cover (engine bug)
            return [Issue(("calculator",), f"with seed {seed}: the calculator gave no derivation")]
    return []


def _restart(rng: np.random.Generator, seed: int) -> None:
    """Puts `rng` in the state a fresh `np.random.default_rng(seed)` has."""
    state = _SEED_STATES.get(seed)
    if state is None:
        state = _SEED_STATES[seed] = np.random.default_rng(seed).bit_generator.state
    rng.bit_generator.state = state


def _memo_worked(name: str, args: Mapping[str, Any]) -> Derivation:
    return _memo_calculate(name, args, worked=True)


def _memo_value(name: str, args: Mapping[str, Any]) -> Derivation:
    return _memo_calculate(name, args, worked=False)


def _value(name: str, args: Mapping[str, Any]) -> Derivation:
    return calculate_value(name, **args)


def _memo_calculate(name: str, args: Mapping[str, Any], *, worked: bool) -> Derivation:
    key = (worked, name, tuple(_memo_part(k, v) for k, v in args.items()))
    hit = _CALC_MEMO.get(key)
    if hit is None:
        if len(_CALC_MEMO) > 5_000:
            _CALC_MEMO.clear()
        try:
            hit = engine.calculate(name, **args) if worked else calculate_value(name, **args)
        except ValueError as exc:
            hit = exc
        except Exception as exc:  # a calculator bug must not crash the validator
            hit = ValueError(f"failed with {type(exc).__name__}: {exc}")
        _CALC_MEMO[key] = hit
    if isinstance(hit, ValueError):
        raise hit
    return hit


def _memo_part(name: str, value: Any) -> tuple[str, type | None, Any]:
    """An argument as part of a memo key: its type keeps 1, 1.0 and True apart; other values by repr."""
    kind = type(value)
    if kind is int or kind is str or kind is bool:
        return (name, kind, value)
    return (name, None, repr(value))
