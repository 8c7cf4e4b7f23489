"""Provides the steps that debug a serving symptom back to its cause: which term of a decode step grew,
what a prefix-cache hit leaves of the prefill, where a tail percentile falls when hits are fast, how long
a request queues (M/M/1), what a speculative verification pass costs at a large batch, and how many RoPE
pairs never turn a full circle inside a context.

Each takes plain quantities (bytes, ms, fractions) so a case-study step can build on a learner's earlier
answer (error carried forward).
"""

from __future__ import annotations

import math

import numpy as np

from engine.calculator import Arg, register
from engine.calculators.case_common import Wrong, formula_result, num, require_positive_numbers
from engine.derivation import Derivation, Step


def _fraction(calc: str, name: str, value: float) -> None:
    """Rejects a rate or share outside (0, 1): it is a probability, not a percentage."""
    if not 0 < value < 1:
        raise ValueError(f"{calc}: {name} is a fraction strictly between 0 and 1, got {value}")


# --------------------------------------------------------------------------- decode step terms


@register(
    "kv_read_share",
    summary="Share of a memory-bound decode step's bytes that are KV cache: B x KV / (weights + B x KV).",
    unit="",
    args=(
        Arg("weight_bytes", "float", "weight bytes read per step (one GPU's shard)"),
        Arg("kv_bytes_per_seq", "float", "KV-cache bytes of one sequence on that GPU"),
        Arg("batch", "int", "sequences decoded together"),
    ),
    misconceptions=("weights-share", "one-sequence-kv", "kv-over-weights"),
)
def kv_read_share(
    weight_bytes: float, kv_bytes_per_seq: float, batch: int, *, worked: bool = True
) -> Derivation:
    """The weights are read once per step for the whole batch; every sequence adds its own cache."""
    calc = "kv_read_share"
    require_positive_numbers(calc, weight_bytes=weight_bytes, kv_bytes_per_seq=kv_bytes_per_seq, batch=batch)
    kv = batch * kv_bytes_per_seq
    value = kv / (weight_bytes + kv)
    return formula_result(
        calc,
        value,
        "",
        "KV share of the bytes read per step",
        "B x KV per sequence / (weights + B x KV per sequence)",
        f"{batch} x {num(kv_bytes_per_seq)} / ({num(weight_bytes)} + {batch} x {num(kv_bytes_per_seq)})",
        [
            (
                "weights-share",
                "You gave the weights' share",
                "The question asks for the cache's part of the bytes: B x KV over the total.",
                weight_bytes / (weight_bytes + kv),
            ),
            (
                "one-sequence-kv",
                "You counted one sequence's cache",
                "Every sequence in the batch reads its own cache each step.",
                kv_bytes_per_seq / (weight_bytes + kv_bytes_per_seq),
            ),
            (
                "kv-over-weights",
                "You divided the cache by the weights",
                "A share divides by the whole step's bytes, weights plus cache.",
                kv / weight_bytes,
            ),
        ],
        worked=worked,
    )


@register(
    "step_time_growth",
    summary="How much a memory-bound decode step grows between two batches: (W + B2 KV) / (W + B1 KV).",
    unit="x",
    args=(
        Arg("weight_bytes", "float", "weight bytes read per step"),
        Arg("kv_bytes_per_seq", "float", "KV-cache bytes of one sequence"),
        Arg("batch_before", "int", "the batch before"),
        Arg("batch_after", "int", "the batch after"),
    ),
    misconceptions=("batch-ratio", "weights-only", "inverted"),
)
def step_time_growth(
    weight_bytes: float, kv_bytes_per_seq: float, batch_before: int, batch_after: int, *, worked: bool = True
) -> Derivation:
    """Only the cache term grows with the batch: the step scales by the batch ratio only when KV is all."""
    calc = "step_time_growth"
    require_positive_numbers(
        calc,
        weight_bytes=weight_bytes,
        kv_bytes_per_seq=kv_bytes_per_seq,
        batch_before=batch_before,
        batch_after=batch_after,
    )
    if batch_after <= batch_before:
        raise ValueError(f"{calc}: batch_after={batch_after} must exceed batch_before={batch_before}")
    before = weight_bytes + batch_before * kv_bytes_per_seq
    after = weight_bytes + batch_after * kv_bytes_per_seq
    value = after / before
    return formula_result(
        calc,
        value,
        "x",
        "Step time after / before",
        "(W + B2 x KV) / (W + B1 x KV)",
        f"({num(weight_bytes)} + {batch_after} x {num(kv_bytes_per_seq)}) / "
        f"({num(weight_bytes)} + {batch_before} x {num(kv_bytes_per_seq)})",
        [
            (
                "batch-ratio",
                "You scaled by the batch ratio",
                "The weights are read once per step whatever the batch: only the cache term grows.",
                batch_after / batch_before,
            ),
            (
                "weights-only",
                "You counted the weights only, so the step did not grow",
                "Each sequence's cache is read every step, so more sequences read more bytes.",
                1.0,
            ),
            ("inverted", "You inverted the ratio", "After over before.", before / after),
        ],
        worked=worked,
    )


