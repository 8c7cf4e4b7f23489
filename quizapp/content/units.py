"""Provides the units a question may ask for, their dimensions, and conversion to the engine's base units.

The engine returns values in base units ("B", "params", "FLOPs", "x", "ms", "rad", "" or "shape"). A
question asks for its answer in a display unit of the same dimension (GiB for bytes, "M params" for
parameters, s for a time in ms, ...). Times are based on the millisecond because serving latencies are
quoted in ms; angles on the radian, since cos and sin take radians.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from quizapp.errors import QuizappError


@dataclass(frozen=True)
class Unit:
    """A display unit: its name, its dimension, and how many base units one of it holds."""

    name: str
    dimension: str
    factor: int | float
    words: str


BASE_DIMENSION: dict[str, str] = {
    "B": "bytes",
    "params": "params",
    "FLOPs": "flops",
    "x": "ratio",
    "ms": "time",
    "rad": "angle",
    "": "number",
    "shape": "shape",
}

_UNITS: tuple[Unit, ...] = (
    Unit("B", "bytes", 1, "bytes"),
    Unit("KB", "bytes", 1000, "kilobytes (10^3 bytes)"),
    Unit("MB", "bytes", 1000**2, "megabytes (10^6 bytes)"),
    Unit("GB", "bytes", 1000**3, "gigabytes (10^9 bytes)"),
    Unit("TB", "bytes", 1000**4, "terabytes (10^12 bytes)"),
    Unit("KiB", "bytes", 1024, "kibibytes (2^10 bytes)"),
    Unit("MiB", "bytes", 1024**2, "mebibytes (2^20 bytes)"),
    Unit("GiB", "bytes", 1024**3, "gibibytes (2^30 bytes)"),
    Unit("TiB", "bytes", 1024**4, "tebibytes (2^40 bytes)"),
    Unit("params", "params", 1, "parameters"),
    Unit("K params", "params", 1000, "thousands of parameters"),
    Unit("M params", "params", 1000**2, "millions of parameters"),
    Unit("B params", "params", 1000**3, "billions of parameters"),
    Unit("FLOPs", "flops", 1, "floating-point operations"),
    Unit("MFLOPs", "flops", 1000**2, "millions of FLOPs"),
    Unit("GFLOPs", "flops", 1000**3, "billions of FLOPs"),
    Unit("TFLOPs", "flops", 1000**4, "trillions of FLOPs"),
    Unit("x", "ratio", 1, "times"),
    Unit("ns", "time", 1e-6, "nanoseconds"),
    Unit("µs", "time", 1e-3, "microseconds"),
    Unit("ms", "time", 1, "milliseconds"),
    Unit("s", "time", 1000, "seconds"),
    Unit("min", "time", 60_000, "minutes"),
    Unit("h", "time", 3_600_000, "hours"),
    Unit("rad", "angle", 1, "radians"),
    Unit("deg", "angle", math.pi / 180, "degrees"),
    Unit("", "number", 1, "a plain number"),
    Unit("shape", "shape", 1, "a shape tuple"),
)

UNITS: dict[str, Unit] = {u.name: u for u in _UNITS}


def unit(name: str) -> Unit:
    """Looks a display unit up by name, with a message listing the known ones."""
    try:
        return UNITS[name]
    except KeyError:
        known = ", ".join(repr(n) for n in UNITS)
        raise QuizappError(f"unknown unit {name!r}; known units: {known}") from None


def compatible(display: str, base: str) -> bool:
    """True when a display unit measures the same thing as an engine base unit."""
    return unit(display).dimension == BASE_DIMENSION.get(base, "?")


def to_display(value_base: int | float, display: str) -> int | float:
    """Converts a base-unit value into the display unit, keeping ints exact where it divides."""
    factor = unit(display).factor
    if isinstance(value_base, int) and isinstance(factor, int) and value_base % factor == 0:
        return value_base // factor
    return value_base / factor
