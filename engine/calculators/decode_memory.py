"""Provides decode bounded by memory: tokens per second from bandwidth, sequences that fit, arithmetic
intensity.
"""

from __future__ import annotations

import math
from typing import Annotated, Literal

from engine.calculator import Param, register, result
from engine.calculators.common import Batch, CachedLen, DHead, NKvHeads, NLayers
from engine.calculators.kv_cache import GIB_AS_GB
from engine.calculators.serving import KvBytesPerElement, NParams, kv_bytes_per_token
from engine.derivation import Derivation, Misconception, Mistake, Step

DECODE_WHICH = ("per_sequence", "total")
BytesPerWeight = Annotated[int, Param("bytes per weight (fp16/bf16: 2, int8/fp8: 1, fp32: 4)", gt=0)]

# --------------------------------------------------------------------------- decode and memory


FORGOT_KV_CACHE = Mistake(
    "forgot-kv-cache",
    "You counted only the weights",
    "Attention reads every cached key and value of every sequence at each step, as well as the weights.",
)
BITS_AS_BYTES = Mistake(
    "bits-as-bytes",
    "You used bits where bytes were needed",
    "A 16-bit number is 2 bytes, not 16: bandwidth is in bytes per second.",
)
GB_AS_GIB = Mistake(
    "gb-as-gib",
    "You read GB/s as GiB/s",
    "1 GB = 10^9 bytes; reading the bandwidth as 2^30 bytes per GB overstates it by 7%.",
)
ONE_SEQUENCE_KV = Mistake(
    "one-sequence-kv",
    "You read one sequence's cache, not the batch's",
    "The weights are shared across the batch, but every sequence has its own KV cache.",
)
BATCH_FOR_PER_SEQUENCE = Mistake(
    "batch-for-per-sequence",
    "You gave the batch's tokens/s, not one sequence's",
    "Each step produces one token per sequence: one user sees steps/s, the batch gets batch x steps/s.",
)
PER_SEQUENCE_FOR_BATCH = Mistake(
    "per-sequence-for-batch",
    "You gave one sequence's tokens/s, not the batch's",
    "Each step produces one token for every sequence in the batch.",
)


@register(
    summary="Memory-bound decode speed: bandwidth / (weight bytes + KV bytes read per step), per sequence or "
    "for the batch.",
    unit="",
    misconceptions=(
        FORGOT_KV_CACHE,
        BITS_AS_BYTES,
        GB_AS_GIB,
        BATCH_FOR_PER_SEQUENCE,
        PER_SEQUENCE_FOR_BATCH,
        ONE_SEQUENCE_KV,
    ),
)
def decode_tokens_per_second(
    n_params: NParams,
    bytes_per_param: BytesPerWeight,
    n_layers: NLayers,
    n_kv_heads: NKvHeads,
    d_head: DHead,
    kv_bytes_per_element: KvBytesPerElement,
    context: Annotated[int, Param("tokens already cached per sequence", gt=0)],
    batch: Batch,
    bandwidth_gb_s: Annotated[float, Param("memory bandwidth in GB/s (10^9 bytes per second)", gt=0)],
    which: Annotated[
        Literal["per_sequence", "total"],
        Param("per_sequence (tokens/s one user sees) or total (tokens/s of the whole batch)"),
    ] = "per_sequence",
    *,
    worked: bool = True,
) -> Derivation:
    """One step makes one token per sequence and reads all weights once plus every sequence's cache."""
    if which not in DECODE_WHICH:
        raise ValueError(f"which={which!r} must be one of {', '.join(DECODE_WHICH)}")
    weights = n_params * bytes_per_param
    per_token = kv_bytes_per_token(n_layers, n_kv_heads, d_head, kv_bytes_per_element)
    kv = per_token * context * batch
    step_bytes = weights + kv
    bw = bandwidth_gb_s * 1e9
    steps_s = bw / step_bytes
    value = steps_s if which == "per_sequence" else steps_s * batch
    if not worked:
        return result(value)
    w_label, kv_label, s_label, r_label = (
        "Weight bytes",
        "KV bytes read per step",
        "Bytes per decode step",
        "Decode steps per second",
    )
    steps = [
        Step(w_label, "N x bytes_per_param", f"{n_params:.4g} x {bytes_per_param}", weights, "B"),
        Step(
            kv_label,
            "2 x n_layers x n_kv_heads x d_head x bytes x context x batch",
            f"2 x {n_layers} x {n_kv_heads} x {d_head} x {kv_bytes_per_element} x {context:,} x {batch}",
            kv,
            "B",
        ),
        Step(s_label, "weights + KV", f"{weights:.4g} + {kv:.4g}", step_bytes, "B"),
        Step(r_label, "bandwidth / bytes per step", f"{bw:.4g} / {step_bytes:.4g}", steps_s, "steps/s"),
    ]
    last = r_label
    if which == "total":
        last = "Batch tokens per second"
        steps.append(Step(last, "steps/s x batch", f"{steps_s:.4g} x {batch}", value, "tokens/s"))
    per = 1 if which == "per_sequence" else batch
    wrong: list[Misconception] = []
    if batch > 1:
        if which == "per_sequence":
            wrong.append(BATCH_FOR_PER_SEQUENCE.gives(steps_s * batch, last))
        else:
            wrong.append(PER_SEQUENCE_FOR_BATCH.gives(steps_s, last))
        wrong.append(ONE_SEQUENCE_KV.gives(bw / (weights + per_token * context) * per, kv_label))
    wrong += [
        FORGOT_KV_CACHE.gives(bw / weights * per, s_label),
        BITS_AS_BYTES.gives(value / 8, w_label),
        GB_AS_GIB.gives(value / GIB_AS_GB, r_label),
    ]
    return result(value, tuple(steps), wrong)


