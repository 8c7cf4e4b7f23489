"""Provides the words an answer may contain (units, scale words, functions) and the accepted-forms text.

Which meaning a word has can depend on what the question asks: `7B` is seven billion when a count is
asked and seven bytes when bytes are asked. Every lookup therefore takes the asked dimension, so each
question reads its answers one unambiguous way.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from quizapp.content.units import UNITS, unit

WordKind = Literal["scale", "unit", "ratio", "func", "const", "filler"]

BASE_OF_DIMENSION: dict[str, str] = {
    "bytes": "B",
    "params": "params",
    "flops": "FLOPs",
    "ratio": "x",
    "number": "",
}
DIMENSION_WORDS: dict[str, str] = {
    "bytes": "a size in bytes",
    "params": "a parameter count",
    "flops": "a FLOP count",
    "ratio": "a ratio",
    "number": "a plain number",
    "shape": "a shape",
}


@dataclass(frozen=True)
class Word:
    """What one word in an answer means for the question being answered."""

    kind: WordKind
    name: str
    factor: int = 1
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
_RATIO_WORDS = frozenset({"x", "X", "×", "times", "fold"})
_FUNCS = frozenset({"sqrt", "exp"})
_CONSTS: dict[str, str] = {"e": "e", "pi": "pi", "π": "pi"}
_FILLERS = frozenset(
    {"about", "approx", "approximately", "roughly", "around", "circa", "ca"}
    | {"smaller", "less", "fewer", "reduction", "saving", "savings", "more", "larger", "bigger"}
)


def _unit_word(name: str) -> Word:
    u = unit(name)
    return Word("unit", u.name, int(u.factor), u.dimension)


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
    if lower in _BYTE_WORDS:
        return _unit_word(_BYTE_WORDS[lower])
    if lower in _COUNT_WORDS:
        return _unit_word(_COUNT_WORDS[lower])
    if lower in _EXTRA_UNITS:
        name, factor, dim = _EXTRA_UNITS[lower]
        return Word("unit", name, factor, dim)
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
    return "a number: 64, 0.33, 1/3, 87.5%, 1e-3, or arithmetic (768/12, 2^20, exp(1)/(exp(1)+exp(2)))"


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
