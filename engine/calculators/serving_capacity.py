"""Provides the serving calculators about memory a staff-level round chains: quantised KV (KIVI), GPUs
needed to fit a model and the prefill a shared prefix saves. Time (speculative decoding, roofline,
latency, split-KV) is in serving_math.

Each returns a worked Derivation and the named wrong turns an interviewer sees most often.
"""

from __future__ import annotations

import math
from typing import Annotated

from engine.calculator import Param, register, result
from engine.calculators.common import Batch, CachedLen, DHead, GroupSize, NKvHeads, NLayers, Share
from engine.derivation import Derivation, Mistake, Step

# --------------------------------------------------------------------------- KIVI


FORGOT_SCALES = Mistake(
    "forgot-scales",
    "You left out the scales and zero points",
    "Each group of numbers carries an fp16 scale and zero point (4 bytes), which at 2 bits and "
    "groups of 32 adds a quarter again.",
)
BITS_AS_BYTES = Mistake("bits-as-bytes", "You counted bits as bytes", "A b-bit number is b / 8 bytes.")
NO_X2_KV = Mistake(
    "no-x2-kv",
    "You quantised the keys only",
    "Keys (per channel) and values (per token) are both cached and both quantised.",
)
NO_RESIDUAL = Mistake(
    "no-residual",
    "You quantised every token, including the fp16 window",
    "KIVI keeps the most recent tokens in full precision until a whole group is ready.",
)


