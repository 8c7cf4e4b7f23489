"""Provides the serving calculators about time a staff-level round chains: speculative decoding, the
roofline, request latency (TTFT and TPOT) and FlashDecoding's split count. What fits in memory (KIVI,
GPUs to fit, prefix caching) is in serving_capacity.

Each returns a worked Derivation and the named wrong turns an interviewer sees most often.
"""

from __future__ import annotations

import math
from typing import Annotated, Literal

from engine.calculator import Param, register, result
from engine.calculators.common import OpenShare, Share
from engine.derivation import Derivation, Misconception, Mistake, Step

PeakTflops = Annotated[float, Param("dense peak throughput in TFLOP/s")]


def _unit_interval(name: str, value: float) -> None:
    if not 0 < value < 1:
        raise ValueError(f"{name}={value} must lie strictly between 0 and 1")


# --------------------------------------------------------------------------- speculative decoding


NO_BONUS_TOKEN = Mistake(
    "no-bonus-token",
    "You left out the token the target adds itself",
    "Every target pass yields one token of its own (the correction, or a bonus after k accepted "
    "drafts), so E = 1 + a + ... + a^k, not a + ... + a^k.",
)
LINEAR_ACCEPTANCE = Mistake(
    "linear-acceptance",
    "You took k a + 1, as if each draft were accepted independently",
    "Draft i counts only if drafts 1..i-1 were all accepted: the terms are a^i, not a.",
)
ALL_ACCEPTED = Mistake(
    "all-accepted",
    "You assumed all k drafts are accepted",
    "Each draft survives with probability a given its predecessors; k + 1 tokens per pass is the "
    "best case, reached only when a = 1.",
)
IGNORED_DRAFT_COST = Mistake(
    "ignored-draft-cost",
    "You left out the draft model's cost",
    "A round costs k draft steps plus one target step: divide E by k c + 1.",
)


@register(
    summary="Expected tokens per target pass (1 - a^(k+1)) / (1 - a), and the walltime speed-up over "
    "plain decoding, E / (k c + 1).",
    unit="",
    misconceptions=(NO_BONUS_TOKEN, LINEAR_ACCEPTANCE, IGNORED_DRAFT_COST, ALL_ACCEPTED),
)
def speculative_decoding(
    acceptance: Annotated[OpenShare, Param("probability a that the target accepts one drafted token")],
    draft_tokens: Annotated[int, Param("tokens k the draft model proposes per round", gt=0)],
    draft_cost: Annotated[float, Param("cost c of one draft step relative to one target step", ge=0)] = 0.0,
    which: Annotated[Literal["tokens", "speedup"], Param("tokens (per target pass) or speedup")] = "tokens",
    *,
    worked: bool = True,
) -> Derivation:
    """Leviathan et al. 2023: the accepted prefix is geometric, and the target always adds one token."""
    a, k, c = acceptance, draft_tokens, draft_cost
    tokens = (1 - a ** (k + 1)) / (1 - a)
    cost = k * c + 1
    value = tokens if which == "tokens" else tokens / cost
    if not worked:
        return result(value)
    t_label, s_label = "Tokens per target pass", "Speed-up"
    steps = [
        Step(t_label, "E = (1 - a^(k+1)) / (1 - a)", f"(1 - {a:g}^{k + 1}) / (1 - {a:g})", tokens),
    ]
    if which == "speedup":
        steps += [
            Step("Cost of one round", "k c + 1 target-step units", f"{k} x {c:g} + 1", cost),
            Step(s_label, "E / (k c + 1)", f"{tokens:.4g} / {cost:.4g}", value),
        ]
    scale = 1.0 if which == "tokens" else 1 / cost
    wrong = [
        NO_BONUS_TOKEN.gives((tokens - 1) * scale, t_label),
        LINEAR_ACCEPTANCE.gives((k * a + 1) * scale, t_label),
        ALL_ACCEPTED.gives((k + 1) * scale, t_label),
    ]
    if which == "speedup" and c > 0:
        wrong.append(IGNORED_DRAFT_COST.gives(tokens, s_label))
    return result(value, tuple(steps), wrong)


# --------------------------------------------------------------------------- roofline


