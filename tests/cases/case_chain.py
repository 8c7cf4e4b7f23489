"""Sample arguments for the case-study calculators that build on an earlier step's quantity."""

from __future__ import annotations

from typing import Any

SAMPLES: list[tuple[str, dict[str, Any]]] = [
    ("bytes_for_tokens", {"per_token_bytes": 131072, "tokens": 2048}),
    ("bytes_for_tokens", {"per_token_bytes": 131072, "tokens": 2500, "n_layers": 32, "shared_tokens": 1024}),
    ("requantized_bytes", {"n_bytes": 5.37e9, "bytes_before": 2, "bytes_after": 1}),
    ("all_layers_bytes", {"n_bytes": 4.7e9, "layers": 10, "n_layers": 62, "period": 6}),
    ("all_layers_bytes", {"n_bytes": 4.7e9, "layers": 10, "n_layers": 62}),
]


def _pick(rng: Any, *values: Any) -> Any:
    return rng.choice(values)


ARGS: dict[str, Any] = {
    "bytes_for_tokens": lambda r: {
        "per_token_bytes": _pick(r, 32768, 131072, 327680),
        "tokens": r.randint(2, 8192),
        "n_layers": _pick(r, 1, 32, 80),
        "shared_tokens": _pick(r, 0, 1024, 4096),
    },
    "requantized_bytes": lambda r: {
        "n_bytes": r.uniform(1e8, 1e10),
        "bytes_before": _pick(r, 2, 4),
        "bytes_after": _pick(r, 0.5, 1),
    },
    "all_layers_bytes": lambda r: {
        "n_bytes": r.uniform(1e8, 1e10),
        "layers": r.randint(2, 12),
        "n_layers": r.randint(26, 80),
        "period": _pick(r, 0, 4, 6),
    },
}