# --------------------------------------------------------------------------- prefix cache and the tail


@register(
    "hit_prefill_ms",
    summary="Prefill time of a prefix-cache hit: miss time x uncached tokens / prompt tokens.",
    unit="ms",
    args=(
        Arg("miss_ms", "float", "prefill time of the whole prompt (a miss), ms"),
        Arg("prompt_tokens", "int", "tokens in the prompt"),
        Arg("cached_tokens", "int", "tokens of it already in the prefix cache"),
    ),
    misconceptions=("cached-part", "no-saving"),
)
def hit_prefill_ms(
    miss_ms: float, prompt_tokens: int, cached_tokens: int, *, worked: bool = True
) -> Derivation:
    """A compute-bound prefill costs per token, and a hit skips the cached tokens."""
    calc = "hit_prefill_ms"
    require_positive_numbers(calc, miss_ms=miss_ms, prompt_tokens=prompt_tokens, cached_tokens=cached_tokens)
    if cached_tokens >= prompt_tokens:
        raise ValueError(
            f"{calc}: cached_tokens={cached_tokens} must be fewer than prompt_tokens={prompt_tokens}"
        )
    value = miss_ms * (prompt_tokens - cached_tokens) / prompt_tokens
    return formula_result(
        calc,
        value,
        "ms",
        "Prefill of a hit (ms)",
        "miss ms x (P - cached) / P",
        f"{num(miss_ms)} x ({num(prompt_tokens)} - {num(cached_tokens)}) / {num(prompt_tokens)}",
        [
            (
                "cached-part",
                "You kept the cached part's time",
                "The cached tokens are the ones skipped; the hit pays for the rest.",
                miss_ms * cached_tokens / prompt_tokens,
            ),
            (
                "no-saving",
                "You charged the hit the full prefill",
                "A hit reads the prefix's K and V from the cache instead of computing them.",
                miss_ms,
            ),
        ],
        worked=worked,
    )


@register(
    "mixed_mean_ms",
    summary="Mean time over hits and misses: hit rate x hit time + (1 - hit rate) x miss time.",
    unit="ms",
    args=(
        Arg("hit_ms", "float", "time of a hit, ms"),
        Arg("miss_ms", "float", "time of a miss, ms"),
        Arg("hit_rate", "float", "fraction of requests that hit, between 0 and 1"),
    ),
    misconceptions=("swapped-rate", "unweighted-mean", "hit-only"),
)
def mixed_mean_ms(hit_ms: float, miss_ms: float, hit_rate: float, *, worked: bool = True) -> Derivation:
    """A mean weighs each kind of request by how often it comes; a tail percentile does not."""
    calc = "mixed_mean_ms"
    require_positive_numbers(calc, hit_ms=hit_ms, miss_ms=miss_ms)
    _fraction(calc, "hit_rate", hit_rate)
    value = hit_rate * hit_ms + (1 - hit_rate) * miss_ms
    return formula_result(
        calc,
        value,
        "ms",
        "Mean time (ms)",
        "h x hit + (1 - h) x miss",
        f"{hit_rate:g} x {num(hit_ms)} + {1 - hit_rate:g} x {num(miss_ms)}",
        [
            (
                "swapped-rate",
                "You weighted the miss by the hit rate",
                "The hit rate weighs the hits; the misses come 1 - h of the time.",
                (1 - hit_rate) * hit_ms + hit_rate * miss_ms,
            ),
            (
                "unweighted-mean",
                "You averaged the two times",
                "Hits and misses do not come equally often: weigh each by its rate.",
                (hit_ms + miss_ms) / 2,
            ),
            ("hit-only", "You gave the hit's time", "Misses still come, 1 - h of the time.", hit_ms),
        ],
        worked=worked,
    )


