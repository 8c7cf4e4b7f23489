"""Sample and random valid arguments for the pipeline and alpha-beta calculators
(engine/calculators/pipeline_comms.py)."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

SAMPLES: list[tuple[str, dict[str, Any]]] = [
    ("pipeline_bubble_fraction", {"p": 8, "m": 32}),
    ("pipeline_bubble_fraction", {"p": 8, "m": 32, "v": 4, "relative_to": "ideal"}),
    ("pipeline_bubble_fraction", {"p": 4, "m": 16, "v": 2}),
    ("pipeline_step_ms", {"stage_ms": 12.5, "p": 4, "m": 16}),
    ("pipeline_step_ms", {"stage_ms": 6.0, "p": 8, "m": 32, "v": 2, "comm_ms": 0.12, "comm_ops": 40}),
    ("pipeline_microbatches_for_bubble", {"p": 8, "target": 0.05}),
    ("pipeline_microbatches_for_bubble", {"p": 16, "target": 0.1, "v": 4}),
    ("pipeline_activation_bytes", {"act_bytes_per_layer": 2.5e8, "n_layers": 48, "p": 8, "m": 64}),
    (
        "pipeline_activation_bytes",
        {"act_bytes_per_layer": 2.5e8, "n_layers": 48, "p": 8, "m": 64, "schedule": "gpipe"},
    ),
    ("alpha_beta_time", {"n_bytes": 65536, "alpha_us": 5.0, "bandwidth_gb_s": 200.0}),
    ("alpha_beta_time", {"n_bytes": 1e6, "alpha_us": 8.0, "bandwidth_gb_s": 50.0, "messages": 12}),
    ("allreduce_time", {"n_bytes": 8.4e6, "p": 8, "alpha_us": 6.0, "bandwidth_gb_s": 300.0}),
    (
        "allreduce_time",
        {"n_bytes": 65536, "p": 64, "alpha_us": 4.0, "bandwidth_gb_s": 100.0, "algorithm": "tree"},
    ),
    (
        "allreduce_time",
        {"n_bytes": 8.4e6, "p": 8, "alpha_us": 6.0, "bandwidth_gb_s": 300.0, "term": "bandwidth"},
    ),
    (
        "allreduce_time",
        {"n_bytes": 8.4e6, "p": 16, "alpha_us": 6.0, "bandwidth_gb_s": 300.0, "term": "latency"},
    ),
    ("allreduce_latency_bound_bytes", {"p": 8, "alpha_us": 5.0, "bandwidth_gb_s": 300.0}),
    (
        "allreduce_latency_bound_bytes",
        {"p": 64, "alpha_us": 5.0, "bandwidth_gb_s": 50.0, "algorithm": "tree"},
    ),
    ("tp_allreduce_volume", {"d_model": 8192, "bytes_per_element": 2, "n_layers": 80, "tp": 8}),
    (
        "tp_allreduce_volume",
        {"d_model": 4096, "bytes_per_element": 2, "n_layers": 32, "tokens": 4096, "passes": "training"},
    ),
    ("tp_allreduce_count", {"n_layers": 96, "p": 8, "m": 24}),
    ("tp_allreduce_count", {"n_layers": 32, "p": 4, "m": 8, "passes": "forward"}),
]


def _pick(rng: random.Random, *values: Any) -> Any:
    return rng.choice(values)


def _layers_and_p(rng: random.Random) -> tuple[int, int]:
    p = _pick(rng, 2, 4, 8, 16)
    return p * rng.randint(1, 12), p


def _activations(rng: random.Random) -> dict[str, Any]:
    n_layers, p = _layers_and_p(rng)
    return {
        "act_bytes_per_layer": rng.uniform(1e7, 2e9),
        "n_layers": n_layers,
        "p": p,
        "m": rng.randint(1, 128),
        "schedule": _pick(rng, "1f1b", "gpipe"),
        "stage": rng.randint(1, p),
    }


def _count(rng: random.Random) -> dict[str, Any]:
    n_layers, p = _layers_and_p(rng)
    return {
        "n_layers": n_layers,
        "p": p,
        "m": rng.randint(1, 64),
        "passes": _pick(rng, "forward", "training"),
    }


ARGS: dict[str, Callable[[random.Random], dict[str, Any]]] = {
    "pipeline_bubble_fraction": lambda r: {
        "p": r.randint(2, 32),
        "m": r.randint(1, 256),
        "v": _pick(r, 1, 1, 2, 4),
        "relative_to": _pick(r, "step", "ideal"),
    },
    "pipeline_step_ms": lambda r: {
        "stage_ms": r.uniform(0.5, 80.0),
        "p": r.randint(2, 32),
        "m": r.randint(1, 128),
        "v": _pick(r, 1, 2, 4),
        "comm_ms": _pick(r, 0.0, r.uniform(0.005, 2.0)),
        "comm_ops": _pick(r, 0, 1, 16, 48),
    },
    "pipeline_microbatches_for_bubble": lambda r: {
        "p": r.randint(2, 64),
        "target": _pick(r, 0.01, 0.02, 0.05, 0.1, 0.2, 0.3, 0.5),
        "v": _pick(r, 1, 2, 3, 4),
    },
    "pipeline_activation_bytes": _activations,
    "alpha_beta_time": lambda r: {
        "n_bytes": float(_pick(r, 8, 1024, 65536, 1e6, 3.3e7, 1e9)),
        "alpha_us": r.uniform(0.5, 30.0),
        "bandwidth_gb_s": _pick(r, 12.5, 25.0, 50.0, 200.0, 450.0),
        "messages": _pick(r, 1, 1, 4, 96),
    },
    "allreduce_time": lambda r: {
        "n_bytes": float(_pick(r, 1024, 65536, 1e6, 3.3e7, 1e9)),
        "p": r.randint(2, 512),
        "alpha_us": r.uniform(0.5, 30.0),
        "bandwidth_gb_s": _pick(r, 12.5, 25.0, 50.0, 200.0, 450.0),
        "algorithm": _pick(r, "ring", "tree"),
        "term": _pick(r, "total", "latency", "bandwidth"),
    },
    "allreduce_latency_bound_bytes": lambda r: {
        "p": r.randint(2, 512),
        "alpha_us": r.uniform(0.5, 30.0),
        "bandwidth_gb_s": _pick(r, 12.5, 25.0, 50.0, 200.0, 450.0),
        "algorithm": _pick(r, "ring", "tree"),
    },
    "tp_allreduce_volume": lambda r: {
        "d_model": _pick(r, 768, 4096, 5120, 8192, 12288),
        "bytes_per_element": _pick(r, 1, 2, 4),
        "n_layers": r.randint(1, 96),
        "tokens": _pick(r, 1, 512, 4096),
        "passes": _pick(r, "forward", "training"),
        "tp": _pick(r, 1, 2, 8),
    },
    "tp_allreduce_count": _count,
}
