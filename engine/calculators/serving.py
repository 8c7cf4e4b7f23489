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
from typing import Annotated, Literal

from engine.calculator import Param, register, result
from engine.calculators.common import Batch, CachedLen, DHead, DModel, NKvHeads, NLayers
from engine.derivation import Derivation, Mistake, Step

MODES = ("inference", "training")
BLOCK_WHICH = ("blocks", "wasted_slots")


BlockSize = Annotated[int, Param("tokens per KV block", gt=0)]
KvBytesPerElement = Annotated[int, Param("bytes per cached key/value number", gt=0)]
NParams = Annotated[float, Param("number of parameters N", gt=0)]


def require_positive(**sizes: float | None) -> None:
    """common.require_positive for real-valued sizes too (parameter counts, bandwidths, GiB)."""
    bad = [f"{k}={v:g}" for k, v in sizes.items() if v is not None and v <= 0]
    if bad:
        raise ValueError(f"sizes must be positive, got {', '.join(bad)}")


def kv_bytes_per_token(n_layers: int, n_kv_heads: int, d_head: int, nbytes: int) -> int:
    """2 (K and V) x layers x KV heads x d_head x bytes: what one more token of context costs."""
    return 2 * n_layers * n_kv_heads * d_head * nbytes


# --------------------------------------------------------------------------- FLOPs


MAC_AS_ONE = Mistake(
    "mac-as-one",
    "You counted a multiply-add as one FLOP",
    "Each weight contributes a multiplication and an addition per token: 2 FLOPs.",
)
N6N_FOR_INFERENCE = Mistake(
    "6n-for-inference",
    "You used the training rule 6N for inference",
    "Serving runs only the forward pass: 2N FLOPs per token. 6N adds the backward pass.",
)
N2N_FOR_TRAINING = Mistake(
    "2n-for-training",
    "You counted only the forward pass",
    "Training also runs the backward pass, which costs about twice the forward: 6N per token.",
)
BACKWARD_AS_FORWARD = Mistake(
    "backward-as-forward",
    "You counted the backward pass as costly as the forward",
    "The backward pass computes gradients for both the activations and the weights: about "
    "4N per token, so training is 6N, not 4N.",
)


@register(
    summary="FLOPs to run N parameters over D tokens: 2 N D forward (inference), 6 N D for training.",
    unit="FLOPs",
    misconceptions=(N6N_FOR_INFERENCE, N2N_FOR_TRAINING, MAC_AS_ONE, BACKWARD_AS_FORWARD),
)
def model_flops(
    n_params: NParams,
    tokens: Annotated[float, Param("tokens processed D", gt=0)],
    mode: Annotated[
        Literal["inference", "training"], Param("inference (forward only) or training")
    ] = "inference",
    *,
    worked: bool = True,
) -> Derivation:
    """Each weight does one multiply-add per token forward (2 FLOPs); the backward pass costs twice that."""
    if mode not in MODES:
        raise ValueError(f"mode={mode!r} must be one of {', '.join(MODES)}")
    forward = 2 * n_params * tokens
    value = forward if mode == "inference" else 3 * forward
    if not worked:
        return result(value)
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
        wrong.append(N6N_FOR_INFERENCE.gives(3 * forward, fwd_label))
    else:
        wrong += [
            N2N_FOR_TRAINING.gives(forward, total_label),
            BACKWARD_AS_FORWARD.gives(2 * forward, total_label),
        ]
    wrong.append(MAC_AS_ONE.gives(value / 2, last if mode == "inference" else fwd_label))
    return result(value, tuple(steps), wrong)


def _attention_term(n_layers: int, context: int, d_model: int) -> int:
    """Kaplan's per-token attention FLOPs, 2 n_layer n_ctx d: QK^T and AV (2 FLOPs per key per dimension
    each) for a causal token, which sees n_ctx / 2 keys on average over the sequence."""
    return 2 * n_layers * context * d_model


FORGOT_LAYERS = Mistake(
    "forgot-layers",
    "You left out the layers",
    "Every layer computes its own scores and weighted sum: the attention term has n_layers in it.",
)
RATIO_NOT_SHARE = Mistake(
    "ratio-not-share",
    "You gave attention / 2N, not attention's share of the total",
    "A share divides by everything: attention / (2N + attention).",
)
T_SQUARED_PER_TOKEN = Mistake(
    "t-squared-per-token",
    "You used T^2 for one token",
    "T^2 is the cost of the whole sequence; one token compares its query with at most T keys.",
)


@register(
    summary="Share of per-token forward FLOPs spent on attention scores: 2 L T d / (2N + 2 L T d).",
    unit="",
    misconceptions=(FORGOT_LAYERS, RATIO_NOT_SHARE, T_SQUARED_PER_TOKEN),
)
def attention_flop_share(
    n_params: NParams,
    n_layers: NLayers,
    d_model: DModel,
    context: Annotated[int, Param("tokens of context T each new token attends over", gt=0)],
    *,
    worked: bool = True,
) -> Derivation:
    """The weight matmuls cost 2N per token whatever the context; the score term grows with T."""
    dense = 2 * n_params
    attn = _attention_term(n_layers, context, d_model)
    value = attn / (dense + attn)
    if not worked:
        return result(value)
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
        FORGOT_LAYERS.gives(no_l / (dense + no_l), a_label),
        RATIO_NOT_SHARE.gives(attn / dense, share_label),
        T_SQUARED_PER_TOKEN.gives(sq / (dense + sq), a_label),
    ]
    return result(value, steps, wrong)


FORGOT_X2 = Mistake(
    "forgot-x2",
    "You dropped the 2 on the attention side only",
    "Both sides count a multiply-add as 2 FLOPs: 2 L T d against 2N, and the 2s cancel.",
)