@register(
    "tail_percentile_of_misses",
    summary="Which percentile of the misses a latency percentile is, when every miss is slower than every "
    "hit: 100 x (1 - (1 - p/100) / (1 - h)).",
    unit="",
    args=(
        Arg("hit_rate", "float", "fraction of requests that hit, between 0 and 1"),
        Arg("percentile", "float", "the percentile watched (99 for p99)"),
    ),
    misconceptions=("same-percentile", "divided-by-hit-rate", "times-miss-share"),
)
def tail_percentile_of_misses(hit_rate: float, percentile: float, *, worked: bool = True) -> Derivation:
    """The slowest 1 - p/100 of all requests are all misses while misses outnumber them."""
    calc = "tail_percentile_of_misses"
    _fraction(calc, "hit_rate", hit_rate)
    if not 0 < percentile < 100:
        raise ValueError(f"{calc}: percentile lies strictly between 0 and 100, got {percentile}")
    tail = 1 - percentile / 100
    miss = 1 - hit_rate
    if tail >= miss:
        raise ValueError(
            f"{calc}: the slowest {tail:.4g} of requests outnumber the misses ({miss:.4g}): "
            "that percentile falls among the hits"
        )
    value = 100 * (1 - tail / miss)
    return formula_result(
        calc,
        value,
        "",
        "Percentile among the misses",
        "100 x (1 - (1 - p/100) / (1 - h))",
        f"100 x (1 - {tail:g} / {miss:g})",
        [
            (
                "same-percentile",
                "You kept the same percentile",
                "The tail is drawn from the misses alone, a smaller population: the same requests sit at a "
                "lower percentile of it.",
                percentile,
            ),
            (
                "divided-by-hit-rate",
                "You divided the tail by the hit rate",
                "The tail lies among the misses, a 1 - h share of the requests.",
                100 * (1 - tail / hit_rate),
            ),
            (
                "times-miss-share",
                "You multiplied the tail by the miss share",
                "The tail is a fraction of all requests; as a fraction of the misses it is larger: divide.",
                100 * (1 - tail * miss),
            ),
        ],
        worked=worked,
    )


@register(
    "mm1_wait_percentile_ms",
    summary="A percentile of the M/M/1 wait before service: P(wait > t) = rho exp(-(1 - rho) t / S), so "
    "t_p = S / (1 - rho) x ln(rho / (1 - p/100)).",
    unit="ms",
    args=(
        Arg("utilisation", "float", "rho = arrival rate x S, below 1"),
        Arg("service_ms", "float", "mean service time S, ms (an earlier step)"),
        Arg("percentile", "float", "the percentile watched (99 for p99)"),
    ),
    misconceptions=("forgot-blowup", "included-service", "mean-for-tail"),
)
def mm1_wait_percentile_ms(
    utilisation: float, service_ms: float, percentile: float, *, worked: bool = True
) -> Derivation:
    """A tail wait stretches like 1 / (1 - rho): near full load it dwarfs the service time itself."""
    calc = "mm1_wait_percentile_ms"
    require_positive_numbers(calc, service_ms=service_ms)
    _fraction(calc, "utilisation", utilisation)
    rho = utilisation
    if not 0 < percentile < 100:
        raise ValueError(f"{calc}: percentile lies strictly between 0 and 100, got {percentile}")
    tail = 1 - percentile / 100
    if rho <= tail:
        raise ValueError(
            f"{calc}: with utilisation {rho:.4g}, more than {percentile:g}% of requests never wait: the "
            "percentile is 0"
        )
    value = service_ms / (1 - rho) * math.log(rho / tail)
    return formula_result(
        calc,
        value,
        "ms",
        f"p{percentile:g} wait in the queue (ms)",
        "S / (1 - rho) x ln(rho / (1 - p/100))",
        f"{num(service_ms)} / (1 - {rho:.6g}) x ln({rho:.6g} / {tail:g})",
        [
            (
                "forgot-blowup",
                "You left out the 1 / (1 - rho)",
                "The wait's tail decays at rate (1 - rho) / S: near full load it stretches.",
                service_ms * math.log(rho / tail),
            ),
            (
                "included-service",
                "You gave the percentile of the whole time in the system",
                "The time in the system is exponential with mean S / (1 - rho), so its percentile is "
                "S / (1 - rho) x ln(1 / (1 - p/100)); the wait before service is shorter.",
                service_ms / (1 - rho) * math.log(1 / tail),
            ),
            (
                "mean-for-tail",
                "You gave the mean wait",
                "A tail percentile of the wait lies far above its mean, rho S / (1 - rho).",
                rho / (1 - rho) * service_ms,
            ),
        ],
        worked=worked,
    )