INVERTED = Mistake(
    "inverted", "You divided bandwidth by peak", "The ridge is FLOPs per byte: peak FLOP/s over bytes/s."
)
GB_FOR_TB = Mistake(
    "gb-for-tb",
    "You mixed TB/s with GB/s",
    "TFLOP/s over TB/s cancels the 10^12: the ridge is peak / bandwidth in the same prefixes.",
)
NO_CAP = Mistake(
    "no-cap",
    "You did not cap at the peak",
    "Above the ridge the kernel is compute-bound: it cannot exceed the peak.",
)
PEAK_ALWAYS = Mistake(
    "peak-always",
    "You took the peak for a memory-bound kernel",
    "Below the ridge every FLOP waits for bytes: throughput is intensity x bandwidth.",
)


@register(
    summary="Ridge point peak / bandwidth (FLOPs per byte), or the attainable throughput "
    "min(peak, intensity x bandwidth) in TFLOP/s.",
    unit="",
    misconceptions=(INVERTED, GB_FOR_TB, NO_CAP, PEAK_ALWAYS),
)
def roofline(
    peak_tflops: PeakTflops,
    bandwidth_tb_s: Annotated[float, Param("memory bandwidth in TB/s")],
    intensity: Annotated[float, Param("arithmetic intensity of the kernel in FLOPs per byte")] = 0.0,
    which: Annotated[Literal["ridge", "attainable"], Param("ridge or attainable")] = "ridge",
    *,
    worked: bool = True,
) -> Derivation:
    """Below the ridge a kernel is bound by bandwidth; above it by compute."""
    if peak_tflops <= 0 or bandwidth_tb_s <= 0:
        raise ValueError(f"peak_tflops={peak_tflops} and bandwidth_tb_s={bandwidth_tb_s} must be positive")
    if which == "attainable" and intensity <= 0:
        raise ValueError(f"intensity={intensity} must be positive for the attainable throughput")
    ridge = peak_tflops / bandwidth_tb_s
    memory_bound = intensity * bandwidth_tb_s
    value = ridge if which == "ridge" else min(peak_tflops, memory_bound)
    if not worked:
        return result(value)
    r_label, a_label = "Ridge point (FLOPs per byte)", "Attainable TFLOP/s"
    steps = [Step(r_label, "peak / bandwidth", f"{peak_tflops:g} / {bandwidth_tb_s:g}", ridge)]
    wrong: list[Misconception] = []
    if which == "ridge":
        wrong += [
            INVERTED.gives(bandwidth_tb_s / peak_tflops, r_label),
            GB_FOR_TB.gives(ridge / 1000, r_label),
        ]
    else:
        steps.append(
            Step(
                a_label,
                "min(peak, intensity x bandwidth)",
                f"min({peak_tflops:g}, {intensity:g} x {bandwidth_tb_s:g})",
                value,
            )
        )
        if memory_bound > peak_tflops:
            wrong.append(NO_CAP.gives(memory_bound, a_label))
        else:
            wrong.append(PEAK_ALWAYS.gives(peak_tflops, a_label))
    return result(value, tuple(steps), wrong)


# --------------------------------------------------------------------------- request latency


N6N_FOR_INFERENCE = Mistake(
    "6n-for-inference",
    "You used 6N FLOPs per token",
    "6N is training (forward plus backward); a prefill is a forward pass, 2N per token.",
)
FORGOT_MFU = Mistake(
    "forgot-mfu",
    "You assumed the GPU runs at its peak",
    "Real prefills reach a fraction of the peak (the MFU); divide by peak x MFU.",
)
TPOT_FOR_EVERY_TOKEN = Mistake(
    "tpot-for-every-token",
    "You charged a TPOT for the first token too",
    "The prefill produces the first token; only the n - 1 later ones each cost a TPOT.",
)
FORGOT_TTFT = Mistake(
    "forgot-ttft",
    "You left out the time to first token",
    "The request waits for the prefill before the first token appears.",
)


