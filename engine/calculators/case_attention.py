"""Provides the attention steps case studies chain: prefill and ring-step FLOPs, decode intensity, KIVI bytes.

Decode intensity counts, per cached token and layer, the FLOPs of q.k and p.v over the bytes read from the
cache. Absorbed MLA (DeepSeek-V2, arXiv:2405.04434, section 2.1.2) attends over the cached latent itself:
scores over the latent plus the RoPE key (r + rho wide), outputs over the latent (r wide), for every query
head, while the cache holds r + rho numbers per token. KIVI (Liu et al. 2024, arXiv:2402.02750) quantises
keys per channel and values per token in groups of G, each group with a scale and a zero point.
"""

from __future__ import annotations

import math
from typing import Annotated, Literal

from engine.calculator import Param, register
from engine.calculators.case_common import formula_result, num, require_positive_numbers
from engine.calculators.common import BytesPerElement, DHead, GroupSize, NHeads, NKvHeads, NLayers
from engine.derivation import Derivation, Mistake

BlockLen = Annotated[int, Param("tokens per device block", gt=0)]


MAC_AS_ONE = Mistake("mac-as-one", "You counted a multiply-add as one FLOP", "Each multiply-add is 2 FLOPs.")
FORGOT_LAYERS = Mistake("forgot-layers", "You counted one layer", "Every layer attends over the prompt.")
NO_CAUSAL_HALF = Mistake(
    "no-causal-half",
    "You counted the masked half",
    "A causal kernel skips the blocks above the diagonal: about half of T^2.",
)


