"""Sample arguments for the queueing calculators: Little's law, a busy server, goodput, admission, scaling."""

from __future__ import annotations

from typing import Any

SAMPLES: list[tuple[str, dict[str, Any]]] = [
    ("little_concurrency", {"arrival_rate": 40, "latency_ms": 6500}),
    ("little_arrival_rate", {"concurrency": 256, "latency_ms": 9000}),
    *[
        ("queue_wait_ms", {"service_ms": 180, "utilisation": 0.75, "service": s, "part": p})
        for s in ("exponential", "deterministic")
        for p in ("queue", "system")
    ],
    ("latency_blowup", {"rho_before": 0.6, "rho_after": 0.9}),
    ("max_rate_for_latency", {"service_ms": 120, "latency_ms": 400}),
    ("slo_goodput_rate", {"service_ms": 80, "slo_ms": 900, "attainment": 0.9}),
    (
        "goodput_from_counts",
        {"completed": 1800, "ttft_misses": 120, "tpot_misses": 90, "both_misses": 30, "window_s": 60},
    ),
    ("admission_kv_bytes", {"per_token_bytes": 131072, "prompt_tokens": 3000, "max_new_tokens": 1000}),
    (
        "admission_count",
        {"capacity_gib": 38.5, "per_token_bytes": 131072, "prompt_tokens": 3000, "max_new_tokens": 1000},
    ),
    (
        "replicas_for_occupancy",
        {"concurrency": 260, "per_request_bytes": 5.2e8, "capacity_gib": 40, "target_occupancy": 0.7},
    ),
    ("kv_occupancy", {"concurrency": 260, "per_request_bytes": 5.2e8, "capacity_gib": 40, "replicas": 6}),
    ("prefill_utilisation", {"arrival_rate": 30, "replicas": 6, "prefill_ms": 120}),
    ("interfered_tpot_ms", {"decode_step_ms": 25, "prefill_ms": 150, "arrival_rate": 4}),
    ("prefill_instances", {"arrival_rate": 30, "prefill_ms": 250, "target_utilisation": 0.7}),
    ("decode_instances", {"arrival_rate": 30, "output_tokens": 400, "tpot_ms": 40, "max_batch": 64}),
]


def _pick(rng: Any, *values: Any) -> Any:
    return rng.choice(values)


def _counts(r: Any) -> dict[str, Any]:
    completed = r.randint(200, 5000)
    ttft = r.randint(0, completed // 4)
    tpot = r.randint(0, completed // 4)
    return {
        "completed": completed,
        "ttft_misses": ttft,
        "tpot_misses": tpot,
        "both_misses": r.randint(0, min(ttft, tpot)),
        "window_s": _pick(r, 30, 60, 120),
    }


ARGS: dict[str, Any] = {
    "little_concurrency": lambda r: {"arrival_rate": r.uniform(1, 200), "latency_ms": r.uniform(200, 30000)},
    "little_arrival_rate": lambda r: {"concurrency": r.randint(8, 512), "latency_ms": r.uniform(200, 30000)},
    "queue_wait_ms": lambda r: {
        "service_ms": r.uniform(20, 800),
        "utilisation": r.uniform(0.05, 0.95),
        "service": _pick(r, "exponential", "deterministic"),
        "part": _pick(r, "queue", "system"),
    },
    "latency_blowup": lambda r: {"rho_before": r.uniform(0.1, 0.6), "rho_after": r.uniform(0.65, 0.97)},
    "max_rate_for_latency": lambda r: {"service_ms": r.uniform(20, 300), "latency_ms": r.uniform(400, 3000)},
    "slo_goodput_rate": lambda r: {
        "service_ms": r.uniform(20, 150),
        "slo_ms": r.uniform(1000, 4000),
        "attainment": _pick(r, 0.5, 0.9, 0.95, 0.99),
    },
    "goodput_from_counts": _counts,
    "admission_kv_bytes": lambda r: {
        "per_token_bytes": _pick(r, 32768, 131072, 327680, 524288),
        "prompt_tokens": r.randint(100, 16000),
        "max_new_tokens": r.randint(64, 4096),
    },
    "admission_count": lambda r: {
        "capacity_gib": r.uniform(10, 120),
        "per_token_bytes": _pick(r, 32768, 131072, 327680),
        "prompt_tokens": r.randint(100, 8000),
        "max_new_tokens": r.randint(64, 4096),
    },
    "replicas_for_occupancy": lambda r: {
        "concurrency": r.uniform(10, 800),
        "per_request_bytes": r.uniform(1e8, 2e9),
        "capacity_gib": r.uniform(10, 120),
        "target_occupancy": r.uniform(0.5, 0.95),
    },
    "kv_occupancy": lambda r: {
        "concurrency": r.uniform(10, 800),
        "per_request_bytes": r.uniform(1e8, 2e9),
        "capacity_gib": r.uniform(10, 120),
        "replicas": r.randint(1, 32),
    },
    "prefill_utilisation": lambda r: {
        "arrival_rate": r.uniform(1, 100),
        "replicas": r.randint(1, 32),
        "prefill_ms": r.uniform(20, 800),
    },
    "interfered_tpot_ms": lambda r: {
        "decode_step_ms": r.uniform(10, 60),
        "prefill_ms": r.uniform(50, 400),
        "arrival_rate": r.uniform(0.1, 2),
    },
    "prefill_instances": lambda r: {
        "arrival_rate": r.uniform(1, 100),
        "prefill_ms": r.uniform(20, 800),
        "target_utilisation": r.uniform(0.5, 0.9),
    },
    "decode_instances": lambda r: {
        "arrival_rate": r.uniform(1, 100),
        "output_tokens": r.randint(50, 2000),
        "tpot_ms": r.uniform(10, 80),
        "max_batch": _pick(r, 32, 64, 128, 256),
    },
}
