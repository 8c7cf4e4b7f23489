"""Provides ALiBi: each head's slope and the bias it adds to a score."""

from __future__ import annotations

from typing import Annotated

from engine.calculator import Param, register, result
from engine.calculators.common import require_positive
from engine.derivation import Derivation, Misconception, Mistake, Step

_SLOPE = "Slope of the head"

AlibiHeads = Annotated[int, Param("number of heads h (a power of two)")]
Head = Annotated[int, Param("which head k, counted from 1")]


def _check_alibi(n_heads: int, head: int) -> None:
    require_positive(n_heads=n_heads)
    if n_heads & (n_heads - 1):
        raise ValueError(f"n_heads={n_heads} is not a power of two (the geometric rule needs one)")
    if not 1 <= head <= n_heads:
        raise ValueError(f"head={head} must lie in 1..{n_heads} (heads are counted from 1)")


MISSING_8 = Mistake(
    "missing-8",
    "You used 2^(-k/h), leaving out the 8",
    "The slopes run from 2^(-8/h) down to 2^(-8): the exponent is -8k/h.",
)
HEADS_COUNTED_FROM_0 = Mistake(
    "heads-counted-from-0",
    "You counted the heads from 0",
    "Heads are numbered k = 1..h, so the first head's slope is 2^(-8/h), not 1.",
)
EIGHT_HEAD_SLOPES = Mistake("eight-head-slopes", "You used 2^(-k), the slopes of an 8-head model")
POSITIVE_EXPONENT = Mistake(
    "positive-exponent", "You used 2^(+8k/h)", "Slopes are below 1 and shrink from head to head: 2^(-8k/h)."
)


def _slope_wrong(n_heads: int, head: int, times: float) -> list[Misconception]:
    """Slips in 2^(-8k/h), each scaled by `times` (-distance for a bias, 1 for the slope)."""
    return [
        MISSING_8.gives(times * 2 ** (-head / n_heads), _SLOPE),
        HEADS_COUNTED_FROM_0.gives(times * 2 ** (-8 * (head - 1) / n_heads), _SLOPE),
        EIGHT_HEAD_SLOPES.gives(
            times * 2.0**-head,
            _SLOPE,
            explanation=f"1/2, 1/4, ... 1/256 is the sequence for 8 heads only: with {n_heads} heads the "
            f"ratio is 2^(-8/{n_heads}), so slope_k = 2^(-8k/{n_heads}).",
        ),
        POSITIVE_EXPONENT.gives(times * 2 ** (8 * head / n_heads), _SLOPE),
    ]


def _slope_step(n_heads: int, head: int) -> Step:
    return Step(_SLOPE, "slope_k = 2^(-8k/h)", f"2^(-8 x {head} / {n_heads})", 2 ** (-8 * head / n_heads))


@register(
    summary="ALiBi slope of head k of h (h a power of two): 2^(-8k/h).",
    unit="",
    misconceptions=(MISSING_8, HEADS_COUNTED_FROM_0, POSITIVE_EXPONENT, EIGHT_HEAD_SLOPES),
)
def alibi_slope(n_heads: AlibiHeads, head: Head, *, worked: bool = True) -> Derivation:
    """A geometric sequence of slopes: some heads look far back, some stay very local."""
    _check_alibi(n_heads, head)
    value = 2 ** (-8 * head / n_heads)
    if not worked:
        return result(value)
    return result(value, (_slope_step(n_heads, head),), _slope_wrong(n_heads, head, 1))


POSITIVE_BIAS = Mistake(
    "positive-bias",
    "You added +slope x distance",
    "The bias is a penalty: far keys get a more negative score, so it is -slope x distance.",
)
NO_SLOPE = Mistake(
    "no-slope", "You left out the slope", "Each head scales the distance by its own slope before adding it."
)


@register(
    summary="ALiBi bias added to a score: -slope_k x (query position - key position).",
    unit="",
    misconceptions=(
        MISSING_8,
        HEADS_COUNTED_FROM_0,
        POSITIVE_EXPONENT,
        POSITIVE_BIAS,
        NO_SLOPE,
        EIGHT_HEAD_SLOPES,
    ),
)
def alibi_bias(
    n_heads: AlibiHeads,
    head: Head,
    distance: Annotated[int, Param("how many positions the key lies before the query (i - j)", ge=0)],
    *,
    worked: bool = True,
) -> Derivation:
    """The penalty grows linearly with distance; a steeper head forgets faster."""
    _check_alibi(n_heads, head)
    slope = 2 ** (-8 * head / n_heads)
    value = -slope * distance
    if not worked:
        return result(value)
    label = "Bias"
    steps = (
        _slope_step(n_heads, head),
        Step(label, "bias = -slope_k x (i - j)", f"-{slope:.6g} x {distance:,}", value),
    )
    wrong = [
        POSITIVE_BIAS.gives(-value, label),
        NO_SLOPE.gives(-float(distance), label),
        *_slope_wrong(n_heads, head, -distance),
    ]
    return result(value, steps, wrong)