# --------------------------------------------------------------------------- speculative decoding at load


@register(
    "verify_pass_ms",
    summary="Time of a target pass verifying t tokens per sequence: max(memory-bound step, "
    "2 N B t / (TFLOPS x 1e12 x MFU) x 1000).",
    unit="ms",
    args=(
        Arg("step_ms", "float", "memory-bound time of one ordinary decode step, ms (an earlier step)"),
        Arg("n_params", "float", "parameters whose matmuls one GPU runs (its shard)"),
        Arg("batch", "int", "sequences in the batch"),
        Arg("tokens_per_seq", "int", "tokens each sequence verifies in the pass (drafts + 1)"),
        Arg("tflops", "float", "dense throughput, TFLOPS"),
        Arg("mfu", "float", "fraction of peak the matmuls reach"),
    ),
    misconceptions=("memory-only", "one-token-per-seq", "summed-bounds"),
)
def verify_pass_ms(
    step_ms: float,
    n_params: float,
    batch: int,
    tokens_per_seq: int,
    tflops: float,
    mfu: float,
    *,
    worked: bool = True,
) -> Derivation:
    """Verifying t tokens reads the same bytes but does t times the FLOPs: at a large batch compute wins."""
    calc = "verify_pass_ms"
    require_positive_numbers(
        calc, step_ms=step_ms, n_params=n_params, batch=batch, tokens_per_seq=tokens_per_seq, tflops=tflops
    )
    if not 0 < mfu <= 1:
        raise ValueError(f"{calc}: mfu is a fraction of peak in (0, 1], got {mfu}")
    rate = tflops * 1e12 * mfu
    compute = 2 * n_params * batch * tokens_per_seq / rate * 1e3
    value = max(step_ms, compute)
    c_label = "Compute time of the pass (ms)"
    before = (
        Step(
            c_label,
            "2 N x B x t / (TFLOPS x 1e12 x MFU) x 1000",
            f"2 x {num(n_params)} x {batch} x {tokens_per_seq} / ({num(tflops)}e12 x {mfu:g}) x 1000",
            compute,
            "ms",
        ),
    )
    wrong: list[Wrong] = [
        (
            "memory-only",
            "You took one plain step's time",
            "The pass does t times a decode step's FLOPs; at this batch they outlast the reads.",
            step_ms,
        ),
        (
            "one-token-per-seq",
            "You counted one token per sequence",
            "Each sequence verifies all its drafts plus one: t tokens, t times the FLOPs.",
            max(step_ms, compute / tokens_per_seq),
        ),
        (
            "summed-bounds",
            "You added the memory and compute times",
            "Reads and matmuls overlap: the pass takes the larger of the two, not their sum.",
            step_ms + compute,
        ),
    ]
    return formula_result(
        calc,
        value,
        "ms",
        "Verification pass (ms)",
        "max(memory-bound step, compute time)",
        f"max({num(step_ms)}, {num(compute)})",
        wrong,
        worked=worked,
        before=before,
    )


