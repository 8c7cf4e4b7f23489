"""Provides KV-cache sizes and the MHA/GQA/MQA savings ratio, with the usual wrong turns.

KV cache = 2 (K and V) x n_layers x n_kv_heads x d_head x seq_len x batch x bytes_per_element.
Checked against Llama-2 70B at 4096 tokens, batch 8, fp16: 80 GiB with 64 KV heads, 10 GiB with its
real 8, 1.25 GiB with one (85,899,345,920 / 10,737,418,240 / 1,342,177,280 bytes).
"""

from __future__ import annotations

from typing import Annotated

from engine.calculator import Param, register, result
from engine.calculators.common import (
    Batch,
    BytesPerElement,
    CachedLen,
    DHead,
    NHeads,
    NKvHeads,
    NLayers,
    distinct,
    require_divisible,
    require_positive,
)
from engine.derivation import Derivation, Misconception, Mistake, Step

GIB_AS_GB = 1000**3 / 1024**3
"""A byte count b shown as b / 2^30 "GiB" but read as GB is b / 2^30 x 10^9 bytes: b x GIB_AS_GB."""

NO_X2_KV = Mistake(
    "no-x2-kv",
    "You left out the x2 for K and V",
    "Both the keys and the values are cached, one vector of each per KV head per token per layer.",
)
FORGOT_LAYERS = Mistake(
    "forgot-layers", "You left out the layers", "Every layer keeps its own keys and values."
)
FORGOT_BYTES = Mistake(
    "forgot-bytes",
    "You counted numbers, not bytes",
    "Multiply the number of cached values by the bytes per element.",
)
GIB_READ_AS_GB = Mistake(
    "gib-as-gb",
    "That is the GiB figure read as GB",
    "1 GiB = 2^30 bytes but 1 GB = 10^9 bytes: converting bytes to GiB and calling the result GB "
    "understates the size by 7%.",
)
GB_AS_GIB = Mistake(
    "gb-as-gib",
    "That is the GB figure read as GiB",
    "1 GB = 10^9 bytes but 1 GiB = 2^30 bytes: a GB count relabelled as GiB overstates the size by 7%.",
)
USED_N_HEADS = Mistake(
    "used-n-heads",
    "You used the query heads instead of the KV heads",
    "Only the n_kv_heads key/value heads are cached; grouped-query and multi-query attention "
    "share each of them across several query heads.",
)
FP32_FOR_FP16 = Mistake(
    "fp32-for-fp16",
    "You used 4 bytes (fp32) where fp16 was given",
    "fp16 and bf16 numbers take 2 bytes each; fp32 takes 4.",
)


_COMMON_WRONG = (
    NO_X2_KV,
    USED_N_HEADS,
    FORGOT_LAYERS,
    FP32_FOR_FP16,
    FORGOT_BYTES,
    GIB_READ_AS_GB,
    GB_AS_GIB,
)
_PER_LAYER = "K and V per token per layer"
_PER_TOKEN = "Per token, all layers"


OptionalNHeads = Annotated[
    int | None,
    Param("number of query heads (optional: lets the 'used h instead of n_kv' mistake be recognised)"),
]


def _check(n_heads: int | None, n_kv_heads: int, **sizes: int | None) -> None:
    require_positive(n_kv_heads=n_kv_heads, n_heads=n_heads, **sizes)
    if n_heads is not None:
        require_divisible("n_heads", n_heads, "n_kv_heads", n_kv_heads)


def _per_token_steps(n_layers: int, n_kv_heads: int, d_head: int, nbytes: int) -> tuple[int, list[Step]]:
    per_layer = 2 * n_kv_heads * d_head * nbytes
    per_token = per_layer * n_layers
    return per_token, [
        Step(
            _PER_LAYER,
            "2 (K and V) x n_kv_heads x d_head x bytes_per_element",
            f"2 x {n_kv_heads} x {d_head} x {nbytes}",
            per_layer,
            "B",
        ),
        Step(_PER_TOKEN, "x n_layers", f"{per_layer:,} x {n_layers}", per_token, "B"),
    ]


