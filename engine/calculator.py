"""Provides the calculator registry: typed arguments, their meaning, the result unit, and `calculate`."""

from __future__ import annotations

import functools
import inspect
import math
import types
import typing
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Annotated, Any, Literal, get_args, get_origin

import numpy as np

from engine.derivation import RESULT_UNIT, Derivation, Heatmap, Misconception, Mistake, Step, Value, distinct

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
    gt: float | None = None
    """The value must be above this (0 for a size or a positive quantity); None: no such bound."""
    ge: float | None = None
    """The value must be at least this (0 for a count that may be zero); None: no such bound."""
    lt: float | None = None
    """The value must be below this (1 for a utilisation); None: no such bound."""
    le: float | None = None
    """The value must be at most this (1 for a probability); None: no such bound."""


@dataclass(frozen=True)
class Param:
    """What one calculator argument means and the range it must lie in, written once in its annotation:
    `d_model: Annotated[int, Param("model width", gt=0)]`. The registry reads the name, kind, default
    and choices (a `Literal`) from the signature and checks the range before the calculator runs."""

    meaning: str
    gt: float | None = None
    ge: float | None = None
    lt: float | None = None
    le: float | None = None


@dataclass(frozen=True)
class Calculator:
    """A named formula with typed arguments; `fn` returns the worked Derivation."""

    name: str
    summary: str
    unit: str
    args: tuple[Arg, ...]
    mistakes: tuple[Mistake, ...]
    """The wrong turns it recognises, declared once at module level: every Misconception it returns is
    one of these `.gives(...)`."""
    fn: Callable[..., Derivation]

    @functools.cached_property
    def misconception_ids(self) -> tuple[str, ...]:
        """The ids of `mistakes`, the names a deck's `trap` may use."""
        return tuple(m.id for m in self.mistakes)

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
        _check_ranges(self.name, self.bounded, out)
        return out

    @functools.cached_property
    def bounded(self) -> tuple[Arg, ...]:
        """The arguments with a declared range, the only ones `check_args` compares."""
        return tuple(a for a in self.args if (a.gt, a.ge, a.lt, a.le) != (None, None, None, None))


def _check_ranges(calc: str, args: tuple[Arg, ...], values: Mapping[str, Any]) -> None:
    """Rejects values outside their declared range, naming each one (None means "not given")."""
    bad = []
    for a in args:
        v = values.get(a.name)
        if v is None or (
            (a.gt is None or v > a.gt)
            and (a.ge is None or v >= a.ge)
            and (a.lt is None or v < a.lt)
            and (a.le is None or v <= a.le)
        ):
            continue
        failed = [
            f"{op} {b:g}" for op, b in ((">", a.gt), (">=", a.ge), ("<", a.lt), ("<=", a.le)) if b is not None
        ]
        bad.append(f"{a.name} must be {' and '.join(failed)}, got {a.name}={v} ({a.meaning})")
    if bad:
        raise ValueError(f"{calc}: {'; '.join(bad)}")


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
    *,
    summary: str,
    unit: str,
    misconceptions: tuple[Mistake, ...] = (),
) -> Callable[[Callable[..., Derivation]], Callable[..., Derivation]]:
    """Adds a calculator function to CALCULATORS, declared once by its signature.

    The name is the function's name; every argument but `worked` is `Annotated[type, Param(...)]`, its
    default the signature's. `misconceptions` names the module-level Mistakes it can return (their ids
    are read from them, never written again). The function returns `result(...)` (no name, no unit):
    the registry stamps the name and `unit` on, and prefixes the name to any ValueError it raises.
    """

    def wrap(fn: Callable[..., Derivation]) -> Callable[..., Derivation]:
        name = fn.__name__
        if name in CALCULATORS:
            raise ValueError(f"calculator {name!r} is registered twice")
        bad = [m for m in misconceptions if not isinstance(m, Mistake)]
        if bad:
            raise TypeError(
                f"calculator {name!r}: misconceptions must be Mistakes declared once, got {bad!r}"
            )
        calc = Calculator(name, summary, unit, _args_of(fn), misconceptions, _stamped(fn, name, unit))
        CALCULATORS[name] = calc
        signature = inspect.signature(fn)

        @functools.wraps(fn)
        def checked(*args: Any, worked: bool = True, **kwargs: Any) -> Derivation:
            bound = signature.bind(*args, **kwargs).arguments
            return calc.fn(**calc.check_args(bound), worked=worked)

        return checked

    return wrap


