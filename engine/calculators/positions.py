"""Provides the position-encoding calculators: RoPE angles, rotations and wavelengths, and ALiBi biases.

RoPE (Su et al. 2021, arXiv:2104.09864) splits a head of width d into d/2 pairs of coordinates. Pair i
(counted from 0: coordinates 2i and 2i+1) turns at the frequency theta_i = base^(-2i/d) radians per
position, so at position m it is rotated by the angle m theta_i. A query at m and a key at n, both
rotated, have the dot product q . R((n - m) theta) k: it depends on m - n only.

ALiBi (Press et al. 2021, arXiv:2108.12409) adds no embedding; it adds -slope x distance to each score,
with head k (counted from 1) of h heads getting the slope 2^(-8k/h) when h is a power of two.
"""

from __future__ import annotations

import math
from typing import Annotated, Literal

import numpy as np
import numpy.typing as npt

from engine.calculator import Param, register, result
from engine.calculators.common import require_divisible, require_positive
from engine.derivation import Derivation, Misconception, Mistake, Step

Matrix = npt.NDArray[np.float64]

_FREQ = "Frequency of the pair"
ANGLE_LABEL = "Rotation angle"
_COMPONENTS = ("first", "second")


Base = Annotated[float, Param("RoPE base (rope_theta), 10000 in the original paper")]
RopeDHead = Annotated[int, Param("width d of one head (even: d/2 pairs)")]
Pair = Annotated[
    int, Param("index i of the rotated pair of coordinates, counted from 0 (coordinates 2i, 2i+1)")
]
Position = Annotated[int, Param("token position m (counted from 0)", ge=0)]


def check_rope(pair: int, d_head: int, base: float) -> None:
    require_positive(d_head=d_head)
    require_divisible("d_head", d_head, "2", 2)
    if not 0 <= pair < d_head // 2:
        raise ValueError(f"pair={pair} must lie in 0..{d_head // 2 - 1} for d_head={d_head}")
    if not base > 1:
        raise ValueError(f"base={base} must be greater than 1")


def theta_of_pair(pair: int, d_head: int, base: float) -> float:
    """theta_i = base^(-2i/d): pair 0 turns one radian per position, later pairs ever more slowly."""
    return float(base ** (-2 * pair / d_head))


def rope_freq_step(pair: int, d_head: int, base: float) -> Step:
    return Step(
        _FREQ,
        "theta_i = base^(-2i/d)",
        f"{base:g}^(-2 x {pair} / {d_head})",
        theta_of_pair(pair, d_head, base),
        "rad/token",
    )


USED_I_NOT_2I = Mistake(
    "used-i-not-2i",
    "You used base^(-i/d) instead of base^(-2i/d)",
    "Pair i holds coordinates 2i and 2i+1, so the exponent is -2i/d; with -i/d the frequencies "
    "only fall to base^(-1/2) instead of about 1/base across the head.",
)
POSITIVE_EXPONENT = Mistake(
    "positive-exponent",
    "You used base^(+2i/d)",
    "The frequencies fall with i: theta_i = base^(-2i/d) = 1 / base^(2i/d). With a positive "
    "exponent the later pairs would spin faster, not slower.",
)
PAIRS_COUNTED_FROM_1 = Mistake(
    "pairs-counted-from-1",
    "You counted the pairs from 1",
    "The first pair (coordinates 0 and 1) has i = 0 and turns at exactly 1 radian per position; "
    "counting from 1 shifts every frequency down by one step of base^(-2/d).",
)
DEGREES_NOT_RADIANS = Mistake(
    "degrees-not-radians",
    "You took the angle in degrees",
    "m theta_i is in radians; your calculator was set to degrees.",
)


