"""Provides InputSpec and the parameters an exercise's inputs are built from: how a seed's input sets are
drawn, edge cases first, as data a deck can declare.

An exercise names its parameters (sizes such as `T` or `n_heads`, numbers such as `scale`, features such
as `mask: blocked_row`, or an argument given literally such as softmax's `x`) and a `build(rng, case)`
that makes one input set from concrete values. A spec lists the edge cases (each a mapping of parameters;
the rest take their defaults) and, for the random cases, each parameter's range or choices:

```python
spec = InputSpec(edge=({"T": 1, "S": 1, "d_k": 4},), random={"T": Between(2, 8), "S": OneOf((3, 5))})
EXERCISES["code-attention"].cases(seed=3, spec=spec)  # the edge case, then 5 random ones
```
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

MIN_CASES = 5
"""A run has at least this many input sets: a solution that only handles the common case must meet an edge."""
DEFAULT_CASES = 6
DTYPES: tuple[str, ...] = ("float64", "float32")
MAX_ARRAY_ELEMENTS = 1_000_000
"""Entries of one input array; the exercises' own cases hold at most a few thousand."""
MAX_CASE_ELEMENTS = 2_000_000
"""Entries of all the arrays of one case."""
MAX_CASE_WORK = 200_000_000
"""A case's entries times its largest size: a bound on the reference's work (attention is quadratic in
T), so a deck cannot make each grading take minutes or gigabytes."""
MAX_SPEC_ELEMENTS = 4_000_000
"""Entries of all the cases of one seed."""
REFERENCE_OPS_PER_S = 200_000_000
"""What the reference's work is counted at: NumPy's element operations per second on a slow machine,
so an estimate in seconds errs long."""
MAX_REVIEW_SECONDS = 1.0
"""The reference's (and the named mistakes') estimated time for one review at most: `validate` refuses
inputs over it, and grading refuses them before anything runs."""
MAX_REVIEW_WORK = int(REFERENCE_OPS_PER_S * MAX_REVIEW_SECONDS)
MAX_PEAK_ENTRIES = 16_000_000
"""Entries of the largest array the reference makes for one case (a T x S score matrix, say): 128 MB
in float64."""


class TooLarge(ValueError):
    """A case beyond the bounds: refused at once, never drawn again (a range that can give one is bad)."""


def bounded(shape: tuple[int, ...]) -> tuple[int, ...]:
    """The shape, or ValueError naming it when the array would be larger than MAX_ARRAY_ELEMENTS: checked
    before the array is made, so a deck's huge sizes never reach the allocator."""
    count = 1
    for n in shape:
        count *= max(int(n), 0)
    if count > MAX_ARRAY_ELEMENTS:
        raise TooLarge(
            f"an input of shape {tuple(shape)} would hold {count:,} values; at most {MAX_ARRAY_ELEMENTS:,}"
        )
    return shape


def case_bounds(values: Mapping[str, Any], built: Mapping[str, Any]) -> None:
    """ValueError naming the sizes when a built case is larger than MAX_CASE_ELEMENTS or its work than
    MAX_CASE_WORK."""
    entries = sum(int(np.size(v)) for v in built.values())
    sizes = [v for v in values.values() if isinstance(v, int) and not isinstance(v, bool)]
    if entries > MAX_CASE_ELEMENTS:
        raise TooLarge(f"a case with {dict(values)} holds {entries:,} values; at most {MAX_CASE_ELEMENTS:,}")
    if entries * max(sizes, default=1) > MAX_CASE_WORK:
        raise TooLarge(
            f"a case with {dict(values)} is too large to grade quickly ({entries:,} values times a size "
            f"of {max(sizes):,}); keep it under {MAX_CASE_WORK:,}"
        )


def cost_bounds(values: Mapping[str, Any], work: int, peak: int) -> None:
    """TooLarge naming the sizes when one case's estimated reference work or largest array is past the
    bounds (checked before the case is built or anything runs)."""
    if peak > MAX_PEAK_ENTRIES:
        raise TooLarge(
            f"a case with {dict(values)} makes the reference build an array of {peak:,} values; at most "
            f"{MAX_PEAK_ENTRIES:,}"
        )
    if work > MAX_REVIEW_WORK:
        raise TooLarge(
            f"a case with {dict(values)} would take the reference about {work / REFERENCE_OPS_PER_S:.1f} s "
            f"({work:,} operations); a whole review may take at most {MAX_REVIEW_SECONDS:g} s"
        )


