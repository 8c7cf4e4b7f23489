"""Provides the words an answer may contain (units, scale words, functions) and the accepted-forms text.

Which meaning a word has can depend on what the question asks: `7B` is seven billion when a count is
asked and seven bytes when bytes are asked. Every lookup therefore takes the asked dimension, so each
question reads its answers one unambiguous way.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Literal

from quizapp.content.units import UNITS, unit

WordKind = Literal["scale", "unit", "ratio", "func", "const", "filler"]

BASE_OF_DIMENSION: dict[str, str] = {
    "bytes": "B",
    "params": "params",
    "flops": "FLOPs",
    "ratio": "x",
    "time": "ms",
    "angle": "rad",
    "number": "",
}
DIMENSION_WORDS: dict[str, str] = {
    "bytes": "a size in bytes",
    "params": "a parameter count",
    "flops": "a FLOP count",
    "ratio": "a ratio",
    "time": "a time",
    "angle": "an angle",
    "number": "a plain number",
    "shape": "a shape",
}
RATE_SUFFIX = "/s"
"""A rate's dimension is its amount's followed by this: "flops/s", "bytes/s", "number/s" (tokens/s)."""
_AMOUNT_WORDS: dict[str, str] = {
    "bytes": "a size in bytes",
    "params": "a parameter count",
    "flops": "a count of FLOPs",
    "time": "a time",
    "angle": "an angle",
}


def is_rate(dimension: str) -> bool:
    """True for a per-second dimension such as "flops/s": never an amount, whatever its number."""
    return dimension.endswith(RATE_SUFFIX)


def base_of(dimension: str) -> str:
    """The base unit a value of `dimension` is written in ("B", "FLOPs/s", "/s" for tokens per second)."""
    if is_rate(dimension):
        return BASE_OF_DIMENSION.get(dimension[: -len(RATE_SUFFIX)], "") + RATE_SUFFIX
    return BASE_OF_DIMENSION[dimension]


def dimension_words(dimension: str) -> str:
    """What a value of `dimension` is, in words: "a size in bytes", "a rate (FLOPs per second)"."""
    if is_rate(dimension):
        amount = dimension[: -len(RATE_SUFFIX)]
        unit_name = BASE_OF_DIMENSION.get(amount, "") or "things"
        return f"a rate ({unit_name} per second)"
    return DIMENSION_WORDS.get(dimension, dimension)


def rate_mismatch(got: str, asked: str) -> str | None:
    """The sentence for a rate given where an amount is asked ("that is a rate; the question asks for a
    count of FLOPs"), or None when `got` is not a rate or `asked` is one too."""
    if not is_rate(got) or is_rate(asked):
        return None
    amount = _AMOUNT_WORDS.get(asked, DIMENSION_WORDS.get(asked, asked))
    return f"that is a rate; the question asks for {amount}"


@dataclass(frozen=True)
class Word:
    """What one word in an answer means for the question being answered."""

    kind: WordKind
    name: str
    factor: int | Fraction | float = 1
    """Base units in one of this word (exact where it can be: 1/1000 ms in a microsecond)."""
    dimension: str = ""


_SCALES: dict[str, tuple[str, int]] = {
    "thousand": ("thousand", 10**3),
    "thousands": ("thousand", 10**3),
    "million": ("million", 10**6),
    "millions": ("million", 10**6),
    "mn": ("million", 10**6),
    "mil": ("million", 10**6),
    "billion": ("billion", 10**9),
    "billions": ("billion", 10**9),
    "bn": ("billion", 10**9),
    "trillion": ("trillion", 10**12),
    "trillions": ("trillion", 10**12),
}
_LETTER_SCALES: dict[str, tuple[str, int]] = {
    "k": ("k", 10**3),
    "K": ("k", 10**3),
    "m": ("M", 10**6),
    "M": ("M", 10**6),
    "G": ("G", 10**9),
    "b": ("B", 10**9),
    "B": ("B", 10**9),
    "T": ("T", 10**12),
}
_BYTE_WORDS: dict[str, str] = {
    "byte": "B",
    "bytes": "B",
    "kb": "KB",
    "kilobyte": "KB",
    "kilobytes": "KB",
    "mb": "MB",
    "megabyte": "MB",
    "megabytes": "MB",
    "gb": "GB",
    "gigabyte": "GB",
    "gigabytes": "GB",
    "tb": "TB",
    "terabyte": "TB",
    "terabytes": "TB",
    "kib": "KiB",
    "kibibyte": "KiB",
    "kibibytes": "KiB",
    "mib": "MiB",
    "mebibyte": "MiB",
    "mebibytes": "MiB",
    "gib": "GiB",
    "gibibyte": "GiB",
    "gibibytes": "GiB",
    "tib": "TiB",
    "tebibyte": "TiB",
    "tebibytes": "TiB",
}
_COUNT_WORDS: dict[str, str] = {
    "param": "params",
    "params": "params",
    "parameter": "params",
    "parameters": "params",
    "flop": "FLOPs",
    "flops": "FLOPs",
    "mflop": "MFLOPs",
    "mflops": "MFLOPs",
    "gflop": "GFLOPs",
    "gflops": "GFLOPs",
    "tflop": "TFLOPs",
    "tflops": "TFLOPs",
}
_EXTRA_UNITS: dict[str, tuple[str, int, str]] = {
    "kflop": ("KFLOPs", 10**3, "flops"),
    "kflops": ("KFLOPs", 10**3, "flops"),
    "pflop": ("PFLOPs", 10**15, "flops"),
    "pflops": ("PFLOPs", 10**15, "flops"),
}
_RATE_UNITS: dict[str, tuple[str, int]] = {
    # Upper-case FLOPS is the per-second rate of the datasheets; "TFLOPs" and lower case stay a count.
    "FLOPS": ("FLOP/s", 1),
    "KFLOPS": ("KFLOP/s", 10**3),
    "MFLOPS": ("MFLOP/s", 10**6),
    "GFLOPS": ("GFLOP/s", 10**9),
    "TFLOPS": ("TFLOP/s", 10**12),
    "PFLOPS": ("PFLOP/s", 10**15),
}
_TIME_SHORT: dict[str, str] = {"ns": "ns", "us": "µs", "µs": "µs", "μs": "µs", "ms": "ms", "s": "s", "h": "h"}
"""Short time units, matched with their case: `M` is a million and `ms` a millisecond."""
_TIME_WORDS: dict[str, str] = {
    **{w: "ns" for w in ("nsec", "nsecs", "nanosecond", "nanoseconds")},
    **{w: "µs" for w in ("usec", "usecs", "microsecond", "microseconds")},
    **{w: "ms" for w in ("msec", "msecs", "millisecond", "milliseconds")},
    **{w: "s" for w in ("sec", "secs", "second", "seconds")},
    **{w: "min" for w in ("min", "mins", "minute", "minutes")},
    **{w: "h" for w in ("hr", "hrs", "hour", "hours")},
    **{w: "rad" for w in ("rad", "rads", "radian", "radians")},
    **{w: "deg" for w in ("deg", "degs", "degree", "degrees")},
}
_EXACT_FACTORS: dict[str, Fraction] = {"ns": Fraction(1, 10**6), "µs": Fraction(1, 1000)}
PER_WORDS = frozenset({"per"})
"""`tokens per second`: a division by the time unit that follows."""
_RATIO_WORDS = frozenset({"x", "X", "×", "times", "fold"})
_FUNCS = frozenset({"sqrt", "exp"})
_CONSTS: dict[str, str] = {"e": "e", "pi": "pi", "π": "pi"}
_FILLERS = frozenset(
    {"about", "approx", "approximately", "roughly", "around", "circa", "ca"}
    | {"smaller", "less", "fewer", "reduction", "saving", "savings", "more", "larger", "bigger"}
)


def _unit_word(name: str) -> Word:
    u = unit(name)
    factor = _EXACT_FACTORS.get(u.name, u.factor)
    if isinstance(factor, float) and factor.is_integer():
        factor = int(factor)
    return Word("unit", u.name, factor, u.dimension)


def lookup(word: str, asked_dimension: str) -> Word | None:
    """The meaning of `word` when the question asks for `asked_dimension`, or None if it means nothing."""
    lower = word.lower()
    if word in ("b", "B"):
        if asked_dimension == "bytes":
            return _unit_word("B")
        return Word("scale", "B", 10**9)
    if word in _LETTER_SCALES:
        name, factor = _LETTER_SCALES[word]
        return Word("scale", name, factor)
    if lower in _SCALES:
        name, factor = _SCALES[lower]
        return Word("scale", name, factor)
    if word in _RATE_UNITS:
        name, factor = _RATE_UNITS[word]
        return Word("unit", name, factor, "flops" + RATE_SUFFIX)
    if lower in _BYTE_WORDS:
        return _unit_word(_BYTE_WORDS[lower])
    if lower in _COUNT_WORDS:
        return _unit_word(_COUNT_WORDS[lower])
    if lower in _EXTRA_UNITS:
        name, factor, dim = _EXTRA_UNITS[lower]
        return Word("unit", name, factor, dim)
    if word in _TIME_SHORT and (word != "h" or asked_dimension == "time"):  # elsewhere h is the heads
        return _unit_word(_TIME_SHORT[word])
    if lower in _TIME_WORDS:
        return _unit_word(_TIME_WORDS[lower])
    if word in _RATIO_WORDS:
        return Word("ratio", "x", 1, "ratio")
    if lower in _FUNCS:
        return Word("func", lower)
    if lower in _CONSTS:
        return Word("const", _CONSTS[lower])
    if lower in _FILLERS:
        return Word("filler", lower)
    return None


def unit_examples(display: str) -> str:
    """Example answers for the unit a numeric question asks for, written as a user would type them."""
    asked = UNITS.get(display)
    dim = asked.dimension if asked else "number"
    if dim == "bytes":
        return (
            f"a number (read in {display}), a number with a unit (80 GiB, 85.9 GB, 8.59e10 B, 512 MiB), "
            "or arithmetic (2*80*8*128*4096*8*2 B, 2^30 B, (80 GiB)/8)"
        )
    if dim == "params":
        where = f" (a bare number is read in {display})" if display != "params" else ""
        return (
            f"a count{where}: 1048576, 1,048,576, 1_048_576, 1.05M, 7B, 1.5 billion, 124M params, "
            "or arithmetic (4*512^2, 3*768*64)"
        )
    if dim == "flops":
        where = f" (a bare number is read in {display})" if display != "FLOPs" else ""
        return f"a count{where}: 8.59e10, 2.4 GFLOPs, 1.2e9 FLOPs, 86 billion, or arithmetic (2*512*768^2)"
    if dim == "ratio":
        return "a ratio: 8, 8x, 8×, 8 times, or arithmetic (64/8)"
    if dim == "time":
        return (
            f"a time (a bare number is read in {display}): 21.7, 21.7 ms, 0.0217 s, 21700 us, "
            "21.7 milliseconds, or arithmetic (2*8e9*2000/(989e12*0.5) s)"
        )
    if dim == "angle":
        return (
            f"an angle (a bare number is read in {display}): 3.5, 3.5 rad, 200 degrees, 200°, "
            "or arithmetic (2*pi/3)"
        )
    return (
        "a number: 64, 0.33, 1/3, 87.5%, 1e-3, 4.69 million, 22 sequences, "
        "or arithmetic (768/12, 2^20, exp(1)/(exp(1)+exp(2)))"
    )


def accepted_forms(kind: str, display: str = "", *, multiple: bool = False, n_options: int = 0) -> str:
    """The sentence that lists what can be typed for a question of this kind and unit."""
    if kind in ("numeric", "tensor"):
        return f"Type {unit_examples(display)}."
    if kind == "shape":
        return "Type a shape: (2, 8, 128, 64) or [2, 8, 128, 64]."
    if kind == "choice":
        last = chr(ord("a") + max(n_options, 1) - 1)
        span = f"a-{last}" if n_options > 1 else "a"
        if multiple:
            return f"Type every option that applies, as letters ({span}) or numbers: a, c or 1, 3."
        return f"Type one option, as a letter ({span}) or its number: b or 2."
    if kind == "flashcard":
        return "Rate yourself: again, hard, good or easy (or 1-4)."
    if kind == "code":
        return "Write the function in NumPy; the starter code shows its signature."
    return "Type your answer in your own words."
