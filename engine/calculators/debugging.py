"""Provides the steps that debug a serving symptom back to its cause: which term of a decode step grew,
what a prefix-cache hit leaves of the prefill, where a tail percentile falls when hits are fast, how long
a request queues (M/M/1), what a speculative verification pass costs at a large batch, and how many RoPE
pairs never turn a full circle inside a context.

Each takes plain quantities (bytes, ms, fractions) so a case-study step can build on a learner's earlier
answer (error carried forward).
"""

from __future__ import annotations

import math
from typing import Annotated

import numpy as np

from engine.calculator import Param, register
from engine.calculators.case_common import formula_result, num
from engine.calculators.common import Batch, OpenShare, PromptTokens, Utilisation
from engine.derivation import Derivation, Mistake

HitRate = Annotated[OpenShare, Param("fraction of requests that hit, between 0 and 1")]
Percentile = Annotated[float, Param("the percentile watched (99 for p99)", gt=0, lt=100)]


def _fraction(name: str, value: float) -> None:
    """Rejects a rate or share outside (0, 1): it is a probability, not a percentage."""
    if not 0 < value < 1:
        raise ValueError(f"{name} is a fraction strictly between 0 and 1, got {value}")


# --------------------------------------------------------------------------- decode step terms


WEIGHTS_SHARE = Mistake(
    "weights-share",
    "You gave the weights' share",
    "The question asks for the cache's part of the bytes: B x KV over the total.",
)
ONE_SEQUENCE_KV = Mistake(
    "one-sequence-kv",
    "You counted one sequence's cache",
    "Every sequence in the batch reads its own cache each step.",
)
KV_OVER_WEIGHTS = Mistake(
    "kv-over-weights",
    "You divided the cache by the weights",
    "A share divides by the whole step's bytes, weights plus cache.",
)


@register(
    summary="Share of a memory-bound decode step's bytes that are KV cache: B x KV / (weights + B x KV).",
    unit="",
    misconceptions=(WEIGHTS_SHARE, ONE_SEQUENCE_KV, KV_OVER_WEIGHTS),
)
def kv_read_share(
    weight_bytes: Annotated[float, Param("weight bytes read per step (one GPU's shard)", gt=0)],
    kv_bytes_per_seq: Annotated[float, Param("KV-cache bytes of one sequence on that GPU", gt=0)],
    batch: Batch,
    *,
    worked: bool = True,
) -> Derivation:
    """The weights are read once per step for the whole batch; every sequence adds its own cache."""
    kv = batch * kv_bytes_per_seq
    value = kv / (weight_bytes + kv)
    return formula_result(
        value,
        "KV share of the bytes read per step",
        "B x KV per sequence / (weights + B x KV per sequence)",
        f"{batch} x {num(kv_bytes_per_seq)} / ({num(weight_bytes)} + {batch} x {num(kv_bytes_per_seq)})",
        [
            WEIGHTS_SHARE.gives(weight_bytes / (weight_bytes + kv)),
            ONE_SEQUENCE_KV.gives(kv_bytes_per_seq / (weight_bytes + kv_bytes_per_seq)),
            KV_OVER_WEIGHTS.gives(kv / weight_bytes),
        ],
        worked=worked,
    )


BATCH_RATIO = Mistake(
    "batch-ratio",
    "You scaled by the batch ratio",
    "The weights are read once per step whatever the batch: only the cache term grows.",
)
WEIGHTS_ONLY = Mistake(
    "weights-only",
    "You counted the weights only, so the step did not grow",
    "Each sequence's cache is read every step, so more sequences read more bytes.",
)
INVERTED = Mistake("inverted", "You inverted the ratio", "After over before.")


