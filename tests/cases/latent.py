"""Random valid arguments for the MLA (engine/calculators/latent.py) and tensor-parallel
(engine/calculators/parallel.py) calculators."""

from __future__ import annotations

import random
from typing import Any


def _mla_cache(rng: random.Random) -> dict[str, Any]:
    with_heads = rng.random() < 0.7
    return {
        "n_layers": rng.choice([2, 27, 32, 60, 61]),
        "kv_lora_rank": rng.choice([128, 256, 512, 1024]),
        "rope_dim": rng.choice([32, 64]),
        "bytes_per_element": rng.choice([1, 2, 4]),
        "n_heads": rng.choice([16, 32, 128]) if with_heads else None,
        "d_head": rng.choice([64, 128]) if with_heads else None,
    }


def _tp_split(rng: random.Random) -> tuple[int, int, int]:
    """(n_heads, n_kv_heads, tp) that split evenly, with n_kv below, equal to and above tp."""
    tp = rng.choice([1, 2, 4, 8, 16])
    n_heads = tp * rng.choice([1, 2, 4, 8])
    divisors = [k for k in range(1, n_heads + 1) if n_heads % k == 0 and (k % tp == 0 or tp % k == 0)]
    return n_heads, rng.choice(divisors), tp


def _tp_cache(rng: random.Random) -> dict[str, Any]:
    h, g, tp = _tp_split(rng)
    return {
        "n_layers": rng.choice([2, 32, 80]),
        "n_heads": h,
        "n_kv_heads": g,
        "d_head": rng.choice([64, 128]),
        "seq_len": rng.choice([1000, 2048, 4096]),
        "batch": rng.randint(1, 16),
        "bytes_per_element": rng.choice([1, 2, 4]),
        "tp": tp,
        "scope": rng.choice(["per_gpu", "all_gpus"]),
    }


def _tp_heads(rng: random.Random) -> dict[str, Any]:
    h, g, tp = _tp_split(rng)
    return {"n_heads": h, "n_kv_heads": g, "tp": tp, "which": rng.choice(["query", "kv", "kv_replicas"])}


def _tp_params(rng: random.Random) -> dict[str, Any]:
    h, g, tp = _tp_split(rng)
    return {
        "d_model": h * rng.choice([64, 128]),
        "n_heads": h,
        "n_kv_heads": g,
        "tp": tp,
        "n_layers": rng.choice([1, 1, 2, 32, 80]),
    }


def _tp_allreduce(rng: random.Random) -> dict[str, Any]:
    scope = rng.choice(["message", "ring_per_gpu", "forward"])
    return {
        "batch": rng.randint(1, 32),
        "seq_len": rng.choice([1, 128, 2048, 4096]),
        "d_model": rng.choice([1024, 4096, 5120, 8192]),
        "bytes_per_element": rng.choice([1, 2, 4]),
        "tp": rng.choice([2, 4, 8]) if scope == "ring_per_gpu" else rng.choice([1, 2, 4, 8]),
        "n_layers": rng.choice([1, 24, 32, 80]),
        "scope": scope,
    }


ARGS = {
    "mla_cache_bytes_per_token": _mla_cache,
    "mla_cache_bytes": lambda rng: {
        **_mla_cache(rng),
        "seq_len": rng.choice([512, 4096, 32768, 131072]),
        "batch": rng.randint(1, 32),
    },
    "mla_cache_ratio": lambda rng: {
        "n_kv_heads": rng.choice([1, 2, 8, 16, 32, 128]),
        "d_head": rng.choice([64, 128]),
        "kv_lora_rank": rng.choice([256, 512, 1024]),
        "rope_dim": rng.choice([32, 64]),
    },
    "mla_equivalent_gqa_groups": lambda rng: {
        "d_head": rng.choice([64, 128, 256]),
        "kv_lora_rank": rng.choice([256, 512, 1024]),
        "rope_dim": rng.choice([32, 64]),
    },
    "mla_shape": lambda rng: {
        "batch": rng.randint(1, 8),
        "seq_len": rng.choice([1, 16, 128]),
        "kv_len": rng.choice([256, 4096, 8192]),
        "n_heads": rng.choice([16, 32, 128]),
        "kv_lora_rank": rng.choice([256, 512]),
        "rope_dim": rng.choice([32, 64]),
        "d_nope": rng.choice([64, 128]),
        "stage": rng.choice(["latent_cache", "rope_key_cache", "absorbed_query", "w_uk", "absorbed_context"]),
    },
    "tp_heads_per_gpu": _tp_heads,
    "tp_kv_cache_bytes": _tp_cache,
    "tp_attention_params_per_gpu": _tp_params,
    "tp_allreduce_bytes": _tp_allreduce,
}