@register(
    summary="TTFT = 2 N P / (peak x MFU) for the prefill; total = TTFT + (output tokens - 1) x TPOT, in ms.",
    unit="ms",
    misconceptions=(N6N_FOR_INFERENCE, FORGOT_MFU, TPOT_FOR_EVERY_TOKEN, FORGOT_TTFT),
)
def request_latency(
    n_params: Annotated[float, Param("model parameters N")],
    prompt_tokens: Annotated[int, Param("prompt length P", gt=0)],
    peak_tflops: PeakTflops,
    mfu: Annotated[Share, Param("model FLOPs utilisation during prefill, between 0 and 1")],
    tpot_ms: Annotated[float, Param("time per output token in ms")] = 0.0,
    output_tokens: Annotated[int, Param("tokens generated", gt=0)] = 1,
    which: Annotated[Literal["ttft", "total"], Param("ttft or total (both in ms)")] = "ttft",
    *,
    worked: bool = True,
) -> Derivation:
    """The prefill is compute-bound (2N FLOPs per prompt token); each later token costs one TPOT."""
    if n_params <= 0 or peak_tflops <= 0 or tpot_ms < 0:
        raise ValueError("n_params, peak_tflops must be positive and tpot_ms not negative")
    flops = 2 * n_params * prompt_tokens
    ttft = flops / (peak_tflops * 1e12 * mfu) * 1e3
    value = ttft if which == "ttft" else ttft + (output_tokens - 1) * tpot_ms
    if not worked:
        return result(value)
    f_label, t_label, e_label = "Prefill FLOPs", "TTFT (ms)", "Whole request (ms)"
    steps = [
        Step(f_label, "2 N P", f"2 x {n_params:.4g} x {prompt_tokens:,}", flops, "FLOPs"),
        Step(
            t_label,
            "2 N P / (peak x MFU) x 1000",
            f"{flops:.4g} / ({peak_tflops:g}e12 x {mfu:g}) x 1000",
            ttft,
            "ms",
        ),
    ]
    wrong = [
        N6N_FOR_INFERENCE.gives(value + 2 * ttft, t_label),
        FORGOT_MFU.gives(value - ttft + ttft * mfu, t_label),
    ]
    if which == "total":
        steps.append(
            Step(
                e_label,
                "TTFT + (n - 1) x TPOT",
                f"{ttft:.4g} + ({output_tokens} - 1) x {tpot_ms:g}",
                value,
                "ms",
            )
        )
        wrong += [
            TPOT_FOR_EVERY_TOKEN.gives(value + tpot_ms, e_label),
            FORGOT_TTFT.gives((output_tokens - 1) * tpot_ms, e_label),
        ]
    return result(value, tuple(steps), wrong)


# --------------------------------------------------------------------------- FlashDecoding


FLOOR_SPLITS = Mistake(
    "floor-splits",
    "You rounded the splits down",
    "Rounding down leaves some SMs idle; FlashDecoding takes enough splits to cover every SM.",
)
NO_SPLIT = Mistake(
    "no-split",
    "You kept the whole sequence in one block",
    "That is plain FlashAttention at decode time: one block per head and sequence.",
)


@register(
    summary="FlashDecoding: splits of the KV sequence so batch x KV heads x splits fills the SMs, "
    "ceil(SMs / (B x h_kv)), and the keys each split reads, ceil(S / splits).",
    unit="",
    misconceptions=(FLOOR_SPLITS, NO_SPLIT),
)
def split_kv_chunk(
    batch: Annotated[int, Param("sequences decoding", gt=0)],
    n_kv_heads: Annotated[int, Param("key/value heads (one query group each)", gt=0)],
    seq_len: Annotated[int, Param("cached tokens S", gt=0)],
    sms: Annotated[int, Param("streaming multiprocessors to fill", gt=0)],
    which: Annotated[Literal["splits", "chunk"], Param("splits or chunk")] = "chunk",
    *,
    worked: bool = True,
) -> Derivation:
    """Without splits a decode step has only B x h_kv blocks of work: too few for a GPU at small batch."""
    work = batch * n_kv_heads
    splits = max(1, math.ceil(sms / work))
    chunk = math.ceil(seq_len / splits)
    value = splits if which == "splits" else chunk
    if not worked:
        return result(value)
    w_label, s_label, c_label = "Blocks without splitting", "Splits", "Keys per split"
    steps = [
        Step(w_label, "B x h_kv", f"{batch} x {n_kv_heads}", work),
        Step(s_label, "ceil(SMs / (B x h_kv))", f"ceil({sms} / {work})", splits),
    ]
    if which == "chunk":
        steps.append(Step(c_label, "ceil(S / splits)", f"ceil({seq_len:,} / {splits})", chunk))
    floor_splits = max(1, sms // work)
    wrong = [
        FLOOR_SPLITS.gives(floor_splits if which == "splits" else math.ceil(seq_len / floor_splits), s_label),
        NO_SPLIT.gives(1 if which == "splits" else seq_len, s_label),
    ]
    return result(value, tuple(steps), wrong)
