"""Provides tensor-parallel (Megatron-LM) attention sizes per GPU: heads, KV cache, weights, all-reduce.

Megatron-LM (Shoeybi et al. 2019) splits attention by heads: W_Q, W_K, W_V are column-parallel (each GPU
holds the columns of its heads), W_O is row-parallel (each GPU holds the matching rows), and one
all-reduce of a (B, T, d_model) tensor sums the partial outputs after W_O in the forward pass. With fewer
KV heads than GPUs a KV head cannot be split, so each is replicated on TP / n_kv GPUs (vLLM's
QKVParallelLinear: num_kv_heads = 1, num_kv_head_replicas = tp_size / total_num_kv_heads).
"""

from __future__ import annotations

from typing import Annotated, Literal

from engine.calculator import Param, register, result
from engine.calculators.common import (
    Batch,
    BytesPerElement,
    CachedLen,
    DHead,
    DModel,
    NHeads,
    NKvHeads,
    NLayers,
    ratio,
    require_divisible,
    require_positive,
)
from engine.derivation import Derivation, Misconception, Mistake, Step

_KV_LOCAL = "KV heads per GPU"
_Q_LOCAL = "Query heads per GPU"


Tp = Annotated[int, Param("tensor-parallel degree (GPUs sharing one layer)")]


def _check_split(n_heads: int, n_kv_heads: int, tp: int) -> None:
    """TP must split the query heads evenly, and KV heads must split or replicate evenly."""
    require_positive(n_heads=n_heads, n_kv_heads=n_kv_heads, tp=tp)
    require_divisible("n_heads", n_heads, "tp", tp)
    require_divisible("n_heads", n_heads, "n_kv_heads", n_kv_heads)
    if n_kv_heads >= tp:
        require_divisible("n_kv_heads", n_kv_heads, "tp", tp)
    else:
        require_divisible("tp", tp, "n_kv_heads", n_kv_heads)


def _kv_local(n_kv_heads: int, tp: int) -> int:
    """KV heads a GPU holds: its share when there are enough, else one replicated head."""
    return n_kv_heads // tp if n_kv_heads >= tp else 1


def _kv_step(n_kv_heads: int, tp: int) -> Step:
    local = _kv_local(n_kv_heads, tp)
    if n_kv_heads >= tp:
        return Step(_KV_LOCAL, "n_kv_heads / tp (enough KV heads to split)", f"{n_kv_heads} / {tp}", local)
    return Step(
        _KV_LOCAL,
        "1 when n_kv_heads < tp: each KV head is replicated on tp / n_kv_heads GPUs",
        f"{n_kv_heads} < {tp}, so 1 (replicated on {tp // n_kv_heads} GPUs)",
        local,
    )


FRACTIONAL_KV = Mistake(
    "fractional-kv",
    "You divided the whole cache by tp",
    "With fewer KV heads than GPUs a head cannot be cut: each GPU keeps one whole KV head, so the "
    "per-GPU cache is one head's worth, not 1/tp of the total.",
)
NO_SPLIT = Mistake(
    "no-split",
    "You put the whole cache on every GPU",
    "Each GPU caches only the KV heads its query heads use.",
)
USED_QUERY_HEADS = Mistake(
    "used-query-heads",
    "You cached the query heads per GPU",
    "Only key/value heads are cached; the query heads per GPU do not enter the cache size.",
)
INVERTED = Mistake(
    "inverted",
    "You inverted the ratio",
    "There are tp GPUs and n_kv_heads heads: each head is copied tp / n_kv_heads times.",
)