@register(
    summary="Bytes of a KIVI-style quantised KV cache: b-bit K (per channel) and V (per token), one fp16 "
    "scale and zero point per group, and the most recent tokens kept in fp16.",
    unit="B",
    misconceptions=(FORGOT_SCALES, BITS_AS_BYTES, NO_RESIDUAL, NO_X2_KV),
)
def kivi_cache_bytes(
    n_layers: NLayers,
    n_kv_heads: NKvHeads,
    d_head: DHead,
    seq_len: CachedLen,
    batch: Batch,
    bits: Annotated[int, Param("bits per quantised number (2 or 4)", gt=0)],
    group_size: GroupSize,
    residual: Annotated[int, Param("most recent tokens kept in fp16")] = 0,
    *,
    worked: bool = True,
) -> Derivation:
    """Quantised numbers, their per-group scale and zero point (2 bytes each), plus an fp16 window."""
    if not 0 <= residual < seq_len:
        raise ValueError(f"residual={residual} must be at least 0 and below seq_len={seq_len}")
    per_token = 2 * n_layers * n_kv_heads * d_head * batch  # K and V numbers per token position
    quant = per_token * (seq_len - residual)
    if quant % group_size:
        raise ValueError(f"{quant} quantised numbers do not split into groups of {group_size}")
    q_bytes = quant * bits // 8 if quant * bits % 8 == 0 else quant * bits / 8
    meta = quant // group_size * 4
    fp16 = per_token * residual * 2
    value = q_bytes + meta + fp16
    if not worked:
        return result(value)
    n_label, q_label, m_label, r_label, t_label = (
        "Quantised numbers",
        "Quantised bytes",
        "Scales and zero points",
        "Recent tokens in fp16",
        "Whole cache",
    )
    steps = [
        Step(
            n_label,
            "2 x n_layers x n_kv x d_head x batch x (seq_len - residual)",
            f"2 x {n_layers} x {n_kv_heads} x {d_head} x {batch} x ({seq_len:,} - {residual})",
            quant,
        ),
        Step(q_label, "numbers x bits / 8", f"{quant:,} x {bits} / 8", q_bytes, "B"),
        Step(m_label, "numbers / group x 2 x 2 bytes", f"{quant:,} / {group_size} x 4", meta, "B"),
        Step(
            r_label,
            "2 x n_layers x n_kv x d_head x batch x residual x 2",
            f"{per_token:,} x {residual} x 2",
            fp16,
            "B",
        ),
        Step(t_label, "quantised + scales + fp16", f"{q_bytes:,} + {meta:,} + {fp16:,}", value, "B"),
    ]
    wrong = [
        FORGOT_SCALES.gives(value - meta, m_label),
        BITS_AS_BYTES.gives(value - q_bytes + quant * bits, q_label),
        NO_X2_KV.gives(value / 2, n_label),
    ]
    if residual:
        wrong.append(
            NO_RESIDUAL.gives(per_token * seq_len * bits / 8 + per_token * seq_len // group_size * 4, r_label)
        )
    return result(value, tuple(steps), wrong)


# --------------------------------------------------------------------------- GPUs to fit


ROUNDED_DOWN = Mistake(
    "rounded-down", "You rounded down", "A fraction of a GPU cannot be bought: round the count up."
)
FORGOT_CACHE = Mistake(
    "forgot-cache", "You fitted the weights only", "The KV cache must fit beside the weights."
)
FORGOT_USABLE = Mistake(
    "forgot-usable",
    "You counted the whole of each GPU's memory",
    "Activations, the CUDA context and fragmentation take a share; only the usable part holds "
    "weights and cache.",
)


@register(
    summary="Fewest GPUs whose usable memory holds the weights plus the KV cache: "
    "ceil((weights + cache) / (GiB per GPU x usable share)).",
    unit="",
    misconceptions=(ROUNDED_DOWN, FORGOT_CACHE, FORGOT_USABLE),
)
def gpus_to_fit(
    weights_gib: Annotated[float, Param("weight memory in GiB", gt=0)],
    cache_gib: Annotated[float, Param("KV-cache memory in GiB", ge=0)],
    gpu_gib: Annotated[float, Param("memory of one GPU in GiB", gt=0)],
    usable: Annotated[Share, Param("share of each GPU's memory available to weights and cache")] = 1.0,
    *,
    worked: bool = True,
) -> Derivation:
    """Whole GPUs only: the count is rounded up."""
    need = weights_gib + cache_gib
    per_gpu = gpu_gib * usable
    value = math.ceil(need / per_gpu - 1e-12)
    if not worked:
        return result(value)
    n_label, g_label, c_label = "Memory needed (GiB)", "Usable per GPU (GiB)", "GPUs"
    steps = [
        Step(n_label, "weights + cache", f"{weights_gib:g} + {cache_gib:g}", need),
        Step(g_label, "GPU memory x usable share", f"{gpu_gib:g} x {usable:g}", per_gpu),
        Step(c_label, "ceil(needed / usable per GPU)", f"ceil({need:.4g} / {per_gpu:.4g})", value),
    ]
    wrong = [
        ROUNDED_DOWN.gives(max(1, math.floor(need / per_gpu)), c_label),
        FORGOT_CACHE.gives(math.ceil(weights_gib / per_gpu - 1e-12), n_label),
    ]
    if usable < 1:
        wrong.append(FORGOT_USABLE.gives(math.ceil(need / gpu_gib - 1e-12), g_label))
    return result(value, tuple(steps), wrong)


# --------------------------------------------------------------------------- prefix caching


PREFIX_TOKENS_ONLY = Mistake(
    "prefix-tokens-only",
    "You counted only the prefix tokens in the total",
    "Every request also prefills its own U tokens, which no cache can skip: the total is R (P + U).",
)
PREFIX_SHARE_ONLY = Mistake(
    "prefix-share-only",
    "You gave the prefix's share of one request",
    "P / (P + U) is the best case with infinitely many requests; the first computes it in full.",
)


@register(
    summary="Share of prefill tokens a prefix cache skips when R requests share a P-token prefix and each "
    "adds U tokens of its own: (R - 1) P / (R (P + U)).",
    unit="",
    misconceptions=(PREFIX_TOKENS_ONLY, PREFIX_SHARE_ONLY),
)
def prefix_cache_saving(
    requests: Annotated[int, Param("requests R sharing the prefix", gt=0)],
    prefix_tokens: Annotated[int, Param("shared prefix length P", gt=0)],
    unique_tokens: Annotated[int, Param("tokens U each request adds", gt=0)],
    *,
    worked: bool = True,
) -> Derivation:
    """The first request computes the prefix; every later one reuses its cached K and V."""
    if requests < 2:
        raise ValueError(f"requests={requests}: a prefix cache needs at least 2 requests to save")
    total = requests * (prefix_tokens + unique_tokens)
    saved = (requests - 1) * prefix_tokens
    value = saved / total
    if not worked:
        return result(value)
    s_label, t_label, f_label = "Prefill tokens skipped", "Prefill tokens without a cache", "Share skipped"
    steps = [
        Step(t_label, "R (P + U)", f"{requests} x ({prefix_tokens:,} + {unique_tokens:,})", total),
        Step(s_label, "(R - 1) P", f"({requests} - 1) x {prefix_tokens:,}", saved),
        Step(f_label, "skipped / total", f"{saved:,} / {total:,}", value),
    ]
    wrong = [
        PREFIX_TOKENS_ONLY.gives((requests - 1) / requests, t_label),
        PREFIX_SHARE_ONLY.gives(prefix_tokens / (prefix_tokens + unique_tokens), f_label),
    ]
    return result(value, tuple(steps), wrong)
