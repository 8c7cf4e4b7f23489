"""Provides the compute and serving numbers: FLOPs per token, attention's share of them, decode speed
bounded by memory bandwidth, how many sequences fit beside the weights, arithmetic intensity, and the
slots a paged KV cache wastes.

The FLOPs follow Kaplan et al. 2020 (arXiv:2001.08361), section 2.1: a forward pass costs about
2N + 2 n_layer n_ctx d_model FLOPs per token, and training (forward plus a backward pass twice as costly)
about 6N per token. Decode speed follows the usual roofline argument: every decode step reads every weight
and every cached key and value once, so steps per second <= bandwidth / bytes read per step.
"""

from __future__ import annotations

import math

from engine.calculator import Arg, register
from engine.calculators.common import N_LAYERS, distinct
from engine.calculators.kv_cache import GIB_AS_GB
from engine.derivation import Derivation, Misconception, Step

MODES = ("inference", "training")
DECODE_WHICH = ("per_sequence", "total")
BLOCK_WHICH = ("blocks", "wasted_slots")

_N = Arg("n_params", "float", "number of parameters N")
_L = N_LAYERS
_D = Arg("d_model", "int", "model width d_model")
_G = Arg("n_kv_heads", "int", "number of key/value heads")
_DH = Arg("d_head", "int", "width of one head")
_WB = Arg("bytes_per_param", "int", "bytes per weight (fp16/bf16: 2, int8/fp8: 1, fp32: 4)")
_KVB = Arg("kv_bytes_per_element", "int", "bytes per cached key/value number")


def require_positive(calculator: str, **sizes: float | None) -> None:
    """common.require_positive for real-valued sizes too (parameter counts, bandwidths, GiB)."""
    bad = [f"{k}={v:g}" for k, v in sizes.items() if v is not None and v <= 0]
    if bad:
        raise ValueError(f"{calculator}: sizes must be positive, got {', '.join(bad)}")


def _kv_per_token(n_layers: int, n_kv_heads: int, d_head: int, nbytes: int) -> int:
    """2 (K and V) x layers x KV heads x d_head x bytes: what one more token of context costs."""
    return 2 * n_layers * n_kv_heads * d_head * nbytes


# --------------------------------------------------------------------------- FLOPs


@register(
    "model_flops",
    summary="FLOPs to run N parameters over D tokens: 2 N D forward (inference), 6 N D for training.",
    unit="FLOPs",
    args=(
        _N,
        Arg("tokens", "float", "tokens processed D"),
        Arg(
            "mode",
            "str",
            "inference (forward only) or training",
            default="inference",
            required=False,
            choices=MODES,
        ),
    ),
    misconceptions=("6n-for-inference", "2n-for-training", "mac-as-one", "backward-as-forward"),
)
def model_flops(
    n_params: float, tokens: float, mode: str = "inference", *, worked: bool = True
) -> Derivation:
    """Each weight does one multiply-add per token forward (2 FLOPs); the backward pass costs twice that."""
    calc = "model_flops"
    if mode not in MODES:
        raise ValueError(f"{calc}: mode={mode!r} must be one of {', '.join(MODES)}")
    require_positive(calc, n_params=n_params, tokens=tokens)
    forward = 2 * n_params * tokens
    value = forward if mode == "inference" else 3 * forward
    if not worked:
        return Derivation(calc, value, "FLOPs", ())
    fwd_label, total_label = "Forward pass", "Forward and backward"
    steps = [
        Step(
            fwd_label,
            "2 x N x D (one multiply-add per weight per token)",
            f"2 x {n_params:.4g} x {tokens:.4g}",
            forward,
            "FLOPs",
        )
    ]
    last = fwd_label
    if mode == "training":
        steps.append(
            Step(
                total_label, "forward + backward (2 x forward) = 6 N D", f"3 x {forward:.4g}", value, "FLOPs"
            )
        )
        last = total_label
    wrong = []
    if mode == "inference":
        wrong.append(
            Misconception(
                "6n-for-inference",
                "You used the training rule 6N for inference",
                "Serving runs only the forward pass: 2N FLOPs per token. 6N adds the backward pass.",
                3 * forward,
                fwd_label,
            )
        )
    else:
        wrong += [
            Misconception(
                "2n-for-training",
                "You counted only the forward pass",
                "Training also runs the backward pass, which costs about twice the forward: 6N per token.",
                forward,
                total_label,
            ),
            Misconception(
                "backward-as-forward",
                "You counted the backward pass as costly as the forward",
                "The backward pass computes gradients for both the activations and the weights: about "
                "4N per token, so training is 6N, not 4N.",
                2 * forward,
                total_label,
            ),
        ]
    wrong.append(
        Misconception(
            "mac-as-one",
            "You counted a multiply-add as one FLOP",
            "Each weight contributes a multiplication and an addition per token: 2 FLOPs.",
            value / 2,
            last if mode == "inference" else fwd_label,
        )
    )
    return Derivation(calc, value, "FLOPs", tuple(steps), distinct(value, wrong))


