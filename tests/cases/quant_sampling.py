"""Sample and random arguments for weight quantisation and sampling (engine/calculators/quant_sampling.py)."""

from __future__ import annotations

import random
from typing import Any

LOGITS = [[3.0, 1.0, 0.5, -1.0, -2.0]]

SAMPLES: list[tuple[str, dict[str, Any]]] = [
    ("quant_bits_per_weight", {"bits": 4, "group_size": 128}),
    ("quant_bits_per_weight", {"bits": 4, "group_size": 64, "zero_bits": 4}),
    ("quantized_weight_bytes", {"n_params": 8.03e9, "bits": 4, "group_size": 128}),
    ("quantized_weight_bytes", {"n_params": 70.6e9, "bits": 8}),
    ("weight_only_speedup", {"bits": 4, "group_size": 128, "zero_bits": 4}),
    ("weight_only_speedup", {"bits": 8}),
    (
        "quant_step_ms",
        {"weight_bytes": 4.14e9, "n_params": 8.03e9, "batch": 1, "bandwidth_gb_s": 3350, "tflops": 989.5},
    ),
    (
        "quant_step_ms",
        {
            "weight_bytes": 4.14e9,
            "n_params": 8.03e9,
            "batch": 256,
            "bandwidth_gb_s": 3350,
            "tflops": 989.5,
            "other_tflops": 1979,
        },
    ),
    ("quant_crossover_batch", {"tflops": 989.5, "bandwidth_gb_s": 3350, "bits": 4, "group_size": 128}),
    ("temperature_probability", {"logits": LOGITS, "temperature": 0.5, "col": 1}),
    ("top_k_probability", {"logits": LOGITS, "k": 2, "temperature": 1.0}),
    ("top_p_probability", {"logits": LOGITS, "p": 0.9, "temperature": 1.0}),
    ("lm_head_flops", {"vocab": 128256, "d_model": 4096, "batch": 8}),
    ("sort_to_head_ratio", {"vocab": 32000, "d_model": 4096}),
    ("sort_to_head_ratio", {"vocab": 128256, "batch": 64, "head_flops": 6.72e10}),
    ("nucleus_size", {"logits": LOGITS, "p": 0.95, "temperature": 1.5}),
]


def _logits(rng: random.Random) -> list[list[float]]:
    return [[float(rng.randint(-4, 6)) for _ in range(rng.randint(3, 8))]]


def _format(rng: random.Random) -> dict[str, Any]:
    return {
        "bits": rng.choice([2, 3, 4, 8]),
        "group_size": rng.choice([32, 64, 128, 256]),
        "scale_bits": rng.choice([16, 32]),
        "zero_bits": rng.choice([0, 4, 16]),
    }


def _step(rng: random.Random) -> dict[str, Any]:
    n = rng.choice([7.24e9, 8.03e9, 13.0e9, 70.6e9])
    return {
        "weight_bytes": n * rng.choice([0.0, 0.5, 0.515625, 1.0, 2.0]),
        "bits": rng.choice([4, 8, 16]),
        "n_params": n,
        "batch": rng.choice([1, 8, 64, 256, 512]),
        "bandwidth_gb_s": rng.choice([300.0, 2039.0, 3350.0, 4800.0, 8000.0]),
        "tflops": rng.choice([121.0, 312.0, 989.5, 1979.0]),
        "other_tflops": rng.choice([0.0, 242.5, 989.5, 1979.0]),
    }


ARGS: dict[str, Any] = {
    "quant_bits_per_weight": _format,
    "quantized_weight_bytes": lambda r: {"n_params": r.choice([6.74e9, 8.03e9, 70.6e9]), **_format(r)},
    "weight_only_speedup": lambda r: {**_format(r), "base_bits": r.choice([16, 32])},
    "quant_step_ms": _step,
    "quant_crossover_batch": lambda r: {
        "tflops": r.choice([121.0, 312.0, 989.5, 1979.0, 2614.9]),
        "bandwidth_gb_s": r.choice([300.0, 2039.0, 3350.0, 5300.0]),
        **_format(r),
    },
    "temperature_probability": lambda r: {
        "logits": (z := _logits(r)),
        "temperature": r.choice([0.3, 0.5, 0.7, 1.5, 2.0]),
        "col": r.randrange(len(z[0])),
    },
    "top_k_probability": lambda r: {
        "logits": (z := _logits(r)),
        "k": r.randint(1, len(z[0])),
        "temperature": r.choice([0.5, 1.0, 2.0]),
    },
    "top_p_probability": lambda r: {
        "logits": _logits(r),
        "p": r.choice([0.5, 0.8, 0.9, 0.95]),
        "temperature": r.choice([0.5, 1.0, 2.0]),
    },
    "lm_head_flops": lambda r: {
        "vocab": r.choice([32000, 50257, 128256]),
        "d_model": r.choice([768, 4096, 8192]),
        "batch": r.choice([1, 8, 64]),
    },
    "sort_to_head_ratio": lambda r: {
        "vocab": (v := r.choice([32000, 50257, 128256])),
        "d_model": (d := r.choice([768, 4096])),
        "batch": (b := r.choice([1, 32, 128])),
        "head_flops": r.choice([0.0, 2.0 * b * v * d, 3.1e10]),
    },
    "nucleus_size": lambda r: {
        "logits": _logits(r),
        "p": r.choice([0.5, 0.9, 0.95, 1.0]),
        "temperature": r.choice([0.5, 1.0, 1.8]),
    },
}
