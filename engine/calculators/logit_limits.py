"""Provides the limits put on logits: soft-capping (tanh) and the fill value of masked scores."""

from __future__ import annotations

from typing import Annotated, Literal

import numpy as np
import numpy.typing as npt

from engine.calculator import Param, register, result
from engine.calculators.numerics import Col, Matrix, score_row, vec_text
from engine.derivation import Derivation, Mistake, Step

TANH_WITHOUT_SCALE = Mistake(
    "tanh-without-scale",
    "You took tanh of the raw logit",
    "Divide by the cap before tanh and multiply by it after; plain tanh squashes every logit into (-1, 1).",
)
FORGOT_OUTER_CAP = Mistake(
    "forgot-outer-cap",
    "You did not multiply by the cap after tanh",
    "tanh(x / cap) lies in (-1, 1); multiplying by the cap puts the logit back on its scale.",
)
FORGOT_INNER_SCALE = Mistake(
    "forgot-inner-scale",
    "You did not divide by the cap inside tanh",
    "cap x tanh(x) saturates at about |x| = 3 whatever the cap; dividing first keeps small logits "
    "almost unchanged.",
)
HARD_CLIP = Mistake(
    "hard-clip",
    "You clipped the logit to [-cap, cap]",
    "Soft-capping is smooth: every logit is changed a little, and none reaches the cap exactly.",
)


@register(
    summary="A soft-capped logit: cap x tanh(x / cap), which stays inside (-cap, cap).",
    unit="",
    misconceptions=(TANH_WITHOUT_SCALE, FORGOT_OUTER_CAP, FORGOT_INNER_SCALE, HARD_CLIP),
)
def soft_cap(
    x: Annotated[float, Param("the logit before capping")],
    cap: Annotated[float, Param("the soft cap (Gemma 2: 50 or 30)", gt=0)],
    *,
    worked: bool = True,
) -> Derivation:
    """Near 0 the cap changes little (tanh(u) ~ u); large logits are squashed smoothly towards +-cap."""
    u = float(np.float64(x) / np.float64(cap))  # scalar
    t = float(np.tanh(u))  # scalar
    value = cap * t
    if not worked:
        return result(value)
    d_label, t_label, label = "Divide by the cap", "tanh", "Capped logit"
    steps = (
        Step(d_label, "x / cap", f"{x:g} / {cap:g}", u),
        Step(t_label, "tanh(x / cap)", f"tanh({u:.6g})", t),
        Step(label, "cap x tanh(x / cap)", f"{cap:g} x {t:.6g}", value),
    )
    wrong = [
        TANH_WITHOUT_SCALE.gives(float(np.tanh(x)), d_label),
        FORGOT_OUTER_CAP.gives(t, label),
        FORGOT_INNER_SCALE.gives(cap * float(np.tanh(x)), d_label),
        HARD_CLIP.gives(float(np.clip(x, -cap, cap)), label),
    ]
    return result(value, steps, wrong)


FILLS = {"finfo_min": None, "neg_inf": -np.inf, "neg_1e9": -1e9}
_FILL_TEXT = {"finfo_min": "finfo({dtype}).min", "neg_inf": "-inf", "neg_1e9": "{dtype}(-1e9)"}
DTYPES: dict[str, type[np.floating]] = {"fp16": np.float16, "fp32": np.float32}


def _masked_softmax(s: Matrix, masked: npt.NDArray[np.bool_], fill: str, dtype: str) -> Matrix:
    """What masked_fill then a max-subtracted softmax give in `dtype`, NaN included (no special case)."""
    dt = DTYPES[dtype]
    f = np.finfo(dt).min if FILLS[fill] is None else FILLS[fill]
    with np.errstate(over="ignore", invalid="ignore"):
        x = np.where(masked, np.asarray(f).astype(dt), s.astype(dt)).astype(dt)  # (S,) in dtype
        e = np.exp(x - x.max())  # (S,): -inf - -inf = NaN for a row of -inf
        w = e / e.sum(dtype=dt)  # (S,)
    return np.asarray(w, dtype=np.float64)  # (S,)


