"""Provides head_dim, the d_k = d_model / h arithmetic every other calculator builds on."""

from __future__ import annotations

from engine.calculator import register, result
from engine.calculators.common import DModel, NHeads, require_divisible, require_positive
from engine.derivation import Derivation, Mistake, Step


def split(d_model: int, n_heads: int) -> int:
    """d_k = d_model / h, refusing widths that do not split evenly across the heads."""
    require_positive(d_model=d_model, n_heads=n_heads)
    require_divisible("d_model", d_model, "n_heads", n_heads)
    return d_model // n_heads


MULTIPLIED = Mistake(
    "multiplied",
    "You multiplied by h instead of dividing",
    "Each head gets a slice of d_model: d_k = d_model / h, not d_model x h.",
)
NO_SPLIT = Mistake(
    "no-split",
    "You gave each head the full d_model",
    "Multi-head attention splits d_model into h slices of width d_model / h; the heads do not "
    "each see all d_model dimensions.",
)


@register(
    summary="Width of one head: d_k = d_v = d_model / h.",
    unit="",
    misconceptions=(MULTIPLIED, NO_SPLIT),
)
def head_dim(d_model: DModel, n_heads: NHeads, *, worked: bool = True) -> Derivation:
    """Each head works in its own d_model / h slice, so h heads together are as wide as the model."""
    d_k = split(d_model, n_heads)
    if not worked:
        return result(d_k)
    label = "Split d_model across the heads"
    steps = (Step(label, "d_k = d_v = d_model / h", f"{d_model} / {n_heads}", d_k),)
    check = f"Check: the heads tile d_model, h x d_k = {n_heads} x {d_k} = {n_heads * d_k}."
    wrong = [
        MULTIPLIED.gives(d_model * n_heads, label),
        NO_SPLIT.gives(d_model, label),
    ]
    return result(d_k, steps, wrong, notes=(check,))
