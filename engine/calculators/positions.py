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

import numpy as np
import numpy.typing as npt

from engine.calculator import Arg, register
from engine.calculators.common import distinct, require_divisible, require_positive
from engine.derivation import Derivation, Misconception, Step

Matrix = npt.NDArray[np.float64]

_PAIR = Arg(
    "pair", "int", "index i of the rotated pair of coordinates, counted from 0 (coordinates 2i, 2i+1)"
)
_D = Arg("d_head", "int", "width d of one head (even: d/2 pairs)")
_BASE = Arg(
    "base", "float", "RoPE base (rope_theta), 10000 in the original paper", default=10000.0, required=False
)
_FREQ = "Frequency of the pair"
_ANGLE = "Rotation angle"
_COMPONENTS = ("first", "second")


def _check_rope(calc: str, pair: int, d_head: int, base: float) -> None:
    require_positive(calc, d_head=d_head)
    require_divisible(calc, "d_head", d_head, "2", 2)
    if not 0 <= pair < d_head // 2:
        raise ValueError(f"{calc}: pair={pair} must lie in 0..{d_head // 2 - 1} for d_head={d_head}")
    if not base > 1:
        raise ValueError(f"{calc}: base={base} must be greater than 1")


def _theta(pair: int, d_head: int, base: float) -> float:
    """theta_i = base^(-2i/d): pair 0 turns one radian per position, later pairs ever more slowly."""
    return float(base ** (-2 * pair / d_head))


def _freq_step(pair: int, d_head: int, base: float) -> Step:
    return Step(
        _FREQ,
        "theta_i = base^(-2i/d)",
        f"{base:g}^(-2 x {pair} / {d_head})",
        _theta(pair, d_head, base),
        "rad/token",
    )


def _angle_wrong(
    angle: float, position: float, pair: int, d_head: int, base: float, *, degrees: bool = True
) -> list[Misconception]:
    """The usual slips in m * base^(-2i/d), each evaluated at the same position."""
    out = [
        Misconception(
            "used-i-not-2i",
            "You used base^(-i/d) instead of base^(-2i/d)",
            "Pair i holds coordinates 2i and 2i+1, so the exponent is -2i/d; with -i/d the frequencies "
            "only fall to base^(-1/2) instead of about 1/base across the head.",
            position * float(base ** (-pair / d_head)),
            _FREQ,
        ),
        Misconception(
            "positive-exponent",
            "You used base^(+2i/d)",
            "The frequencies fall with i: theta_i = base^(-2i/d) = 1 / base^(2i/d). With a positive "
            "exponent the later pairs would spin faster, not slower.",
            position * float(base ** (2 * pair / d_head)),
            _FREQ,
        ),
        Misconception(
            "pairs-counted-from-1",
            "You counted the pairs from 1",
            "The first pair (coordinates 0 and 1) has i = 0 and turns at exactly 1 radian per position; "
            "counting from 1 shifts every frequency down by one step of base^(-2/d).",
            position * float(base ** (-2 * (pair + 1) / d_head)),
            _FREQ,
        ),
    ]
    if degrees:
        out.append(
            Misconception(
                "degrees-not-radians",
                "You gave the angle in degrees",
                "theta_i is in radians per position; RoPE feeds m theta_i straight into cos and sin.",
                math.degrees(angle),
                _ANGLE,
            )
        )
    return out


@register(
    "rope_angle",
    summary="RoPE rotation angle of pair i at position m: m x base^(-2i/d) radians.",
    unit="rad",
    args=(Arg("position", "int", "token position m (counted from 0)"), _PAIR, _D, _BASE),
    misconceptions=("used-i-not-2i", "positive-exponent", "pairs-counted-from-1", "degrees-not-radians"),
)
def rope_angle(
    position: int, pair: int, d_head: int, base: float = 10000.0, *, worked: bool = True
) -> Derivation:
    """The frequency of the pair, then times the position: the angle fed to cos and sin."""
    calc = "rope_angle"
    _check_rope(calc, pair, d_head, base)
    if position < 0:
        raise ValueError(f"{calc}: position={position} must be 0 or more")
    theta = _theta(pair, d_head, base)
    value = position * theta
    if not worked:
        return Derivation(calc, value, "rad", ())
    steps = (
        _freq_step(pair, d_head, base),
        Step(_ANGLE, "angle = m x theta_i", f"{position:,} x {theta:.6g}", value, "rad"),
    )
    return Derivation(
        calc, value, "rad", steps, distinct(value, _angle_wrong(value, position, pair, d_head, base))
    )