def result(
    value: Value,
    steps: Sequence[Step] = (),
    misconceptions: Sequence[Misconception] = (),
    *,
    heatmap: Heatmap | None = None,
    notes: tuple[str, ...] = (),
) -> Derivation:
    """What a calculator returns: its value, steps and the wrong turns whose value differs from it (the
    registry adds the calculator's name and unit)."""
    return Derivation("", value, "", tuple(steps), distinct(value, list(misconceptions)), heatmap, notes)


def _stamped(fn: Callable[..., Derivation], name: str, unit: str) -> Callable[..., Derivation]:
    """`fn` with its name and unit put on the Derivation, and its name on any ValueError it raises."""

    @functools.wraps(fn)
    def run(**args: Any) -> Derivation:
        try:
            d = fn(**args)
        except ValueError as exc:
            if str(exc).startswith(f"{name}:"):
                raise
            raise ValueError(f"{name}: {exc}") from exc
        steps = d.steps
        if steps and any(s.unit == RESULT_UNIT for s in steps):
            steps = tuple(replace(s, unit=unit) if s.unit == RESULT_UNIT else s for s in steps)
        return Derivation(name, d.value, unit, steps, d.misconceptions, d.heatmap, d.notes)

    return run


def _args_of(fn: Callable[..., Derivation]) -> tuple[Arg, ...]:
    """The Args a calculator's signature declares (every parameter but `worked`)."""
    hints = typing.get_type_hints(fn, include_extras=True)
    out = []
    for p in inspect.signature(fn).parameters.values():
        if p.name == "worked":
            continue
        hint = hints[p.name]
        if get_origin(hint) is not Annotated:
            raise TypeError(f"calculator {fn.__name__!r}: argument {p.name!r} needs Annotated[type, Param]")
        base, *extras = get_args(hint)
        spec = _merged(fn.__name__, p.name, [e for e in extras if isinstance(e, Param)])
        kind, choices = _kind(fn.__name__, p.name, base)
        required = p.default is inspect.Parameter.empty
        default = None if required else p.default
        bounds = (spec.gt, spec.ge, spec.lt, spec.le)
        out.append(Arg(p.name, kind, spec.meaning, default, required, choices, *bounds))
    return tuple(out)


def _merged(calc: str, name: str, specs: list[Param]) -> Param:
    """One Param from the ones an annotation stacks: `Annotated[Share, Param("model FLOPs utilisation")]`
    takes its range from the alias and its meaning from the argument (a later Param overrides)."""
    if not specs:
        raise TypeError(f"calculator {calc!r}: argument {name!r} needs Annotated[type, Param]")
    if len(specs) == 1:
        return specs[0]
    out = specs[0]
    for spec in specs[1:]:
        bounds = {k: v for k in ("gt", "ge", "lt", "le") if (v := getattr(spec, k)) is not None}
        out = replace(out, meaning=spec.meaning or out.meaning, **bounds)
    if not out.meaning:
        raise TypeError(f"calculator {calc!r}: argument {name!r} needs a Param saying what it means")
    return out


def _kind(calc: str, name: str, base: Any) -> tuple[ArgKind, tuple[str, ...]]:
    """The Arg kind (and choices) of an annotation's type; `X | None` is read as X."""
    if get_origin(base) in (typing.Union, types.UnionType):
        (base,) = [t for t in get_args(base) if t is not type(None)]
    if get_origin(base) is Literal:
        return "str", tuple(get_args(base))
    simple: dict[Any, ArgKind] = {int: "int", float: "float", bool: "bool", str: "str"}
    if base in simple:
        return simple[base], ()
    origin = get_origin(base)
    if hasattr(origin, "__value__"):  # a `type` alias: numpy 2.5's NDArray (on Python 3.12+) is one
        origin = get_origin(origin.__value__)
    if origin is np.ndarray:
        return "matrix", ()
    if get_origin(base) is tuple and get_args(base)[:1] == (str,):
        return "tokens", ()
    raise TypeError(f"calculator {calc!r}: argument {name!r} has a type the registry cannot read: {base!r}")


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