@register(
    summary="Heads one GPU holds under tensor parallelism: query h / tp; KV n_kv / tp, at least 1.",
    unit="",
    misconceptions=(FRACTIONAL_KV, USED_QUERY_HEADS, NO_SPLIT, INVERTED),
)
def tp_heads_per_gpu(
    n_heads: NHeads,
    n_kv_heads: NKvHeads,
    tp: Tp,
    which: Annotated[Literal["query", "kv", "kv_replicas"], Param("query, kv or kv_replicas")],
    *,
    worked: bool = True,
) -> Derivation:
    """The head split decides everything else: weights, cache and compute per GPU follow from it."""
    _check_split(n_heads, n_kv_heads, tp)
    q_local = n_heads // tp
    kv_local = _kv_local(n_kv_heads, tp)
    replicas = tp // n_kv_heads if n_kv_heads < tp else 1
    value = {"query": q_local, "kv": kv_local, "kv_replicas": replicas}[which]
    if not worked:
        return result(value)
    wrong: list[Misconception] = []
    if which == "query":
        steps: tuple[Step, ...] = (Step(_Q_LOCAL, "n_heads / tp", f"{n_heads} / {tp}", q_local),)
        wrong.append(
            NO_SPLIT.gives(
                n_heads,
                _Q_LOCAL,
                label="You did not split the heads",
                explanation=(
                    "Tensor parallelism gives each GPU a disjoint slice of the heads: n_heads / tp each."
                ),
            )
        )
    elif which == "kv":
        steps = (_kv_step(n_kv_heads, tp),)
        wrong += [
            FRACTIONAL_KV.gives(
                ratio(n_kv_heads, tp),
                _KV_LOCAL,
                label="You split the KV heads below one per GPU",
                explanation="A head cannot be cut in pieces: its attention needs its whole key and value. "
                "With fewer KV heads than GPUs each GPU keeps one whole (replicated) KV head.",
            ),
            USED_QUERY_HEADS.gives(
                q_local,
                _KV_LOCAL,
                label="You split the query heads, not the KV heads",
                explanation=(
                    "Each GPU holds the KV heads its query heads read, n_kv_heads / tp of them (at least 1)."
                ),
            ),
            NO_SPLIT.gives(
                n_kv_heads,
                _KV_LOCAL,
                label="You kept every KV head on every GPU",
                explanation=(
                    "KV heads are split with their query groups; only when there are too few are they copied."
                ),
            ),
        ]
    else:
        label = "Copies of each KV head"
        steps = (
            _kv_step(n_kv_heads, tp),
            Step(
                label,
                "tp / n_kv_heads when n_kv_heads < tp, else 1",
                f"{tp} / {n_kv_heads}" if n_kv_heads < tp else f"{n_kv_heads} >= {tp}, so 1",
                replicas,
            ),
        )
        wrong.append(INVERTED.gives(ratio(n_kv_heads, tp), label))
        wrong.append(
            USED_QUERY_HEADS.gives(
                q_local,
                label,
                label="You counted query heads per GPU",
                explanation=(
                    "Copies of a KV head is a count of GPUs, tp / n_kv_heads, not of query heads per GPU."
                ),
            )
        )
    return result(value, steps, wrong)


SUMMED_OVER_GPUS = Mistake(
    "summed-over-gpus",
    "You summed the cache over all the GPUs",
    "The question asks what one GPU must hold; adding up the tp shards gives the group's total, "
    "which no single GPU stores.",
)
DIVIDED_TWICE = Mistake(
    "divided-twice",
    "You divided by tp twice",
    "Sharding the heads already gives each GPU its share; the batch and tokens are not split again.",
)
FORGOT_REPLICATION = Mistake(
    "forgot-replication",
    "You counted each KV head once",
    "With fewer KV heads than GPUs every head is stored on tp / n_kv_heads GPUs, so the group "
    "holds that many copies of the unsharded cache.",
)