@register(
    summary="Context at which the attention term 2 L T d equals the weight FLOPs 2N: T = N / (L d).",
    unit="",
    misconceptions=(FORGOT_LAYERS, FORGOT_X2, T_SQUARED_PER_TOKEN),
)
def attention_crossover_context(
    n_params: NParams,
    n_layers: NLayers,
    d_model: DModel,
    *,
    worked: bool = True,
) -> Derivation:
    """Below this context the weights dominate a token's FLOPs; above it attention does."""
    value = n_params / (n_layers * d_model)
    if not worked:
        return result(value)
    label = "Crossover context"
    steps = (
        Step("Set the two terms equal", "2 x n_layers x T x d_model = 2N", "solve for T", value),
        Step(label, "T = N / (n_layers x d_model)", f"{n_params:.4g} / ({n_layers} x {d_model})", value),
    )
    wrong = [
        FORGOT_LAYERS.gives(
            n_params / d_model,
            label,
            explanation="Every layer has its own attention term, so n_layers divides N.",
        ),
        FORGOT_X2.gives(2 * n_params / (n_layers * d_model), label),
        T_SQUARED_PER_TOKEN.gives(
            math.sqrt(value),
            label,
            explanation="One new token attends over T keys: the per-token term is linear in T.",
        ),
    ]
    return result(value, steps, wrong)


# --------------------------------------------------------------------------- paged KV cache


FULL_BLOCK_WASTE = Mistake(
    "full-block-waste",
    "You counted a whole block per sequence as wasted",
    "On average only half of the last block (less one slot) is empty.",
)
FLOOR_NOT_CEIL = Mistake(
    "floor-not-ceil",
    "You rounded the blocks down",
    "The last tokens need a block too, even a partly empty one: ceil(T / block_size).",
)
REMAINDER_AS_WASTE = Mistake(
    "remainder-as-waste",
    "You gave the tokens in the last block, not the empty slots",
    "T mod block_size tokens fill part of the last block; the empty slots are block_size minus that.",
)
FORGOT_BATCH = Mistake("forgot-batch", "You left out the batch", "Every sequence has its own blocks.")


@register(
    summary="Blocks a paged KV cache allocates (ceil(T / block) per sequence) or the slots left empty.",
    unit="",
    misconceptions=(FLOOR_NOT_CEIL, FORGOT_BATCH, REMAINDER_AS_WASTE, FULL_BLOCK_WASTE),
)
def paged_kv_blocks(
    seq_len: CachedLen,
    block_size: BlockSize,
    batch: Batch = 1,
    which: Annotated[Literal["blocks", "wasted_slots"], Param("blocks or wasted_slots")] = "blocks",
    *,
    worked: bool = True,
) -> Derivation:
    """Only the last block of a sequence is partly empty, so waste is under one block per sequence."""
    if which not in BLOCK_WHICH:
        raise ValueError(f"which={which!r} must be one of {', '.join(BLOCK_WHICH)}")
    per_seq = -(-seq_len // block_size)
    blocks = per_seq * batch
    wasted_one = per_seq * block_size - seq_len
    value = blocks if which == "blocks" else wasted_one * batch
    if not worked:
        return result(value)
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
        wrong.append(FLOOR_NOT_CEIL.gives(seq_len // block_size * batch, b_label))
    else:
        wrong += [
            REMAINDER_AS_WASTE.gives(seq_len % block_size * batch, w_label),
            FULL_BLOCK_WASTE.gives(
                block_size * batch,
                w_label,
                label="You counted a whole block as wasted",
                explanation="Only the unused part of the last block is wasted.",
            ),
        ]
    if batch > 1:
        wrong.append(FORGOT_BATCH.gives(value // batch, last))
    return result(value, tuple(steps), wrong)


HALF_BLOCK = Mistake(
    "half-block",
    "You used block / 2 empty slots",
    "The empty slots take the values 0 to block - 1, whose mean is (block - 1) / 2.",
)
NO_X2_KV = Mistake(
    "no-x2-kv",
    "You left out the x2 for K and V",
    "Both keys and values occupy the empty slots' reserved memory.",
)


@register(
    summary="Expected KV bytes lost to partly filled last blocks: batch x (block - 1) / 2 x bytes per token.",
    unit="B",
    misconceptions=(HALF_BLOCK, FULL_BLOCK_WASTE, FORGOT_BATCH, NO_X2_KV),
)
def paged_kv_expected_waste(
    block_size: BlockSize,
    n_layers: NLayers,
    n_kv_heads: NKvHeads,
    d_head: DHead,
    kv_bytes_per_element: KvBytesPerElement,
    batch: Batch = 1,
    *,
    worked: bool = True,
) -> Derivation:
    """With lengths spread evenly, the empty slots of the last block are uniform on 0..block-1."""
    if block_size < 2:
        raise ValueError(f"block_size={block_size} must be at least 2 for a block to be partly empty")
    slots = (block_size - 1) / 2
    per_token = kv_bytes_per_token(n_layers, n_kv_heads, d_head, kv_bytes_per_element)
    value = slots * per_token * batch
    if not worked:
        return result(value)
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
        HALF_BLOCK.gives(block_size / 2 * per_token * batch, s_label),
        FULL_BLOCK_WASTE.gives(block_size * per_token * batch, s_label),
        NO_X2_KV.gives(value / 2, t_label),
    ]
    if batch > 1:
        wrong.append(
            FORGOT_BATCH.gives(value / batch, label, explanation="Every sequence has its own last block.")
        )
    return result(value, steps, wrong)