@register(
    summary="How much a memory-bound decode step grows between two batches: (W + B2 KV) / (W + B1 KV).",
    unit="x",
    misconceptions=(BATCH_RATIO, WEIGHTS_ONLY, INVERTED),
)
def step_time_growth(
    weight_bytes: Annotated[float, Param("weight bytes read per step", gt=0)],
    kv_bytes_per_seq: Annotated[float, Param("KV-cache bytes of one sequence", gt=0)],
    batch_before: Annotated[int, Param("the batch before", gt=0)],
    batch_after: Annotated[int, Param("the batch after", gt=0)],
    *,
    worked: bool = True,
) -> Derivation:
    """Only the cache term grows with the batch: the step scales by the batch ratio only when KV is all."""
    if batch_after <= batch_before:
        raise ValueError(f"batch_after={batch_after} must exceed batch_before={batch_before}")
    before = weight_bytes + batch_before * kv_bytes_per_seq
    after = weight_bytes + batch_after * kv_bytes_per_seq
    value = after / before
    return formula_result(
        value,
        "Step time after / before",
        "(W + B2 x KV) / (W + B1 x KV)",
        f"({num(weight_bytes)} + {batch_after} x {num(kv_bytes_per_seq)}) / "
        f"({num(weight_bytes)} + {batch_before} x {num(kv_bytes_per_seq)})",
        [
            BATCH_RATIO.gives(batch_after / batch_before),
            WEIGHTS_ONLY.gives(1.0),
            INVERTED.gives(before / after),
        ],
        worked=worked,
    )


# --------------------------------------------------------------------------- prefix cache and the tail


CACHED_PART = Mistake(
    "cached-part",
    "You kept the cached part's time",
    "The cached tokens are the ones skipped; the hit pays for the rest.",
)
NO_SAVING = Mistake(
    "no-saving",
    "You charged the hit the full prefill",
    "A hit reads the prefix's K and V from the cache instead of computing them.",
)


@register(
    summary="Prefill time of a prefix-cache hit: miss time x uncached tokens / prompt tokens.",
    unit="ms",
    misconceptions=(CACHED_PART, NO_SAVING),
)
def hit_prefill_ms(
    miss_ms: Annotated[float, Param("prefill time of the whole prompt (a miss), ms", gt=0)],
    prompt_tokens: PromptTokens,
    cached_tokens: Annotated[int, Param("tokens of it already in the prefix cache", gt=0)],
    *,
    worked: bool = True,
) -> Derivation:
    """A compute-bound prefill costs per token, and a hit skips the cached tokens."""
    if cached_tokens >= prompt_tokens:
        raise ValueError(f"cached_tokens={cached_tokens} must be fewer than prompt_tokens={prompt_tokens}")
    value = miss_ms * (prompt_tokens - cached_tokens) / prompt_tokens
    return formula_result(
        value,
        "Prefill of a hit (ms)",
        "miss ms x (P - cached) / P",
        f"{num(miss_ms)} x ({num(prompt_tokens)} - {num(cached_tokens)}) / {num(prompt_tokens)}",
        [
            CACHED_PART.gives(miss_ms * cached_tokens / prompt_tokens),
            NO_SAVING.gives(miss_ms),
        ],
        worked=worked,
    )


SWAPPED_RATE = Mistake(
    "swapped-rate",
    "You weighted the miss by the hit rate",
    "The hit rate weighs the hits; the misses come 1 - h of the time.",
)
UNWEIGHTED_MEAN = Mistake(
    "unweighted-mean",
    "You averaged the two times",
    "Hits and misses do not come equally often: weigh each by its rate.",
)
HIT_ONLY = Mistake("hit-only", "You gave the hit's time", "Misses still come, 1 - h of the time.")