def angle_wrongs(
    angle: float, position: float, pair: int, d_head: int, base: float, *, degrees: bool = True
) -> list[Misconception]:
    """The usual slips in m * base^(-2i/d), each evaluated at the same position."""
    out = [
        USED_I_NOT_2I.gives(position * float(base ** (-pair / d_head)), _FREQ),
        POSITIVE_EXPONENT.gives(position * float(base ** (2 * pair / d_head)), _FREQ),
        PAIRS_COUNTED_FROM_1.gives(position * float(base ** (-2 * (pair + 1) / d_head)), _FREQ),
    ]
    if degrees:
        out.append(
            DEGREES_NOT_RADIANS.gives(
                math.degrees(angle),
                ANGLE_LABEL,
                label="You gave the angle in degrees",
                explanation=(
                    "theta_i is in radians per position; RoPE feeds m theta_i straight into cos and sin."
                ),
            )
        )
    return out


@register(
    summary="RoPE rotation angle of pair i at position m: m x base^(-2i/d) radians.",
    unit="rad",
    misconceptions=(USED_I_NOT_2I, POSITIVE_EXPONENT, PAIRS_COUNTED_FROM_1, DEGREES_NOT_RADIANS),
)
def rope_angle(
    position: Position,
    pair: Pair,
    d_head: RopeDHead,
    base: Base = 10000.0,
    *,
    worked: bool = True,
) -> Derivation:
    """The frequency of the pair, then times the position: the angle fed to cos and sin."""
    check_rope(pair, d_head, base)
    theta = theta_of_pair(pair, d_head, base)
    value = position * theta
    if not worked:
        return result(value)
    steps = (
        rope_freq_step(pair, d_head, base),
        Step(ANGLE_LABEL, "angle = m x theta_i", f"{position:,} x {theta:.6g}", value, "rad"),
    )
    return result(value, steps, angle_wrongs(value, position, pair, d_head, base))


FORGOT_2PI = Mistake(
    "forgot-2pi",
    "You gave 1 / theta_i, leaving out the 2 pi",
    "theta_i is in radians per token; a full turn is 2 pi radians: it takes 2 pi / theta_i tokens.",
)
GAVE_FREQUENCY = Mistake(
    "gave-frequency",
    "You gave the frequency theta_i, not the wavelength",
    "The frequency is the angle per token; the wavelength is how many tokens one full turn takes.",
)


@register(
    summary="Tokens for RoPE pair i to turn a full circle: 2 pi / theta_i = 2 pi x base^(2i/d).",
    unit="",
    misconceptions=(USED_I_NOT_2I, FORGOT_2PI, PAIRS_COUNTED_FROM_1, GAVE_FREQUENCY),
)
def rope_wavelength(
    pair: Pair,
    d_head: RopeDHead,
    base: Base = 10000.0,
    *,
    worked: bool = True,
) -> Derivation:
    """A pair repeats after one full turn, 2 pi radians: the longest distance it can tell apart."""
    check_rope(pair, d_head, base)
    theta = theta_of_pair(pair, d_head, base)
    value = 2 * math.pi / theta
    if not worked:
        return result(value)
    label = "Wavelength"
    steps = (
        rope_freq_step(pair, d_head, base),
        Step(label, "lambda_i = 2 pi / theta_i", f"2 pi / {theta:.6g}", value, "tokens"),
    )
    wrong = [
        USED_I_NOT_2I.gives(
            2 * math.pi * float(base ** (pair / d_head)),
            _FREQ,
            label="You used base^(i/d) instead of base^(2i/d)",
            explanation="Pair i holds coordinates 2i and 2i+1, so its frequency is base^(-2i/d).",
        ),
        FORGOT_2PI.gives(1 / theta, label),
        PAIRS_COUNTED_FROM_1.gives(
            2 * math.pi * float(base ** (2 * (pair + 1) / d_head)),
            _FREQ,
            explanation="The first pair has i = 0 and a wavelength of 2 pi tokens.",
        ),
        GAVE_FREQUENCY.gives(theta, label),
    ]
    return result(value, steps, wrong)


