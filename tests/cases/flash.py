"""Random valid arguments for the FlashAttention and training-memory calculators."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any


def _row(n: int, rng: random.Random, low: int, high: int) -> list[list[int]]:
    return [[rng.randint(low, high) for _ in range(n)]]


def _online(rng: random.Random) -> dict[str, Any]:
    n_blocks, block = rng.randint(2, 4), rng.randint(1, 3)
    s, d_v = n_blocks * block, rng.randint(1, 3)
    which = rng.choice(["max", "scale", "sum", "acc", "output"])
    return {
        "scores": _row(s, rng, -3, 5),
        "values": [[rng.randint(-2, 4) for _ in range(d_v)] for _ in range(s)],
        "block_size": block,
        "blocks": rng.randint(2, n_blocks),
        "which": which,
        "col": rng.randrange(d_v),
    }


def _probs(rng: random.Random) -> list[list[float]]:
    n = rng.randint(2, 5)
    counts = [rng.randint(1, 9) for _ in range(n)]
    return [[c / sum(counts) for c in counts]]


def _sizes(rng: random.Random) -> dict[str, Any]:
    return {
        "batch": rng.randint(1, 16),
        "n_heads": rng.choice([2, 8, 12, 16, 32, 64]),
        "seq_len": rng.choice([128, 512, 1000, 2048, 4096, 8192]),
    }


ARGS: dict[str, Callable[[random.Random], dict[str, Any]]] = {
    "online_softmax": _online,
    "materialised_attention_bytes": lambda rng: {
        **_sizes(rng),
        "bytes_per_element": rng.choice([2, 2, 4]),
        "what": rng.choice(["memory", "traffic"]),
    },
    "attention_activation_bytes": lambda rng: {
        **_sizes(rng),
        "bytes_per_element": rng.choice([2, 4]),
        "n_layers": rng.choice([1, 12, 24, 32, 80]),
        "saved": rng.choice(["softmax", "scores_and_softmax", "logsumexp"]),
    },
    "layer_activation_bytes": lambda rng: {
        "batch": rng.randint(1, 16),
        "seq_len": rng.choice([512, 1024, 2048, 4096]),
        "d_model": rng.choice([768, 1024, 4096, 8192, 12288]),
        "n_heads": rng.choice([12, 16, 32, 64, 96]),
        "n_layers": rng.choice([1, 12, 24, 32, 96]),
        "recompute": rng.choice(["none", "selective", "full"]),
    },
    "softmax_jacobian_entry": lambda rng: (
        lambda p: {"p": p, "row": rng.randrange(len(p[0])), "col": rng.randrange(len(p[0]))}
    )(_probs(rng)),
    "softmax_grad_entry": lambda rng: (
        lambda p: {"p": p, "grad": _row(len(p[0]), rng, -3, 3), "col": rng.randrange(len(p[0]))}
    )(_probs(rng)),
    "model_state_bytes": lambda rng: {
        "n_params": rng.randint(1, 700) * 100_000_000,
        "recipe": rng.choice(["mixed-adam", "fp32-adam", "mixed-sgd-momentum"]),
    },
}

_S = [[1, 3, 2, 5, 0, 4]]
_V = [[1, 2], [2, 1], [3, 3], [1, 4], [2, 2], [4, 1]]
_P = [[0.2, 0.3, 0.5]]
SAMPLES: list[tuple[str, dict[str, Any]]] = [
    ("online_softmax", {"scores": _S, "values": _V, "block_size": 2, "blocks": b, "which": w, "col": 1})
    for w, b in (("max", 3), ("scale", 2), ("sum", 2), ("sum", 3), ("acc", 2), ("acc", 3), ("output", 3))
]
SAMPLES += [
    (
        "materialised_attention_bytes",
        {"batch": 2, "n_heads": 8, "seq_len": 1024, "bytes_per_element": 2, "what": w},
    )
    for w in ("memory", "traffic")
]
SAMPLES += [
    (
        "attention_activation_bytes",
        {"batch": 2, "n_heads": 8, "seq_len": 1024, "bytes_per_element": 2, "n_layers": 12, "saved": s},
    )
    for s in ("softmax", "scores_and_softmax", "logsumexp")
]
SAMPLES += [
    (
        "layer_activation_bytes",
        {"batch": 4, "seq_len": 2048, "d_model": 4096, "n_heads": 32, "n_layers": 32, "recompute": r},
    )
    for r in ("none", "selective", "full")
]
SAMPLES += [("softmax_jacobian_entry", {"p": _P, "row": i, "col": j}) for i, j in ((1, 1), (0, 2))]
SAMPLES += [("softmax_grad_entry", {"p": _P, "grad": [[1, -2, 3]], "col": 1})]
SAMPLES += [
    ("model_state_bytes", {"n_params": 7_500_000_000, "recipe": r})
    for r in ("mixed-adam", "fp32-adam", "mixed-sgd-momentum")
]
