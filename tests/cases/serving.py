"""Random valid arguments for the compute and serving calculators (engine/calculators/serving.py)."""

from __future__ import annotations

import random
from typing import Any


def _model(rng: random.Random) -> dict[str, Any]:
    """A plausible decoder: layers, KV heads, head width and a parameter count near 12 L d^2."""
    n_layers = rng.choice([16, 24, 32, 40, 60, 80])
    d_head = rng.choice([64, 128])
    n_heads = rng.choice([16, 32, 64])
    d_model = n_heads * d_head
    n_kv = rng.choice([h for h in (1, 2, 4, 8, n_heads) if n_heads % h == 0])
    return {
        "n_params": float(12 * n_layers * d_model**2 * rng.choice([0.8, 1.0, 1.3])),
        "n_layers": n_layers,
        "d_model": d_model,
        "n_heads": n_heads,
        "n_kv_heads": n_kv,
        "d_head": d_head,
    }


def _flops(rng: random.Random) -> dict[str, Any]:
    return {
        "n_params": rng.choice([1.3e9, 6.74e9, 13e9, 70e9, 175e9]),
        "tokens": float(rng.choice([1, 1000, 4096, 2e12])),
        "mode": rng.choice(["inference", "training"]),
    }


def _share(rng: random.Random) -> dict[str, Any]:
    m = _model(rng)
    crossover = m["n_params"] / (m["n_layers"] * m["d_model"])
    # contexts from 10% to 10x the crossover keep attention's share between about 9% and 91%
    return {
        "n_params": m["n_params"],
        "n_layers": m["n_layers"],
        "d_model": m["d_model"],
        "context": max(1, int(crossover * rng.choice([0.1, 0.3, 1.0, 3.0, 10.0]))),
    }


def _crossover(rng: random.Random) -> dict[str, Any]:
    m = _model(rng)
    return {"n_params": m["n_params"], "n_layers": m["n_layers"], "d_model": m["d_model"]}


def _decode(rng: random.Random) -> dict[str, Any]:
    m = _model(rng)
    return {
        "n_params": m["n_params"],
        "bytes_per_param": rng.choice([1, 2, 2, 4]),
        "n_layers": m["n_layers"],
        "n_kv_heads": m["n_kv_heads"],
        "d_head": m["d_head"],
        "kv_bytes_per_element": rng.choice([1, 2]),
        "context": rng.choice([512, 2048, 4096, 16384]),
        "batch": rng.choice([1, 2, 8, 32, 64]),
        "bandwidth_gb_s": rng.choice([900.0, 2039.0, 3350.0]),
        "which": rng.choice(["per_sequence", "total"]),
    }


def _fit(rng: random.Random) -> dict[str, Any]:
    m = _model(rng)
    nbytes = rng.choice([1, 2])
    memory = rng.choice([80.0, 141.0, 192.0, 320.0, 640.0])
    while m["n_params"] * nbytes * 1.1 > memory * 2**30:  # leave room for some cache
        memory *= 2
    return {
        "n_params": m["n_params"],
        "bytes_per_param": nbytes,
        "n_layers": m["n_layers"],
        "n_kv_heads": m["n_kv_heads"],
        "d_head": m["d_head"],
        "kv_bytes_per_element": rng.choice([1, 2]),
        "seq_len": rng.choice([1000, 2048, 4096, 8192]),
        "memory_gib": memory,
        "n_heads": rng.choice([None, m["n_heads"]]),
    }


def _intensity(rng: random.Random) -> dict[str, Any]:
    return {"tokens": rng.choice([1, 3, 8, 32, 64, 256, 2048]), "bytes_per_param": rng.choice([1, 2, 4])}


def _blocks(rng: random.Random) -> dict[str, Any]:
    return {
        "seq_len": rng.randint(1, 5000),
        "block_size": rng.choice([8, 16, 32]),
        "batch": rng.choice([1, 1, 4, 16]),
        "which": rng.choice(["blocks", "wasted_slots"]),
    }


def _waste(rng: random.Random) -> dict[str, Any]:
    m = _model(rng)
    return {
        "block_size": rng.choice([4, 8, 16, 32]),
        "n_layers": m["n_layers"],
        "n_kv_heads": m["n_kv_heads"],
        "d_head": m["d_head"],
        "kv_bytes_per_element": rng.choice([1, 2, 4]),
        "batch": rng.choice([1, 8, 64, 256]),
    }


ARGS = {
    "model_flops": _flops,
    "attention_flop_share": _share,
    "attention_crossover_context": _crossover,
    "decode_tokens_per_second": _decode,
    "sequences_that_fit": _fit,
    "arithmetic_intensity": _intensity,
    "paged_kv_blocks": _blocks,
    "paged_kv_expected_waste": _waste,
}