def _attention_term(n_layers: int, context: int, d_model: int) -> int:
    """Kaplan's per-token attention FLOPs, 2 n_layer n_ctx d: QK^T and AV (2 FLOPs per key per dimension
    each) for a causal token, which sees n_ctx / 2 keys on average over the sequence."""
    return 2 * n_layers * context * d_model


@register(
    "attention_flop_share",
    summary="Share of per-token forward FLOPs spent on attention scores: 2 L T d / (2N + 2 L T d).",
    unit="",
    args=(_N, _L, _D, Arg("context", "int", "tokens of context T each new token attends over")),
    misconceptions=("forgot-layers", "ratio-not-share", "t-squared-per-token"),
)
def attention_flop_share(
    n_params: float, n_layers: int, d_model: int, context: int, *, worked: bool = True
) -> Derivation:
    """The weight matmuls cost 2N per token whatever the context; the score term grows with T."""
    calc = "attention_flop_share"
    require_positive(calc, n_params=n_params, n_layers=n_layers, d_model=d_model, context=context)
    dense = 2 * n_params
    attn = _attention_term(n_layers, context, d_model)
    value = attn / (dense + attn)
    if not worked:
        return Derivation(calc, value, "", ())
    a_label, share_label = "Attention term per token", "Attention share"
    steps = (
        Step("Weight matmuls per token", "2 N", f"2 x {n_params:.4g}", dense, "FLOPs"),
        Step(
            a_label,
            "2 x 2 (QK^T and AV) x n_layers x T/2 (keys a causal token sees on average) x d_model",
            f"2 x 2 x {n_layers} x ({context:,} / 2) x {d_model}",
            attn,
            "FLOPs",
        ),
        Step(share_label, "attention / (2N + attention)", f"{attn:.4g} / ({dense:.4g} + {attn:.4g})", value),
    )
    no_l = _attention_term(1, context, d_model)
    sq = _attention_term(n_layers, context * context, d_model)
    wrong = [
        Misconception(
            "forgot-layers",
            "You left out the layers",
            "Every layer computes its own scores and weighted sum: the attention term has n_layers in it.",
            no_l / (dense + no_l),
            a_label,
        ),
        Misconception(
            "ratio-not-share",
            "You gave attention / 2N, not attention's share of the total",
            "A share divides by everything: attention / (2N + attention).",
            attn / dense,
            share_label,
        ),
        Misconception(
            "t-squared-per-token",
            "You used T^2 for one token",
            "T^2 is the cost of the whole sequence; one token compares its query with at most T keys.",
            sq / (dense + sq),
            a_label,
        ),
    ]
    return Derivation(calc, value, "", steps, distinct(value, wrong))