IGNORED_MASK = Mistake(
    "ignored-mask",
    "You left the masked keys in the softmax",
    "Masked keys get the mask constant before the softmax, which drives their weight to 0.",
)
ZERO_FILL = Mistake(
    "zero-fill",
    "You set the masked scores to 0",
    "A score of 0 still gets weight exp(0 - max); masking needs a large negative number.",
)
EXPECTED_ZERO = Mistake(
    "expected-zero",
    "You expected every weight of a fully masked row to be 0",
    "With a finite fill every entry equals the same constant, so the shifted row is all 0 and "
    "the softmax is uniform: 1 / S each.",
)


@register(
    summary="One softmax weight after the last n_masked keys get a mask constant, in fp16 or fp32.",
    unit="",
    misconceptions=(IGNORED_MASK, ZERO_FILL, EXPECTED_ZERO),
)
def masked_softmax_weight(
    scores: Annotated[Matrix, Param("a (1, S) row of scores")],
    n_masked: Annotated[int, Param("how many keys at the end of the row are masked (0 to S)")],
    col: Col,
    fill: Annotated[
        Literal["finfo_min", "neg_inf", "neg_1e9"], Param("mask constant: finfo_min, neg_inf or neg_1e9")
    ] = "finfo_min",
    dtype: Annotated[Literal["fp16", "fp32"], Param("fp16 or fp32")] = "fp16",
    *,
    worked: bool = True,
) -> Derivation:
    """A finite fill keeps a fully masked row uniform; -inf (and -1e9 cast to fp16 is -inf) gives NaN."""
    if fill not in FILLS:
        raise ValueError(f"fill={fill!r} must be one of {', '.join(FILLS)}")
    if dtype not in DTYPES:
        raise ValueError(f"dtype={dtype!r} must be one of {', '.join(DTYPES)}")
    s = np.asarray(scores, dtype=np.float64)  # (1, S)
    if s.ndim != 2 or s.shape[0] != 1 or s.shape[1] < 1:
        raise ValueError(f"scores must be one row (1, S), got shape {s.shape}")
    row = score_row(s, 0, col)  # (S,)
    n = row.size
    if not 0 <= n_masked <= n:
        raise ValueError(f"n_masked={n_masked} must lie between 0 and S={n}")
    masked = np.arange(n) >= n - n_masked  # (S,): the last n_masked keys
    w = _masked_softmax(row, masked, fill, dtype)  # (S,)
    value = float(w[col])
    if not worked:
        return result(value)
    dt = DTYPES[dtype]
    with np.errstate(over="ignore"):
        fill_value = float(np.finfo(dt).min if FILLS[fill] is None else np.asarray(FILLS[fill]).astype(dt))
    f_label, label = f"Mask constant in {dtype}", "Weight"
    filled = np.where(masked, fill_value, row.astype(dt).astype(np.float64))  # (S,)
    steps = (
        Step(f_label, f"{fill} cast to {dtype}", _FILL_TEXT[fill].format(dtype=dtype), fill_value),
        Step(
            "Row after masked_fill",
            f"last {n_masked} scores -> {fill_value:g}",
            vec_text(filled),
            float(filled[col]),
        ),
        Step(label, f"softmax in {dtype}, max subtracted", vec_text(w), value),
    )
    plain = np.exp(row - row.max())  # (S,)
    zero = np.where(masked, 0.0, row)  # (S,)
    ez = np.exp(zero - zero.max())  # (S,)
    wrong = [
        IGNORED_MASK.gives(float(plain[col] / plain.sum()), "Row after masked_fill"),
        ZERO_FILL.gives(float(ez[col] / ez.sum()), f_label),
    ]
    if n_masked == n:
        wrong.append(EXPECTED_ZERO.gives(0.0, label))
    return result(value, steps, wrong)
