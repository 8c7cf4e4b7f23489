"""Provides attention_shape: the shape of every tensor and weight in multi-head attention, step by step.

Letters: B batch, T query length, S key/value length, d d_model, h query heads, n_kv key/value heads,
d_k = d / h. Weights act as x @ W, so W_Q is (d, h d_k); torch stores the transpose.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Literal

from engine.calculator import Param, register, result
from engine.calculators.common import (
    Batch,
    DModel,
    KvLen,
    NHeads,
    QueryLen,
    require_divisible,
    require_positive,
)
from engine.calculators.dimensions import split
from engine.derivation import Derivation, Misconception, Mistake, Step

Shape = tuple[int, ...]

ACTIVATIONS = ("input", "q", "q_heads", "k_heads", "scores", "context", "merged", "output")
WEIGHTS = ("w_q", "w_k", "w_qkv", "w_o")
STAGES = ACTIVATIONS + WEIGHTS


def _s(shape: Shape) -> str:
    return "(" + ", ".join(map(str, shape)) + ")"


def _chain(stage: str) -> tuple[str, ...]:
    """The stages whose shapes lead up to `stage`, so the steps walk the forward pass in order."""
    if stage in WEIGHTS:
        return (stage,)
    if stage == "k_heads":
        return ("input", "k_heads")
    return ACTIVATIONS[: ACTIVATIONS.index(stage) + 1]


NO_BATCH = Mistake(
    "no-batch", "You left out the batch axis", "Activations carry the batch first: (B, T, ...)."
)
SPLIT_TOO_EARLY = Mistake(
    "split-too-early",
    "You split the heads already",
    "Q = x W_Q is still (B, T, d_model); the head split is a separate reshape.",
)
NO_HEAD_SPLIT = Mistake("no-head-split", "You did not split the heads", "Heads get their own axis.")
HEADS_BEFORE_TRANSPOSE = Mistake(
    "heads-before-transpose",
    "You stopped before the transpose",
    "After the reshape to (B, T, h, d_k), swap T and h so each head is a batch of T x d_k.",
)
D_MODEL_PER_HEAD = Mistake("d-model-per-head", "You gave each head width d_model", "Each head has width d_k.")
KV_USED_N_HEADS = Mistake("kv-used-n-heads", "You used h for the KV heads", "K and V have n_kv heads.")
SCORES_USED_D_K = Mistake("scores-used-d-k", "You wrote d_k for the key axis", "Q K^T contracts d_k away.")
SCORES_NO_HEADS = Mistake(
    "scores-no-heads", "You dropped the head axis", "Every head has its own T x S scores."
)
MERGED_KEPT_HEADS = Mistake(
    "merged-kept-heads",
    "You kept the head axis",
    "Merging folds h and d_k back into one axis of width h d_k.",
)
TORCH_LAYOUT = Mistake("torch-layout", "That is torch's (3d, d) storage", "Acting as x @ W it is (d, 3d).")
PER_HEAD_WEIGHT = Mistake("per-head-weight", "That is one head's slice", "The fused weight covers all heads.")
QUERY_HEADS_AS_KV = Mistake(
    "query-heads-as-kv",
    "You gave the queries only the KV heads",
    "There are still h query heads; each KV head is shared by h / n_kv of them, so the scores and outputs "
    "keep all h heads.",
)
WO_USED_KV_HEADS = Mistake(
    "wo-used-kv-heads",
    "You sized W_O by the KV heads",
    "W_O takes the concatenated outputs of all h query heads; n_kv only shrinks W_K and W_V.",
)
USED_KV_LENGTH = Mistake(
    "used-kv-length",
    "You used the key/value length for the queries",
    "Every query position gets one output row: the length is T (the queries), not S (the keys).",
)
KV_USED_QUERY_LENGTH = Mistake(
    "kv-used-query-length",
    "You used the query length for the keys",
    "Keys and values come from the S source positions, not from the T queries.",
)
SCORES_SQUARE = Mistake(
    "scores-square",
    "You made the scores square",
    "Each of the T queries is scored against each of the S keys: T x S, square only when S = T.",
)


@register(
    summary="The shape of a tensor or weight at one stage of multi-head attention (weights act as x @ W).",
    unit="shape",
    misconceptions=(
        NO_BATCH,
        SPLIT_TOO_EARLY,
        NO_HEAD_SPLIT,
        HEADS_BEFORE_TRANSPOSE,
        D_MODEL_PER_HEAD,
        KV_USED_N_HEADS,
        SCORES_USED_D_K,
        SCORES_NO_HEADS,
        MERGED_KEPT_HEADS,
        TORCH_LAYOUT,
        PER_HEAD_WEIGHT,
        USED_KV_LENGTH,
        KV_USED_QUERY_LENGTH,
        SCORES_SQUARE,
        WO_USED_KV_HEADS,
        QUERY_HEADS_AS_KV,
    ),
)
def attention_shape(
    batch: Batch,
    seq_len: QueryLen,
    d_model: DModel,
    n_heads: NHeads,
    stage: Annotated[
        Literal[
            "input",
            "q",
            "q_heads",
            "k_heads",
            "scores",
            "context",
            "merged",
            "output",
            "w_q",
            "w_k",
            "w_qkv",
            "w_o",
        ],
        Param("which tensor or weight"),
    ],
    n_kv_heads: Annotated[int | None, Param("number of key/value heads (default: h)")] = None,
    kv_len: KvLen = None,
    *,
    worked: bool = True,
) -> Derivation:
    """Follows x through the projections, the head split, the scores and the merge up to `stage`."""
    if stage not in STAGES:
        raise ValueError(f"unknown stage={stage!r}; stages are {', '.join(STAGES)}")
    d_k = split(d_model, n_heads)
    g = n_heads if n_kv_heads is None else n_kv_heads
    s = seq_len if kv_len is None else kv_len
    require_positive(n_kv_heads=g, kv_len=s)
    require_divisible("n_heads", n_heads, "n_kv_heads", g)
    b, t, d, h = batch, seq_len, d_model, n_heads
    qkv = h * d_k + 2 * g * d_k
    # stage -> (label, formula in symbols, substituted with the numbers, shape), written only for the
    # stages the steps show
    table: dict[str, Callable[[], tuple[str, str, str, Shape]]] = {
        "input": lambda: ("Input x", "(B, T, d_model)", _s((b, t, d)), (b, t, d)),
        "q": lambda: (
            "Project: Q = x W_Q",
            "(B, T, d_model) @ (d_model, h d_k) -> (B, T, h d_k)",
            f"{_s((b, t, d))} @ {_s((d, h * d_k))} -> {_s((b, t, h * d_k))}",
            (b, t, h * d_k),
        ),
        "q_heads": lambda: (
            "Split Q into heads: reshape, then transpose T and h",
            "(B, T, h d_k) -> (B, T, h, d_k) -> (B, h, T, d_k)",
            f"{_s((b, t, d))} -> {_s((b, t, h, d_k))} -> {_s((b, h, t, d_k))}",
            (b, h, t, d_k),
        ),
        "k_heads": lambda: (
            "Split K (and V) into KV heads",
            "kv W_K: (B, S, n_kv d_k) -> (B, S, n_kv, d_k) -> (B, n_kv, S, d_k)",
            f"{_s((b, s, g * d_k))} -> {_s((b, s, g, d_k))} -> {_s((b, g, s, d_k))}",
            (b, g, s, d_k),
        ),
        "scores": lambda: (
            "Scores: Q K^T / sqrt(d_k), one T x S matrix per query head",
            "(B, h, T, d_k) @ (B, h, d_k, S) -> (B, h, T, S)"
            + ("" if g == h else "; each KV head serves h / n_kv query heads"),
            f"{_s((b, h, t, d_k))} @ {_s((b, h, d_k, s))} -> {_s((b, h, t, s))}",
            (b, h, t, s),
        ),
        "context": lambda: (
            "Weighted sum: A V",
            "(B, h, T, S) @ (B, h, S, d_k) -> (B, h, T, d_k)",
            f"{_s((b, h, t, s))} @ {_s((b, h, s, d_k))} -> {_s((b, h, t, d_k))}",
            (b, h, t, d_k),
        ),
        "merged": lambda: (
            "Merge heads: transpose back, then reshape",
            "(B, h, T, d_k) -> (B, T, h, d_k) -> (B, T, h d_k)",
            f"{_s((b, h, t, d_k))} -> {_s((b, t, h, d_k))} -> {_s((b, t, h * d_k))}",
            (b, t, h * d_k),
        ),
        "output": lambda: (
            "Output projection: merged W_O",
            "(B, T, h d_k) @ (h d_k, d_model) -> (B, T, d_model)",
            f"{_s((b, t, h * d_k))} @ {_s((h * d_k, d))} -> {_s((b, t, d))}",
            (b, t, d),
        ),
        "w_q": lambda: ("Weight W_Q", "(d_model, h d_k)", f"({d}, {h} x {d_k})", (d, h * d_k)),
        "w_k": lambda: (
            "Weight W_K (W_V is the same)",
            "(d_model, n_kv d_k)",
            f"({d}, {g} x {d_k})",
            (d, g * d_k),
        ),
        "w_qkv": lambda: (
            "Fused weight [W_Q | W_K | W_V]",
            "(d_model, h d_k + 2 n_kv d_k); (d_model, 3 d_model) for MHA",
            f"({d}, {h} x {d_k} + 2 x {g} x {d_k})",
            (d, qkv),
        ),
        "w_o": lambda: ("Weight W_O", "(h d_v, d_model)", f"({h} x {d_k}, {d})", (h * d_k, d)),
    }
    if not worked:
        return result(table[stage]()[3])
    steps = [Step("Head width", "d_k = d_model / h", f"{d} / {h}", d_k)]
    for name in _chain(stage):
        label, formula, substituted, shape = table[name]()
        steps.append(Step(label, formula, substituted, shape, "shape"))
    answer = shape  # the chain ends at `stage`, so `label` and `shape` are the stage's
    wrong: list[Misconception] = []

    def add(m: Mistake, value: Shape, **text: str) -> None:
        wrong.append(m.gives(value, label, **text))

    if stage in ("input", "q"):
        add(NO_BATCH, (t, d))
    if stage == "q":
        add(SPLIT_TOO_EARLY, (b, h, t, d_k))
    if stage in ("q_heads", "context"):
        add(NO_HEAD_SPLIT, (b, t, d))
        add(HEADS_BEFORE_TRANSPOSE, (b, t, h, d_k))
        add(D_MODEL_PER_HEAD, (b, h, t, d))
    if stage == "k_heads":
        add(KV_USED_N_HEADS, (b, h, s, d_k))
        add(
            HEADS_BEFORE_TRANSPOSE,
            (b, s, g, d_k),
            explanation="After the reshape to (B, S, n_kv, d_k), swap S and n_kv.",
        )
        add(NO_HEAD_SPLIT, (b, s, g * d_k), explanation="K gets a KV-head axis.")
    if stage == "scores":
        add(SCORES_USED_D_K, (b, h, t, d_k))
        add(SCORES_NO_HEADS, (b, t, s))
    if stage in ("merged", "output"):
        add(MERGED_KEPT_HEADS, (b, h, t, d_k))
    if stage == "w_qkv":
        add(TORCH_LAYOUT, (qkv, d))
        add(PER_HEAD_WEIGHT, (d, 3 * d_k))
    if stage == "w_k":
        add(KV_USED_N_HEADS, (d, h * d_k), explanation="W_K maps to n_kv d_k columns.")
        add(PER_HEAD_WEIGHT, (d, d_k), explanation="The full weight covers all KV heads.")
        add(
            TORCH_LAYOUT,
            (g * d_k, d),
            label="That is torch's storage order",
            explanation="Acting as x @ W it is (d, n_kv d_k).",
        )
    if stage in ("w_q", "w_o"):
        per = (d, d_k) if stage == "w_q" else (d_k, d)
        add(PER_HEAD_WEIGHT, per, explanation="The full weight covers all heads.")
    if stage in ("scores", "context") and g != h:
        add(QUERY_HEADS_AS_KV, (b, g, t, s) if stage == "scores" else (b, g, t, d_k))
    if stage == "w_o" and g != h:
        add(WO_USED_KV_HEADS, (g * d_k, d))
    if s != t:
        longer = {
            "context": (b, h, s, d_k),
            "merged": (b, s, h * d_k),
            "output": (b, s, d),
        }
        if stage in longer:
            add(USED_KV_LENGTH, longer[stage])
        if stage == "k_heads":
            add(KV_USED_QUERY_LENGTH, (b, g, t, d_k))
        if stage == "scores":
            add(SCORES_SQUARE, (b, h, t, t))
    return result(answer, tuple(steps), wrong)
