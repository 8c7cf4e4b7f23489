"""Random valid arguments for the position-encoding and long-context calculators."""

from __future__ import annotations

import random
from typing import Any


def _rope(rng: random.Random) -> dict[str, Any]:
    d = rng.choice([8, 16, 32, 64, 128])
    return {"pair": rng.randint(1, d // 2 - 1), "d_head": d, "base": rng.choice([100.0, 10000.0, 500000.0])}


def _vec(rng: random.Random, d: int) -> list[list[int]]:
    return [[rng.choice([-3, -2, -1, 1, 2, 3]) for _ in range(d)]]


def _sparse(rng: random.Random) -> dict[str, Any]:
    stride = rng.choice([16, 32, 64, 128])
    t = stride * rng.randint(8, 128)
    return {"seq_len": t, "window": rng.choice([32, 64, 128, 256, 512]), "stride": stride}


def _cache(rng: random.Random) -> dict[str, Any]:
    window = rng.choice([256, 1024, 4096])
    sinks = rng.choice([0, 0, 1, 4, 4])
    tokens = rng.choice([rng.randint(1, sinks + window - 1), rng.randint(sinks + window + 1, 20 * window)])
    return {"window": window, "tokens": tokens, "sink_tokens": sinks}


ARGS: dict[str, Any] = {
    "rope_angle": lambda rng: {"position": rng.randint(2, 100000), **_rope(rng)},
    "rope_wavelength": _rope,
    "rope_rotate": lambda rng: {
        "x0": float(rng.choice([-3, -2, -1, 1, 2, 3])),
        "x1": float(rng.choice([-3, -2, -1, 1, 2, 3])),
        "position": rng.randint(1, 50),
        "component": rng.choice(["first", "second"]),
        **_rope(rng),
    },
    "rope_score": lambda rng: (
        lambda d, m: {
            "q": _vec(rng, d),
            "k": _vec(rng, d),
            "query_position": m,
            "key_position": m - rng.randint(1, 9),
            "base": rng.choice([100.0, 10000.0]),
        }
    )(rng.choice([2, 4]), rng.randint(10, 5000)),
    "rope_decode_angle": lambda rng: (
        lambda cached: {
            "cached_tokens": cached,
            "generated": rng.choice([0, rng.randint(1, cached - 1)]),
            **_rope(rng),
        }
    )(rng.randint(2, 60)),
    "rope_interpolated_angle": lambda rng: (
        lambda train, s: {
            "position": rng.randint(train + 1, train * s - 1),
            "train_len": train,
            "target_len": train * s,
            **_rope(rng),
        }
    )(rng.choice([2048, 4096]), rng.choice([2, 4, 8])),
    "alibi_slope": lambda rng: (lambda h: {"n_heads": h, "head": rng.randint(2, h)})(
        rng.choice([4, 8, 16, 32, 64])
    ),
    "alibi_bias": lambda rng: (
        lambda h: {"n_heads": h, "head": rng.randint(2, h), "distance": rng.randint(2, 500)}
    )(rng.choice([4, 8, 16, 32, 64])),
    "sliding_window_reach": lambda rng: {
        "n_layers": rng.randint(2, 80),
        "window": rng.choice([128, 512, 4096]),
    },
    "rolling_cache_tokens": _cache,
    "rolling_cache_bytes": lambda rng: {
        "n_layers": rng.choice([24, 32, 40]),
        "n_kv_heads": rng.choice([1, 8, 32]),
        "d_head": rng.choice([64, 128]),
        "bytes_per_element": rng.choice([1, 2, 4]),
        "batch": rng.randint(1, 8),
        **_cache(rng),
    },
    "sparse_attention_pairs": _sparse,
    "sparse_attention_savings": _sparse,
    "mixing_flops": lambda rng: {
        "seq_len": rng.choice([512, 1000, 4096, 32768]),
        "d_head": rng.choice([64, 96, 128]),
        "n_heads": rng.choice([2, 8, 32]),
        "kind": rng.choice(["softmax", "linear"]),
    },
    "linear_attention_crossover": lambda rng: {
        "d_head": rng.choice([32, 64, 80, 96, 128, 256]),
        "n_heads": rng.choice([2, 8, 16, 32]),
    },
}
