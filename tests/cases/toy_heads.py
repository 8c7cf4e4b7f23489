"""Random valid arguments for the calculators of the trained toy's heads (toy_heads, toy_head_panels)."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any


def _target(rng: random.Random) -> dict[str, Any]:
    n = rng.randint(12, 16)
    return {
        "ask": "induction_target",
        "draw": rng.randrange(10**5),
        "length": n,
        "query": rng.randint(n, 2 * n - 1),
    }


def _score(rng: random.Random) -> dict[str, Any]:
    ask = rng.choice(["induction_score", "prev_token_score"])
    return {"ask": ask, "draw": rng.randrange(10**5), "length": rng.randint(3, 8)}


def _panels(rng: random.Random) -> dict[str, Any]:
    ask = rng.choice(["induction_head", "prev_token_head"])
    return {"ask": ask, "draw": rng.randrange(10**5), "length": rng.randint(12, 14)}


def _heads(rng: random.Random) -> dict[str, Any]:
    return _target(rng) if rng.random() < 0.4 else _score(rng)


ARGS: dict[str, Callable[[random.Random], dict[str, Any]]] = {"toy_heads": _heads, "toy_head_panels": _panels}