FORGOT_WEIGHTS = Mistake(
    "forgot-weights",
    "You gave the whole memory to the cache",
    "The weights are loaded first; only what is left holds KV caches.",
)
ROUNDED_UP = Mistake(
    "rounded-up", "You rounded up", "A partial sequence cannot be served: round the count down."
)
NO_X2_KV = Mistake("no-x2-kv", "You left out the x2 for K and V", "Both keys and values are cached.")
USED_N_HEADS = Mistake(
    "used-n-heads", "You used the query heads instead of the KV heads", "Only the key/value heads are cached."
)
ONE_BYTE_PER_PARAM = Mistake("one-byte-per-param", "You counted one byte per parameter")


@register(
    summary="How many sequences' KV caches fit beside the weights: floor((memory - weights) / KV per "
    "sequence).",
    unit="",
    misconceptions=(
        FORGOT_WEIGHTS,
        GB_AS_GIB,
        ROUNDED_UP,
        NO_X2_KV,
        USED_N_HEADS,
        ONE_BYTE_PER_PARAM,
    ),
)
def sequences_that_fit(
    n_params: NParams,
    bytes_per_param: BytesPerWeight,
    n_layers: NLayers,
    n_kv_heads: NKvHeads,
    d_head: DHead,
    kv_bytes_per_element: KvBytesPerElement,
    seq_len: CachedLen,
    memory_gib: Annotated[float, Param("accelerator memory in GiB (2^30 bytes)", gt=0)],
    n_heads: Annotated[
        int | None, Param("query heads (optional: lets 'used h instead of n_kv' be recognised)", gt=0)
    ] = None,
    *,
    worked: bool = True,
) -> Derivation:
    """The weights sit in memory once; what is left is divided among whole sequences' caches."""
    mem = memory_gib * 2**30
    weights = n_params * bytes_per_param
    if weights > mem:
        raise ValueError(
            f"the weights ({n_params:.4g} params x {bytes_per_param} B = {weights:.4g} B) do not fit "
            f"in memory_gib={memory_gib}"
        )
    per_seq = kv_bytes_per_token(n_layers, n_kv_heads, d_head, kv_bytes_per_element) * seq_len
    free = mem - weights
    value = int(free // per_seq)
    if not worked:
        return result(value)
    kv_label, free_label, label = "KV cache per sequence", "Memory left for the cache", "Whole sequences"
    steps = (
        Step(
            kv_label,
            "2 x n_layers x n_kv_heads x d_head x bytes x seq_len",
            f"2 x {n_layers} x {n_kv_heads} x {d_head} x {kv_bytes_per_element} x {seq_len:,}",
            per_seq,
            "B",
        ),
        Step(
            free_label,
            "memory x 2^30 - N x bytes_per_param",
            f"{memory_gib:g} x 2^30 - {n_params:.4g} x {bytes_per_param}",
            free,
            "B",
        ),
        Step(label, "floor(free / KV per sequence)", f"floor({free:.4g} / {per_seq:,})", value),
    )
    wrong = [
        FORGOT_WEIGHTS.gives(int(mem // per_seq), free_label),
        GB_AS_GIB.gives(
            max(0, int((memory_gib * 1e9 - weights) // per_seq)),
            free_label,
            label="You read GiB as GB",
            explanation="1 GiB = 2^30 bytes, about 7% more than 10^9.",
        ),
        ROUNDED_UP.gives(math.ceil(free / per_seq), label),
        NO_X2_KV.gives(int(free // (per_seq // 2)), kv_label),
    ]
    if n_heads is not None and n_heads != n_kv_heads:
        wrong.append(USED_N_HEADS.gives(int(free // (per_seq // n_kv_heads * n_heads)), kv_label))
    if bytes_per_param > 1:
        wrong.append(
            ONE_BYTE_PER_PARAM.gives(
                int((mem - n_params) // per_seq),
                free_label,
                explanation=f"Each weight takes {bytes_per_param} bytes here ({8 * bytes_per_param}-bit); 1 "
                "byte per parameter is an 8-bit model.",
            )
        )
    return result(value, steps, wrong)


MAC_AS_ONE = Mistake("mac-as-one", "You counted a multiply-add as one FLOP", "Each multiply-add is 2 FLOPs.")
FORGOT_BYTES = Mistake(
    "forgot-bytes", "You gave FLOPs per weight, not per byte", "Divide by the bytes each weight takes."
)
ONE_TOKEN_PER_READ = Mistake(
    "one-token-per-read",
    "You assumed each weight read serves one token",
    "All tokens in the pass (the prompt in prefill, the batch in decode) share one read.",
)


@register(
    summary="FLOPs per byte of weights read in one pass that processes `tokens` tokens: 2 x tokens / bytes.",
    unit="",
    misconceptions=(MAC_AS_ONE, FORGOT_BYTES, BITS_AS_BYTES, ONE_TOKEN_PER_READ),
)
def arithmetic_intensity(
    tokens: Annotated[
        int, Param("tokens that share one read of the weights (prefill: prompt length, decode: batch)", gt=0)
    ],
    bytes_per_param: BytesPerWeight,
    *,
    worked: bool = True,
) -> Derivation:
    """Each weight read serves every token in the pass, two FLOPs each; the KV reads are left out."""
    flops = 2 * tokens
    value = flops / bytes_per_param
    if not worked:
        return result(value)
    f_label, label = "FLOPs per weight per pass", "FLOPs per byte"
    steps = (
        Step(f_label, "2 x tokens (one multiply-add per token)", f"2 x {tokens:,}", flops, "FLOPs"),
        Step(label, "FLOPs per weight / bytes per weight", f"{flops:,} / {bytes_per_param}", value),
    )
    wrong = [
        MAC_AS_ONE.gives(tokens / bytes_per_param, f_label),
        FORGOT_BYTES.gives(flops, label),
        BITS_AS_BYTES.gives(
            flops / (8 * bytes_per_param),
            label,
            label="You divided by bits, not bytes",
            explanation="A 16-bit weight is 2 bytes.",
        ),
        ONE_TOKEN_PER_READ.gives(2 / bytes_per_param, f_label),
    ]
    return result(value, steps, wrong)