@register(
    "attention_crossover_context",
    summary="Context at which the attention term 2 L T d equals the weight FLOPs 2N: T = N / (L d).",
    unit="",
    args=(_N, _L, _D),
    misconceptions=("forgot-layers", "forgot-x2", "t-squared-per-token"),
)
def attention_crossover_context(
    n_params: float, n_layers: int, d_model: int, *, worked: bool = True
) -> Derivation:
    """Below this context the weights dominate a token's FLOPs; above it attention does."""
    calc = "attention_crossover_context"
    require_positive(calc, n_params=n_params, n_layers=n_layers, d_model=d_model)
    value = n_params / (n_layers * d_model)
    if not worked:
        return Derivation(calc, value, "", ())
    label = "Crossover context"
    steps = (
        Step("Set the two terms equal", "2 x n_layers x T x d_model = 2N", "solve for T", value),
        Step(label, "T = N / (n_layers x d_model)", f"{n_params:.4g} / ({n_layers} x {d_model})", value),
    )
    wrong = [
        Misconception(
            "forgot-layers",
            "You left out the layers",
            "Every layer has its own attention term, so n_layers divides N.",
            n_params / d_model,
            label,
        ),
        Misconception(
            "forgot-x2",
            "You dropped the 2 on the attention side only",
            "Both sides count a multiply-add as 2 FLOPs: 2 L T d against 2N, and the 2s cancel.",
            2 * n_params / (n_layers * d_model),
            label,
        ),
        Misconception(
            "t-squared-per-token",
            "You used T^2 for one token",
            "One new token attends over T keys: the per-token term is linear in T.",
            math.sqrt(value),
            label,
        ),
    ]
    return Derivation(calc, value, "", steps, distinct(value, wrong))


# --------------------------------------------------------------------------- decode and memory


@register(
    "decode_tokens_per_second",
    summary="Memory-bound decode speed: bandwidth / (weight bytes + KV bytes read per step), per sequence or "
    "for the batch.",
    unit="",
    args=(
        _N,
        _WB,
        _L,
        _G,
        _DH,
        _KVB,
        Arg("context", "int", "tokens already cached per sequence"),
        Arg("batch", "int", "sequences decoded together"),
        Arg("bandwidth_gb_s", "float", "memory bandwidth in GB/s (10^9 bytes per second)"),
        Arg(
            "which",
            "str",
            "per_sequence (tokens/s one user sees) or total (tokens/s of the whole batch)",
            default="per_sequence",
            required=False,
            choices=DECODE_WHICH,
        ),
    ),
    misconceptions=(
        "forgot-kv-cache",
        "bits-as-bytes",
        "gb-as-gib",
        "batch-for-per-sequence",
        "per-sequence-for-batch",
        "one-sequence-kv",
    ),
)
def decode_tokens_per_second(
    n_params: float,
    bytes_per_param: int,
    n_layers: int,
    n_kv_heads: int,
    d_head: int,
    kv_bytes_per_element: int,
    context: int,
    batch: int,
    bandwidth_gb_s: float,
    which: str = "per_sequence",
    *,
    worked: bool = True,
) -> Derivation:
    """One step makes one token per sequence and reads all weights once plus every sequence's cache."""
    calc = "decode_tokens_per_second"
    if which not in DECODE_WHICH:
        raise ValueError(f"{calc}: which={which!r} must be one of {', '.join(DECODE_WHICH)}")
    require_positive(
        calc,
        n_params=n_params,
        bytes_per_param=bytes_per_param,
        n_layers=n_layers,
        n_kv_heads=n_kv_heads,
        d_head=d_head,
        kv_bytes_per_element=kv_bytes_per_element,
        context=context,
        batch=batch,
        bandwidth_gb_s=bandwidth_gb_s,
    )
    weights = n_params * bytes_per_param
    per_token = _kv_per_token(n_layers, n_kv_heads, d_head, kv_bytes_per_element)
    kv = per_token * context * batch
    step_bytes = weights + kv
    bw = bandwidth_gb_s * 1e9
    steps_s = bw / step_bytes
    value = steps_s if which == "per_sequence" else steps_s * batch
    if not worked:
        return Derivation(calc, value, "", ())
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
            wrong.append(
                Misconception(
                    "batch-for-per-sequence",
                    "You gave the batch's tokens/s, not one sequence's",
                    "Each step produces one token per sequence: one user sees steps/s, the batch gets "
                    "batch x steps/s.",
                    steps_s * batch,
                    last,
                )
            )
        else:
            wrong.append(
                Misconception(
                    "per-sequence-for-batch",
                    "You gave one sequence's tokens/s, not the batch's",
                    "Each step produces one token for every sequence in the batch.",
                    steps_s,
                    last,
                )
            )
        wrong.append(
            Misconception(
                "one-sequence-kv",
                "You read one sequence's cache, not the batch's",
                "The weights are shared across the batch, but every sequence has its own KV cache.",
                bw / (weights + per_token * context) * per,
                kv_label,
            )
        )
    wrong += [
        Misconception(
            "forgot-kv-cache",
            "You counted only the weights",
            "Attention reads every cached key and value of every sequence at each step, as well as the "
            "weights.",
            bw / weights * per,
            s_label,
        ),
        Misconception(
            "bits-as-bytes",
            "You used bits where bytes were needed",
            "A 16-bit number is 2 bytes, not 16: bandwidth is in bytes per second.",
            value / 8,
            w_label,
        ),
        Misconception(
            "gb-as-gib",
            "You read GB/s as GiB/s",
            "1 GB = 10^9 bytes; reading the bandwidth as 2^30 bytes per GB overstates it by 7%.",
            value / GIB_AS_GB,
            r_label,
        ),
    ]
    return Derivation(calc, value, "", tuple(steps), distinct(value, wrong))