def rotate(x: Matrix, position: float, base: float) -> Matrix:
    """RoPE on vectors: pair i of each row turned by position x base^(-2i/d), with a 2x2 rotation each."""
    d = x.shape[-1]
    theta = base ** (-2 * np.arange(d // 2) / d)  # (d/2,)
    angle = position * theta  # (d/2,)
    cos, sin = np.cos(angle), np.sin(angle)  # (d/2,), (d/2,)
    even, odd = x[..., 0::2], x[..., 1::2]  # (..., d/2), (..., d/2)
    out = np.empty_like(x)  # (..., d)
    out[..., 0::2] = even * cos - odd * sin  # (..., d/2)
    out[..., 1::2] = even * sin + odd * cos  # (..., d/2)
    return out


ROTATED_BACKWARDS = Mistake(
    "rotated-backwards",
    "You rotated by -a (the sine's sign is flipped)",
    "RoPE's rotation is [[cos, -sin], [sin, cos]]: the first coordinate loses x1 sin(a), the second "
    "gains x0 sin(a).",
)
UNROTATED = Mistake(
    "unrotated",
    "You left the pair unrotated",
    "At position m the pair is turned by m theta_i; only position 0 leaves it unchanged.",
)


@register(
    summary="One coordinate of a RoPE-rotated pair (x0, x1) at position m: a 2-D rotation by m theta_i.",
    unit="",
    misconceptions=(ROTATED_BACKWARDS, DEGREES_NOT_RADIANS, USED_I_NOT_2I, UNROTATED),
)
def rope_rotate(
    x0: Annotated[float, Param("first coordinate of the pair (index 2i)")],
    x1: Annotated[float, Param("second coordinate of the pair (index 2i+1)")],
    position: Position,
    pair: Pair,
    d_head: RopeDHead,
    base: Base = 10000.0,
    component: Annotated[
        Literal["first", "second"],
        Param("which rotated coordinate: first (x0 cos - x1 sin) or second (x0 sin + x1 cos)"),
    ] = "first",
    *,
    worked: bool = True,
) -> Derivation:
    """Angle, then cos and sin, then the rotated coordinate, as one would do it with a 2x2 matrix."""
    check_rope(pair, d_head, base)
    if component not in _COMPONENTS:
        raise ValueError(f"component={component!r} must be first or second")
    theta = theta_of_pair(pair, d_head, base)
    angle = position * theta

    def turn(a: float) -> float:
        c, s = math.cos(a), math.sin(a)
        return x0 * c - x1 * s if component == "first" else x0 * s + x1 * c

    value = turn(angle)
    if not worked:
        return result(value)
    c, s = math.cos(angle), math.sin(angle)
    label = f"Rotated {component} coordinate"
    formula = "x0 cos(a) - x1 sin(a)" if component == "first" else "x0 sin(a) + x1 cos(a)"
    sub = (
        f"({x0:g})({c:.6g}) - ({x1:g})({s:.6g})"
        if component == "first"
        else f"({x0:g})({s:.6g}) + ({x1:g})({c:.6g})"
    )
    steps = (
        rope_freq_step(pair, d_head, base),
        Step(ANGLE_LABEL, "a = m x theta_i", f"{position:,} x {theta:.6g}", angle, "rad"),
        Step("Cosine", "cos(a)", f"cos({angle:.6g})", c),
        Step("Sine", "sin(a)", f"sin({angle:.6g})", s),
        Step(label, formula, sub, value),
    )
    wrong = [
        ROTATED_BACKWARDS.gives(turn(-angle), label),
        DEGREES_NOT_RADIANS.gives(turn(math.radians(angle)), "Cosine"),
        USED_I_NOT_2I.gives(
            turn(position * float(base ** (-pair / d_head))),
            _FREQ,
            explanation="Pair i holds coordinates 2i and 2i+1, so the exponent is -2i/d.",
        ),
        UNROTATED.gives(x0 if component == "first" else x1, ANGLE_LABEL),
    ]
    return result(value, steps, wrong)


ADDED_POSITIONS = Mistake(
    "added-positions",
    "You turned the key by m + n",
    "The rotations partly cancel: R(m)^T R(n) = R(n - m); only the difference of positions counts.",
)
ONLY_QUERY_ROTATED = Mistake(
    "only-query-rotated",
    "You rotated the query but not the key",
    "Both are rotated, each by its own position; rotating one alone keeps the absolute position in.",
)
OFFSET_SIGN_FLIPPED = Mistake(
    "offset-sign-flipped",
    "You turned the key by m - n instead of n - m",
    "q . R(n - m) k: the key is turned by its own position minus the query's. Turning it the other "
    "way gives the logit of the mirrored pair.",
)


@register(
    summary="The RoPE attention logit R(m) q . R(n) k, which depends on the offset m - n only.",
    unit="",
    misconceptions=(UNROTATED, ADDED_POSITIONS, ONLY_QUERY_ROTATED, OFFSET_SIGN_FLIPPED),
)
def rope_score(
    q: Annotated[Matrix, Param("the query, one row (1, d) with d even")],
    k: Annotated[Matrix, Param("the key, one row (1, d)")],
    query_position: Annotated[int, Param("position m of the query")],
    key_position: Annotated[int, Param("position n of the key")],
    base: Base = 10000.0,
    *,
    worked: bool = True,
) -> Derivation:
    """Rotate the key by the offset n - m and dot it with the unrotated query: same as rotating both."""
    q, k = np.asarray(q, dtype=np.float64), np.asarray(k, dtype=np.float64)  # (1, d), (1, d)
    if q.ndim != 2 or q.shape[0] != 1 or q.shape != k.shape or q.shape[1] % 2:
        raise ValueError(f"q {q.shape} and k {k.shape} must both be one row (1, d) with d even")
    d = q.shape[1]
    check_rope(0, d, base)
    if query_position < 0 or key_position < 0:
        raise ValueError(f"positions m={query_position}, n={key_position} must be 0 or more")
    m, n = query_position, key_position
    value = float((rotate(q, m, base) @ rotate(k, n, base).T)[0, 0])  # (1, d) @ (d, 1) -> scalar
    if not worked:
        return result(value)
    k_rel = rotate(k, n - m, base)  # (1, d): the key turned by the offset only
    theta = base ** (-2 * np.arange(d // 2) / d)  # (d/2,)
    offset_label = "Only the offset matters"
    steps = (
        Step(
            offset_label,
            "R(m)q . R(n)k = q . R(n - m)k, so turn pair i of k by (n - m) theta_i",
            f"n - m = {n:,} - {m:,} = {n - m:,}; angles "
            + ", ".join(f"{a:.4g}" for a in ((n - m) * theta).tolist()),
            n - m,
        ),
        Step(
            "Rotated key",
            "R(n - m) k",
            "[" + ", ".join(f"{x:.4g}" for x in k_rel[0].tolist()) + "]",
            float(k_rel[0, 0]),
        ),
        Step(
            "Score",
            "q . R(n - m) k",
            " + ".join(f"({a:g})({b:.4g})" for a, b in zip(q[0].tolist(), k_rel[0].tolist(), strict=True)),
            value,
        ),
    )
    wrong = [
        UNROTATED.gives(
            float((q @ k.T)[0, 0]),
            offset_label,
            label="You took the plain dot product q . k",
            explanation="With RoPE the query and key are rotated by their positions before the dot product.",
        ),
        ADDED_POSITIONS.gives(float((q @ rotate(k, n + m, base).T)[0, 0]), offset_label),
        ONLY_QUERY_ROTATED.gives(float((rotate(q, m, base) @ k.T)[0, 0]), offset_label),
        OFFSET_SIGN_FLIPPED.gives(float((q @ rotate(k, m - n, base).T)[0, 0]), "Rotated key"),
    ]
    return result(value, steps, wrong)
