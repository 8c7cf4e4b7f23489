"""Provides Exercise and Mistake: what a coding exercise is, independent of any one exercise."""

from __future__ import annotations

import inspect
import textwrap
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from engine.exercises.inputs import (
    DTYPES,
    MAX_DRAWS,
    MAX_SPEC_ELEMENTS,
    MIN_CASES,
    Draw,
    Given,
    InputSpec,
    Param,
    TooLarge,
    as_dtype,
    case_bounds,
    check_draw,
    check_value,
    cost_bounds,
    pick,
    review_bounds,
)

Inputs = dict[str, Any]
Build = Callable[[np.random.Generator, Mapping[str, Any]], Inputs]
"""One input set from concrete parameters (every parameter present); ValueError naming them if they clash."""
Where = tuple[str | int, ...]
Cost = Callable[[Mapping[str, Any]], tuple[int, int]]
"""From one case's parameters, before anything is built: the reference's work (element operations,
a Python loop's turn counted as thousands) and the entries of the largest array it makes."""


@dataclass(frozen=True)
class Mistake:
    """A classic wrong version: `compute` takes the exercise's inputs and returns what that mistake gives;
    an output that matches it (and not the reference) is named with `text`."""

    id: str
    text: str
    compute: Callable[..., Any]


@dataclass(frozen=True)
class Exercise:
    """One function to write. `cases(seed)` draws at least five input sets, the edge cases first, so a
    solution that only handles the common case fails on a case the learner can read. How they are drawn
    is data (`inputs`, an InputSpec over the named `params`); a deck may give its own spec."""

    id: str
    title: str
    function: str
    """The name the learner's code must define."""
    signature: str
    prompt: str
    reference: Callable[..., Any]
    mistakes: tuple[Mistake, ...]
    params: Mapping[str, Param]
    """What an input set is built from: sizes, numbers, features, arguments given literally."""
    build: Build
    inputs: InputSpec
    """The default draw: today's edge cases, then random ones."""
    rtol: float = 1e-6
    atol: float = 1e-8
    cost: Cost | None = None
    """The reference's cost from a case's parameters; None: estimated from the built arrays (entries
    times the largest size)."""

    def cases(self, seed: int, spec: InputSpec | None = None) -> list[Inputs]:
        """The seed's input sets under `spec` (default: the exercise's): the edge cases in order, then
        random ones up to its case count. Raises ValueError naming the values for a spec that does not fit."""
        spec = self.inputs if spec is None else spec
        problems = self._shallow_issues(spec)
        if problems:
            raise ValueError(f"{self.id}: {problems[0][1]}")
        rng = rng_for(self.id, seed)
        made = [self._made(rng, edge, spec.dtype) for edge in spec.edge]
        while len(made) < spec.n_cases:
            made.append(self._random_case(rng, spec))
        out = [case for _, case in made]
        entries = sum(int(np.size(v)) for case in out for v in case.values())
        if entries > MAX_SPEC_ELEMENTS:
            raise ValueError(
                f"{self.id}: the cases hold {entries:,} values in all; at most {MAX_SPEC_ELEMENTS:,}"
            )
        review_bounds(self.id, sum(work for work, _ in made) * (1 + len(self.mistakes)))
        return out

    def make(self, rng: np.random.Generator, case: Mapping[str, Any], dtype: str = "float64") -> Inputs:
        """One input set from the parameters `case` names (the rest take their defaults)."""
        return self._made(rng, case, dtype)[1]

    def _made(self, rng: np.random.Generator, case: Mapping[str, Any], dtype: str) -> tuple[int, Inputs]:
        """make(), with the reference's estimated work on it: bounded here, before the reference runs."""
        values: dict[str, Any] = {
            name: None if isinstance(p, Given) else p.default for name, p in self.params.items()
        }
        for name, value in case.items():
            param = self.params.get(name)
            if param is None:
                raise ValueError(self._unknown(name))
            check_value(name, param, value)
            values[name] = value
        built = self.build(rng, values)  # (each input array is bounded before it is made)
        case_bounds(values, built)
        if self.cost is not None:
            work, peak = self.cost(values)
            cost_bounds(values, work, peak)
        else:
            entries = sum(int(np.size(v)) for v in built.values())
            sizes = [v for v in values.values() if isinstance(v, int) and not isinstance(v, bool)]
            work = entries * max(sizes, default=1)
        return work, {name: as_dtype(value, dtype) for name, value in built.items()}

    def spec(
        self,
        *,
        edge: tuple[Mapping[str, Any], ...] | None = None,
        random: Mapping[str, Draw] | None = None,
        n_cases: int | None = None,
        dtype: str | None = None,
    ) -> InputSpec:
        """The default spec with what a deck declares: its edge cases replace the defaults, its random
        ranges override the default ones by name."""
        base = self.inputs
        return InputSpec(
            edge=base.edge if edge is None else tuple(edge),
            random={**base.random, **(random or {})},
            n_cases=base.n_cases if n_cases is None else n_cases,
            dtype=base.dtype if dtype is None else dtype,
        )

    def input_issues(self, spec: InputSpec) -> list[tuple[Where, str]]:
        """What is wrong with a spec, each with where (("edge", 1), ("random", "T"), ("cases",)): unknown
        names, values or ranges that do not fit, an edge case `build` refuses, random ranges that never
        give a usable case. Empty: every seed draws."""
        problems = self._shallow_issues(spec)
        if problems:
            return problems
        rng = rng_for(self.id, 0)
        for i, edge in enumerate(spec.edge):
            try:
                self.make(rng, edge, spec.dtype)
            except ValueError as error:
                problems.append((("edge", i), str(error)))
        if not problems:  # (the whole review's cost too, edge cases only or not)
            try:
                for seed in range(3):
                    self.cases(seed, spec)
            except ValueError as error:
                problems.append((("random",), str(error)))
        return problems

    def _shallow_issues(self, spec: InputSpec) -> list[tuple[Where, str]]:
        problems: list[tuple[Where, str]] = []
        if spec.n_cases < MIN_CASES:
            problems.append((("cases",), f"cases must be at least {MIN_CASES}, not {spec.n_cases}"))
        elif len(spec.edge) > spec.n_cases:
            problems.append(
                (("cases",), f"cases is {spec.n_cases} but there are {len(spec.edge)} edge cases")
            )
        if spec.dtype not in DTYPES:
            problems.append((("dtype",), f"dtype must be one of {', '.join(DTYPES)}, not {spec.dtype!r}"))
        for i, edge in enumerate(spec.edge):
            for name, value in edge.items():
                param = self.params.get(name)
                try:
                    if param is None:
                        raise ValueError(self._unknown(name))
                    check_value(name, param, value)
                except ValueError as error:
                    problems.append((("edge", i, name), str(error)))
        for name, draw in spec.random.items():
            param = self.params.get(name)
            try:
                if param is None:
                    raise ValueError(self._unknown(name))
                if isinstance(param, Given):
                    raise ValueError(f"{name} is written out in an edge case, never drawn")
                check_draw(name, param, draw)
            except ValueError as error:
                problems.append((("random", name), str(error)))
        return problems

    def _random_case(self, rng: np.random.Generator, spec: InputSpec) -> tuple[int, Inputs]:
        last = ""
        for _ in range(MAX_DRAWS):
            case = {
                name: pick(rng, p, spec.random[name])
                for name, p in self.params.items()
                if name in spec.random
            }
            try:
                return self._made(rng, case, spec.dtype)
            except TooLarge:
                raise
            except ValueError as error:
                last = str(error)
        raise ValueError(f"{self.id}: {MAX_DRAWS} random draws gave no usable case (the last: {last})")

    def _unknown(self, name: str) -> str:
        return f"{self.id} has no input parameter {name!r} (it has {', '.join(self.params)})"

    @property
    def starter(self) -> str:
        """What the editor opens with: the signature, the docstring-free body to fill in."""
        return f"import numpy as np\n\n\ndef {self.signature}:\n    raise NotImplementedError\n"

    @property
    def solution(self) -> str:
        """The reference solution as source the learner can read, named as the exercise asks."""
        return source_as(self.reference, self.function)


def source_as(func: Callable[..., Any], name: str) -> str:
    """A function's source renamed to `name`, with its import, so it runs on its own."""
    source = textwrap.dedent(inspect.getsource(func))
    head, _, rest = source.partition("(")
    return "import numpy as np\n\n\n" + head.rsplit(" ", 1)[0] + f" {name}(" + rest


def rng_for(exercise_id: str, seed: int) -> np.random.Generator:
    """Independent draws per exercise and seed, the same on every machine."""
    key = int.from_bytes(exercise_id.encode("utf-8")[:8].ljust(8, b"\0"), "little")
    return np.random.default_rng([seed, key])