@register(
    "rope_wavelength",
    summary="Tokens for RoPE pair i to turn a full circle: 2 pi / theta_i = 2 pi x base^(2i/d).",
    unit="",
    args=(_PAIR, _D, _BASE),
    misconceptions=("used-i-not-2i", "forgot-2pi", "pairs-counted-from-1", "gave-frequency"),
)
def rope_wavelength(pair: int, d_head: int, base: float = 10000.0, *, worked: bool = True) -> Derivation:
    """A pair repeats after one full turn, 2 pi radians: the longest distance it can tell apart."""
    calc = "rope_wavelength"
    _check_rope(calc, pair, d_head, base)
    theta = _theta(pair, d_head, base)
    value = 2 * math.pi / theta
    if not worked:
        return Derivation(calc, value, "", ())
    label = "Wavelength"
    steps = (
        _freq_step(pair, d_head, base),
        Step(label, "lambda_i = 2 pi / theta_i", f"2 pi / {theta:.6g}", value, "tokens"),
    )
    wrong = [
        Misconception(
            "used-i-not-2i",
            "You used base^(i/d) instead of base^(2i/d)",
            "Pair i holds coordinates 2i and 2i+1, so its frequency is base^(-2i/d).",
            2 * math.pi * float(base ** (pair / d_head)),
            _FREQ,
        ),
        Misconception(
            "forgot-2pi",
            "You gave 1 / theta_i, leaving out the 2 pi",
            "theta_i is in radians per token; a full turn is 2 pi radians: it takes 2 pi / theta_i tokens.",
            1 / theta,
            label,
        ),
        Misconception(
            "pairs-counted-from-1",
            "You counted the pairs from 1",
            "The first pair has i = 0 and a wavelength of 2 pi tokens.",
            2 * math.pi * float(base ** (2 * (pair + 1) / d_head)),
            _FREQ,
        ),
        Misconception(
            "gave-frequency",
            "You gave the frequency theta_i, not the wavelength",
            "The frequency is the angle per token; the wavelength is how many tokens one full turn takes.",
            theta,
            label,
        ),
    ]
    return Derivation(calc, value, "", steps, distinct(value, wrong))


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


