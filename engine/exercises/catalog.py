"""Provides EXERCISES: every coding exercise, with the inputs each seed draws (edge cases first)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from engine.exercises import advanced_code as adv
from engine.exercises import attention_code as code
from engine.exercises.base import Exercise, Inputs, Mistake
from engine.exercises.inputs import (
    DEFAULT_CASES,
    Between,
    Draw,
    Feature,
    Given,
    InputSpec,
    OneOf,
    Param,
    Real,
    Size,
    bounded,
)


def _normal(rng: np.random.Generator, *shape: int, scale: float = 1.0) -> np.ndarray:
    return rng.normal(0.0, scale, size=bounded(shape))  # shape


def _divides(p: Mapping[str, Any], part: str, whole: str) -> int:
    """whole // part, or ValueError naming both when part does not divide whole."""
    if p[whole] % p[part]:
        raise ValueError(f"{whole} = {p[whole]} is not a multiple of {part} = {p[part]}")
    return int(p[whole] // p[part])


def _spec(edge: tuple[dict[str, Any], ...], **random: Draw) -> InputSpec:
    return InputSpec(edge=edge, random=random, n_cases=DEFAULT_CASES)


def _ints(low: int, high: int, step: int) -> OneOf:
    return OneOf(tuple(range(low, high + 1, step)))


SOFTMAX_PARAMS: dict[str, Param] = {
    "x": Given("the scores written out; otherwise drawn from the sizes below"),
    "batch": Size(0, minimum=0, doc="a leading batch axis of this length (0: none, x is 2-D)"),
    "rows": Size(2),
    "cols": Size(7, doc="the softmax axis"),
    "scale": Real(1.0, doc="standard deviation of the scores"),
    "shift": Real(0.0, doc="added to every score: 1000 overflows a softmax that does not shift"),
}


def _softmax(rng: np.random.Generator, p: Mapping[str, Any]) -> Inputs:
    if p["x"] is not None:
        return {"x": np.array(p["x"], dtype=np.float64)}  # as written
    shape = (p["rows"], p["cols"]) if p["batch"] == 0 else (p["batch"], p["rows"], p["cols"])
    return {"x": _normal(rng, *shape, scale=p["scale"]) + p["shift"]}  # shape


SOFTMAX_INPUTS = _spec(
    (
        {"x": [[1000.0, 1001.0, 999.0], [0.0, 0.0, 0.0]]},  # (2, 3) overflow, then a tie
        {"x": [[3.5]]},  # (1, 1) one score: weight 1
        {"batch": 2, "rows": 3, "cols": 5, "scale": 20.0},  # (2, 3, 5) a batch of rows, large scores
    ),
    rows=Between(2, 5),
)


def _qkv(rng: np.random.Generator, t: int, s: int, d: int, d_v: int | None = None) -> Inputs:
    return {"q": _normal(rng, t, d), "k": _normal(rng, s, d), "v": _normal(rng, s, d_v or d + 1)}


ATTENTION_PARAMS: dict[str, Param] = {
    "T": Size(1, doc="queries"),
    "S": Size(1, doc="keys"),
    "d_k": Size(4),
    "d_v": Size(None, doc="default d_k + 1"),
    "mask": Feature("none", ("none", "random", "blocked_row"), doc="blocked_row: query T // 2 sees no key"),
}


def _attention(rng: np.random.Generator, p: Mapping[str, Any]) -> Inputs:
    t, s = p["T"], p["S"]
    inputs = _qkv(rng, t, s, p["d_k"], p["d_v"])
    mask: np.ndarray | None = None
    if p["mask"] == "random":
        mask = rng.random(bounded((t, s))) < 0.75  # (T, S)
        mask[:, 0] = True  # (T, S) every query keeps one key
    elif p["mask"] == "blocked_row":
        mask = np.ones(bounded((t, s)), dtype=bool)  # (T, S)
        mask[t // 2] = False  # (T, S) that query may see no key: it gets zero weights, not nan
    return {**inputs, "mask": mask}


ATTENTION_INPUTS = _spec(
    (
        {"T": 1, "S": 1, "d_k": 4},  # T = S = 1
        {"T": 3, "S": 4, "d_k": 8, "mask": "blocked_row"},  # a fully masked row
        {"T": 4, "S": 6, "d_k": 64},  # d_k = 64: the missing 1/sqrt(d_k) shows
    ),
    T=Between(2, 8),
    S=Between(2, 8),
    d_k=_ints(8, 32, 4),
    mask=OneOf(("random",)),
)

CAUSAL_PARAMS: dict[str, Param] = {"T": Size(1), "d_k": Size(4), "d_v": Size(None, doc="default d_k + 1")}


def _causal(rng: np.random.Generator, p: Mapping[str, Any]) -> Inputs:
    return _qkv(rng, p["T"], p["T"], p["d_k"], p["d_v"])


CAUSAL_INPUTS = _spec(
    ({"T": 1, "d_k": 4}, {"T": 2, "d_k": 8}, {"T": 5, "d_k": 16}), T=Between(3, 9), d_k=_ints(8, 32, 8)
)

SPLIT_PARAMS: dict[str, Param] = {"T": Size(1), "d_model": Size(8), "n_heads": Size(2)}


def _split(rng: np.random.Generator, p: Mapping[str, Any]) -> Inputs:
    _divides(p, "n_heads", "d_model")
    return {"x": _normal(rng, p["T"], p["d_model"]), "n_heads": p["n_heads"]}


SPLIT_INPUTS = _spec(
    ({"T": 1, "d_model": 4, "n_heads": 2}, {"T": 3, "d_model": 8, "n_heads": 1},
     {"T": 4, "d_model": 12, "n_heads": 4}),
    T=Between(2, 8),
)  # fmt: skip

MERGE_PARAMS: dict[str, Param] = {"n_heads": Size(2), "T": Size(1), "d_head": Size(4)}


def _merge(rng: np.random.Generator, p: Mapping[str, Any]) -> Inputs:
    return {"x": _normal(rng, p["n_heads"], p["T"], p["d_head"])}


MERGE_INPUTS = _spec(
    ({"n_heads": 1, "T": 3, "d_head": 4}, {"n_heads": 4, "T": 1, "d_head": 2},
     {"n_heads": 2, "T": 5, "d_head": 3}),
    n_heads=_ints(2, 8, 2),
    T=Between(2, 6),
)  # fmt: skip

EXPAND_PARAMS: dict[str, Param] = {
    "n_kv_heads": Size(3),
    "n_heads": Size(6, doc="a multiple of n_kv_heads"),
    "S": Size(1),
    "d_head": Size(4),
}


def _expand(rng: np.random.Generator, p: Mapping[str, Any]) -> Inputs:
    _divides(p, "n_kv_heads", "n_heads")
    return {"k": _normal(rng, p["n_kv_heads"], p["S"], p["d_head"]), "n_heads": p["n_heads"]}


EXPAND_INPUTS = _spec(
    ({"n_kv_heads": 1, "n_heads": 4, "S": 3, "d_head": 2},
     {"n_kv_heads": 2, "n_heads": 4, "S": 1, "d_head": 2},
     {"n_kv_heads": 2, "n_heads": 8, "S": 5, "d_head": 4}),  # groups of 4, 2, 4 query heads per KV head
    S=Between(2, 6),
)  # fmt: skip

MHA_PARAMS: dict[str, Param] = {
    "T": Size(1),
    "d_model": Size(8, doc="a multiple of n_heads"),
    "n_heads": Size(2),
    "causal": Feature(False, (False, True)),
}


def _mha(rng: np.random.Generator, p: Mapping[str, Any]) -> Inputs:
    _divides(p, "n_heads", "d_model")
    d = p["d_model"]
    weights = {name: _normal(rng, d, d, scale=d**-0.5) for name in ("w_q", "w_k", "w_v", "w_o")}
    return {"x": _normal(rng, p["T"], d), **weights, "n_heads": p["n_heads"], "causal": p["causal"]}


MHA_INPUTS = _spec(
    ({"T": 1, "d_model": 8, "n_heads": 2}, {"T": 4, "d_model": 8, "n_heads": 1, "causal": True},
     {"T": 6, "d_model": 64, "n_heads": 4, "causal": True}),  # T = 1; one head; d_head = 16
    T=Between(3, 8),
    d_model=OneOf((16, 32)),
    n_heads=OneOf((2, 4)),
    causal=OneOf((False, True)),
)  # fmt: skip

KV_CACHE_NAMES = ("n_layers", "n_kv_heads", "d_head", "seq_len", "batch", "bytes_per_element")
KV_CACHE_PARAMS: dict[str, Param] = {name: Size(1) for name in KV_CACHE_NAMES}


def _kv_cache(rng: np.random.Generator, p: Mapping[str, Any]) -> Inputs:
    return {name: int(p[name]) for name in KV_CACHE_NAMES}


KV_CACHE_INPUTS = _spec(
    ({}, dict(zip(KV_CACHE_NAMES, (80, 8, 128, 4096, 1, 2), strict=True))),  # the smallest; Llama-2 70B, 4k
    n_layers=Between(2, 95),
    n_kv_heads=OneOf((1, 2, 8)),
    d_head=OneOf((64, 128)),
    seq_len=OneOf((512, 2048, 8192)),
    batch=Between(1, 8),
    bytes_per_element=OneOf((1, 2, 4)),
)

GQA_PARAMS: dict[str, Param] = {
    "n_heads": Size(6, doc="a multiple of n_kv_heads"),
    "n_kv_heads": Size(3),
    "T": Size(1),
    "S": Size(6),
    "d": Size(4),
    "d_v": Size(3),
}


def _gqa(rng: np.random.Generator, p: Mapping[str, Any]) -> Inputs:
    _divides(p, "n_kv_heads", "n_heads")
    kv, d = p["n_kv_heads"], p["d"]
    return {"q": _normal(rng, p["n_heads"], p["T"], d), "k": _normal(rng, kv, p["S"], d),
            "v": _normal(rng, kv, p["S"], p["d_v"])}  # fmt: skip


GQA_INPUTS = _spec(
    ({"n_heads": 2, "n_kv_heads": 1, "T": 1, "S": 1}, {"n_heads": 4, "n_kv_heads": 2, "T": 3, "S": 5},
     {"n_heads": 8, "n_kv_heads": 2, "T": 4, "S": 4}),  # groups of 2, 2, 4 query heads per KV head
    T=Between(2, 6),
)  # fmt: skip

DECODE_PARAMS: dict[str, Param] = {"P": Size(1, doc="tokens already in the cache"), "d": Size(4)}


def _decode(rng: np.random.Generator, p: Mapping[str, Any]) -> Inputs:
    past, d = p["P"], p["d"]
    return {"q_new": _normal(rng, 1, d), "k_new": _normal(rng, 1, d), "v_new": _normal(rng, 1, d),
            "k_cache": _normal(rng, past, d), "v_cache": _normal(rng, past, d)}  # fmt: skip


DECODE_INPUTS = _spec(
    ({"P": 1, "d": 4}, {"P": 2, "d": 8}, {"P": 7, "d": 4}),  # one cached token first
    P=Between(3, 11),
    d=OneOf((4, 8)),
)

ROPE_PARAMS: dict[str, Param] = {"T": Size(1), "d": Size(4, minimum=2, doc="even")}


def _rope(rng: np.random.Generator, p: Mapping[str, Any]) -> Inputs:
    if p["d"] % 2:
        raise ValueError(f"d = {p['d']} must be even: RoPE rotates pairs")
    return {"x": _normal(rng, p["T"], p["d"])}


ROPE_INPUTS = _spec(
    ({"T": 1, "d": 4}, {"T": 3, "d": 2}, {"T": 6, "d": 8}), T=Between(2, 9), d=_ints(4, 16, 2)
)

WINDOW_PARAMS: dict[str, Param] = {"t": Size(1), "window": Size(1)}


def _window(rng: np.random.Generator, p: Mapping[str, Any]) -> Inputs:
    return {"t": int(p["t"]), "window": int(p["window"])}


WINDOW_INPUTS = _spec(
    ({"t": 1, "window": 1}, {"t": 5, "window": 1}, {"t": 6, "window": 2}, {"t": 4, "window": 10}),
    t=Between(3, 11),
    window=Between(2, 4),
)

CROSS_PARAMS: dict[str, Param] = {
    "T": Size(1, doc="decoder tokens"),
    "S": Size(1, doc="memory"),
    "d": Size(8),
}


def _cross(rng: np.random.Generator, p: Mapping[str, Any]) -> Inputs:
    d = p["d"]
    return {"x": _normal(rng, p["T"], d), "memory": _normal(rng, p["S"], d),
            **{w: _normal(rng, d, d, scale=d**-0.5) for w in ("w_q", "w_k", "w_v")}}  # fmt: skip


CROSS_INPUTS = _spec(
    ({"T": 1, "S": 3, "d": 4}, {"T": 3, "S": 1, "d": 4}, {"T": 4, "S": 6}), T=Between(2, 6), S=Between(2, 8)
)

FLASH_PARAMS: dict[str, Param] = {
    "T": Size(1),
    "S": Size(12),
    "block": Size(5),
    "d": Size(4),
    "d_v": Size(3),
    "scale": Real(3.0, doc="standard deviation of q and k: large scores"),
}


def _flash(rng: np.random.Generator, p: Mapping[str, Any]) -> Inputs:
    scale = p["scale"]
    return {"q": _normal(rng, p["T"], p["d"], scale=scale), "k": _normal(rng, p["S"], p["d"], scale=scale),
            "v": _normal(rng, p["S"], p["d_v"]), "block": p["block"]}  # fmt: skip


FLASH_INPUTS = _spec(
    ({"T": 1, "S": 1, "block": 1}, {"T": 3, "S": 7, "block": 2}, {"T": 4, "S": 8, "block": 8},
     {"T": 2, "S": 9, "block": 4}),  # one key; a last block shorter than the rest; one block; large scores
    T=Between(2, 5),
)  # fmt: skip

BACKWARD_PARAMS: dict[str, Param] = {"T": Size(1), "d": Size(4)}


def _backward(rng: np.random.Generator, p: Mapping[str, Any]) -> Inputs:
    return {name: _normal(rng, p["T"], p["d"]) for name in ("q", "k", "v", "d_out")}


BACKWARD_INPUTS = _spec(({"T": 1, "d": 2}, {"T": 3, "d": 4}, {"T": 5, "d": 8}), T=Between(2, 6))


# The reference's cost for one case, from its parameters (see Exercise.cost): (work, largest array). Work
# counts element operations, a matrix product's multiply-adds included; a Python loop's turn counts 4,000.
def _d_v(p: Mapping[str, Any], d: str) -> int:
    return int(p["d_v"]) if p.get("d_v") is not None else int(p[d]) + 1


def _cost_softmax(p: Mapping[str, Any]) -> tuple[int, int]:
    n = max(int(p["batch"]), 1) * int(p["rows"]) * int(p["cols"])
    return 12 * n, n


def _cost_attention(p: Mapping[str, Any]) -> tuple[int, int]:
    t, s = int(p["T"]), int(p["S"])
    return t * s * (int(p["d_k"]) + _d_v(p, "d_k") + 12), t * s


def _cost_causal(p: Mapping[str, Any]) -> tuple[int, int]:
    t = int(p["T"])
    return t * t * (int(p["d_k"]) + _d_v(p, "d_k") + 12), t * t


def _cost_of(*names: str) -> Any:
    """A reshape's cost: a few passes over an array whose entries are the product of `names`."""

    def cost(p: Mapping[str, Any]) -> tuple[int, int]:
        n = int(np.prod([int(p[name]) for name in names], dtype=np.float64))
        return 4 * n, n

    return cost


def _cost_mha(p: Mapping[str, Any]) -> tuple[int, int]:
    t, d, h = int(p["T"]), int(p["d_model"]), int(p["n_heads"])
    return 8 * t * d * d + t * t * (2 * d + 12 * h), max(h * t * t, t * d, d * d)


def _cost_gqa(p: Mapping[str, Any]) -> tuple[int, int]:
    h, t, s, d, d_v = (int(p[n]) for n in ("n_heads", "T", "S", "d", "d_v"))
    return h * t * s * (d + d_v + 12), max(h * t * s, h * s * max(d, d_v))


def _cost_decode(p: Mapping[str, Any]) -> tuple[int, int]:
    n = (int(p["P"]) + 1) * int(p["d"])
    return 8 * n, n


def _cost_window(p: Mapping[str, Any]) -> tuple[int, int]:
    t = int(p["t"])
    return 4 * t * t, t * t


def _cost_cross(p: Mapping[str, Any]) -> tuple[int, int]:
    t, s, d = int(p["T"]), int(p["S"]), int(p["d"])
    return 3 * d * d * (t + s) + t * s * (2 * d + 12), max(t * s, (t + s) * d)


def _cost_flash(p: Mapping[str, Any]) -> tuple[int, int]:
    t, s, block, d, d_v = (int(p[n]) for n in ("T", "S", "block", "d", "d_v"))
    turns = -(-s // block)
    return t * s * (d + d_v + 16) + turns * 4000, t * (min(block, s) + d_v)


def _cost_backward(p: Mapping[str, Any]) -> tuple[int, int]:
    t, d = int(p["T"]), int(p["d"])
    return t * t * (3 * d + 24), t * t


def _exercises() -> tuple[Exercise, ...]:
    return (
        Exercise(
            id="code-softmax",
            title="A numerically stable softmax",
            function="softmax",
            signature="softmax(x)",
            prompt="Write `softmax(x)` over the last axis of an array of any rank. Scores of 1000 must "
            "not overflow.",
            reference=code.softmax,
            mistakes=(
                Mistake("no-max-shift", "exp of raw scores overflows: subtract each row's maximum first "
                        "(softmax(x) = softmax(x - c)).", code.softmax_no_shift),
                Mistake("wrong-axis", "You normalised over the first axis: each row (the last axis) must "
                        "sum to 1.", code.softmax_wrong_axis),
            ),
            params=SOFTMAX_PARAMS,
            build=_softmax,
            inputs=SOFTMAX_INPUTS,
            cost=_cost_softmax,
        ),
        Exercise(
            id="code-attention",
            title="Scaled dot-product attention with a mask",
            function="attention",
            signature="attention(q, k, v, mask=None)",
            prompt="q is (T, d_k), k is (S, d_k), v is (S, d_v); mask is None or a boolean (T, S) array, "
            "True where a query may attend. Return (T, d_v). A query that may attend to no key gets "
            "zeros, never nan.",
            reference=code.attention,
            mistakes=(
                Mistake("no-scale", "You left out the 1/sqrt(d_k) scale: scores grow with d_k and the "
                        "softmax saturates.", code.attention_no_scale),
                Mistake("softmax-over-queries", "Your softmax runs over the queries (axis 0): each "
                        "query's weights over the keys must sum to 1.", code.attention_softmax_over_queries),
                Mistake("mask-after-softmax", "You applied the mask after the softmax: the kept weights "
                        "no longer sum to 1. Set masked scores to -inf before it.",
                        code.attention_mask_after_softmax),
            ),
            params=ATTENTION_PARAMS,
            build=_attention,
            inputs=ATTENTION_INPUTS,
            cost=_cost_attention,
        ),
        Exercise(
            id="code-causal-attention",
            title="Causal self-attention",
            function="causal_attention",
            signature="causal_attention(q, k, v)",
            prompt="q, k are (T, d_k) and v is (T, d_v). Each query attends to itself and earlier "
            "positions only. Return (T, d_v).",
            reference=code.causal_attention,
            mistakes=(
                Mistake("diagonal-masked", "Your mask hides the diagonal too (np.triu with k=0): a "
                        "token must see itself; mask only k=1 and above.",
                        code.causal_attention_hides_itself),
                Mistake("mask-after-softmax", "You zeroed the future after the softmax: the remaining "
                        "weights no longer sum to 1.", code.causal_attention_mask_after_softmax),
            ),
            params=CAUSAL_PARAMS,
            build=_causal,
            inputs=CAUSAL_INPUTS,
            cost=_cost_causal,
        ),
        Exercise(
            id="code-split-heads",
            title="Split d_model into heads",
            function="split_heads",
            signature="split_heads(x, n_heads)",
            prompt="x is (T, d_model). Return (n_heads, T, d_model // n_heads): head i holds columns "
            "i*d_head to (i+1)*d_head of every token.",
            reference=code.split_heads,
            mistakes=(
                Mistake("no-transpose", "You reshaped straight to (h, T, d_head): each 'head' then holds "
                        "pieces of several tokens. Reshape to (T, h, d_head), then transpose.",
                        code.split_heads_no_transpose),
            ),
            params=SPLIT_PARAMS,
            build=_split,
            inputs=SPLIT_INPUTS,
            cost=_cost_of("T", "d_model"),
        ),
        Exercise(
            id="code-merge-heads",
            title="Merge heads back",
            function="merge_heads",
            signature="merge_heads(x)",
            prompt="x is (n_heads, T, d_head). Return (T, n_heads * d_head), the heads side by side per "
            "token (the input to W_O).",
            reference=code.merge_heads,
            mistakes=(
                Mistake("no-transpose", "You reshaped (h, T, d_head) straight to (T, h*d_head): rows then "
                        "mix tokens of one head. Transpose to (T, h, d_head) first.",
                        code.merge_heads_no_transpose),
            ),
            params=MERGE_PARAMS,
            build=_merge,
            inputs=MERGE_INPUTS,
            cost=_cost_of("n_heads", "T", "d_head"),
        ),
        Exercise(
            id="code-gqa-expand",
            title="GQA: give every query head its key/value head",
            function="expand_kv",
            signature="expand_kv(k, n_heads)",
            prompt="k is (n_kv_heads, S, d_head) and n_heads is a multiple of n_kv_heads. Return "
            "(n_heads, S, d_head) where query heads 0..g-1 read KV head 0, the next g read KV head 1, "
            "and so on (g = n_heads / n_kv_heads).",
            reference=code.expand_kv,
            mistakes=(
                Mistake("tiled", "You tiled the KV heads (kv0, kv1, kv0, kv1): grouped query heads are "
                        "consecutive, so repeat each KV head g times (np.repeat on axis 0, torch's "
                        "repeat_interleave).", code.expand_kv_tiled),
            ),
            params=EXPAND_PARAMS,
            build=_expand,
            inputs=EXPAND_INPUTS,
            cost=_cost_of("n_heads", "S", "d_head"),
        ),
        Exercise(
            id="code-mha-forward",
            title="Multi-head attention forward",
            function="mha",
            signature="mha(x, w_q, w_k, w_v, w_o, n_heads, causal=False)",
            prompt="x is (T, d_model); each weight is (d_model, d_model), applied as x @ w. Split into "
            "n_heads heads, attend (causally if asked), merge the heads and apply W_O. Return "
            "(T, d_model).",
            reference=code.mha,
            mistakes=(
                Mistake("softmax-axis", "Your softmax runs over the queries (axis -2): each query's "
                        "weights over the keys (axis -1) must sum to 1.", code.mha_softmax_wrong_axis),
                Mistake("no-scale", "You left out 1/sqrt(d_head): with wide heads the softmax "
                        "saturates.", code.mha_no_scale),
                Mistake("merge-no-transpose", "You merged the heads with a reshape and no transpose: "
                        "(h, T, d_head) must become (T, h, d_head) before (T, d_model).",
                        code.mha_merge_without_transpose),
                Mistake("mask-after-softmax", "You applied the causal mask after the softmax: the "
                        "weights that remain no longer sum to 1.", code.mha_mask_after_softmax),
            ),
            params=MHA_PARAMS,
            build=_mha,
            inputs=MHA_INPUTS,
            cost=_cost_mha,
        ),
        Exercise(
            id="code-kv-cache-bytes",
            title="The KV cache size",
            function="kv_cache_bytes",
            signature="kv_cache_bytes(n_layers, n_kv_heads, d_head, seq_len, batch, bytes_per_element)",
            prompt="Return the number of bytes the KV cache holds for these sizes.",
            reference=code.kv_cache_bytes,
            mistakes=(
                Mistake("no-x2", "You dropped the x2 for K and V: the cache holds both.",
                        code.kv_cache_bytes_no_x2),
                Mistake("bits", "You counted bits: bytes_per_element is already in bytes.",
                        code.kv_cache_bytes_in_bits),
            ),
            params=KV_CACHE_PARAMS,
            build=_kv_cache,
            inputs=KV_CACHE_INPUTS,
            cost=lambda p: (16, 1),
            rtol=0.0,
            atol=0.0,
        ),
        Exercise(
            id="code-gqa-broadcast",
            title="GQA without copying keys and values",
            function="gqa_attention",
            signature="gqa_attention(q, k, v)",
            prompt="q is (n_heads, T, d), k is (n_kv_heads, S, d), v is (n_kv_heads, S, d_v); query heads "
            "0..g-1 share KV head 0, and so on. Return (n_heads, T, d_v) without repeating k or v: group "
            "the query heads with a reshape and let broadcasting do the rest.",
            reference=adv.gqa_attention,
            mistakes=(
                Mistake("strided-groups", "Your reshape grouped query heads 0, n_kv, 2*n_kv, ... together "
                        "(head i reads KV head i % n_kv): reshape to (n_kv, g, T, d) so consecutive heads "
                        "share one.", adv.gqa_attention_strided_groups),
            ),
            params=GQA_PARAMS,
            build=_gqa,
            inputs=GQA_INPUTS,
            cost=_cost_gqa,
        ),
        Exercise(
            id="code-kv-decode",
            title="One decode step with a KV cache",
            function="decode_step",
            signature="decode_step(q_new, k_new, v_new, k_cache, v_cache)",
            prompt="The new token's q_new, k_new (1, d) and v_new (1, d_v); the cache holds the P earlier "
            "tokens' keys (P, d) and values (P, d_v). Return the new token's attention output (1, d_v): it "
            "must equal the last row of the full causal forward over all P + 1 tokens.",
            reference=adv.decode_step,
            mistakes=(
                Mistake("new-token-left-out", "The new token attends to itself too: append k_new and v_new "
                        "to the cache before computing the scores.", adv.decode_step_without_itself),
            ),
            params=DECODE_PARAMS,
            build=_decode,
            inputs=DECODE_INPUTS,
            cost=_cost_decode,
        ),
        Exercise(
            id="code-rope",
            title="Rotary position embedding (RoPE)",
            function="rope",
            signature="rope(x, base=10000.0)",
            prompt="x is (T, d), d even. Rotate pair i = (x[:, i], x[:, i + d/2]) (the \"halves\" "
            "layout of Llama and Hugging Face) by the angle m * base^(-i / (d/2)) at position m = 0..T-1. "
            "Return (T, d).",
            reference=adv.rope,
            mistakes=(
                Mistake("interleaved-pairs", "You rotated adjacent pairs (x0, x1), (x2, x3): that is the "
                        "interleaved (GPT-J) layout; this exercise pairs i with i + d/2.",
                        adv.rope_interleaved),
                Mistake("positions-from-one", "Your positions start at 1: the first token (m = 0) is not "
                        "rotated at all.", adv.rope_from_one),
            ),
            params=ROPE_PARAMS,
            build=_rope,
            inputs=ROPE_INPUTS,
            cost=_cost_of("T", "d"),
        ),
        Exercise(
            id="code-sliding-window",
            title="A sliding-window causal mask",
            function="window_mask",
            signature="window_mask(t, window)",
            prompt="Return a boolean (t, t) mask, True where query i may attend to key j: causal, and at "
            "most `window` keys per query, itself included (Mistral-style sliding window).",
            reference=adv.window_mask,
            mistakes=(
                Mistake("one-too-many", "Each query sees window + 1 keys: keep j > i - window, not "
                        "j >= i - window.", adv.window_mask_one_too_many),
                Mistake("both-sides", "Your window reaches into the future (|i - j| < window): a decoder's "
                        "window is causal.", adv.window_mask_both_sides),
            ),
            params=WINDOW_PARAMS,
            build=_window,
            inputs=WINDOW_INPUTS,
            cost=_cost_window,
            rtol=0.0,
            atol=0.0,
        ),
        Exercise(
            id="code-cross-attention",
            title="Cross-attention",
            function="cross_attention",
            signature="cross_attention(x, memory, w_q, w_k, w_v)",
            prompt="A decoder's x (T, d) attends to an encoder's memory (S, d) with one head of width d; "
            "each "
            "weight is (d, d), applied as x @ w. Return (T, d).",
            reference=adv.cross_attention,
            mistakes=(
                Mistake("self-attention", "Your keys and values come from x: in cross-attention they come "
                        "from the encoder's memory; only the queries come from x.",
                        adv.cross_attention_from_x),
                Mistake("roles-swapped", "Your queries come from the memory: the decoder asks (queries from "
                        "x), the encoder answers (keys and values).",
                        adv.cross_attention_queries_from_memory),
            ),
            params=CROSS_PARAMS,
            build=_cross,
            inputs=CROSS_INPUTS,
            cost=_cost_cross,
        ),
        Exercise(
            id="code-flash-forward",
            title="The FlashAttention forward: an online softmax over key blocks",
            function="flash_attention",
            signature="flash_attention(q, k, v, block)",
            prompt="q is (T, d), k is (S, d), v is (S, d_v). Visit the keys `block` at a time, never "
            "holding the full (T, S) score matrix: keep each query's running maximum, running sum and "
            "running output. Return softmax(q k^T / sqrt(d)) v, (T, d_v).",
            reference=adv.flash_attention,
            mistakes=(
                Mistake("accumulator-not-rescaled", "When the running maximum grows, the output "
                        "accumulator must be rescaled by exp(m_old - m_new) as the sum is.",
                        adv.flash_attention_no_rescale),
            ),
            params=FLASH_PARAMS,
            build=_flash,
            inputs=FLASH_INPUTS,
            cost=_cost_flash,
        ),
        Exercise(
            id="code-attention-backward",
            title="The backward pass of one attention head",
            function="attention_backward",
            signature="attention_backward(q, k, v, d_out)",
            prompt="out = softmax(q k^T / sqrt(d)) v for q, k, v of shape (T, d). Given d_out = dL/d(out), "
            "return np.stack([dq, dk, dv]), shape (3, T, d). It is checked against the engine's gradient, "
            "itself checked against finite differences.",
            reference=adv.attention_backward,
            mistakes=(
                Mistake("no-softmax-jacobian", "You passed the gradient through the softmax unchanged: dS = "
                        "P * (dP - rowsum(dP * P)).", adv.attention_backward_no_jacobian),
                Mistake("scale-left-out", "dq and dk need the forward's 1/sqrt(d) too.",
                        adv.attention_backward_unscaled),
            ),
            params=BACKWARD_PARAMS,
            build=_backward,
            inputs=BACKWARD_INPUTS,
            cost=_cost_backward,
        ),
    )  # fmt: skip


EXERCISES: dict[str, Exercise] = {exercise.id: exercise for exercise in _exercises()}