@register(
    summary="KV-cache bytes per GPU (or over the TP group) with heads sharded and, if too few, replicated.",
    unit="B",
    misconceptions=(
        FRACTIONAL_KV,
        NO_SPLIT,
        SUMMED_OVER_GPUS,
        USED_QUERY_HEADS,
        DIVIDED_TWICE,
        FORGOT_REPLICATION,
    ),
)
def tp_kv_cache_bytes(
    n_layers: NLayers,
    n_heads: NHeads,
    n_kv_heads: NKvHeads,
    d_head: DHead,
    seq_len: CachedLen,
    batch: Batch,
    bytes_per_element: BytesPerElement,
    tp: Tp,
    scope: Annotated[
        Literal["per_gpu", "all_gpus"], Param("per_gpu or all_gpus (summed over the TP group)")
    ] = "per_gpu",
    *,
    worked: bool = True,
) -> Derivation:
    """Each GPU caches K and V only for the KV heads it holds, for every token of every sequence."""
    _check_split(n_heads, n_kv_heads, tp)
    local = _kv_local(n_kv_heads, tp)
    per_head = 2 * n_layers * d_head * seq_len * batch * bytes_per_element
    per_gpu = local * per_head
    value = per_gpu * tp if scope == "all_gpus" else per_gpu
    if not worked:
        return result(value)
    cache_label = "KV cache on one GPU"
    steps = [
        _kv_step(n_kv_heads, tp),
        Step(
            cache_label,
            "2 x n_layers x kv_per_gpu x d_head x seq_len x batch x bytes",
            f"2 x {n_layers} x {local} x {d_head} x {seq_len:,} x {batch} x {bytes_per_element}",
            per_gpu,
            "B",
        ),
    ]
    full = n_kv_heads * per_head
    wrong: list[Misconception] = []
    if scope == "all_gpus":
        label = "Over the TP group"
        steps.append(Step(label, "x tp", f"{per_gpu:,} x {tp}", value, "B"))
        wrong.append(FORGOT_REPLICATION.gives(full, label))
        wrong += [
            NO_SPLIT.gives(
                full * tp,
                _KV_LOCAL,
                explanation=(
                    "Each GPU caches only the KV heads its query heads use, so the group holds tp x that."
                ),
            ),
            USED_QUERY_HEADS.gives(
                n_heads * per_head,
                _KV_LOCAL,
                label="You cached the query heads",
                explanation="Only key/value heads are cached; the query heads do not enter the cache size.",
            ),
        ]
        return result(value, tuple(steps), wrong)
    wrong += [
        FRACTIONAL_KV.gives(ratio(full, tp), _KV_LOCAL),
        NO_SPLIT.gives(full, _KV_LOCAL),
        SUMMED_OVER_GPUS.gives(per_gpu * tp, cache_label),
        USED_QUERY_HEADS.gives((n_heads // tp) * per_head, _KV_LOCAL),
        DIVIDED_TWICE.gives(ratio(per_gpu, tp), cache_label),
    ]
    return result(value, tuple(steps), wrong)


WO_NOT_SPLIT = Mistake(
    "wo-not-split",
    "You kept the whole W_O on every GPU",
    "W_O is row-parallel: each GPU keeps the rows that read its own heads' outputs.",
)
TOTAL_NOT_PER_GPU = Mistake(
    "total-not-per-gpu", "You counted the whole model's attention weights, not one GPU's"
)
FORGOT_LAYERS = Mistake(
    "forgot-layers",
    "You left out the layers",
    "Every layer has its own attention weights, sharded the same way.",
)


@register(
    summary="Attention weights one GPU holds: W_Q, W_K, W_V column slices and W_O row slice, per layer.",
    unit="params",
    misconceptions=(
        FRACTIONAL_KV,
        USED_QUERY_HEADS,
        WO_NOT_SPLIT,
        DIVIDED_TWICE,
        FORGOT_LAYERS,
        TOTAL_NOT_PER_GPU,
    ),
)
def tp_attention_params_per_gpu(
    d_model: DModel,
    n_heads: NHeads,
    n_kv_heads: NKvHeads,
    tp: Tp,
    n_layers: NLayers = 1,
    *,
    worked: bool = True,
) -> Derivation:
    """Column slices of W_Q, W_K, W_V for the local heads, and the matching rows of W_O (no biases)."""
    _check_split(n_heads, n_kv_heads, tp)
    require_divisible("d_model", d_model, "n_heads", n_heads)
    d_head = d_model // n_heads
    q_local, kv_local = n_heads // tp, _kv_local(n_kv_heads, tp)
    q_cols, kv_cols = q_local * d_head, kv_local * d_head
    wq, wkv, wo = d_model * q_cols, 2 * d_model * kv_cols, q_cols * d_model
    per_layer = wq + wkv + wo
    value = per_layer * n_layers
    if not worked:
        return result(value)
    kv_label, wo_label, layer_label = "W_K and W_V slices", "W_O row slice", "One layer on one GPU"
    steps = [
        Step("Head width", "d_head = d_model / n_heads", f"{d_model} / {n_heads}", d_head),
        Step(_Q_LOCAL, "n_heads / tp", f"{n_heads} / {tp}", q_local),
        _kv_step(n_kv_heads, tp),
        Step("W_Q column slice", "d_model x (q_per_gpu x d_head)", f"{d_model} x {q_cols}", wq, "params"),
        Step(kv_label, "2 x d_model x (kv_per_gpu x d_head)", f"2 x {d_model} x {kv_cols}", wkv, "params"),
        Step(wo_label, "(q_per_gpu x d_head) x d_model", f"{q_cols} x {d_model}", wo, "params"),
        Step(layer_label, "W_Q + W_K + W_V + W_O", f"{wq:,} + {wkv:,} + {wo:,}", per_layer, "params"),
    ]
    if n_layers > 1:
        steps.append(Step("All layers", "x n_layers", f"{per_layer:,} x {n_layers}", value, "params"))
    kv_frac = 2 * d_model * ratio(n_kv_heads * d_head, tp)
    wrong = [
        FRACTIONAL_KV.gives(
            (wq + kv_frac + wo) * n_layers,
            _KV_LOCAL,
            label="You gave each GPU a fraction of a KV head",
            explanation="A KV head is never cut: with fewer KV heads than GPUs each GPU holds one whole, "
            "replicated head.",
        ),
        USED_QUERY_HEADS.gives(
            (wq + 2 * d_model * q_cols + wo) * n_layers,
            kv_label,
            label="You sized W_K and W_V with the query heads",
            explanation="W_K and W_V have one d_head-wide block per KV head, not per query head.",
        ),
        WO_NOT_SPLIT.gives((wq + wkv + d_model * d_model) * n_layers, wo_label),
        DIVIDED_TWICE.gives(
            ratio(per_layer, tp) * n_layers,
            layer_label,
            explanation=(
                "The slices already hold 1/tp of the heads; the head width d_head is not split again."
            ),
        ),
    ]
    if n_layers > 1:
        wrong.append(FORGOT_LAYERS.gives(per_layer, "All layers"))
    whole = (2 * d_model * n_heads * d_head + 2 * d_model * n_kv_heads * d_head) * n_layers
    wrong.append(
        TOTAL_NOT_PER_GPU.gives(
            whole,
            "All layers" if n_layers > 1 else layer_label,
            explanation=f"Tensor parallelism splits them over the {tp} GPUs: each holds its heads' slices, "
            f"about 1/{tp} of the total (more when KV heads are replicated).",
        )
    )
    return result(value, tuple(steps), wrong)
