"""Provides the shapes of multi-head latent attention, stage by stage (latent cache, RoPE key,
absorbed query and context).
"""

from __future__ import annotations

from typing import Annotated, Literal

from engine.calculator import Param, register, result
from engine.calculators.common import (
    Batch,
    NHeads,
)
from engine.calculators.latent import KvLoraRank, PositiveRopeDim
from engine.derivation import Derivation, Misconception, Mistake, Step

_STAGES = ("latent_cache", "rope_key_cache", "absorbed_query", "w_uk", "absorbed_context")


CACHED_PER_HEAD = Mistake(
    "cached-per-head",
    "You gave the cache a head axis",
    "MLA caches one latent and one RoPE key per token for all heads together; the head "
    "split happens only in the (absorbed) up-projections.",
)
X2_ON_LATENT = Mistake(
    "x2-on-latent",
    "You doubled the latent for K and V",
    "Keys and values come from the same c_KV, stored once.",
)
NOT_ABSORBED = Mistake(
    "not-absorbed",
    "That is the un-absorbed per-head width",
    "With W_UK folded into the query (and W_UV into W_O) the per-head vectors live in the "
    "kv_lora_rank-wide latent space, not in d_nope.",
)
FORGOT_HEADS = Mistake(
    "forgot-heads",
    "You dropped the head axis",
    "The latent cache is shared, but each head still has its own absorbed query and its "
    "own attention weights.",
)
TRANSPOSED = Mistake(
    "transposed",
    "You transposed W_UK",
    "It maps from the latent (kv_lora_rank) up to all heads' keys (n_heads x d_nope).",
)


@register(
    summary="Shapes in MLA inference with absorbed projections: caches, absorbed query and context, W_UK.",
    unit="shape",
    misconceptions=(CACHED_PER_HEAD, X2_ON_LATENT, NOT_ABSORBED, FORGOT_HEADS, TRANSPOSED),
)
def mla_shape(
    batch: Batch,
    seq_len: Annotated[int, Param("new tokens (queries) this step", gt=0)],
    kv_len: Annotated[int, Param("cached tokens (keys)", gt=0)],
    n_heads: NHeads,
    kv_lora_rank: KvLoraRank,
    rope_dim: PositiveRopeDim,
    d_nope: Annotated[int, Param("per-head key width without RoPE (qk_nope_head_dim)", gt=0)],
    stage: Annotated[
        Literal["latent_cache", "rope_key_cache", "absorbed_query", "w_uk", "absorbed_context"],
        Param("which tensor"),
    ],
    *,
    worked: bool = True,
) -> Derivation:
    """With W_UK folded into the query and W_UV into W_O, attention runs directly on the cached latent."""
    b, t, s, h, r = batch, seq_len, kv_len, n_heads, kv_lora_rank
    shapes: dict[str, tuple[int, ...]] = {
        "latent_cache": (b, s, r),
        "rope_key_cache": (b, s, rope_dim),
        "absorbed_query": (b, h, t, r),
        "w_uk": (r, h * d_nope),
        "absorbed_context": (b, h, t, r),
    }
    value = shapes[stage]
    if not worked:
        return result(value)
    explain = {
        "latent_cache": (
            "c_KV cache (batch, kv_len, kv_lora_rank)",
            "one latent per token, shared by every head and by K and V",
        ),
        "rope_key_cache": (
            "RoPE key cache (batch, kv_len, rope_dim)",
            "one rotary key per token, broadcast to every head",
        ),
        "absorbed_query": (
            "Absorbed query (batch, heads, seq_len, kv_lora_rank)",
            "q_nope of each head times that head's W_UK slice: it now lives in latent space",
        ),
        "w_uk": (
            "W_UK (kv_lora_rank, n_heads x d_nope)",
            "maps the latent up to every head's non-RoPE key",
        ),
        "absorbed_context": (
            "Context before W_UV (batch, heads, seq_len, kv_lora_rank)",
            "the weights average cached latents; W_UV (folded into W_O) maps them out afterwards",
        ),
    }
    label, why = explain[stage]
    steps = (Step(label, why, ", ".join(str(v) for v in value), value, "shape"),)
    wrong: list[Misconception] = []
    if stage in ("latent_cache", "rope_key_cache"):
        width = value[-1]
        wrong.append(CACHED_PER_HEAD.gives((b, h, s, width), label))
        if stage == "latent_cache":
            wrong.append(X2_ON_LATENT.gives((b, s, 2 * r), label))
    elif stage in ("absorbed_query", "absorbed_context"):
        wrong.append(NOT_ABSORBED.gives((b, h, t, d_nope), label))
        wrong.append(FORGOT_HEADS.gives((b, t, r), label))
    else:
        wrong += [
            TRANSPOSED.gives((h * d_nope, r), label),
            FORGOT_HEADS.gives(
                (r, d_nope),
                label,
                label="You gave only one head's slice",
                explanation="One W_UK serves all heads: n_heads x d_nope output columns.",
            ),
        ]
    return result(value, steps, wrong)
