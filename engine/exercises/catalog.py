"""Provides EXERCISES: every coding exercise, with the inputs each seed draws (edge cases first)."""

from __future__ import annotations

import numpy as np

from engine.exercises import attention_code as code
from engine.exercises.base import Exercise, Inputs, Mistake, rng_for

CASES = 6
"""Input sets per run: the edge cases, then random ones up to this many."""


def _normal(rng: np.random.Generator, *shape: int, scale: float = 1.0) -> np.ndarray:
    return rng.normal(0.0, scale, size=shape)  # shape


def _softmax_cases(seed: int) -> list[Inputs]:
    rng = rng_for("code-softmax", seed)
    edge = [
        {"x": np.array([[1000.0, 1001.0, 999.0], [0.0, 0.0, 0.0]])},  # (2, 3) overflow, then a tie
        {"x": np.array([[3.5]])},  # (1, 1) one score: weight 1
        {"x": _normal(rng, 2, 3, 5, scale=20.0)},  # (2, 3, 5) a batch of rows, large scores
    ]
    return edge + [{"x": _normal(rng, int(rng.integers(2, 6)), 7)} for _ in range(CASES - len(edge))]


def _qkv(rng: np.random.Generator, t: int, s: int, d: int) -> Inputs:
    return {"q": _normal(rng, t, d), "k": _normal(rng, s, d), "v": _normal(rng, s, d + 1)}


def _attention_cases(seed: int) -> list[Inputs]:
    rng = rng_for("code-attention", seed)
    masked_row = np.ones((3, 4), dtype=bool)  # (T, S)
    masked_row[1] = False  # query 1 may see no key: it gets zero weights, not nan
    edge = [
        {**_qkv(rng, 1, 1, 4), "mask": None},  # T = S = 1
        {**_qkv(rng, 3, 4, 8), "mask": masked_row},
        {**_qkv(rng, 4, 6, 64), "mask": None},  # d_k = 64: the missing 1/sqrt(d_k) shows
    ]
    random = []
    for _ in range(CASES - len(edge)):
        t, s, d = (int(n) for n in rng.integers(2, 9, size=3))
        mask = rng.random((t, s)) < 0.75  # (T, S)
        mask[:, 0] = True  # (T, S) every query keeps one key
        random.append({**_qkv(rng, t, s, 4 * d), "mask": mask})
    return edge + random


def _causal_cases(seed: int) -> list[Inputs]:
    rng = rng_for("code-causal-attention", seed)
    sizes = [(1, 4), (2, 8), (5, 16)] + [
        (int(rng.integers(3, 10)), 8 * int(rng.integers(1, 5))) for _ in range(3)
    ]
    return [_qkv(rng, t, t, d) for t, d in sizes]


def _split_cases(seed: int) -> list[Inputs]:
    rng = rng_for("code-split-heads", seed)
    shapes = [(1, 4, 2), (3, 8, 1), (4, 12, 4)] + [(int(rng.integers(2, 9)), 8, 2) for _ in range(3)]
    return [{"x": _normal(rng, t, d), "n_heads": h} for t, d, h in shapes]


def _merge_cases(seed: int) -> list[Inputs]:
    rng = rng_for("code-merge-heads", seed)
    shapes = [(1, 3, 4), (4, 1, 2), (2, 5, 3)] + [
        (2 * int(rng.integers(1, 5)), int(rng.integers(2, 7)), 4) for _ in range(3)
    ]
    return [{"x": _normal(rng, h, t, dh)} for h, t, dh in shapes]


def _expand_cases(seed: int) -> list[Inputs]:
    rng = rng_for("code-gqa-expand", seed)
    shapes = [(1, 4, 3, 2), (2, 4, 1, 2), (2, 8, 5, 4)] + [
        (3, 6, int(rng.integers(2, 7)), 4) for _ in range(3)
    ]
    return [{"k": _normal(rng, kv, s, dh), "n_heads": h} for kv, h, s, dh in shapes]


def _mha_cases(seed: int) -> list[Inputs]:
    rng = rng_for("code-mha-forward", seed)
    configs = [(1, 8, 2, False), (4, 8, 1, True), (6, 64, 4, True)]  # T = 1; one head; d_head = 16
    for _ in range(CASES - len(configs)):
        h = int(rng.choice([2, 4]))
        configs.append((int(rng.integers(3, 9)), h * 8, h, bool(rng.integers(2))))
    cases = []
    for t, d, h, causal in configs:
        weights = {name: _normal(rng, d, d, scale=d**-0.5) for name in ("w_q", "w_k", "w_v", "w_o")}
        cases.append({"x": _normal(rng, t, d), **weights, "n_heads": h, "causal": causal})
    return cases


def _kv_cache_cases(seed: int) -> list[Inputs]:
    rng = rng_for("code-kv-cache-bytes", seed)
    fixed = [(1, 1, 1, 1, 1, 1), (80, 8, 128, 4096, 1, 2)]  # the smallest cache; Llama-2 70B at 4k, fp16
    drawn = [
        (int(rng.integers(2, 96)), int(rng.choice([1, 2, 8])), int(rng.choice([64, 128])),
         int(rng.choice([512, 2048, 8192])), int(rng.integers(1, 9)), int(rng.choice([1, 2, 4])))
        for _ in range(CASES - len(fixed))
    ]  # fmt: skip
    names = ("n_layers", "n_kv_heads", "d_head", "seq_len", "batch", "bytes_per_element")
    return [dict(zip(names, values, strict=True)) for values in fixed + drawn]


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
            cases=_softmax_cases,
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
            cases=_attention_cases,
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
            cases=_causal_cases,
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
            cases=_split_cases,
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
            cases=_merge_cases,
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
            cases=_expand_cases,
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
            cases=_mha_cases,
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
            cases=_kv_cache_cases,
            rtol=0.0,
            atol=0.0,
        ),
    )  # fmt: skip


EXERCISES: dict[str, Exercise] = {exercise.id: exercise for exercise in _exercises()}
