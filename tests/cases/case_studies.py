"""Sample arguments for the case-study calculators (quantities one step hands the next)."""

from __future__ import annotations

from typing import Any

_SPLITS = {"m1": -0.5, "m2": 3.0, "m3": 1.0, "l1": 9.5, "l2": 11.5, "l3": 4.0}
_ROPE = {
    "high_wavelength": 2048,
    "low_wavelength": 8192,
    "factor": 8,
    "original_context": 8192,
    "low_freq_factor": 1,
    "high_freq_factor": 4,
}

SAMPLES: list[tuple[str, dict[str, Any]]] = [
    ("sharded_weight_bytes", {"n_params": 70e9, "bytes_per_param": 2, "tp": 8}),
    ("free_memory_bytes", {"memory_gib": 79.647, "used_bytes": 17.5e9, "reserve_gib": 6}),
    ("free_memory_bytes", {"memory_gib": 79.647, "used_bytes": 17.5e9, "reserve_gib": 6, "nominal_gb": 80}),
    ("fit_count", {"capacity": 56.5e9, "per_item": 5.37e9}),
    (
        "decode_step_ms",
        {"weight_bytes": 17.5e9, "kv_bytes_per_seq": 5.37e9, "batch": 10, "bandwidth_gb_s": 3350},
    ),
    ("compute_time_ms", {"flops": 8e14, "tflops": 989.5, "n_gpus": 8, "mfu": 0.5}),
    ("transfer_time_ms", {"n_bytes": 6.7e7, "link_gb_s": 900}),
    ("transfer_time_ms", {"n_bytes": 6.7e7, "link_gb_s": 64, "bidirectional": False}),
    ("ridge_point", {"tflops": 989.5, "bandwidth_gb_s": 3350}),
    ("quantity_ratio", {"numerator": 83.2e9, "denominator": 14.5e9}),
    ("add_bytes", {"first": 128e9, "second": 7.5e9}),
    ("local_global_layers", {"n_layers": 62, "period": 6, "which": "global"}),
    ("local_global_layers", {"n_layers": 62, "period": 6, "which": "local"}),
    ("spec_expected_tokens", {"alpha": 0.7, "gamma": 4}),
    ("spec_speedup", {"tokens_per_round": 2.77, "gamma": 4, "draft_cost": 0.2}),
    ("spec_best_gamma", {"alpha": 0.8, "draft_cost": 0.1, "max_gamma": 10}),
    ("prefill_attention_flops", {"n_layers": 32, "n_heads": 32, "d_head": 128, "seq_len": 8192}),
    (
        "prefill_attention_flops",
        {"n_layers": 32, "n_heads": 32, "d_head": 128, "seq_len": 8192, "causal": False},
    ),
    (
        "decode_attention_intensity",
        {"kind": "gqa", "n_heads": 32, "n_kv_heads": 8, "d_head": 128, "bytes_per_element": 2},
    ),
    (
        "decode_attention_intensity",
        {"kind": "gqa", "n_heads": 32, "n_kv_heads": 32, "d_head": 128, "bytes_per_element": 1},
    ),
    (
        "decode_attention_intensity",
        {"kind": "mla", "n_heads": 128, "kv_lora_rank": 512, "rope_dim": 64, "bytes_per_element": 2},
    ),
    (
        "quantized_kv_bytes_per_token",
        {"n_layers": 32, "n_kv_heads": 8, "d_head": 128, "bits": 4, "group_size": 64},
    ),
    ("ring_step_flops", {"block_len": 16384, "n_heads": 32, "d_head": 128}),
    (
        "kv_block_bytes",
        {"block_len": 16384, "n_kv_heads": 8, "d_head": 128, "bytes_per_element": 2, "n_heads": 32},
    ),
    ("min_overlap_block", {"block_len": 16384, "compute_ms": 8.9, "comm_ms": 0.15}),
    ("ceil_div", {"total": 113000, "piece": 4096}),
    ("split_kv_max", {"m1": -0.5, "m2": 3.0, "m3": 1.0}),
    ("split_kv_rescale", {"m_i": -0.5, "m_max": 3.0}),
    ("split_kv_denominator", {"m_max": 3.0, **_SPLITS}),
    ("split_kv_output", {"m_max": 3.0, "denominator": 12.26, **_SPLITS, "o1": 0.5, "o2": 1.5, "o3": -0.5}),
    ("llama3_rope_threshold", {"original_context": 8192, "freq_factor": 4}),
    ("llama3_rope_divisor", {"wavelength": 3000, **_ROPE}),
    ("llama3_rope_divisor", {"wavelength": 900, **_ROPE}),
    ("llama3_rope_divisor", {"wavelength": 18000, **_ROPE}),
    ("scaled_wavelength", {"wavelength": 3000, "divisor": 1.59}),
    ("crossover_batch", {"ridge": 295.4, "bytes_per_param": 2}),
    ("memory_time_ms", {"n_bytes": 16e9, "bandwidth_gb_s": 3350}),
    ("tokens_per_second", {"batch": 296, "step_ms": 1.79}),
    ("add_flops", {"first": 5.2e14, "second": 2.8e14}),
    ("shared_prefix_saving", {"prefix_bytes": 1.34e8, "requests": 56}),
    ("zero3_gpus_needed", {"state_bytes": 128.5e9, "activation_bytes": 4.3e9, "memory_gib": 79.647}),
    (
        "zero3_bytes_per_gpu",
        {"state_bytes": 128.5e9, "activation_bytes": 95e9, "n_gpus": 2, "memory_gib": 79.647},
    ),
    ("exact_split", {"total": 131072, "parts": 8}),
]