@register(
    "rope_rotate",
    summary="One coordinate of a RoPE-rotated pair (x0, x1) at position m: a 2-D rotation by m theta_i.",
    unit="",
    args=(
        Arg("x0", "float", "first coordinate of the pair (index 2i)"),
        Arg("x1", "float", "second coordinate of the pair (index 2i+1)"),
        Arg("position", "int", "token position m (counted from 0)"),
        _PAIR,
        _D,
        _BASE,
        Arg(
            "component",
            "str",
            "which rotated coordinate: first (x0 cos - x1 sin) or second (x0 sin + x1 cos)",
            default="first",
            required=False,
            choices=_COMPONENTS,
        ),
    ),
    misconceptions=("rotated-backwards", "degrees-not-radians", "used-i-not-2i", "unrotated"),
)
def rope_rotate(
    x0: float,
    x1: float,
    position: int,
    pair: int,
    d_head: int,
    base: float = 10000.0,
    component: str = "first",
    *,
    worked: bool = True,
) -> Derivation:
    """Angle, then cos and sin, then the rotated coordinate, as one would do it with a 2x2 matrix."""
    calc = "rope_rotate"
    _check_rope(calc, pair, d_head, base)
    if component not in _COMPONENTS:
        raise ValueError(f"{calc}: component={component!r} must be first or second")
    if position < 0:
        raise ValueError(f"{calc}: position={position} must be 0 or more")
    theta = _theta(pair, d_head, base)
    angle = position * theta

    def turn(a: float) -> float:
        c, s = math.cos(a), math.sin(a)
        return x0 * c - x1 * s if component == "first" else x0 * s + x1 * c

    value = turn(angle)
    if not worked:
        return Derivation(calc, value, "", ())
    c, s = math.cos(angle), math.sin(angle)
    label = f"Rotated {component} coordinate"
    formula = "x0 cos(a) - x1 sin(a)" if component == "first" else "x0 sin(a) + x1 cos(a)"
    sub = (
        f"({x0:g})({c:.6g}) - ({x1:g})({s:.6g})"
        if component == "first"
        else f"({x0:g})({s:.6g}) + ({x1:g})({c:.6g})"
    )
    steps = (
        _freq_step(pair, d_head, base),
        Step(_ANGLE, "a = m x theta_i", f"{position:,} x {theta:.6g}", angle, "rad"),
        Step("Cosine", "cos(a)", f"cos({angle:.6g})", c),
        Step("Sine", "sin(a)", f"sin({angle:.6g})", s),
        Step(label, formula, sub, value),
    )
    wrong = [
        Misconception(
            "rotated-backwards",
            "You rotated by -a (the sine's sign is flipped)",
            "RoPE's rotation is [[cos, -sin], [sin, cos]]: the first coordinate loses x1 sin(a), the second "
            "gains x0 sin(a).",
            turn(-angle),
            label,
        ),
        Misconception(
            "degrees-not-radians",
            "You took the angle in degrees",
            "m theta_i is in radians; your calculator was set to degrees.",
            turn(math.radians(angle)),
            "Cosine",
        ),
        Misconception(
            "used-i-not-2i",
            "You used base^(-i/d) instead of base^(-2i/d)",
            "Pair i holds coordinates 2i and 2i+1, so the exponent is -2i/d.",
            turn(position * float(base ** (-pair / d_head))),
            _FREQ,
        ),
        Misconception(
            "unrotated",
            "You left the pair unrotated",
            "At position m the pair is turned by m theta_i; only position 0 leaves it unchanged.",
            x0 if component == "first" else x1,
            _ANGLE,
        ),
    ]
    return Derivation(calc, value, "", steps, distinct(value, wrong))


@register(
    "rope_score",
    summary="The RoPE attention logit R(m) q . R(n) k, which depends on the offset m - n only.",
    unit="",
    args=(
        Arg("q", "matrix", "the query, one row (1, d) with d even"),
        Arg("k", "matrix", "the key, one row (1, d)"),
        Arg("query_position", "int", "position m of the query"),
        Arg("key_position", "int", "position n of the key"),
        _BASE,
    ),
    misconceptions=("unrotated", "added-positions", "only-query-rotated", "offset-sign-flipped"),
)
def rope_score(
    q: Matrix,
    k: Matrix,
    query_position: int,
    key_position: int,
    base: float = 10000.0,
    *,
    worked: bool = True,
) -> Derivation:
    """Rotate the key by the offset n - m and dot it with the unrotated query: same as rotating both."""
    calc = "rope_score"
    q, k = np.asarray(q, dtype=np.float64), np.asarray(k, dtype=np.float64)  # (1, d), (1, d)
    if q.ndim != 2 or q.shape[0] != 1 or q.shape != k.shape or q.shape[1] % 2:
        raise ValueError(f"{calc}: q {q.shape} and k {k.shape} must both be one row (1, d) with d even")
    d = q.shape[1]
    _check_rope(calc, 0, d, base)
    if query_position < 0 or key_position < 0:
        raise ValueError(f"{calc}: positions m={query_position}, n={key_position} must be 0 or more")
    m, n = query_position, key_position
    value = float((rotate(q, m, base) @ rotate(k, n, base).T)[0, 0])  # (1, d) @ (d, 1) -> scalar
    if not worked:
        return Derivation(calc, value, "", ())
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
        Misconception(
            "unrotated",
            "You took the plain dot product q . k",
            "With RoPE the query and key are rotated by their positions before the dot product.",
            float((q @ k.T)[0, 0]),  # (1, d) @ (d, 1)
            offset_label,
        ),
        Misconception(
            "added-positions",
            "You turned the key by m + n",
            "The rotations partly cancel: R(m)^T R(n) = R(n - m); only the difference of positions counts.",
            float((q @ rotate(k, n + m, base).T)[0, 0]),  # (1, d) @ (d, 1)
            offset_label,
        ),
        Misconception(
            "only-query-rotated",
            "You rotated the query but not the key",
            "Both are rotated, each by its own position; rotating one alone keeps the absolute position in.",
            float((rotate(q, m, base) @ k.T)[0, 0]),  # (1, d) @ (d, 1)
            offset_label,
        ),
        Misconception(
            "offset-sign-flipped",
            "You turned the key by m - n instead of n - m",
            "q . R(n - m) k: the key is turned by its own position minus the query's. Turning it the other "
            "way gives the logit of the mirrored pair.",
            float((q @ rotate(k, m - n, base).T)[0, 0]),  # (1, d) @ (d, 1)
            "Rotated key",
        ),
    ]
    return Derivation(calc, value, "", steps, distinct(value, wrong))


