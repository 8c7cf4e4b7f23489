"""Sample arguments for the mixture-of-experts calculators (engine/calculators/moe.py)."""

from __future__ import annotations

from typing import Any

_MIXTRAL = {"d_model": 4096, "d_ff": 14336, "n_experts": 8, "top_k": 2, "n_moe_layers": 32}
_DSV3 = {"d_model": 7168, "d_ff": 2048, "n_experts": 256, "top_k": 8, "n_moe_layers": 58, "n_shared": 1}

SAMPLES: list[tuple[str, dict[str, Any]]] = [
    ("moe_expert_params", {**_MIXTRAL, "which": "total"}),
    ("moe_expert_params", {**_DSV3, "which": "active"}),
    ("moe_token_flops", {**_MIXTRAL, "dense_params": 1.6e9, "tokens": 1000}),
    ("moe_alltoall_bytes", {"tokens": 4096, "d_model": 7168, "top_k": 8, "bytes_per_element": 2}),
    (
        "moe_alltoall_bytes",
        {"tokens": 64, "d_model": 7168, "top_k": 8, "bytes_per_element": 1, "n_moe_layers": 58, "ep": 32},
    ),
    ("moe_expert_capacity", {"tokens": 1000, "n_experts": 64, "top_k": 2, "capacity_factor": 1.25}),
    (
        "moe_dropped_tokens",
        {
            "tokens": 4096,
            "n_experts": 64,
            "top_k": 2,
            "capacity_factor": 1.25,
            "hot_experts": 3,
            "hot_ratio": 2,
        },
    ),
    (
        "moe_hot_expert_ms",
        {
            "tokens": 8192,
            "n_experts": 64,
            "top_k": 8,
            "hot_ratio": 3,
            "d_model": 7168,
            "d_ff": 2048,
            "tflops": 989.5,
        },
    ),
    (
        "moe_weights_per_gpu",
        {"dense_params": 12e9, "expert_params": 380e9, "ep": 4, "tp": 8, "bytes_per_param": 1},
    ),
    ("moe_experts_touched", {"n_experts": 256, "top_k": 8, "batch": 16}),
    (
        "moe_ridge_batch",
        {"tflops": 989.5, "bandwidth_gb_s": 3350, "n_experts": 256, "top_k": 8, "bytes_per_param": 1},
    ),
]


def _pick(rng: Any, *values: Any) -> Any:
    return rng.choice(values)


def _routing(r: Any) -> dict[str, Any]:
    """Experts, top-k and a token count whose assignments split evenly (an even share of a multiple of 4)."""
    n_experts = _pick(r, 8, 16, 64, 128, 256)
    top_k = _pick(r, 1, 2, 4, 8)
    share = 4 * r.randint(1, 64)
    tokens = share * n_experts // top_k
    return {"n_experts": n_experts, "top_k": top_k, "tokens": tokens}


ARGS: dict[str, Any] = {
    "moe_expert_params": lambda r: {
        "d_model": _pick(r, 2048, 4096, 6144, 7168),
        "d_ff": _pick(r, 1408, 2048, 14336),
        "n_experts": _pick(r, 8, 64, 160, 256),
        "top_k": _pick(r, 1, 2, 6, 8),
        "n_moe_layers": r.randint(1, 64),
        "n_shared": _pick(r, 0, 1, 2),
        "matrices": _pick(r, 2, 3),
        "which": _pick(r, "total", "active"),
    },
    "moe_token_flops": lambda r: {
        "dense_params": r.uniform(1e8, 2e10),
        "d_model": _pick(r, 2048, 4096, 7168),
        "d_ff": _pick(r, 1408, 2048, 14336),
        "n_experts": _pick(r, 8, 64, 256),
        "top_k": _pick(r, 1, 2, 8),
        "n_moe_layers": r.randint(1, 64),
        "n_shared": _pick(r, 0, 1),
        "tokens": r.randint(1, 4096),
    },
    "moe_alltoall_bytes": lambda r: {
        "tokens": r.randint(1, 16384),
        "d_model": _pick(r, 4096, 5120, 7168),
        "top_k": _pick(r, 1, 2, 4, 8),
        "bytes_per_element": _pick(r, 1, 2),
        "n_moe_layers": _pick(r, 1, 32, 58),
        "ep": _pick(r, 0, 8, 32, 64),
    },
    "moe_expert_capacity": lambda r: {
        **_routing(r),
        "tokens": r.randint(64, 65536),
        "capacity_factor": _pick(r, 1.0, 1.25, 1.5, 2.0),
    },
    "moe_dropped_tokens": lambda r: {
        **_routing(r),
        "capacity_factor": _pick(r, 1.0, 1.25, 1.5),
        "hot_experts": _pick(r, 1, 2, 3),
        "hot_ratio": _pick(r, 1.5, 2, 2.5),
    },
    "moe_hot_expert_ms": lambda r: {
        **_routing(r),
        "hot_ratio": _pick(r, 1.5, 2, 3),
        "d_model": _pick(r, 4096, 7168),
        "d_ff": _pick(r, 2048, 14336),
        "tflops": _pick(r, 312.0, 989.5, 2250.0),
    },
    "moe_weights_per_gpu": lambda r: {
        "dense_params": r.uniform(2e9, 4e10),
        "expert_params": r.uniform(4e10, 7e11),
        "ep": _pick(r, 2, 4, 8),
        "tp": _pick(r, 1, 2, 4, 8),
        "bytes_per_param": _pick(r, 0.5, 1, 2),
    },
    "moe_experts_touched": lambda r: {
        "n_experts": _pick(r, 8, 64, 160, 256),
        "top_k": _pick(r, 1, 2, 6, 8),
        "batch": r.randint(1, 512),
    },
    "moe_ridge_batch": lambda r: {
        "tflops": _pick(r, 312.0, 989.5, 2250.0),
        "bandwidth_gb_s": _pick(r, 2039.0, 3350.0, 8000.0),
        "n_experts": _pick(r, 8, 64, 256),
        "top_k": _pick(r, 1, 2, 8),
        "bytes_per_param": _pick(r, 1, 2),
    },
}
