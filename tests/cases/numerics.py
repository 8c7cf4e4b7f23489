"""Random valid arguments for the floating-point calculators (engine/calculators/numerics.py)."""

from __future__ import annotations

import random
from typing import Any


def _row(rng: random.Random, n: int, low: int, high: int) -> list[list[int]]:
    return [[rng.randint(low, high) for _ in range(n)]]


def _softmax(rng: random.Random) -> dict[str, Any]:
    t, s = rng.randint(1, 3), rng.randint(2, 5)
    return {
        "scores": [[rng.randint(-4, 16) for _ in range(s)] for _ in range(t)],
        "row": rng.randrange(t),
        "col": rng.randrange(s),
        "which": rng.choice(["shifted_exp", "weight"]),
    }


def _cap(rng: random.Random) -> dict[str, Any]:
    cap = rng.choice([30.0, 50.0, 20.0])
    # |x| between 0.3 and 2 caps: far enough from 0 that capping changes the value by more than 1%
    return {"x": rng.choice([-1, 1]) * cap * rng.uniform(0.3, 2.0), "cap": cap}


def _masked(rng: random.Random) -> dict[str, Any]:
    s = rng.randint(2, 6)
    n_masked = rng.randint(1, s)
    dtype = rng.choice(["fp16", "fp32"])
    fills = ["finfo_min", "neg_1e9"] if n_masked == s else ["finfo_min", "neg_1e9", "neg_inf"]
    fill = rng.choice(fills)
    if n_masked == s and dtype == "fp16":
        fill = "finfo_min"  # -1e9 is -inf in fp16: a fully masked row would be NaN
    return {
        "scores": _row(rng, s, -3, 3),
        "n_masked": n_masked,
        "col": rng.randrange(s),
        "fill": fill,
        "dtype": dtype,
    }


ARGS = {
    "float_limit": lambda rng: {
        "fmt": rng.choice(["fp32", "fp16", "bf16", "fp8-e5m2"]),
        "which": rng.choice(["max", "smallest_normal", "epsilon"]),
    },
    "exp_overflow_score": lambda rng: {
        "fmt": rng.choice(["fp32", "fp16", "bf16", "fp8-e5m2"]),
        "d_k": rng.choice([1, 16, 64, 128, 256]),
    },
    "stable_softmax_entry": _softmax,
    "soft_cap": _cap,
    "masked_softmax_weight": _masked,
}