@register(
    "rope_decode_angle",
    summary="RoPE angle for the next token when decoding with a KV cache: its position is the cache length.",
    unit="rad",
    args=(
        Arg("cached_tokens", "int", "tokens already in the KV cache (prompt plus generated)"),
        _PAIR,
        _D,
        _BASE,
        Arg(
            "generated",
            "int",
            "tokens generated since the prompt (0: not said), to recognise the prompt's positions left out",
            0,
            False,
        ),
    ),
    misconceptions=(
        "restarted-positions",
        "off-by-one",
        "used-i-not-2i",
        "degrees-not-radians",
        "forgot-prompt-offset",
    ),
)
def rope_decode_angle(
    cached_tokens: int,
    pair: int,
    d_head: int,
    base: float = 10000.0,
    generated: int = 0,
    *,
    worked: bool = True,
) -> Derivation:
    """Cached keys were rotated when written; the new token continues the count at the cache length."""
    calc = "rope_decode_angle"
    _check_rope(calc, pair, d_head, base)
    require_positive(calc, cached_tokens=cached_tokens)
    if not 0 <= generated <= cached_tokens:
        raise ValueError(f"{calc}: generated={generated} must lie in 0..cached_tokens={cached_tokens}")
    theta = _theta(pair, d_head, base)
    position = cached_tokens
    value = position * theta
    if not worked:
        return Derivation(calc, value, "rad", ())
    pos_label = "Position of the new token"
    steps = (
        Step(
            pos_label,
            "m = tokens already cached (positions 0 .. m-1 are taken)",
            f"m = {cached_tokens:,}",
            position,
        ),
        _freq_step(pair, d_head, base),
        Step(_ANGLE, "angle = m x theta_i", f"{position:,} x {theta:.6g}", value, "rad"),
    )
    wrong = [
        Misconception(
            "restarted-positions",
            "You started the new token at position 0",
            "The one-token input of a decoding step is not at position 0: its position is the cache length, "
            "or its query would be rotated as if it were the first token.",
            0.0,
            pos_label,
        ),
        Misconception(
            "off-by-one",
            "You put the new token at position cached + 1",
            "Positions count from 0, so with m tokens cached they occupy 0 .. m-1 and the next one is m.",
            (position + 1) * theta,
            pos_label,
        ),
        *[
            w
            for w in _angle_wrong(value, position, pair, d_head, base)
            if w.id in ("used-i-not-2i", "degrees-not-radians")
        ],
    ]
    if generated:
        wrong.append(
            Misconception(
                "forgot-prompt-offset",
                "You counted only the generated tokens, leaving out the prompt's positions",
                f"The prompt's {cached_tokens - generated:,} tokens sit at positions 0 .. "
                f"{cached_tokens - generated - 1:,} and the generated ones after them: the new token's "
                "position is the whole cache length, prompt included.",
                generated * theta,
                pos_label,
            )
        )
    return Derivation(calc, value, "rad", steps, distinct(value, wrong))