def review_bounds(exercise_id: str, work: int) -> None:
    """TooLarge when the estimated work of one review (every case's reference and each named mistake's
    version) is past MAX_REVIEW_WORK."""
    if work > MAX_REVIEW_WORK:
        raise TooLarge(
            f"{exercise_id}: one review would take the reference (and the mistakes it names) about "
            f"{work / REFERENCE_OPS_PER_S:.1f} s ({work:,} operations); at most {MAX_REVIEW_SECONDS:g} s: "
            "use smaller sizes"
        )


MAX_DRAWS = 200
"""Random draws a build may refuse (sizes that do not divide) before the spec is called unusable."""


@dataclass(frozen=True)
class Size:
    """A whole number of at least `minimum` (a length, a head count, a byte count)."""

    default: int | None
    minimum: int = 1
    doc: str = ""


@dataclass(frozen=True)
class Real:
    """A finite number (a scale, an offset)."""

    default: float
    doc: str = ""


@dataclass(frozen=True)
class Feature:
    """One of a few named variants (a mask kind, causal or not)."""

    default: str | bool
    choices: tuple[str | bool, ...]
    doc: str = ""


@dataclass(frozen=True)
class Given:
    """An argument's value written out (a nested list of numbers); None: drawn from the sizes."""

    doc: str = ""


Param = Size | Real | Feature | Given


@dataclass(frozen=True)
class Between:
    """A random value from low to high, both included (whole numbers for a Size)."""

    low: float
    high: float


@dataclass(frozen=True)
class OneOf:
    """A random value picked from these (one value: always that one)."""

    values: tuple[Any, ...]


Draw = Between | OneOf


@dataclass(frozen=True)
class InputSpec:
    """How a seed's input sets are drawn: `edge` first, in order, then random ones (each parameter from
    `random`, else its default) up to `n_cases` in all; float arrays come as `dtype`."""

    edge: tuple[Mapping[str, Any], ...]
    random: Mapping[str, Draw] = field(default_factory=dict)
    n_cases: int = DEFAULT_CASES
    dtype: str = "float64"


def check_value(name: str, param: Param, value: Any) -> None:
    """Raises ValueError naming the parameter and the value when `value` does not fit `param`."""
    if isinstance(param, Size):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
            raise ValueError(f"{name} must be a whole number, not {value!r}")
        if value < param.minimum:
            raise ValueError(f"{name} must be at least {param.minimum}, not {value!r}")
    elif isinstance(param, Real):
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not np.isfinite(value):
            raise ValueError(f"{name} must be a finite number, not {value!r}")
    elif isinstance(param, Feature):
        if not any(value == c and type(value) is type(c) for c in param.choices):
            shown = ", ".join(_shown(c) for c in param.choices)
            raise ValueError(f"{name} must be one of {shown}, not {_shown(value)}")
    else:
        try:
            array = np.asarray(value, dtype=np.float64)  # any shape
        except (TypeError, ValueError):
            raise ValueError(f"{name} must be a (nested) list of numbers, not {value!r}") from None
        if array.ndim == 0 or array.size == 0 or not np.isfinite(array).all():
            raise ValueError(f"{name} must be a non-empty (nested) list of finite numbers, not {value!r}")


def check_draw(name: str, param: Param, draw: Draw) -> None:
    """Raises ValueError naming the parameter when its random range or choices do not fit it."""
    if isinstance(draw, OneOf):
        if not draw.values:
            raise ValueError(f"{name}: give at least one value to pick from")
        for value in draw.values:
            check_value(name, param, value)
        return
    if not isinstance(param, (Size, Real)):
        raise ValueError(f"{name} is not a number: give a value or {{one_of: [...]}}, not a range")
    for bound in (draw.low, draw.high):
        check_value(name, param, bound)
    if draw.low > draw.high:
        raise ValueError(f"{name}: the range [{draw.low!r}, {draw.high!r}] is empty (low > high)")


def pick(rng: np.random.Generator, param: Param, draw: Draw) -> Any:
    """One random value for a parameter (one value to pick from: that one, drawing nothing)."""
    if isinstance(draw, OneOf) and len(draw.values) == 1:
        return draw.values[0]
    if isinstance(draw, OneOf):
        return draw.values[int(rng.integers(len(draw.values)))]
    if isinstance(param, Size):
        return int(rng.integers(int(draw.low), int(draw.high) + 1))
    return float(rng.uniform(draw.low, draw.high))


def as_dtype(value: Any, dtype: str) -> Any:
    """A float array in the spec's dtype; anything else (a bool mask, a size) unchanged."""
    if isinstance(value, np.ndarray) and np.issubdtype(value.dtype, np.floating):
        return value.astype(dtype)  # same shape
    return value


def _shown(value: Any) -> str:
    return str(value).lower() if isinstance(value, bool) else str(value)