@register(
    "spec_tpot_ms",
    summary="Time per output token with speculation: (verify pass + gamma x c x step) / tokens per round.",
    unit="ms",
    args=(
        Arg("verify_ms", "float", "time of the target's verification pass, ms (an earlier step)"),
        Arg("step_ms", "float", "time of one ordinary decode step of the target, ms"),
        Arg("gamma", "int", "tokens drafted per round"),
        Arg("draft_cost", "float", "one draft pass as a fraction of a target decode step"),
        Arg("tokens_per_round", "float", "expected tokens a round yields (an earlier step)"),
    ),
    misconceptions=("verify-as-one-step", "forgot-draft-cost", "per-round"),
)
def spec_tpot_ms(
    verify_ms: float,
    step_ms: float,
    gamma: int,
    draft_cost: float,
    tokens_per_round: float,
    *,
    worked: bool = True,
) -> Derivation:
    """A round costs the drafts and one verification; it yields tokens_per_round tokens on average."""
    calc = "spec_tpot_ms"
    require_positive_numbers(
        calc,
        verify_ms=verify_ms,
        step_ms=step_ms,
        gamma=gamma,
        draft_cost=draft_cost,
        tokens_per_round=tokens_per_round,
    )
    draft = gamma * draft_cost * step_ms
    value = (verify_ms + draft) / tokens_per_round
    return formula_result(
        calc,
        value,
        "ms",
        "Time per output token (ms)",
        "(verify + gamma x c x step) / tokens per round",
        f"({num(verify_ms)} + {gamma} x {draft_cost:g} x {num(step_ms)}) / {num(tokens_per_round)}",
        [
            (
                "verify-as-one-step",
                "You priced the verification as one ordinary step",
                "At this batch the verification is compute-bound: use its own time, not the decode step's.",
                (step_ms + draft) / tokens_per_round,
            ),
            (
                "forgot-draft-cost",
                "You left out the draft passes",
                "The gamma draft passes run before each verification, c of a step each.",
                verify_ms / tokens_per_round,
            ),
            (
                "per-round",
                "You gave the time of a whole round",
                "A round yields several tokens: divide by the expected tokens per round.",
                verify_ms + draft,
            ),
        ],
        worked=worked,
    )


# --------------------------------------------------------------------------- RoPE against the context


def rope_wavelengths(d_head: int, base: float) -> np.ndarray:
    """Tokens for each RoPE pair to turn a full circle: 2 pi base^(2i/d), i = 0 .. d/2 - 1."""
    i = np.arange(d_head // 2)  # (d/2,)
    return 2 * np.pi * base ** (2 * i / d_head)  # (d/2,)


@register(
    "rope_slow_pairs",
    summary="RoPE pairs whose wavelength 2 pi base^(2i/d) exceeds a context: they never turn a full circle "
    "inside it.",
    unit="",
    args=(
        Arg("d_head", "int", "head dimension d (even)"),
        Arg("base", "float", "rope_theta, the RoPE base"),
        Arg("context", "int", "tokens of context"),
    ),
    misconceptions=("counted-fast-pairs", "counted-dimensions", "used-i-not-2i"),
)
def rope_slow_pairs(d_head: int, base: float, context: int, *, worked: bool = True) -> Derivation:
    """Pairs slower than the context see only part of a turn there: the ones long-range position rests on."""
    calc = "rope_slow_pairs"
    require_positive_numbers(calc, d_head=d_head, context=context)
    if d_head % 2:
        raise ValueError(f"{calc}: d_head={d_head} must be even (RoPE turns coordinates in pairs)")
    if not base > 1:
        raise ValueError(f"{calc}: base={base} must exceed 1")
    waves = rope_wavelengths(d_head, base)
    value = int(np.count_nonzero(waves > context))
    half = d_head // 2
    half_rate = 2 * np.pi * base ** (np.arange(half) / d_head)  # (d/2,) with base^(i/d)
    cut = math.log(context / (2 * math.pi)) / math.log(base)
    return formula_result(
        calc,
        value,
        "",
        "Pairs slower than the context",
        "count of i < d/2 with 2 pi x base^(2i/d) > context",
        f"2 pi x {base:g}^(2i/{d_head}) > {num(context)} when i > {cut * half:.4g}, for i < {half}",
        [
            (
                "counted-fast-pairs",
                "You counted the pairs that turn inside the context",
                "The slow pairs are those whose wavelength is longer than the context.",
                half - value,
            ),
            (
                "counted-dimensions",
                "You counted dimensions, not pairs",
                "Each pair holds two coordinates that rotate together: count pairs.",
                2 * value,
            ),
            (
                "used-i-not-2i",
                "You used base^(i/d) instead of base^(2i/d)",
                "Pair i holds coordinates 2i and 2i+1, so its wavelength is 2 pi base^(2i/d).",
                int(np.count_nonzero(half_rate > context)),
            ),
        ],
        worked=worked,
    )