@register(
    "rope_interpolated_angle",
    summary="RoPE angle under position interpolation: position m scaled by L_train / L_new, times theta_i.",
    unit="rad",
    args=(
        Arg("position", "int", "token position m in the extended context"),
        Arg("train_len", "int", "context length the model was trained on"),
        Arg("target_len", "int", "extended context length"),
        _PAIR,
        _D,
        _BASE,
    ),
    misconceptions=("scale-inverted", "no-interpolation", "ntk-base", "used-i-not-2i", "degrees-not-radians"),
)
def rope_interpolated_angle(
    position: int,
    train_len: int,
    target_len: int,
    pair: int,
    d_head: int,
    base: float = 10000.0,
    *,
    worked: bool = True,
) -> Derivation:
    """Position interpolation squeezes the new range into the trained one: m' = m / s, s = L_new / L_train."""
    calc = "rope_interpolated_angle"
    _check_rope(calc, pair, d_head, base)
    require_positive(calc, train_len=train_len, target_len=target_len)
    if target_len <= train_len:
        raise ValueError(f"{calc}: target_len={target_len} must exceed train_len={train_len}")
    if not 0 <= position < target_len:
        raise ValueError(f"{calc}: position={position} must lie in 0..{target_len - 1}")
    scale = target_len / train_len
    theta = _theta(pair, d_head, base)
    squeezed = position / scale
    value = squeezed * theta
    if not worked:
        return Derivation(calc, value, "rad", ())
    scale_label, pos_label = "Scale factor", "Interpolated position"
    steps = (
        Step(scale_label, "s = L_new / L_train", f"{target_len:,} / {train_len:,}", scale, "x"),
        Step(pos_label, "m' = m / s", f"{position:,} / {scale:.6g}", squeezed),
        _freq_step(pair, d_head, base),
        Step(_ANGLE, "angle = m' x theta_i", f"{squeezed:.6g} x {theta:.6g}", value, "rad"),
    )
    wrong = [
        Misconception(
            "scale-inverted",
            "You multiplied the position by s instead of dividing",
            "Interpolation shrinks positions so that the longest new one maps inside the trained range.",
            position * scale * theta,
            pos_label,
        ),
        Misconception(
            "no-interpolation",
            "You used the raw position",
            "That is plain extrapolation, to angles never seen in training: what interpolation avoids.",
            position * theta,
            pos_label,
        ),
        *(
            [
                Misconception(
                    "ntk-base",
                    "You applied NTK-aware scaling (a larger base) instead of interpolating positions",
                    "NTK scaling keeps m and raises the base to base x s^(d/(d-2)); linear interpolation "
                    "keeps the base and divides the position by s. The two agree only for the slowest pair.",
                    position * _theta(pair, d_head, base * scale ** (d_head / (d_head - 2))),
                    pos_label,
                )
            ]
            if d_head > 2
            else []
        ),
        *[
            w
            for w in _angle_wrong(value, squeezed, pair, d_head, base)
            if w.id in ("used-i-not-2i", "degrees-not-radians")
        ],
    ]
    return Derivation(calc, value, "rad", steps, distinct(value, wrong))


def _check_alibi(calc: str, n_heads: int, head: int) -> None:
    require_positive(calc, n_heads=n_heads)
    if n_heads & (n_heads - 1):
        raise ValueError(f"{calc}: n_heads={n_heads} is not a power of two (the geometric rule needs one)")
    if not 1 <= head <= n_heads:
        raise ValueError(f"{calc}: head={head} must lie in 1..{n_heads} (heads are counted from 1)")


_SLOPE = "Slope of the head"