def _pick(rng: Any, *values: Any) -> Any:
    return rng.choice(values)


def _gqa_or_mla(rng: Any) -> dict[str, Any]:
    if rng.random() < 0.5:
        h = _pick(rng, 16, 32, 64, 128)
        return {
            "kind": "mla",
            "n_heads": h,
            "kv_lora_rank": _pick(rng, 256, 512),
            "rope_dim": _pick(rng, 32, 64),
            "bytes_per_element": _pick(rng, 1, 2),
        }
    h = _pick(rng, 16, 32, 64)
    return {
        "kind": "gqa",
        "n_heads": h,
        "n_kv_heads": _pick(rng, 1, 2, 4, 8, h),
        "d_head": _pick(rng, 64, 128),
        "bytes_per_element": _pick(rng, 1, 2),
    }


def _splits(rng: Any) -> dict[str, Any]:
    return {
        **{f"m{i}": rng.randint(-4, 12) / 2 for i in (1, 2, 3)},
        **{f"l{i}": rng.randint(3, 24) / 2 for i in (1, 2, 3)},
    }


def _divisor(rng: Any) -> dict[str, Any]:
    return {"wavelength": rng.uniform(500, 30000), **_ROPE}


ARGS: dict[str, Any] = {
    "sharded_weight_bytes": lambda r: {
        "n_params": _pick(r, 7e9, 8e9, 13e9, 70e9),
        "bytes_per_param": _pick(r, 1, 2),
        "tp": _pick(r, 2, 4, 8),
    },
    "free_memory_bytes": lambda r: {
        "memory_gib": _pick(r, 79.647, 80.0, 140.401, 179.062, 191.688),
        "used_bytes": r.randint(5, 40) * 1e9,
        "reserve_gib": r.randint(2, 10),
        "nominal_gb": _pick(r, None, 80, 141),
    },
    "fit_count": lambda r: {"capacity": r.uniform(1e10, 1e11), "per_item": r.uniform(1e8, 6e9)},
    "decode_step_ms": lambda r: {
        "weight_bytes": r.uniform(1e9, 4e10),
        "kv_bytes_per_seq": r.uniform(1e8, 6e9),
        "batch": r.randint(2, 64),
        "bandwidth_gb_s": _pick(r, 2039, 3350, 4800, 8000),
    },
    "compute_time_ms": lambda r: {
        "flops": r.uniform(1e13, 1e16),
        "tflops": _pick(r, 312, 989.5, 2250),
        "n_gpus": _pick(r, 2, 4, 8),
        "mfu": _pick(r, 0.3, 0.4, 0.5, 0.6),
    },
    "transfer_time_ms": lambda r: {
        "n_bytes": r.uniform(1e6, 1e9),
        "link_gb_s": _pick(r, 600, 896, 900, 1800),
    },
    "ridge_point": lambda r: {
        "tflops": _pick(r, 121, 312, 989.5, 1307.4, 2250),
        "bandwidth_gb_s": _pick(r, 300, 2039, 3350, 4800, 5300, 8000),
    },
    "quantity_ratio": lambda r: {"numerator": r.uniform(5, 100), "denominator": r.uniform(1.1, 4.9)},
    "add_bytes": lambda r: {"first": r.uniform(1e9, 1e11), "second": r.uniform(1e9, 1e11)},
    "local_global_layers": lambda r: {
        "n_layers": r.randint(20, 90),
        "period": _pick(r, 4, 6, 8),
        "which": _pick(r, "global", "local"),
    },
    "spec_expected_tokens": lambda r: {"alpha": r.randint(11, 19) / 20, "gamma": r.randint(2, 8)},
    "spec_speedup": lambda r: {
        "tokens_per_round": r.uniform(1.5, 5),
        "gamma": r.randint(2, 8),
        "draft_cost": _pick(r, 0.05, 0.1, 0.2),
    },
    "spec_best_gamma": lambda r: {
        "alpha": r.randint(11, 17) / 20,
        "draft_cost": _pick(r, 0.1, 0.15, 0.2),
        "max_gamma": r.randint(9, 14),
    },
    "prefill_attention_flops": lambda r: {
        "n_layers": _pick(r, 32, 80),
        "n_heads": _pick(r, 32, 64),
        "d_head": 128,
        "seq_len": r.randint(1, 64) * 512,
        "causal": r.random() < 0.7,
    },
    "decode_attention_intensity": _gqa_or_mla,
    "quantized_kv_bytes_per_token": lambda r: {
        "n_layers": _pick(r, 32, 80),
        "n_kv_heads": _pick(r, 4, 8),
        "d_head": 128,
        "bits": _pick(r, 2, 4),
        "group_size": _pick(r, 32, 64, 128),
    },
    "ring_step_flops": lambda r: {
        "block_len": _pick(r, 2048, 4096, 8192),
        "n_heads": _pick(r, 32, 64),
        "d_head": 128,
    },
    "kv_block_bytes": lambda r: {
        "block_len": _pick(r, 2048, 4096),
        "n_kv_heads": _pick(r, 4, 8),
        "d_head": 128,
        "bytes_per_element": _pick(r, 1, 2, 4),
        "n_heads": _pick(r, 32, 64),
    },
    "min_overlap_block": lambda r: {
        "block_len": _pick(r, 4096, 8192, 16384),
        "compute_ms": r.uniform(1, 10),
        "comm_ms": r.uniform(0.05, 0.9),
    },
    "ceil_div": lambda r: {"total": r.randint(10000, 130000), "piece": _pick(r, 1024, 2048, 4096)},
    "split_kv_max": lambda r: {f"m{i}": r.randint(-4, 12) / 2 for i in (1, 2, 3)},
    "split_kv_rescale": lambda r: {"m_i": r.randint(-4, 4) / 2, "m_max": r.randint(5, 12) / 2},
    "split_kv_denominator": lambda r: {"m_max": 6.0, **_splits(r)},
    "split_kv_output": lambda r: {
        "m_max": 6.0,
        "denominator": r.uniform(2, 20),
        **_splits(r),
        **{f"o{i}": r.randint(-8, 8) / 4 for i in (1, 2, 3)},
    },
    "llama3_rope_threshold": lambda r: {
        "original_context": _pick(r, 4096, 8192),
        "freq_factor": _pick(r, 1, 2, 4),
    },
    "llama3_rope_divisor": _divisor,
    "scaled_wavelength": lambda r: {"wavelength": r.uniform(500, 30000), "divisor": r.uniform(1.2, 8)},
    "crossover_batch": lambda r: {"ridge": r.uniform(100, 420), "bytes_per_param": _pick(r, 1, 2)},
    "memory_time_ms": lambda r: {
        "n_bytes": r.uniform(1e9, 2e11),
        "bandwidth_gb_s": _pick(r, 300, 2039, 3350),
    },
    "tokens_per_second": lambda r: {"batch": r.randint(2, 512), "step_ms": r.uniform(2, 60)},
    "add_flops": lambda r: {"first": r.uniform(1e12, 1e15), "second": r.uniform(1e12, 1e15)},
    "shared_prefix_saving": lambda r: {"prefix_bytes": r.uniform(1e7, 1e9), "requests": r.randint(3, 64)},
    "zero3_gpus_needed": lambda r: {
        "state_bytes": r.uniform(1e11, 2e12),
        "activation_bytes": r.uniform(1e8, 5e10),
        "memory_gib": _pick(r, 79.647, 80.0, 140.401),
    },
    "zero3_bytes_per_gpu": lambda r: {
        "state_bytes": r.uniform(1e11, 2e12),
        "activation_bytes": r.uniform(1e8, 5e11),
        "n_gpus": r.randint(2, 64),
        "memory_gib": _pick(r, 79.647, 80.0, 140.401),
    },
    "exact_split": lambda r: {"total": _pick(r, 65536, 131072), "parts": _pick(r, 4, 8, 16)},
}
