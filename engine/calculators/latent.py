"""Provides multi-head latent attention (MLA, DeepSeek-V2/V3) cache sizes, ratios and shapes.

MLA caches, per token per layer, one compressed latent c_KV of width kv_lora_rank shared by every head and
by both keys and values, plus one decoupled RoPE key of width qk_rope_head_dim shared by every head:
(kv_lora_rank + rope_dim) numbers, against 2 x n_kv_heads x d_head for MHA/GQA/MQA.
Checked against DeepSeek-V2 (kv_lora_rank 512, qk_rope_head_dim 64, 128 heads of 128): the paper's
"equal to GQA with only 2.25 groups" is (512 + 64) / (2 x 128).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Annotated

from engine.calculator import Param, register, result
from engine.calculators.common import (
    Batch,
    BytesPerElement,
    CachedLen,
    NLayers,
    ratio,
    require_positive,
)
from engine.derivation import Derivation, Misconception, Mistake, Step

_PER_LAYER = "Latent + RoPE key per token per layer"
_PER_LAYER_BYTES = "Bytes per token per layer"
_PER_TOKEN = "Per token, all layers"
KV_X2_ON_MLA = Mistake(
    "kv-x2-on-mla",
    "You applied the KV cache's x2 for K and V to MLA",
    "MLA caches one latent c_KV (plus the shared RoPE key) per token, not a separate K and V: "
    "both are rebuilt from the same vector, so the per-token width has no x2.",
)
X2_ON_LATENT = Mistake(
    "x2-on-latent",
    "You cached the latent twice, once for K and once for V",
    "Keys and values are both rebuilt from the same c_KV, so it is stored once: no x2.",
)
FORGOT_ROPE = Mistake(
    "forgot-rope",
    "You left out the decoupled RoPE key",
    "RoPE cannot pass through the absorbed up-projection, so each token also caches a shared "
    "rotary key of width rope_dim beside the latent.",
)
FORGOT_LAYERS = Mistake(
    "forgot-layers",
    "You left out the layers",
    "Every layer has its own latent projection and keeps its own c_KV and RoPE key.",
)
FORGOT_BYTES = Mistake(
    "forgot-bytes", "You counted numbers, not bytes", "Multiply the cached numbers by the bytes per element."
)
ROPE_KEY_PER_HEAD = Mistake(
    "rope-key-per-head",
    "You cached one RoPE key per head",
    "The decoupled RoPE key k^R is shared by all heads, one rope_dim vector per token and layer; "
    "only the queries carry a RoPE part per head.",
)
USED_N_HEADS = Mistake(
    "used-n-heads",
    "You cached n_heads x d_head instead of the latent",
    "That is the width of the decompressed keys; MLA never stores them, only c_KV and the RoPE key.",
)


_CACHE_WRONG = (
    KV_X2_ON_MLA,
    X2_ON_LATENT,
    FORGOT_ROPE,
    ROPE_KEY_PER_HEAD,
    USED_N_HEADS,
    FORGOT_LAYERS,
    FORGOT_BYTES,
)


NopeDHead = Annotated[
    int | None, Param("per-head key width without RoPE (optional, with n_heads: qk_nope_head_dim, 128)")
]
KvLoraRank = Annotated[int, Param("width of the compressed KV latent c_KV (DeepSeek-V2/V3: 512)", gt=0)]
OptionalNHeads = Annotated[
    int | None, Param("query heads (optional: lets 'cached n_heads x d_head' be recognised)")
]
RopeDim = Annotated[int, Param("width of the decoupled RoPE key shared by all heads (qk_rope_head_dim: 64)")]
PositiveRopeDim = Annotated[
    int, Param("width of the decoupled RoPE key shared by all heads (qk_rope_head_dim: 64)", gt=0)
]


def _per_token(
    n_layers: int, r: int, rope: int, nbytes: int, n_heads: int | None, d_head: int | None
) -> tuple[int, list[Step], list[Misconception]]:
    """The per-token steps and the wrong turns of the per-token part, each scaled to bytes per token."""
    per_layer = r + rope
    per_layer_bytes = per_layer * nbytes
    value = per_layer_bytes * n_layers
    steps = [
        Step(_PER_LAYER, "kv_lora_rank + rope_dim", f"{r} + {rope}", per_layer, "numbers"),
        Step(_PER_LAYER_BYTES, "x bytes_per_element", f"{per_layer} x {nbytes}", per_layer_bytes, "B"),
        Step(_PER_TOKEN, "x n_layers", f"{per_layer_bytes:,} x {n_layers}", value, "B"),
    ]
    wrong = [
        KV_X2_ON_MLA.gives(2 * (r + rope) * nbytes * n_layers, _PER_LAYER),
        X2_ON_LATENT.gives((2 * r + rope) * nbytes * n_layers, _PER_LAYER),
        FORGOT_ROPE.gives(r * nbytes * n_layers, _PER_LAYER),
    ]
    if n_heads is not None and n_heads > 1:
        wrong.append(ROPE_KEY_PER_HEAD.gives((r + n_heads * rope) * nbytes * n_layers, _PER_LAYER))
    if n_heads is not None and d_head is not None:
        wrong.append(USED_N_HEADS.gives(n_heads * d_head * nbytes * n_layers, _PER_LAYER))
    wrong += [
        FORGOT_LAYERS.gives(per_layer_bytes, _PER_TOKEN),
        FORGOT_BYTES.gives(per_layer * n_layers, _PER_LAYER_BYTES),
    ]
    return value, steps, wrong


def _check(n_heads: int | None, d_head: int | None, **sizes: int) -> None:
    require_positive(n_heads=n_heads, d_head=d_head, **sizes)


@register(
    summary="Bytes MLA caches per token over all layers: (kv_lora_rank + rope_dim) x bytes x layers.",
    unit="B",
    misconceptions=_CACHE_WRONG,
)
def mla_cache_bytes_per_token(
    n_layers: NLayers,
    kv_lora_rank: KvLoraRank,
    rope_dim: RopeDim,
    bytes_per_element: BytesPerElement,
    n_heads: OptionalNHeads = None,
    d_head: NopeDHead = None,
    *,
    worked: bool = True,
) -> Derivation:
    """What one more token of context costs with a latent cache, whatever the batch."""
    _check(n_heads, d_head, rope_dim=rope_dim)
    value, steps, wrong = _per_token(n_layers, kv_lora_rank, rope_dim, bytes_per_element, n_heads, d_head)
    if not worked:
        return result(value)
    return result(value, tuple(steps), wrong)


FORGOT_SEQ_LEN = Mistake(
    "forgot-seq-len",
    "You left out the sequence length",
    "Every cached token stores its own latent and RoPE key.",
)
FORGOT_BATCH = Mistake(
    "forgot-batch", "You left out the batch", "Each sequence in the batch has its own cache."
)


@register(
    summary="Bytes of MLA cache for a batch: (kv_lora_rank + rope_dim) x bytes x layers x seq_len x batch.",
    unit="B",
    misconceptions=(*_CACHE_WRONG, FORGOT_SEQ_LEN, FORGOT_BATCH),
)
def mla_cache_bytes(
    n_layers: NLayers,
    kv_lora_rank: KvLoraRank,
    rope_dim: RopeDim,
    seq_len: CachedLen,
    batch: Batch,
    bytes_per_element: BytesPerElement,
    n_heads: OptionalNHeads = None,
    d_head: NopeDHead = None,
    *,
    worked: bool = True,
) -> Derivation:
    """Per token, then every cached token, then every sequence: the whole latent cache of a batch."""
    _check(n_heads, d_head, rope_dim=rope_dim)
    per_token, steps, per_token_wrong = _per_token(
        n_layers, kv_lora_rank, rope_dim, bytes_per_element, n_heads, d_head
    )
    per_seq = per_token * seq_len
    value = per_seq * batch
    if not worked:
        return result(value)
    seq_label, total_label = "One sequence", "Whole batch"
    steps += [
        Step(seq_label, "x seq_len", f"{per_token:,} x {seq_len:,}", per_seq, "B"),
        Step(total_label, "x batch", f"{per_seq:,} x {batch}", value, "B"),
    ]
    scale = seq_len * batch
    wrong = [replace(m, value=int(m.value) * scale) for m in per_token_wrong]  # type: ignore[arg-type]
    wrong.append(FORGOT_SEQ_LEN.gives(per_token * batch, seq_label))
    if batch > 1:
        wrong.append(FORGOT_BATCH.gives(per_seq, total_label))
    return result(value, tuple(steps), wrong)


NO_X2_KV = Mistake(
    "no-x2-kv",
    "You put the x2 for K and V on the wrong side",
    "A KV cache stores a key and a value per KV head, 2 x n_kv_heads x d_head; MLA caches one "
    "latent per token, not a separate K and V. Dropping the first x2 or adding one to MLA both "
    "halve the ratio.",
)
INVERTED = Mistake("inverted", "You inverted the ratio", "The saving is the KV-cache size over the MLA size.")


@register(
    summary="How many times smaller MLA's cache is than a KV cache: 2 x n_kv x d_head / (rank + rope_dim).",
    unit="x",
    misconceptions=(X2_ON_LATENT, FORGOT_ROPE, NO_X2_KV, INVERTED),
)
def mla_cache_ratio(
    n_kv_heads: Annotated[int, Param("KV heads of the cache compared against (MHA: n_heads, MQA: 1)", gt=0)],
    d_head: Annotated[int, Param("head width of the cache compared against", gt=0)],
    kv_lora_rank: KvLoraRank,
    rope_dim: PositiveRopeDim,
    *,
    worked: bool = True,
) -> Derivation:
    """Layers, tokens, batch and bytes cancel: only the numbers cached per token per layer remain."""
    kv = 2 * n_kv_heads * d_head
    mla = kv_lora_rank + rope_dim
    value = ratio(kv, mla)
    if not worked:
        return result(value)
    label = "Ratio"
    steps = (
        Step("KV cache per token per layer", "2 x n_kv_heads x d_head", f"2 x {n_kv_heads} x {d_head}", kv),
        Step("MLA cache per token per layer", "kv_lora_rank + rope_dim", f"{kv_lora_rank} + {rope_dim}", mla),
        Step(label, "KV / MLA (layers, tokens, batch, bytes cancel)", f"{kv:,} / {mla:,}", value, "x"),
    )
    wrong = [
        X2_ON_LATENT.gives(
            ratio(kv, 2 * kv_lora_rank + rope_dim),
            "MLA cache per token per layer",
            label="You counted the latent twice",
            explanation="c_KV serves keys and values at once; it is cached once.",
        ),
        FORGOT_ROPE.gives(
            ratio(kv, kv_lora_rank),
            "MLA cache per token per layer",
            explanation="Each token also caches a rope_dim-wide rotary key shared by all heads.",
        ),
        NO_X2_KV.gives(ratio(kv // 2, mla), "KV cache per token per layer"),
        INVERTED.gives(ratio(mla, kv), label),
    ]
    return result(value, steps, wrong)


@register(
    summary="The number of GQA KV heads whose cache equals MLA's: (kv_lora_rank + rope_dim) / (2 x d_head).",
    unit="",
    misconceptions=(X2_ON_LATENT, FORGOT_ROPE, NO_X2_KV),
)
def mla_equivalent_gqa_groups(
    d_head: Annotated[int, Param("head width of the GQA model compared against", gt=0)],
    kv_lora_rank: KvLoraRank,
    rope_dim: PositiveRopeDim,
    *,
    worked: bool = True,
) -> Derivation:
    """A GQA cache holds 2 x d_head numbers per KV head; divide MLA's per-token numbers by that."""
    mla = kv_lora_rank + rope_dim
    value = ratio(mla, 2 * d_head)
    if not worked:
        return result(value)
    label = "Equivalent KV heads"
    steps = (
        Step(
            "MLA numbers per token per layer", "kv_lora_rank + rope_dim", f"{kv_lora_rank} + {rope_dim}", mla
        ),
        Step("Numbers per GQA KV head", "2 (K and V) x d_head", f"2 x {d_head}", 2 * d_head),
        Step(label, "MLA / (2 x d_head)", f"{mla} / {2 * d_head}", value),
    )
    wrong = [
        X2_ON_LATENT.gives(
            ratio(2 * kv_lora_rank + rope_dim, 2 * d_head),
            "MLA numbers per token per layer",
            label="You counted the latent twice",
            explanation="c_KV is one vector serving both keys and values.",
        ),
        FORGOT_ROPE.gives(
            ratio(kv_lora_rank, 2 * d_head),
            "MLA numbers per token per layer",
            explanation="The rope_dim-wide rotary key is cached beside the latent.",
        ),
        NO_X2_KV.gives(
            ratio(mla, d_head),
            "Numbers per GQA KV head",
            explanation="Each GQA KV head caches a key and a value, 2 x d_head numbers; MLA caches one "
            "latent per token, not a separate K and V. Dropping the first x2 or adding one to MLA both "
            "double the count.",
        ),
    ]
    return result(value, steps, wrong)
