"""Provides the calculator registry: typed arguments, their meaning, the result unit, and `calculate`."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from engine.derivation import Derivation

ArgKind = Literal["int", "float", "bool", "str", "matrix", "tokens"]


@dataclass(frozen=True)
class Arg:
    """One keyword argument of a calculator, described so decks and the CLI can check and explain it."""

    name: str
    kind: ArgKind
    meaning: str
    default: Any = None
    required: bool = True
    choices: tuple[str, ...] = ()


@dataclass(frozen=True)
class Calculator:
    """A named formula with typed arguments; `fn` returns the worked Derivation."""

    name: str
    summary: str
    unit: str
    args: tuple[Arg, ...]
    misconception_ids: tuple[str, ...]
    fn: Callable[..., Derivation]

    def arg(self, name: str) -> Arg:
        for a in self.args:
            if a.name == name:
                return a
        raise KeyError(name)

    def check_args(self, args: Mapping[str, Any]) -> dict[str, Any]:
        """Returns the arguments coerced to their kinds, with defaults; raises ValueError naming bad ones."""
        known = {a.name for a in self.args}
        unknown = sorted(set(args) - known)
        if unknown:
            raise ValueError(
                f"calculator {self.name!r} has no argument(s) {', '.join(unknown)}; "
                f"it takes {', '.join(a.name for a in self.args)}"
            )
        out: dict[str, Any] = {}
        for a in self.args:
            if a.name not in args:
                if a.required:
                    raise ValueError(f"calculator {self.name!r} needs argument {a.name!r} ({a.meaning})")
                out[a.name] = a.default
                continue
            out[a.name] = _coerce(self.name, a, args[a.name])
        return out


_EXACT = 2**53
"""Integers up to this size survive the float round trip the int check makes; larger ones are refused."""


def _coerce(calc: str, arg: Arg, value: Any) -> Any:
    kind, cls = arg.kind, type(value)
    # The common cases first, with the outcome the checks below would give, since every drawn seed of a
    # template comes through here.
    if (cls is int and kind == "int" and -_EXACT <= value <= _EXACT) or (cls is bool and kind == "bool"):
        return value
    if cls is float and kind == "float" and math.isfinite(value):
        return value
    where = f"calculator {calc!r} argument {arg.name!r}"
    if arg.kind == "int":
        if isinstance(value, bool) or not isinstance(value, (int, np.integer, float, np.floating)):
            raise ValueError(f"{where} must be an integer, got {value!r}")
        if float(value) != int(value):
            raise ValueError(f"{where} must be an integer, got {value!r}")
        return int(value)
    if arg.kind == "float":
        if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
            raise ValueError(f"{where} must be a number, got {value!r}")
        if not np.isfinite(float(value)):
            raise ValueError(f"{where} must be finite, got {value!r}")
        return float(value)
    if arg.kind == "bool":
        if not isinstance(value, (bool, np.bool_)):
            raise ValueError(f"{where} must be true or false, got {value!r}")
        return bool(value)
    if arg.kind == "str":
        if not isinstance(value, str):
            raise ValueError(f"{where} must be text, got {value!r}")
        if arg.choices and value not in arg.choices:
            raise ValueError(f"{where} must be one of {', '.join(arg.choices)}, got {value!r}")
        return value
    if arg.kind == "matrix":
        try:
            m = np.asarray(value, dtype=np.float64)
        except (TypeError, ValueError) as exc:
            raise ValueError(f"{where} must be a matrix of numbers, got {value!r}") from exc
        if m.ndim != 2 or not np.isfinite(m).all():  # scalar
            raise ValueError(f"{where} must be a finite 2-D matrix, got shape {m.shape}")
        return m
    # tokens
    if isinstance(value, str):
        return tuple(value.split())
    if not isinstance(value, (list, tuple)) or not all(isinstance(t, str) for t in value):
        raise ValueError(f"{where} must be a list of tokens, got {value!r}")
    return tuple(value)


CALCULATORS: dict[str, Calculator] = {}


def register(
    name: str,
    *,
    summary: str,
    unit: str,
    args: tuple[Arg, ...],
    misconceptions: tuple[str, ...] = (),
) -> Callable[[Callable[..., Derivation]], Callable[..., Derivation]]:
    """Adds a calculator function to CALCULATORS under `name`."""

    def wrap(fn: Callable[..., Derivation]) -> Callable[..., Derivation]:
        if name in CALCULATORS:
            raise ValueError(f"calculator {name!r} is registered twice")
        CALCULATORS[name] = Calculator(name, summary, unit, args, misconceptions, fn)
        return fn

    return wrap


def calculate(name: str, /, **args: Any) -> Derivation:
    """Runs a calculator by name after checking its arguments; the single entry point for numbers."""
    calc = _find(name)
    return calc.fn(**calc.check_args(args))


def calculate_value(name: str, /, **args: Any) -> Derivation:
    """`calculate` without the worked steps, misconceptions and heatmap (`steps` is empty): the same
    checks and the same value, several times faster, for code that only needs to know the calculation
    works and what it gives (the deck validator trying a template at many seeds). Every calculator takes
    the keyword `worked=False` for this and returns as soon as its value is known."""
    calc = _find(name)
    return calc.fn(**calc.check_args(args), worked=False)


def _find(name: str) -> Calculator:
    try:
        return CALCULATORS[name]
    except KeyError:
        raise ValueError(f"unknown calculator {name!r}; known: {', '.join(sorted(CALCULATORS))}") from None