def _slope_wrong(n_heads: int, head: int, times: float) -> list[Misconception]:
    """Slips in 2^(-8k/h), each scaled by `times` (-distance for a bias, 1 for the slope)."""
    return [
        Misconception(
            "missing-8",
            "You used 2^(-k/h), leaving out the 8",
            "The slopes run from 2^(-8/h) down to 2^(-8): the exponent is -8k/h.",
            times * 2 ** (-head / n_heads),
            _SLOPE,
        ),
        Misconception(
            "heads-counted-from-0",
            "You counted the heads from 0",
            "Heads are numbered k = 1..h, so the first head's slope is 2^(-8/h), not 1.",
            times * 2 ** (-8 * (head - 1) / n_heads),
            _SLOPE,
        ),
        Misconception(
            "eight-head-slopes",
            "You used 2^(-k), the slopes of an 8-head model",
            f"1/2, 1/4, ... 1/256 is the sequence for 8 heads only: with {n_heads} heads the ratio is "
            f"2^(-8/{n_heads}), so slope_k = 2^(-8k/{n_heads}).",
            times * 2.0**-head,
            _SLOPE,
        ),
        Misconception(
            "positive-exponent",
            "You used 2^(+8k/h)",
            "Slopes are below 1 and shrink from head to head: 2^(-8k/h).",
            times * 2 ** (8 * head / n_heads),
            _SLOPE,
        ),
    ]


def _slope_step(n_heads: int, head: int) -> Step:
    return Step(_SLOPE, "slope_k = 2^(-8k/h)", f"2^(-8 x {head} / {n_heads})", 2 ** (-8 * head / n_heads))


_HEADS = Arg("n_heads", "int", "number of heads h (a power of two)")
_HEAD = Arg("head", "int", "which head k, counted from 1")


@register(
    "alibi_slope",
    summary="ALiBi slope of head k of h (h a power of two): 2^(-8k/h).",
    unit="",
    args=(_HEADS, _HEAD),
    misconceptions=("missing-8", "heads-counted-from-0", "positive-exponent", "eight-head-slopes"),
)
def alibi_slope(n_heads: int, head: int, *, worked: bool = True) -> Derivation:
    """A geometric sequence of slopes: some heads look far back, some stay very local."""
    calc = "alibi_slope"
    _check_alibi(calc, n_heads, head)
    value = 2 ** (-8 * head / n_heads)
    if not worked:
        return Derivation(calc, value, "", ())
    return Derivation(
        calc, value, "", (_slope_step(n_heads, head),), distinct(value, _slope_wrong(n_heads, head, 1))
    )


@register(
    "alibi_bias",
    summary="ALiBi bias added to a score: -slope_k x (query position - key position).",
    unit="",
    args=(_HEADS, _HEAD, Arg("distance", "int", "how many positions the key lies before the query (i - j)")),
    misconceptions=(
        "missing-8",
        "heads-counted-from-0",
        "positive-exponent",
        "positive-bias",
        "no-slope",
        "eight-head-slopes",
    ),
)
def alibi_bias(n_heads: int, head: int, distance: int, *, worked: bool = True) -> Derivation:
    """The penalty grows linearly with distance; a steeper head forgets faster."""
    calc = "alibi_bias"
    _check_alibi(calc, n_heads, head)
    if distance < 0:
        raise ValueError(
            f"{calc}: distance={distance} must be 0 or more (causal: keys at or before the query)"
        )
    slope = 2 ** (-8 * head / n_heads)
    value = -slope * distance
    if not worked:
        return Derivation(calc, value, "", ())
    label = "Bias"
    steps = (
        _slope_step(n_heads, head),
        Step(label, "bias = -slope_k x (i - j)", f"-{slope:.6g} x {distance:,}", value),
    )
    wrong = [
        Misconception(
            "positive-bias",
            "You added +slope x distance",
            "The bias is a penalty: far keys get a more negative score, so it is -slope x distance.",
            -value,
            label,
        ),
        Misconception(
            "no-slope",
            "You left out the slope",
            "Each head scales the distance by its own slope before adding it.",
            -float(distance),
            label,
        ),
        *_slope_wrong(n_heads, head, -distance),
    ]
    return Derivation(calc, value, "", steps, distinct(value, wrong))
