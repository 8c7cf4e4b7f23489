"""Sample arguments for the calculators that debug a serving symptom back to its cause."""

from __future__ import annotations

from typing import Any

SAMPLES: list[tuple[str, dict[str, Any]]] = [
    ("kv_read_share", {"weight_bytes": 17.5e9, "kv_bytes_per_seq": 6.71e8, "batch": 64}),
    (
        "step_time_growth",
        {"weight_bytes": 17.5e9, "kv_bytes_per_seq": 6.71e8, "batch_before": 32, "batch_after": 64},
    ),
    ("hit_prefill_ms", {"miss_ms": 520.0, "prompt_tokens": 16384, "cached_tokens": 12288}),
    ("mixed_mean_ms", {"hit_ms": 130.0, "miss_ms": 520.0, "hit_rate": 0.8}),
    ("tail_percentile_of_misses", {"hit_rate": 0.8, "percentile": 99}),
    ("mm1_wait_percentile_ms", {"utilisation": 0.75, "service_ms": 208.0, "percentile": 99}),
    (
        "verify_pass_ms",
        {"step_ms": 9.0, "n_params": 8.03e9, "batch": 128, "tokens_per_seq": 5, "tflops": 989.5, "mfu": 0.5},
    ),
    (
        "spec_tpot_ms",
        {"verify_ms": 20.8, "step_ms": 9.0, "gamma": 4, "draft_cost": 0.1, "tokens_per_round": 1.33},
    ),
    ("rope_slow_pairs", {"d_head": 128, "base": 10000.0, "context": 32768}),
]


def _pick(rng: Any, *values: Any) -> Any:
    return rng.choice(values)


def _tail(rng: Any) -> dict[str, Any]:
    hit = _pick(rng, 0.5, 0.7, 0.8, 0.9)
    return {"hit_rate": hit, "percentile": _pick(rng, 95, 99, 99.5) if hit < 0.9 else _pick(rng, 95, 99)}


ARGS: dict[str, Any] = {
    "kv_read_share": lambda r: {
        "weight_bytes": r.uniform(1e9, 1.5e11),
        "kv_bytes_per_seq": r.uniform(1e7, 5e9),
        "batch": r.randint(1, 256),
    },
    "step_time_growth": lambda r: {
        "weight_bytes": r.uniform(1e9, 1.5e11),
        "kv_bytes_per_seq": r.uniform(1e7, 5e9),
        "batch_before": (b := r.randint(1, 128)),
        "batch_after": b * _pick(r, 2, 3, 4),
    },
    "hit_prefill_ms": lambda r: {
        "miss_ms": r.uniform(20, 5000),
        "prompt_tokens": (p := r.randint(1024, 131072)),
        "cached_tokens": r.randint(1, p - 1),
    },
    "mixed_mean_ms": lambda r: {
        "hit_ms": r.uniform(5, 500),
        "miss_ms": r.uniform(500, 5000),
        "hit_rate": r.uniform(0.05, 0.95),
    },
    "tail_percentile_of_misses": _tail,
    "mm1_wait_percentile_ms": lambda r: {
        "utilisation": r.uniform(0.3, 0.97),
        "service_ms": r.uniform(10, 2000),
        "percentile": _pick(r, 90, 95, 99),
    },
    "verify_pass_ms": lambda r: {
        "step_ms": r.uniform(2, 60),
        "n_params": _pick(r, 8.03e9, 7.24e9, 70.0e9 / 8),
        "batch": r.randint(1, 256),
        "tokens_per_seq": r.randint(2, 9),
        "tflops": _pick(r, 312, 989.5, 1307.4, 2250),
        "mfu": _pick(r, 0.4, 0.5, 0.6),
    },
    "spec_tpot_ms": lambda r: {
        "verify_ms": r.uniform(2, 80),
        "step_ms": r.uniform(2, 60),
        "gamma": r.randint(1, 8),
        "draft_cost": _pick(r, 0.05, 0.1, 0.2),
        "tokens_per_round": r.uniform(1.05, 6),
    },
    "rope_slow_pairs": lambda r: {
        "d_head": _pick(r, 64, 128, 256),
        "base": _pick(r, 10000.0, 500000.0, 1000000.0),
        "context": _pick(r, 4096, 8192, 32768, 131072),
    },
}
