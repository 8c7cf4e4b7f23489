"""Random valid arguments for the mask calculators (engine/calculators/masks.py)."""

from __future__ import annotations

import random
from typing import Any


def _lengths(rng: random.Random, most: int) -> str:
    return ", ".join(str(rng.randint(1, most)) for _ in range(rng.randint(2, 5)))


def _chunk(rng: random.Random) -> dict[str, Any]:
    chunk = rng.randint(1, 16)
    return {
        "past_len": rng.choice([0, 5, 100, 4096]),
        "chunk_len": chunk,
        "index": rng.randrange(chunk),
        "which": rng.choice(["query", "chunk"]),
    }


def _left_pad(rng: random.Random) -> dict[str, Any]:
    seq_len = rng.randint(4, 64)
    real = rng.randint(1, seq_len)
    return {"seq_len": seq_len, "real_len": real, "slot": rng.randint(seq_len - real, seq_len - 1)}


def _padded(rng: random.Random) -> dict[str, Any]:
    seq_len = rng.randint(8, 40)
    return {"lengths": _lengths(rng, seq_len), "seq_len": seq_len, "causal": rng.random() < 0.6}


ARGS = {
    "packed_mask_entries": lambda rng: {"lengths": _lengths(rng, 600)},
    "padded_mask_entries": _padded,
    "cached_chunk_visible_keys": _chunk,
    "left_pad_position_id": _left_pad,
}
