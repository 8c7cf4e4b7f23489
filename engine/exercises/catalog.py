"""Provides EXERCISES: every coding exercise, with the inputs each seed draws (edge cases first)."""

from __future__ import annotations

import numpy as np

from engine.exercises import advanced_code as adv
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


def _gqa_cases(seed: int) -> list[Inputs]:
    rng = rng_for("code-gqa-broadcast", seed)
    configs = [(2, 1, 1, 1), (4, 2, 3, 5), (8, 2, 4, 4)] + [
        (6, 3, int(rng.integers(2, 7)), 6) for _ in range(3)
    ]
    return [
        {"q": _normal(rng, h, t, 4), "k": _normal(rng, kv, s, 4), "v": _normal(rng, kv, s, 3)}
        for h, kv, t, s in configs
    ]


def _decode_cases(seed: int) -> list[Inputs]:
    rng = rng_for("code-kv-decode", seed)
    cases = []
    for past in [1, 2, 7] + [int(rng.integers(3, 12)) for _ in range(3)]:  # one cached token first
        d = int(rng.choice([4, 8]))
        cases.append({"q_new": _normal(rng, 1, d), "k_new": _normal(rng, 1, d), "v_new": _normal(rng, 1, d),
                      "k_cache": _normal(rng, past, d), "v_cache": _normal(rng, past, d)})  # fmt: skip
    return cases


def _rope_cases(seed: int) -> list[Inputs]:
    rng = rng_for("code-rope", seed)
    shapes = [(1, 4), (3, 2), (6, 8)] + [
        (int(rng.integers(2, 10)), 2 * int(rng.integers(2, 9))) for _ in range(3)
    ]
    return [{"x": _normal(rng, t, d)} for t, d in shapes]


def _window_cases(seed: int) -> list[Inputs]:
    rng = rng_for("code-sliding-window", seed)
    sizes = [(1, 1), (5, 1), (6, 2), (4, 10)] + [
        (int(rng.integers(3, 12)), int(rng.integers(2, 5))) for _ in range(2)
    ]
    return [{"t": t, "window": w} for t, w in sizes]


def _cross_cases(seed: int) -> list[Inputs]:
    rng = rng_for("code-cross-attention", seed)
    sizes = [(1, 3, 4), (3, 1, 4), (4, 6, 8)] + [
        (int(rng.integers(2, 7)), int(rng.integers(2, 9)), 8) for _ in range(3)
    ]
    return [
        {"x": _normal(rng, t, d), "memory": _normal(rng, s, d),
         **{w: _normal(rng, d, d, scale=d**-0.5) for w in ("w_q", "w_k", "w_v")}}
        for t, s, d in sizes
    ]  # fmt: skip


def _flash_cases(seed: int) -> list[Inputs]:
    rng = rng_for("code-flash-forward", seed)
    configs = [(1, 1, 1), (3, 7, 2), (4, 8, 8), (2, 9, 4)] + [
        (int(rng.integers(2, 6)), 12, 5) for _ in range(2)
    ]
    cases = []
    for t, s, block in configs:  # one key; a last block shorter than the rest; one block; large scores
        cases.append({"q": _normal(rng, t, 4, scale=3.0), "k": _normal(rng, s, 4, scale=3.0),
                      "v": _normal(rng, s, 3), "block": block})  # fmt: skip
    return cases


def _backward_cases(seed: int) -> list[Inputs]:
    rng = rng_for("code-attention-backward", seed)
    sizes = [(1, 2), (3, 4), (5, 8)] + [(int(rng.integers(2, 7)), 4) for _ in range(3)]
    return [{name: _normal(rng, t, d) for name in ("q", "k", "v", "d_out")} for t, d in sizes]


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
            cases=_gqa_cases,
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
            cases=_decode_cases,
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
            cases=_rope_cases,
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
            cases=_window_cases,
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
            cases=_cross_cases,
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
            cases=_flash_cases,
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
            cases=_backward_cases,
        ),
    )  # fmt: skip


EXERCISES: dict[str, Exercise] = {exercise.id: exercise for exercise in _exercises()}