@register(
    summary="FLOPs of q.k and p.v over a prompt: 4 L h d_head T^2, halved by the causal mask.",
    unit="FLOPs",
    misconceptions=(NO_CAUSAL_HALF, MAC_AS_ONE, FORGOT_LAYERS),
)
def prefill_attention_flops(
    n_layers: NLayers,
    n_heads: NHeads,
    d_head: DHead,
    seq_len: Annotated[int, Param("prompt tokens T", gt=0)],
    causal: Annotated[bool, Param("a causal mask skips the upper triangle")] = True,
    *,
    worked: bool = True,
) -> Derivation:
    """The part of prefill that grows as T^2: two T x T x d_head products per head per layer."""
    full = 4 * n_layers * n_heads * d_head * seq_len * seq_len
    value = full // 2 if causal else full
    wrong = [
        MAC_AS_ONE.gives(value // 2),
        FORGOT_LAYERS.gives(value // n_layers),
    ]
    if causal:
        wrong.insert(
            0,
            NO_CAUSAL_HALF.gives(full),
        )
    return formula_result(
        value,
        "Attention FLOPs over the prompt",
        "4 x L x h x d_head x T^2" + (" / 2" if causal else ""),
        f"4 x {n_layers} x {n_heads} x {d_head} x {seq_len}^2" + (" / 2" if causal else ""),
        wrong,
        worked=worked,
    )


FORGOT_BYTES = Mistake("forgot-bytes", "You counted numbers, not bytes", "Multiply by the bytes per number.")
FORGOT_ROPE = Mistake(
    "forgot-rope",
    "You left out the RoPE key",
    "The cache holds r + rho numbers per token and the scores run over both.",
)
ONE_HEAD = Mistake(
    "one-head",
    "You counted one query head",
    "Absorbed MLA runs every query head over the one cached latent: h times the FLOPs for the same bytes.",
)
USED_QUERY_HEADS = Mistake(
    "used-query-heads", "You sent a K/V head per query head", "Under GQA only the KV heads exist."
)


@register(
    summary="FLOPs per byte of KV cache read by one decode token: GQA 2h / (g b); absorbed MLA "
    "h (4r + 2 rho) / ((r + rho) b).",
    unit="",
    misconceptions=(MAC_AS_ONE, FORGOT_BYTES, USED_QUERY_HEADS, FORGOT_ROPE, ONE_HEAD),
)
def decode_attention_intensity(
    *,
    kind: Annotated[
        Literal["gqa", "mla"], Param("gqa (MHA when n_kv_heads = n_heads) or mla (absorbed)")
    ] = "gqa",
    n_heads: NHeads,
    n_kv_heads: Annotated[int, Param("key/value heads (gqa)")] = 1,
    d_head: Annotated[int, Param("width of one head (gqa)")] = 1,
    kv_lora_rank: Annotated[int, Param("latent width r (mla)")] = 1,
    rope_dim: Annotated[int, Param("decoupled RoPE key width rho (mla)")] = 0,
    bytes_per_element: BytesPerElement,
    worked: bool = True,
) -> Derivation:
    """Every query head reads the same cached bytes, so sharing the cache across heads raises intensity."""
    b = bytes_per_element
    if kind == "gqa":
        require_positive_numbers(n_kv_heads=n_kv_heads, d_head=d_head)
        if n_heads % n_kv_heads:
            raise ValueError(f"n_heads={n_heads} is not divisible by n_kv_heads={n_kv_heads}")
        flops = 4 * n_heads * d_head
        read = 2 * n_kv_heads * d_head * b
        value = flops / read
        wrong = [
            MAC_AS_ONE.gives(value / 2, explanation="q.k and p.v are 2 FLOPs per multiply-add."),
            FORGOT_BYTES.gives(
                value * b,
                label="You divided by numbers, not bytes",
                explanation="Intensity is per byte read.",
            ),
        ]
        if n_kv_heads != n_heads:
            wrong.append(
                USED_QUERY_HEADS.gives(
                    2 / b,
                    label="You read one cached head per query head",
                    explanation="Under GQA a group of query heads shares one cached K/V head.",
                )
            )
        formula, numbers = (
            "4 h d_head / (2 g d_head b)",
            f"4 x {n_heads} x {d_head} / (2 x {n_kv_heads} x {d_head} x {b})",
        )
    else:
        r, rho = kv_lora_rank, rope_dim
        require_positive_numbers(kv_lora_rank=r)
        if rho < 0:
            raise ValueError(f"rope_dim must be 0 or more, got {rho}")
        flops = n_heads * (2 * (r + rho) + 2 * r)
        read = (r + rho) * b
        value = flops / read
        wrong = [
            MAC_AS_ONE.gives(value / 2, explanation="Scores and outputs are 2 FLOPs per multiply-add."),
            FORGOT_BYTES.gives(
                value * b,
                label="You divided by numbers, not bytes",
                explanation="Intensity is per byte read.",
            ),
            FORGOT_ROPE.gives(4 * n_heads / b),
            ONE_HEAD.gives(value / n_heads),
        ]
        formula = "h (2 (r + rho) + 2 r) / ((r + rho) b)"
        numbers = f"{n_heads} x (2 x {r + rho} + 2 x {r}) / ({r + rho} x {b})"
    return formula_result(value, "FLOPs per cached byte", formula, numbers, wrong, worked=worked)


NO_X2_KV = Mistake("no-x2-kv", "You sent K or V, not both", "Both keys and values travel round the ring.")
FORGOT_SCALES = Mistake(
    "forgot-scales",
    "You left out the scales and zero points",
    "Each group of G numbers stores a scale and a zero point beside the payload.",
)
BITS_AS_BYTES = Mistake("bits-as-bytes", "You counted bits as bytes", "4 bits is half a byte.")
NO_ZERO_POINT = Mistake(
    "no-zero-point",
    "You stored a scale but no zero point",
    "KIVI's asymmetric quantisation keeps both per group.",
)


@register(
    summary="KV bytes per token with b-bit groups (KIVI): 2 L g d_head (bits/8 + 2 x scale bytes / G).",
    unit="B",
    misconceptions=(FORGOT_SCALES, BITS_AS_BYTES, NO_ZERO_POINT, NO_X2_KV),
)
def quantized_kv_bytes_per_token(
    n_layers: NLayers,
    n_kv_heads: NKvHeads,
    d_head: DHead,
    bits: Annotated[int, Param("bits per quantised number", gt=0)],
    group_size: GroupSize,
    scale_bytes: Annotated[int, Param("bytes of one scale (and of one zero point)", gt=0)] = 2,
    *,
    worked: bool = True,
) -> Derivation:
    """The payload is bits/8 bytes a number; each group of G also stores a scale and a zero point."""
    numbers = 2 * n_layers * n_kv_heads * d_head
    per = bits / 8 + 2 * scale_bytes / group_size
    value = numbers * per
    return formula_result(
        value,
        "Quantised KV bytes per token",
        "2 x L x g x d_head x (bits / 8 + 2 x scale bytes / G)",
        f"2 x {n_layers} x {n_kv_heads} x {d_head} x ({bits} / 8 + 2 x {scale_bytes} / {group_size})",
        [
            FORGOT_SCALES.gives(numbers * bits / 8),
            BITS_AS_BYTES.gives(numbers * (bits + 2 * scale_bytes / group_size)),
            NO_ZERO_POINT.gives(numbers * (bits / 8 + scale_bytes / group_size)),
            NO_X2_KV.gives(
                value / 2,
                label="You counted K or V, not both",
                explanation="Both keys and values are cached.",
            ),
        ],
        worked=worked,
    )


LINEAR_IN_BLOCK = Mistake(
    "linear-in-block",
    "You counted one query against the block",
    "The whole query block meets the whole key block: block^2 pairs.",
)
FORGOT_HEADS = Mistake("forgot-heads", "You counted one head", "Every query head does the same work.")


@register(
    summary="FLOPs of one ring-attention step on one device and layer: a Q block against a KV block, "
    "4 x block^2 x h x d_head.",
    unit="FLOPs",
    misconceptions=(MAC_AS_ONE, LINEAR_IN_BLOCK, FORGOT_HEADS),
)
def ring_step_flops(
    block_len: BlockLen,
    n_heads: NHeads,
    d_head: DHead,
    *,
    worked: bool = True,
) -> Derivation:
    """Each step pairs this device's query block with the key/value block passing through."""
    value = 4 * block_len * block_len * n_heads * d_head
    return formula_result(
        value,
        "FLOPs per ring step (one layer)",
        "4 x block^2 x h x d_head",
        f"4 x {block_len}^2 x {n_heads} x {d_head}",
        [
            MAC_AS_ONE.gives(value // 2),
            LINEAR_IN_BLOCK.gives(4 * block_len * n_heads * d_head),
            FORGOT_HEADS.gives(4 * block_len * block_len * d_head),
        ],
        worked=worked,
    )


@register(
    summary="Bytes of one K/V block passed to the next device: 2 x block x g x d_head x bytes.",
    unit="B",
    misconceptions=(NO_X2_KV, USED_QUERY_HEADS, FORGOT_BYTES),
)
def kv_block_bytes(
    block_len: BlockLen,
    n_kv_heads: NKvHeads,
    d_head: DHead,
    bytes_per_element: BytesPerElement,
    n_heads: NHeads = 0,
    *,
    worked: bool = True,
) -> Derivation:
    """A ring passes keys and values, one block per step, for the KV heads the model has."""
    value = 2 * block_len * n_kv_heads * d_head * bytes_per_element
    wrong = [
        NO_X2_KV.gives(value // 2),
        FORGOT_BYTES.gives(value // bytes_per_element),
    ]
    if n_heads > n_kv_heads:
        wrong.insert(
            1,
            USED_QUERY_HEADS.gives(2 * block_len * n_heads * d_head * bytes_per_element),
        )
    return formula_result(
        value,
        "Bytes per ring step (one layer)",
        "2 x block x g x d_head x bytes",
        f"2 x {block_len} x {n_kv_heads} x {d_head} x {bytes_per_element}",
        wrong,
        worked=worked,
    )


SQUARE_ROOT_SCALING = Mistake(
    "square-root-scaling",
    "You scaled by the square root",
    "Compute per step is block^2 but transfer is block, so their ratio is linear in the block.",
)
NO_SCALING = Mistake(
    "no-scaling", "You kept the block you had", "The block can shrink until compute just covers the transfer."
)


@register(
    summary="Smallest block whose compute hides its transfer: compute grows as block^2, transfer as block.",
    unit="",
    misconceptions=(SQUARE_ROOT_SCALING, NO_SCALING),
)
def min_overlap_block(
    block_len: Annotated[int, Param("the block length measured", gt=0)],
    compute_ms: Annotated[float, Param("compute time per step at that block", gt=0)],
    comm_ms: Annotated[float, Param("transfer time per step at that block", gt=0)],
    *,
    worked: bool = True,
) -> Derivation:
    """compute/comm scales linearly with the block, so the break-even block is block x comm / compute."""
    exact = block_len * comm_ms / compute_ms
    value = math.ceil(exact)
    return formula_result(
        value,
        "Smallest block that hides the transfer",
        "ceil(block x comm / compute)",
        f"ceil({block_len} x {num(comm_ms)} / {num(compute_ms)})",
        [
            SQUARE_ROOT_SCALING.gives(math.ceil(block_len * math.sqrt(comm_ms / compute_ms))),
            NO_SCALING.gives(block_len),
        ],
        worked=worked,
    )
