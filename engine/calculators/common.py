"""Provides the checks and helpers every calculator shares: positive sizes, divisibility, wrong turns."""

from __future__ import annotations

from engine.calculator import Arg
from engine.derivation import Misconception, Value

N_LAYERS = Arg("n_layers", "int", "number of layers")
BYTES_PER_ELEMENT = Arg("bytes_per_element", "int", "bytes per number (fp16/bf16: 2, fp32: 4, int8/fp8: 1)")


def require_positive(calculator: str, **sizes: int | None) -> None:
    """Rejects zero or negative sizes with a message naming each bad value (None means "not given")."""
    bad = [f"{k}={v}" for k, v in sizes.items() if v is not None and v <= 0]
    if bad:
        raise ValueError(f"{calculator}: sizes must be positive, got {', '.join(bad)}")


def require_divisible(calculator: str, numerator: str, n: int, denominator: str, d: int) -> None:
    """Rejects a split that does not come out whole (d_model across heads, heads across KV heads)."""
    if n % d:
        raise ValueError(f"{calculator}: {numerator}={n} is not divisible by {denominator}={d}")


def ratio(n: int, d: int) -> int | float:
    """n / d, kept an exact int when it divides evenly (counts stay ints; wrong counts may not)."""
    return n // d if n % d == 0 else n / d


def distinct(answer: Value, candidates: list[Misconception]) -> tuple[Misconception, ...]:
    """Keeps the misconceptions whose value differs from the answer, once per id.

    A wrong formula that happens to give the right number here cannot be told apart from the right one,
    so it is dropped. Two wrong formulas with the same value are both kept: grading then names both
    (in the order of `candidates`, the order of preference) instead of silently picking one.
    """
    kept: list[Misconception] = []
    ids: set[str] = set()
    answer_key = _keyed(answer)
    for m in candidates:
        if m.id in ids:
            continue
        value, number = _keyed(m.value)
        if _same(value, number, *answer_key):
            continue
        kept.append(m)
        ids.add(m.id)
    return tuple(kept)


def _keyed(value: Value) -> tuple[Value, float | None]:
    """A value with its float (None for a shape), converted once instead of at every comparison."""
    return value, None if isinstance(value, tuple) else float(value)


def _same(a: Value, fa: float | None, b: Value, fb: float | None) -> bool:
    if fa is None or fb is None:
        return a == b
    return abs(fa - fb) <= 1e-9 * max(abs(fa), abs(fb), 1e-300)
