"""Provides the checks and helpers every calculator shares: positive sizes, divisibility, wrong turns."""

from __future__ import annotations

import math
from typing import Annotated

from engine.calculator import Param
from engine.derivation import distinct

__all__ = [
    "BandwidthGBs",
    "Batch",
    "BytesPerElement",
    "BytesPerParam",
    "CachedLen",
    "DHead",
    "DModel",
    "Gamma",
    "GroupSize",
    "KvLen",
    "NHeads",
    "NKvHeads",
    "NLayers",
    "OpenShare",
    "OriginalContext",
    "PromptTokens",
    "QueryLen",
    "Row",
    "SeqLen",
    "Share",
    "Tflops",
    "Utilisation",
    "ceil_exact",
    "distinct",
    "floor_exact",
    "ratio",
    "require_divisible",
    "require_fraction",
    "require_positive",
]


def require_positive(**sizes: int | None) -> None:
    """Rejects zero or negative sizes with a message naming each bad value (None means "not given")."""
    bad = [f"{k}={v}" for k, v in sizes.items() if v is not None and v <= 0]
    if bad:
        raise ValueError(f"sizes must be positive, got {', '.join(bad)}")


def require_divisible(numerator: str, n: int, denominator: str, d: int) -> None:
    """Rejects a split that does not come out whole (d_model across heads, heads across KV heads)."""
    if n % d:
        raise ValueError(f"{numerator}={n} is not divisible by {denominator}={d}")


def ratio(n: int, d: int) -> int | float:
    """n / d, kept an exact int when it divides evenly (counts stay ints; wrong counts may not)."""
    return n // d if n % d == 0 else n / d


# The arguments many topics share, declared once: a calculator's signature names them.
BandwidthGBs = Annotated[float, Param("memory bandwidth, decimal GB/s", gt=0)]
Batch = Annotated[int, Param("sequences in the batch", gt=0)]
BytesPerElement = Annotated[int, Param("bytes per number (fp16/bf16: 2, fp32: 4, int8/fp8: 1)", gt=0)]
BytesPerParam = Annotated[float, Param("bytes per weight", gt=0)]
CachedLen = Annotated[int, Param("tokens cached per sequence", gt=0)]
DHead = Annotated[int, Param("width of one head", gt=0)]
DModel = Annotated[int, Param("model width d_model", gt=0)]
Gamma = Annotated[int, Param("tokens drafted per round", gt=0)]
GroupSize = Annotated[int, Param("numbers sharing one scale and zero point", gt=0)]
KvLen = Annotated[int | None, Param("key/value length S (default: T)")]
NHeads = Annotated[int, Param("number of query heads h", gt=0)]
NKvHeads = Annotated[int, Param("number of key/value heads", gt=0)]
NLayers = Annotated[int, Param("number of layers", gt=0)]
OriginalContext = Annotated[int, Param("original_max_position_embeddings", gt=0)]
PromptTokens = Annotated[int, Param("tokens in the prompt", gt=0)]
QueryLen = Annotated[int, Param("query length T", gt=0)]
Row = Annotated[int, Param("query index (0-based)")]
SeqLen = Annotated[int, Param("sequence length T", gt=0)]
Tflops = Annotated[float, Param("dense throughput, TFLOPS", gt=0)]
Utilisation = Annotated[
    float, Param("rho = arrival rate x S, below 1: at 1 the queue grows without bound", ge=0, lt=1)
]

# Fractions, their range declared once; the argument says what it is a share of:
# `mfu: Annotated[Share, Param("fraction of peak the matmuls reach")]`.
Share = Annotated[float, Param("", gt=0, le=1)]
"""A fraction in (0, 1] (0.7 for 70%): a share of memory, a utilisation cap, a fraction of peak."""
OpenShare = Annotated[float, Param("", gt=0, lt=1)]
"""A fraction in (0, 1): a probability or a target that 1 would make certain or unreachable."""


def ceil_exact(x: float) -> int:
    """Rounds up, blind to float noise: 70 x 0.28 / 0.7 is 28.000000000000004 in binary; 28 instances do."""
    return math.ceil(x - 1e-9 * max(1.0, abs(x)))


def floor_exact(x: float) -> int:
    """Rounds down, blind to float noise, so an exact fit of n requests is never read as n - 1."""
    return math.floor(x + 1e-9 * max(1.0, abs(x)))


def require_fraction(name: str, value: float, *, closed: bool = False) -> None:
    """A utilisation or an attainment lies in [0, 1): at 1 the queue grows without bound."""
    top_ok = value <= 1 if closed else value < 1
    if not (value >= 0 and top_ok):
        bound = "[0, 1]" if closed else "[0, 1) (at 1 or more the queue grows without bound)"
        raise ValueError(f"{name} must lie in {bound}, got {value}")