@register(
    "sequences_that_fit",
    summary="How many sequences' KV caches fit beside the weights: floor((memory - weights) / KV per "
    "sequence).",
    unit="",
    args=(
        _N,
        _WB,
        _L,
        _G,
        _DH,
        _KVB,
        Arg("seq_len", "int", "tokens cached per sequence"),
        Arg("memory_gib", "float", "accelerator memory in GiB (2^30 bytes)"),
        Arg(
            "n_heads",
            "int",
            "query heads (optional: lets 'used h instead of n_kv' be recognised)",
            required=False,
        ),
    ),
    misconceptions=(
        "forgot-weights",
        "gb-as-gib",
        "rounded-up",
        "no-x2-kv",
        "used-n-heads",
        "one-byte-per-param",
    ),
)
def sequences_that_fit(
    n_params: float,
    bytes_per_param: int,
    n_layers: int,
    n_kv_heads: int,
    d_head: int,
    kv_bytes_per_element: int,
    seq_len: int,
    memory_gib: float,
    n_heads: int | None = None,
    *,
    worked: bool = True,
) -> Derivation:
    """The weights sit in memory once; what is left is divided among whole sequences' caches."""
    calc = "sequences_that_fit"
    require_positive(
        calc,
        n_params=n_params,
        bytes_per_param=bytes_per_param,
        n_layers=n_layers,
        n_kv_heads=n_kv_heads,
        d_head=d_head,
        kv_bytes_per_element=kv_bytes_per_element,
        seq_len=seq_len,
        memory_gib=memory_gib,
        n_heads=n_heads,
    )
    mem = memory_gib * 2**30
    weights = n_params * bytes_per_param
    if weights > mem:
        raise ValueError(
            f"{calc}: the weights ({n_params:.4g} params x {bytes_per_param} B = {weights:.4g} B) do not fit "
            f"in memory_gib={memory_gib}"
        )
    per_seq = _kv_per_token(n_layers, n_kv_heads, d_head, kv_bytes_per_element) * seq_len
    free = mem - weights
    value = int(free // per_seq)
    if not worked:
        return Derivation(calc, value, "", ())
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
        Misconception(
            "forgot-weights",
            "You gave the whole memory to the cache",
            "The weights are loaded first; only what is left holds KV caches.",
            int(mem // per_seq),
            free_label,
        ),
        Misconception(
            "gb-as-gib",
            "You read GiB as GB",
            "1 GiB = 2^30 bytes, about 7% more than 10^9.",
            max(0, int((memory_gib * 1e9 - weights) // per_seq)),
            free_label,
        ),
        Misconception(
            "rounded-up",
            "You rounded up",
            "A partial sequence cannot be served: round the count down.",
            math.ceil(free / per_seq),
            label,
        ),
        Misconception(
            "no-x2-kv",
            "You left out the x2 for K and V",
            "Both keys and values are cached.",
            int(free // (per_seq // 2)),
            kv_label,
        ),
    ]
    if n_heads is not None and n_heads != n_kv_heads:
        wrong.append(
            Misconception(
                "used-n-heads",
                "You used the query heads instead of the KV heads",
                "Only the key/value heads are cached.",
                int(free // (per_seq // n_kv_heads * n_heads)),
                kv_label,
            )
        )
    if bytes_per_param > 1:
        wrong.append(
            Misconception(
                "one-byte-per-param",
                "You counted one byte per parameter",
                f"Each weight takes {bytes_per_param} bytes here ({8 * bytes_per_param}-bit); 1 byte per "
                "parameter is an 8-bit model.",
                int((mem - n_params) // per_seq),
                free_label,
            )
        )
    return Derivation(calc, value, "", steps, distinct(value, wrong))


@register(
    "arithmetic_intensity",
    summary="FLOPs per byte of weights read in one pass that processes `tokens` tokens: 2 x tokens / bytes.",
    unit="",
    args=(
        Arg(
            "tokens",
            "int",
            "tokens that share one read of the weights (prefill: prompt length, decode: batch)",
        ),
        _WB,
    ),
    misconceptions=("mac-as-one", "forgot-bytes", "bits-as-bytes", "one-token-per-read"),
)
def arithmetic_intensity(tokens: int, bytes_per_param: int, *, worked: bool = True) -> Derivation:
    """Each weight read serves every token in the pass, two FLOPs each; the KV reads are left out."""
    calc = "arithmetic_intensity"
    require_positive(calc, tokens=tokens, bytes_per_param=bytes_per_param)
    flops = 2 * tokens
    value = flops / bytes_per_param
    if not worked:
        return Derivation(calc, value, "", ())
    f_label, label = "FLOPs per weight per pass", "FLOPs per byte"
    steps = (
        Step(f_label, "2 x tokens (one multiply-add per token)", f"2 x {tokens:,}", flops, "FLOPs"),
        Step(label, "FLOPs per weight / bytes per weight", f"{flops:,} / {bytes_per_param}", value),
    )
    wrong = [
        Misconception(
            "mac-as-one",
            "You counted a multiply-add as one FLOP",
            "Each multiply-add is 2 FLOPs.",
            tokens / bytes_per_param,
            f_label,
        ),
        Misconception(
            "forgot-bytes",
            "You gave FLOPs per weight, not per byte",
            "Divide by the bytes each weight takes.",
            flops,
            label,
        ),
        Misconception(
            "bits-as-bytes",
            "You divided by bits, not bytes",
            "A 16-bit weight is 2 bytes.",
            flops / (8 * bytes_per_param),
            label,
        ),
        Misconception(
            "one-token-per-read",
            "You assumed each weight read serves one token",
            "All tokens in the pass (the prompt in prefill, the batch in decode) share one read.",
            2 / bytes_per_param,
            f_label,
        ),
    ]
    return Derivation(calc, value, "", steps, distinct(value, wrong))


# --------------------------------------------------------------------------- paged KV cache


@register(
    "paged_kv_blocks",
    summary="Blocks a paged KV cache allocates (ceil(T / block) per sequence) or the slots left empty.",
    unit="",
    args=(
        Arg("seq_len", "int", "tokens cached per sequence"),
        Arg("block_size", "int", "tokens per KV block"),
        Arg("batch", "int", "sequences", default=1, required=False),
        Arg("which", "str", "blocks or wasted_slots", default="blocks", required=False, choices=BLOCK_WHICH),
    ),
    misconceptions=("floor-not-ceil", "forgot-batch", "remainder-as-waste", "full-block-waste"),
)
def paged_kv_blocks(
    seq_len: int, block_size: int, batch: int = 1, which: str = "blocks", *, worked: bool = True
) -> Derivation:
    """Only the last block of a sequence is partly empty, so waste is under one block per sequence."""
    calc = "paged_kv_blocks"
    if which not in BLOCK_WHICH:
        raise ValueError(f"{calc}: which={which!r} must be one of {', '.join(BLOCK_WHICH)}")
    require_positive(calc, seq_len=seq_len, block_size=block_size, batch=batch)
    per_seq = -(-seq_len // block_size)
    blocks = per_seq * batch
    wasted_one = per_seq * block_size - seq_len
    value = blocks if which == "blocks" else wasted_one * batch
    if not worked:
        return Derivation(calc, value, "", ())
    b_label, w_label = "Blocks per sequence", "Empty slots per sequence"
    steps = [Step(b_label, "ceil(T / block_size)", f"ceil({seq_len:,} / {block_size})", per_seq)]
    if which == "blocks":
        last = "Blocks for the batch"
        steps.append(Step(last, "x batch", f"{per_seq:,} x {batch}", value))
    else:
        last = "Empty slots for the batch"
        steps += [
            Step(w_label, "blocks x block_size - T", f"{per_seq:,} x {block_size} - {seq_len:,}", wasted_one),
            Step(last, "x batch", f"{wasted_one} x {batch}", value),
        ]
    wrong = []
    if which == "blocks":
        wrong.append(
            Misconception(
                "floor-not-ceil",
                "You rounded the blocks down",
                "The last tokens need a block too, even a partly empty one: ceil(T / block_size).",
                seq_len // block_size * batch,
                b_label,
            )
        )
    else:
        wrong += [
            Misconception(
                "remainder-as-waste",
                "You gave the tokens in the last block, not the empty slots",
                "T mod block_size tokens fill part of the last block; the empty slots are block_size minus "
                "that.",
                seq_len % block_size * batch,
                w_label,
            ),
            Misconception(
                "full-block-waste",
                "You counted a whole block as wasted",
                "Only the unused part of the last block is wasted.",
                block_size * batch,
                w_label,
            ),
        ]
    if batch > 1:
        wrong.append(
            Misconception(
                "forgot-batch",
                "You left out the batch",
                "Every sequence has its own blocks.",
                value // batch,
                last,
            )
        )
    return Derivation(calc, value, "", tuple(steps), distinct(value, wrong))


@register(
    "paged_kv_expected_waste",
    summary="Expected KV bytes lost to partly filled last blocks: batch x (block - 1) / 2 x bytes per token.",
    unit="B",
    args=(
        Arg("block_size", "int", "tokens per KV block"),
        _L,
        _G,
        _DH,
        _KVB,
        Arg("batch", "int", "sequences", default=1, required=False),
    ),
    misconceptions=("half-block", "full-block-waste", "forgot-batch", "no-x2-kv"),
)
def paged_kv_expected_waste(
    block_size: int,
    n_layers: int,
    n_kv_heads: int,
    d_head: int,
    kv_bytes_per_element: int,
    batch: int = 1,
    *,
    worked: bool = True,
) -> Derivation:
    """With lengths spread evenly, the empty slots of the last block are uniform on 0..block-1."""
    calc = "paged_kv_expected_waste"
    require_positive(
        calc,
        block_size=block_size,
        n_layers=n_layers,
        n_kv_heads=n_kv_heads,
        d_head=d_head,
        kv_bytes_per_element=kv_bytes_per_element,
        batch=batch,
    )
    if block_size < 2:
        raise ValueError(f"{calc}: block_size={block_size} must be at least 2 for a block to be partly empty")
    slots = (block_size - 1) / 2
    per_token = _kv_per_token(n_layers, n_kv_heads, d_head, kv_bytes_per_element)
    value = slots * per_token * batch
    if not worked:
        return Derivation(calc, value, "B", ())
    s_label, t_label, label = "Expected empty slots per sequence", "KV bytes per token", "Expected waste"
    steps = (
        Step(s_label, "mean of 0, 1, ..., block - 1 = (block - 1) / 2", f"({block_size} - 1) / 2", slots),
        Step(
            t_label,
            "2 x n_layers x n_kv_heads x d_head x bytes",
            f"2 x {n_layers} x {n_kv_heads} x {d_head} x {kv_bytes_per_element}",
            per_token,
            "B",
        ),
        Step(label, "slots x bytes per token x batch", f"{slots:g} x {per_token:,} x {batch}", value, "B"),
    )
    wrong = [
        Misconception(
            "half-block",
            "You used block / 2 empty slots",
            "The empty slots take the values 0 to block - 1, whose mean is (block - 1) / 2.",
            block_size / 2 * per_token * batch,
            s_label,
        ),
        Misconception(
            "full-block-waste",
            "You counted a whole block per sequence as wasted",
            "On average only half of the last block (less one slot) is empty.",
            block_size * per_token * batch,
            s_label,
        ),
        Misconception(
            "no-x2-kv",
            "You left out the x2 for K and V",
            "Both keys and values occupy the empty slots' reserved memory.",
            value / 2,
            t_label,
        ),
    ]
    if batch > 1:
        wrong.append(
            Misconception(
                "forgot-batch",
                "You left out the batch",
                "Every sequence has its own last block.",
                value / batch,
                label,
            )
        )
    return Derivation(calc, value, "B", steps, distinct(value, wrong))
