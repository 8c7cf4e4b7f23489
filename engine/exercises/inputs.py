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