@register(
    summary="Mean time over hits and misses: hit rate x hit time + (1 - hit rate) x miss time.",
    unit="ms",
    misconceptions=(SWAPPED_RATE, UNWEIGHTED_MEAN, HIT_ONLY),
)
def mixed_mean_ms(
    hit_ms: Annotated[float, Param("time of a hit, ms", gt=0)],
    miss_ms: Annotated[float, Param("time of a miss, ms", gt=0)],
    hit_rate: HitRate,
    *,
    worked: bool = True,
) -> Derivation:
    """A mean weighs each kind of request by how often it comes; a tail percentile does not."""
    value = hit_rate * hit_ms + (1 - hit_rate) * miss_ms
    return formula_result(
        value,
        "Mean time (ms)",
        "h x hit + (1 - h) x miss",
        f"{hit_rate:g} x {num(hit_ms)} + {1 - hit_rate:g} x {num(miss_ms)}",
        [
            SWAPPED_RATE.gives((1 - hit_rate) * hit_ms + hit_rate * miss_ms),
            UNWEIGHTED_MEAN.gives((hit_ms + miss_ms) / 2),
            HIT_ONLY.gives(hit_ms),
        ],
        worked=worked,
    )


SAME_PERCENTILE = Mistake(
    "same-percentile",
    "You kept the same percentile",
    "The tail is drawn from the misses alone, a smaller population: the same requests sit at a "
    "lower percentile of it.",
)
DIVIDED_BY_HIT_RATE = Mistake(
    "divided-by-hit-rate",
    "You divided the tail by the hit rate",
    "The tail lies among the misses, a 1 - h share of the requests.",
)
TIMES_MISS_SHARE = Mistake(
    "times-miss-share",
    "You multiplied the tail by the miss share",
    "The tail is a fraction of all requests; as a fraction of the misses it is larger: divide.",
)


@register(
    summary="Which percentile of the misses a latency percentile is, when every miss is slower than every "
    "hit: 100 x (1 - (1 - p/100) / (1 - h)).",
    unit="",
    misconceptions=(SAME_PERCENTILE, DIVIDED_BY_HIT_RATE, TIMES_MISS_SHARE),
)
def tail_percentile_of_misses(
    hit_rate: HitRate,
    percentile: Percentile,
    *,
    worked: bool = True,
) -> Derivation:
    """The slowest 1 - p/100 of all requests are all misses while misses outnumber them."""
    tail = 1 - percentile / 100
    miss = 1 - hit_rate
    if tail >= miss:
        raise ValueError(
            f"the slowest {tail:.4g} of requests outnumber the misses ({miss:.4g}): "
            "that percentile falls among the hits"
        )
    value = 100 * (1 - tail / miss)
    return formula_result(
        value,
        "Percentile among the misses",
        "100 x (1 - (1 - p/100) / (1 - h))",
        f"100 x (1 - {tail:g} / {miss:g})",
        [
            SAME_PERCENTILE.gives(percentile),
            DIVIDED_BY_HIT_RATE.gives(100 * (1 - tail / hit_rate)),
            TIMES_MISS_SHARE.gives(100 * (1 - tail * miss)),
        ],
        worked=worked,
    )


FORGOT_BLOWUP = Mistake(
    "forgot-blowup",
    "You left out the 1 / (1 - rho)",
    "The wait's tail decays at rate (1 - rho) / S: near full load it stretches.",
)
INCLUDED_SERVICE = Mistake(
    "included-service",
    "You gave the percentile of the whole time in the system",
    "The time in the system is exponential with mean S / (1 - rho), so its percentile is "
    "S / (1 - rho) x ln(1 / (1 - p/100)); the wait before service is shorter.",
)
MEAN_FOR_TAIL = Mistake(
    "mean-for-tail",
    "You gave the mean wait",
    "A tail percentile of the wait lies far above its mean, rho S / (1 - rho).",
)