def _wrong(
    value: int,
    last: str,
    *,
    n_layers: int,
    n_kv_heads: int,
    n_heads: int | None,
    nbytes: int,
    extra: list[Misconception],
) -> tuple[Misconception, ...]:
    """The KV-cache mistakes, each evaluated on the same arguments; `last` is the final step's label."""
    out = [NO_X2_KV.gives(value // 2, _PER_LAYER)]
    if n_heads is not None and n_heads != n_kv_heads:
        out.append(USED_N_HEADS.gives(value // n_kv_heads * n_heads, _PER_LAYER))
    out.append(FORGOT_LAYERS.gives(value // n_layers, _PER_TOKEN))
    if nbytes == 2:
        out.append(FP32_FOR_FP16.gives(value * 2, _PER_LAYER))
    out.append(FORGOT_BYTES.gives(value // nbytes, _PER_LAYER))
    out += extra
    out += [
        GIB_READ_AS_GB.gives(value * GIB_AS_GB, last),
        GB_AS_GIB.gives(value / GIB_AS_GB, last),
    ]
    return distinct(value, out)


FORGOT_SEQ_LEN = Mistake(
    "forgot-seq-len", "You left out the sequence length", "Every cached token stores its own keys and values."
)
CACHED_EVERY_TOKEN = Mistake("cached-every-token", "You cached every token, not just the window")
FORGOT_BATCH = Mistake(
    "forgot-batch", "You left out the batch", "Each sequence in the batch has its own cache."
)


@register(
    summary="Bytes of K and V cached for a batch: 2 x layers x n_kv x d_head x seq_len x batch x bytes.",
    unit="B",
    misconceptions=(*_COMMON_WRONG, FORGOT_SEQ_LEN, FORGOT_BATCH, CACHED_EVERY_TOKEN),
)
def kv_cache_bytes(
    n_layers: NLayers,
    n_kv_heads: NKvHeads,
    d_head: DHead,
    seq_len: CachedLen,
    batch: Batch,
    bytes_per_element: BytesPerElement,
    n_heads: OptionalNHeads = None,
    window: Annotated[
        int | None,
        Param(
            "sliding-window size: a rolling cache keeps only the last `window` tokens (default: no window)"
        ),
    ] = None,
    *,
    worked: bool = True,
) -> Derivation:
    """Per token per layer, then all layers, then every cached token, then every sequence.

    With a sliding window the rolling cache holds min(seq_len, window) tokens, however long the text.
    """
    _check(n_heads, n_kv_heads, window=window)
    kept = seq_len if window is None else min(seq_len, window)
    per_token, steps = _per_token_steps(n_layers, n_kv_heads, d_head, bytes_per_element)
    per_seq = per_token * kept
    value = per_seq * batch
    if not worked:
        return result(value)
    seq_label, total_label = "One sequence", "Whole batch"
    if window is None:
        steps.append(Step(seq_label, "x seq_len", f"{per_token:,} x {seq_len:,}", per_seq, "B"))
    else:
        steps.append(
            Step(
                seq_label,
                "x min(seq_len, window): the rolling cache overwrites the oldest slot",
                f"{per_token:,} x min({seq_len:,}, {window:,})",
                per_seq,
                "B",
            )
        )
    steps.append(Step(total_label, "x batch", f"{per_seq:,} x {batch}", value, "B"))
    extra = []
    if window is not None and seq_len > window:
        extra.append(
            CACHED_EVERY_TOKEN.gives(
                per_token * seq_len * batch,
                seq_label,
                explanation=f"With a window of {window:,} no query looks further back, so the rolling buffer "
                f"keeps {window:,} positions per sequence and overwrites the oldest.",
            )
        )
    extra += [FORGOT_SEQ_LEN.gives(per_token * batch, seq_label)]
    if batch > 1:
        extra.append(FORGOT_BATCH.gives(per_seq, total_label))
    wrong = _wrong(
        value,
        total_label,
        n_layers=n_layers,
        n_kv_heads=n_kv_heads,
        n_heads=n_heads,
        nbytes=bytes_per_element,
        extra=extra,
    )
    return result(value, tuple(steps), wrong)


@register(
    summary="Bytes of K and V cached per token across all layers: 2 x layers x n_kv x d_head x bytes.",
    unit="B",
    misconceptions=_COMMON_WRONG,
)
def kv_cache_bytes_per_token(
    n_layers: NLayers,
    n_kv_heads: NKvHeads,
    d_head: DHead,
    bytes_per_element: BytesPerElement,
    n_heads: OptionalNHeads = None,
    *,
    worked: bool = True,
) -> Derivation:
    """What one more token of context costs in memory, whatever the batch."""
    _check(n_heads, n_kv_heads)
    value, steps = _per_token_steps(n_layers, n_kv_heads, d_head, bytes_per_element)
    if not worked:
        return result(value)
    wrong = _wrong(
        value,
        _PER_TOKEN,
        n_layers=n_layers,
        n_kv_heads=n_kv_heads,
        n_heads=n_heads,
        nbytes=bytes_per_element,
        extra=[],
    )
    return result(value, tuple(steps), wrong)


INVERTED = Mistake(
    "inverted",
    "You inverted the ratio",
    "The savings factor is old size / new size = h / n_kv, a number of at least 1.",
)
DIFFERENCE = Mistake(
    "difference",
    "You subtracted instead of dividing",
    "The cache size is proportional to the KV-head count, so compare by dividing: h / n_kv.",
)


@register(
    summary="How many times smaller the KV cache gets with n_kv heads instead of h: h / n_kv.",
    unit="x",
    misconceptions=(INVERTED, DIFFERENCE),
)
def kv_cache_savings(n_heads: NHeads, n_kv_heads: NKvHeads, *, worked: bool = True) -> Derivation:
    """Everything in the cache formula but the KV-head count cancels, leaving h / n_kv."""
    _check(n_heads, n_kv_heads)
    value = n_heads // n_kv_heads
    if not worked:
        return result(value)
    label = "Savings ratio"
    steps = (
        Step(
            "Only the KV heads differ",
            "(2 L h d_head T B bytes) / (2 L n_kv d_head T B bytes)",
            "layers, d_head, tokens, batch and bytes cancel",
            value,
            "x",
        ),
        Step(label, "h / n_kv", f"{n_heads} / {n_kv_heads}", value, "x"),
    )
    wrong = [
        INVERTED.gives(n_kv_heads / n_heads, label),
        DIFFERENCE.gives(n_heads - n_kv_heads, label),
    ]
    return result(value, steps, wrong)
