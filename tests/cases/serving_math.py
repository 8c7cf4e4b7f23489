"""Random valid arguments for the staff-level serving and long-range calculators
(engine/calculators/serving_math.py, serving_capacity.py and long_range.py)."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any


def _spec(rng: random.Random) -> dict[str, Any]:
    return {
        "acceptance": rng.choice([0.5, 0.6, 0.7, 0.75, 0.8, 0.9]),
        "draft_tokens": rng.randint(2, 8),
        "draft_cost": rng.choice([0.02, 0.05, 0.1, 0.2]),
        "which": rng.choice(["tokens", "speedup"]),
    }


def _roofline(rng: random.Random) -> dict[str, Any]:
    return {
        "peak_tflops": rng.choice([121.0, 312.0, 989.0, 2250.0]),
        "bandwidth_tb_s": rng.choice([0.3, 2.0, 3.35, 4.8, 8.0]),
        "intensity": float(rng.choice([1, 2, 8, 32, 128, 600, 2000])),
        "which": rng.choice(["ridge", "attainable"]),
    }


def _latency(rng: random.Random) -> dict[str, Any]:
    return {
        "n_params": rng.choice([7e9, 8e9, 70e9, 405e9]),
        "prompt_tokens": rng.choice([512, 2000, 8192, 32768]),
        "peak_tflops": rng.choice([312.0, 989.0]),
        "mfu": rng.choice([0.3, 0.4, 0.5, 0.6]),
        "tpot_ms": rng.choice([8.0, 15.0, 30.0]),
        "output_tokens": rng.choice([50, 200, 500]),
        "which": rng.choice(["ttft", "total"]),
    }


def _kivi(rng: random.Random) -> dict[str, Any]:
    return {
        "n_layers": rng.choice([32, 40, 80]),
        "n_kv_heads": rng.choice([8, 32]),
        "d_head": 128,
        "seq_len": rng.choice([4096, 8192, 32768]),
        "batch": rng.randint(1, 8),
        "bits": rng.choice([2, 4]),
        "group_size": rng.choice([32, 64, 128]),
        "residual": rng.choice([0, 32, 128]),
    }


def _fit(rng: random.Random) -> dict[str, Any]:
    return {
        "weights_gib": rng.choice([130.4, 140.0, 754.0]),
        "cache_gib": rng.choice([40.0, 80.0, 160.0]),
        "gpu_gib": rng.choice([24.0, 80.0, 141.0]),
        "usable": rng.choice([0.85, 0.9, 1.0]),
    }


def _prefix(rng: random.Random) -> dict[str, Any]:
    return {
        "requests": rng.randint(2, 64),
        "prefix_tokens": rng.choice([500, 1000, 2000, 4000]),
        "unique_tokens": rng.choice([50, 100, 300, 1000]),
    }


def _split(rng: random.Random) -> dict[str, Any]:
    return {
        "batch": rng.choice([1, 2, 4]),
        "n_kv_heads": rng.choice([1, 8, 16]),
        "seq_len": rng.choice([8192, 32768, 131072]),
        "sms": rng.choice([108, 132]),
        "which": rng.choice(["splits", "chunk"]),
    }


def _local_global(rng: random.Random) -> dict[str, Any]:
    return {
        "n_layers": rng.choice([26, 34, 42, 46, 48, 62]),
        "local_per_global": rng.choice([1, 3, 5]),
        "window": rng.choice([512, 1024, 4096]),
        "seq_len": rng.choice([8192, 32768, 131072]),
        "n_kv_heads": rng.choice([4, 8, 16]),
        "d_head": rng.choice([128, 256]),
        "bytes_per_element": 2,
        "batch": rng.randint(1, 4),
    }


def _ring(rng: random.Random) -> dict[str, Any]:
    d = rng.choice([4096, 8192])
    return {
        "d_model": d,
        "d_kv": rng.choice([d, 1024, 512]),
        "bytes_per_element": 2,
        "peak_tflops": rng.choice([312.0, 989.0]),
        "link_gb_s": rng.choice([25.0, 50.0, 450.0, 900.0]),
    }


def _ntk(rng: random.Random) -> dict[str, Any]:
    return {
        "base": rng.choice([10000.0, 500000.0]),
        "scale": float(rng.choice([2, 4, 8, 16])),
        "d_head": rng.choice([64, 128]),
    }


def _llama31(rng: random.Random) -> dict[str, Any]:
    return {"pair": rng.randint(0, 63), "d_head": 128}


def _lambda(rng: random.Random) -> dict[str, Any]:
    return {"layer": rng.randint(1, 40)}


ARGS: dict[str, Callable[[random.Random], dict[str, Any]]] = {
    "speculative_decoding": _spec,
    "roofline": _roofline,
    "request_latency": _latency,
    "kivi_cache_bytes": _kivi,
    "gpus_to_fit": _fit,
    "prefix_cache_saving": _prefix,
    "split_kv_chunk": _split,
    "local_global_kv_bytes": _local_global,
    "ring_min_chunk": _ring,
    "ntk_scaled_base": _ntk,
    "llama31_rope_factor": _llama31,
    "diff_attention_lambda_init": _lambda,
}