@register(
    summary="A percentile of the M/M/1 wait before service: P(wait > t) = rho exp(-(1 - rho) t / S), so "
    "t_p = S / (1 - rho) x ln(rho / (1 - p/100)).",
    unit="ms",
    misconceptions=(FORGOT_BLOWUP, INCLUDED_SERVICE, MEAN_FOR_TAIL),
)
def mm1_wait_percentile_ms(
    utilisation: Utilisation,
    service_ms: Annotated[float, Param("mean service time S, ms (an earlier step)", gt=0)],
    percentile: Percentile,
    *,
    worked: bool = True,
) -> Derivation:
    """A tail wait stretches like 1 / (1 - rho): near full load it dwarfs the service time itself."""
    _fraction("utilisation", utilisation)
    rho = utilisation
    tail = 1 - percentile / 100
    if rho <= tail:
        raise ValueError(
            f"with utilisation {rho:.4g}, more than {percentile:g}% of requests never wait: the "
            "percentile is 0"
        )
    value = service_ms / (1 - rho) * math.log(rho / tail)
    return formula_result(
        value,
        f"p{percentile:g} wait in the queue (ms)",
        "S / (1 - rho) x ln(rho / (1 - p/100))",
        f"{num(service_ms)} / (1 - {rho:.6g}) x ln({rho:.6g} / {tail:g})",
        [
            FORGOT_BLOWUP.gives(service_ms * math.log(rho / tail)),
            INCLUDED_SERVICE.gives(service_ms / (1 - rho) * math.log(1 / tail)),
            MEAN_FOR_TAIL.gives(rho / (1 - rho) * service_ms),
        ],
        worked=worked,
    )


# --------------------------------------------------------------------------- RoPE against the context


def rope_wavelengths(d_head: int, base: float) -> np.ndarray:
    """Tokens for each RoPE pair to turn a full circle: 2 pi base^(2i/d), i = 0 .. d/2 - 1."""
    i = np.arange(d_head // 2)  # (d/2,)
    return 2 * np.pi * base ** (2 * i / d_head)  # (d/2,)


COUNTED_FAST_PAIRS = Mistake(
    "counted-fast-pairs",
    "You counted the pairs that turn inside the context",
    "The slow pairs are those whose wavelength is longer than the context.",
)
COUNTED_DIMENSIONS = Mistake(
    "counted-dimensions",
    "You counted dimensions, not pairs",
    "Each pair holds two coordinates that rotate together: count pairs.",
)
USED_I_NOT_2I = Mistake(
    "used-i-not-2i",
    "You used base^(i/d) instead of base^(2i/d)",
    "Pair i holds coordinates 2i and 2i+1, so its wavelength is 2 pi base^(2i/d).",
)


@register(
    summary="RoPE pairs whose wavelength 2 pi base^(2i/d) exceeds a context: they never turn a full circle "
    "inside it.",
    unit="",
    misconceptions=(COUNTED_FAST_PAIRS, COUNTED_DIMENSIONS, USED_I_NOT_2I),
)
def rope_slow_pairs(
    d_head: Annotated[int, Param("head dimension d (even)", gt=0)],
    base: Annotated[float, Param("rope_theta, the RoPE base")],
    context: Annotated[int, Param("tokens of context", gt=0)],
    *,
    worked: bool = True,
) -> Derivation:
    """Pairs slower than the context see only part of a turn there: the ones long-range position rests on."""
    if d_head % 2:
        raise ValueError(f"d_head={d_head} must be even (RoPE turns coordinates in pairs)")
    if not base > 1:
        raise ValueError(f"base={base} must exceed 1")
    waves = rope_wavelengths(d_head, base)
    value = int(np.count_nonzero(waves > context))
    half = d_head // 2
    half_rate = 2 * np.pi * base ** (np.arange(half) / d_head)  # (d/2,) with base^(i/d)
    cut = math.log(context / (2 * math.pi)) / math.log(base)
    return formula_result(
        value,
        "Pairs slower than the context",
        "count of i < d/2 with 2 pi x base^(2i/d) > context",
        f"2 pi x {base:g}^(2i/{d_head}) > {num(context)} when i > {cut * half:.4g}, for i < {half}",
        [
            COUNTED_FAST_PAIRS.gives(half - value),
            COUNTED_DIMENSIONS.gives(2 * value),
            USED_I_NOT_2I.gives(int(np.count_nonzero(half_rate > context))),
        ],
        worked=worked,
    )
