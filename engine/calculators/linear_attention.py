"""Provides the cost of mixing tokens: softmax attention against linear attention, and where linear wins."""

from __future__ import annotations

from typing import Annotated, Literal

from engine.calculator import Param, register, result
from engine.calculators.common import (
    CachedLen,
    DHead,
    NHeads,
)
from engine.derivation import Derivation, Mistake, Step

KINDS = ("softmax", "linear")


SWAPPED_COSTS = Mistake(
    "swapped-costs",
    "You used the other kind's formula",
    "Softmax attention costs T^2 d_k per head (it needs every score); linear attention reassociates "
    "to Q (K^T V) and costs T d_k^2.",
)
FORGOT_SECOND_MATMUL = Mistake(
    "forgot-second-matmul",
    "You counted one of the two matmuls",
    "Both products cost the same: two of them, 4 in the constant.",
)
D_MODEL_SQUARED = Mistake(
    "d-model-squared",
    "You used d_model^2 instead of h x d_k^2",
    "Each head keeps its own d_k x d_k state; h d_k^2 is h times smaller than (h d_k)^2.",
)


@register(
    summary="FLOPs of attention's token mixing per layer: softmax 4 h T^2 d_k, linear (kernel) 4 h T d_k^2.",
    unit="FLOPs",
    misconceptions=(SWAPPED_COSTS, FORGOT_SECOND_MATMUL, D_MODEL_SQUARED),
)
def mixing_flops(
    seq_len: CachedLen,
    d_head: DHead,
    n_heads: NHeads,
    kind: Annotated[
        Literal["softmax", "linear"], Param("softmax (Q K^T then A V) or linear (K^T V then Q times it)")
    ],
    *,
    worked: bool = True,
) -> Derivation:
    """Softmax attention builds the T x T matrix; linear attention reassociates to a d_k x d_k state."""
    if kind not in KINDS:
        raise ValueError(f"kind={kind!r} must be softmax or linear")
    t, d, h = seq_len, d_head, n_heads
    softmax = 4 * h * t * t * d
    linear = 4 * h * t * d * d
    one = 2 * h * t * t * d if kind == "softmax" else 2 * h * t * d * d
    value = softmax if kind == "softmax" else linear
    if not worked:
        return result(value)
    if kind == "softmax":
        first = Step("Scores Q K^T", "2 h T T d_k", f"2 x {h} x {t:,} x {t:,} x {d}", one, "FLOPs")
        second = Step("Weighted sum A V", "+ 2 h T T d_k", f"{one:,} + {one:,}", value, "FLOPs")
    else:
        first = Step(
            "State K^T V (d_k x d_k per head)", "2 h T d_k d_k", f"2 x {h} x {t:,} x {d} x {d}", one, "FLOPs"
        )
        second = Step("Queries times the state", "+ 2 h T d_k d_k", f"{one:,} + {one:,}", value, "FLOPs")
    wrong = [
        SWAPPED_COSTS.gives(linear if kind == "softmax" else softmax, first.label),
        FORGOT_SECOND_MATMUL.gives(one, second.label),
    ]
    if kind == "linear" and h > 1:
        wrong.append(D_MODEL_SQUARED.gives(4 * t * (h * d) ** 2, first.label))
    return result(value, (first, second), wrong)


USED_D_MODEL = Mistake(
    "used-d-model",
    "You used d_model",
    "The heads are separate: each compares T^2 d_k with T d_k^2, so the model width does not enter.",
)
SQUARED_D = Mistake(
    "squared-d",
    "You gave d_k^2",
    "Dividing 4 h T^2 d_k = 4 h T d_k^2 by 4 h T d_k leaves T = d_k, not d_k^2.",
)
SQRT_D = Mistake("sqrt-d", "You gave sqrt(d_k)", "The equation is linear in T after dividing by T: T = d_k.")


@register(
    summary="Length where linear attention (4 h T d_k^2) gets cheaper than softmax (4 h T^2 d_k): T = d_k.",
    unit="",
    misconceptions=(USED_D_MODEL, SQUARED_D, SQRT_D),
)
def linear_attention_crossover(d_head: DHead, n_heads: NHeads, *, worked: bool = True) -> Derivation:
    """Equal costs at 4 h T^2 d_k = 4 h T d_k^2: dividing by 4 h T d_k leaves T = d_k."""
    value = d_head
    if not worked:
        return result(value)
    label = "Crossover length"
    steps = (
        Step(
            "Set the costs equal",
            "4 h T^2 d_k = 4 h T d_k^2",
            f"4 x {n_heads} x T^2 x {d_head} = 4 x {n_heads} x T x {d_head}^2",
            4 * n_heads * d_head**3,
            "FLOPs at the crossover",
        ),
        Step(label, "T = d_k (divide both sides by 4 h T d_k)", f"T = {d_head}", value, "tokens"),
    )
    wrong = [
        USED_D_MODEL.gives(n_heads * d_head, label),
        SQUARED_D.gives(d_head**2, label),
        SQRT_D.gives(d_head**0.5, label),
    ]
    return result(value, steps, wrong)
