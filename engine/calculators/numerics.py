"""Provides the floating-point numbers behind attention's numerics: format limits, the score at which
exp overflows, the max-subtracted softmax, logit soft-capping and what a mask constant does in fp16.

A binary float with e exponent bits and m stored mantissa bits (IEEE 754 style, the all-ones exponent kept
for inf/NaN) has bias 2^(e-1) - 1, largest finite value (2 - 2^-m) x 2^bias, smallest normal 2^(1 - bias)
and epsilon (gap above 1) 2^-m. NumPy does the arithmetic; its float16 and float32 are the real formats.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Literal

import numpy as np
import numpy.typing as npt

from engine.calculator import Param, register, result
from engine.calculators.common import Row
from engine.derivation import Derivation, Misconception, Mistake, Step

Matrix = npt.NDArray[np.float64]


Col = Annotated[int, Param("key index (0-based)")]
Fmt = Annotated[
    Literal["fp32", "fp16", "bf16", "fp8-e5m2"], Param("float format: fp32, fp16, bf16 or fp8-e5m2")
]


@dataclass(frozen=True)
class FloatFormat:
    """Bit layout of one float format: sign + `exponent` + `mantissa` (stored) bits."""

    name: str
    exponent: int
    mantissa: int

    @property
    def bits(self) -> int:
        return int(1 + self.exponent + self.mantissa)

    @property
    def bias(self) -> int:
        return int(2 ** (self.exponent - 1) - 1)

    def max(self) -> float:
        """(2 - 2^-m) x 2^bias: all mantissa bits set, largest finite exponent."""
        return float(np.ldexp(2.0 - np.ldexp(1.0, -self.mantissa), self.bias))

    def smallest_normal(self) -> float:
        return float(np.ldexp(1.0, 1 - self.bias))

    def epsilon(self) -> float:
        return float(np.ldexp(1.0, -self.mantissa))


FORMATS: dict[str, FloatFormat] = {
    f.name: f
    for f in (
        FloatFormat("fp32", 8, 23),
        FloatFormat("fp16", 5, 10),
        FloatFormat("bf16", 8, 7),
        FloatFormat("fp8-e5m2", 5, 2),
    )
}
"""fp8-e5m2 follows the IEEE layout (OCP 8-bit floating point spec); e4m3 does not, so it is left out."""
LIMITS = ("max", "smallest_normal", "epsilon")


def _format(fmt: str) -> FloatFormat:
    if fmt not in FORMATS:
        raise ValueError(f"fmt={fmt!r} must be one of {', '.join(FORMATS)}")
    return FORMATS[fmt]


def _limit(f: FloatFormat, which: str) -> float:
    return {"max": f.max, "smallest_normal": f.smallest_normal, "epsilon": f.epsilon}[which]()


FP32_FOR_FP16 = Mistake("fp32-for-fp16", "You used fp32's value for fp16")
FP16_FOR_BF16 = Mistake("fp16-for-bf16", "You used fp16's value for bf16")


def _swapped(fmt: str) -> tuple[Mistake, str] | None:
    """The format people confuse this one with: (the mistake, the other format), or None."""
    if fmt == "fp16":
        return FP32_FOR_FP16, "fp32"
    if fmt == "bf16":
        return FP16_FOR_BF16, "fp16"
    return None


INT_RANGE = Mistake(
    "int-range",
    "",
    "A float spends its bits on a sign, an exponent and a mantissa; its range comes from the exponent, not "
    "from counting bit patterns.",
)
FORGOT_MANTISSA = Mistake(
    "forgot-mantissa",
    "You gave 2^bias, forgetting the mantissa",
    "The largest number has every mantissa bit set: 1.11...1 (binary) x 2^bias, almost 2^(bias+1).",
)
SUBNORMAL_FOR_NORMAL = Mistake(
    "subnormal-for-normal",
    "You gave the smallest subnormal",
    "Subnormals go below the smallest normal, down to 2^(1 - bias - m), at reduced precision.",
)
COUNTED_IMPLICIT_BIT = Mistake(
    "counted-implicit-bit", "You counted the implicit leading bit as a fraction bit"
)


@register(
    summary="Largest finite value, smallest normal or epsilon of fp32, fp16, bf16 or fp8-e5m2.",
    unit="",
    misconceptions=(
        FP32_FOR_FP16,
        FP16_FOR_BF16,
        INT_RANGE,
        FORGOT_MANTISSA,
        SUBNORMAL_FOR_NORMAL,
        COUNTED_IMPLICIT_BIT,
    ),
)
def float_limit(
    fmt: Fmt,
    which: Annotated[
        Literal["max", "smallest_normal", "epsilon"],
        Param("max, smallest_normal or epsilon (gap between 1 and the next number)"),
    ],
    *,
    worked: bool = True,
) -> Derivation:
    """Read off the bit layout: the exponent bits fix the range, the mantissa bits the precision."""
    f = _format(fmt)
    if which not in LIMITS:
        raise ValueError(f"which={which!r} must be one of {', '.join(LIMITS)}")
    value = _limit(f, which)
    if not worked:
        return result(value)
    e, m, bias = f.exponent, f.mantissa, f.bias
    b_label = "Exponent bias"
    steps = [Step(b_label, "2^(exponent bits - 1) - 1", f"2^({e} - 1) - 1", bias)]
    label = {"max": "Largest finite value", "smallest_normal": "Smallest normal", "epsilon": "Epsilon"}[which]
    if which == "max":
        steps.append(Step(label, "(2 - 2^-m) x 2^bias", f"(2 - 2^-{m}) x 2^{bias}", value))
    elif which == "smallest_normal":
        steps.append(Step(label, "2^(1 - bias)", f"2^(1 - {bias})", value))
    else:
        steps.append(Step(label, "2^-m (m stored mantissa bits)", f"2^-{m}", value))
    wrong = []
    swap = _swapped(fmt)
    if swap is not None:
        mistake, other = swap
        wrong.append(
            mistake.gives(
                _limit(FORMATS[other], which),
                label,
                explanation=f"{fmt} has {e} exponent and {m} mantissa bits; {other} has "
                f"{FORMATS[other].exponent} and {FORMATS[other].mantissa}.",
            )
        )
    if which == "max":
        wrong += [
            INT_RANGE.gives(
                float(2**f.bits - 1),
                label,
                label=f"You gave the largest unsigned {f.bits}-bit integer",
            ),
            FORGOT_MANTISSA.gives(float(2**bias), label),
        ]
    elif which == "smallest_normal":
        wrong.append(SUBNORMAL_FOR_NORMAL.gives(float(np.ldexp(1.0, 1 - bias - m)), label))
    else:
        wrong.append(
            COUNTED_IMPLICIT_BIT.gives(
                float(np.ldexp(1.0, -m - 1)),
                label,
                explanation=f"{fmt} has {m + 1} bits of precision but only {m} are stored after the point: "
                f"epsilon is 2^-{m}.",
            )
        )
    return result(value, tuple(steps), wrong)


USED_LOG10 = Mistake(
    "used-log10",
    "You took log10 of the maximum",
    "exp is base e, so the limit is the natural log ln(max), not log10(max).",
)
FORGOT_SCALE = Mistake(
    "forgot-scale",
    "You gave the limit on the scaled score, not on q.k",
    "The softmax sees q.k / sqrt(d_k), so q.k itself may be sqrt(d_k) times larger.",
)
SCALE_BY_D = Mistake(
    "scale-by-d", "You multiplied by d_k instead of sqrt(d_k)", "Scores are divided by sqrt(d_k), not by d_k."
)


@register(
    summary="Largest raw dot product q.k whose exp(q.k / sqrt(d_k)) is still finite: sqrt(d_k) x ln(max).",
    unit="",
    misconceptions=(USED_LOG10, FP32_FOR_FP16, FP16_FOR_BF16, FORGOT_SCALE, SCALE_BY_D),
)
def exp_overflow_score(
    fmt: Fmt,
    d_k: Annotated[int, Param("key width; scores are q.k / sqrt(d_k) (1: the score itself)", gt=0)] = 1,
    *,
    worked: bool = True,
) -> Derivation:
    """exp(s) overflows once s > ln(max); a naive softmax (no max subtraction) then gives inf / inf = NaN."""
    f = _format(fmt)
    ln_max = float(np.log(np.float64(f.max())))
    root = float(np.sqrt(d_k))
    value = root * ln_max
    if not worked:
        return result(value)
    m_label, ln_label, label = "Largest finite value", "Largest safe score", "Largest safe q.k"
    steps = [
        Step(m_label, "(2 - 2^-m) x 2^bias", f"(2 - 2^-{f.mantissa}) x 2^{f.bias}", f.max()),
        Step(ln_label, "s_max = ln(max)", f"ln({f.max():.6g})", ln_max),
    ]
    if d_k > 1:
        steps.append(Step(label, "q.k = sqrt(d_k) x s_max", f"sqrt({d_k}) x {ln_max:.6g}", value))
    last = steps[-1].label
    notes: tuple[str, ...] = ()
    if fmt in ("fp16", "fp32"):
        dt = np.float16 if fmt == "fp16" else np.float32
        with np.errstate(over="ignore"):
            below = dt(np.exp(dt(ln_max * 0.999)))  # scalar, just below the limit
            above = dt(np.exp(dt(ln_max * 1.01)))  # scalar, just above it
        notes = (
            f"In NumPy {fmt}: exp({ln_max * 0.999:.4g}) = {below:.6g}, exp({ln_max * 1.01:.4g}) = {above}.",
        )
    wrong = [USED_LOG10.gives(root * float(np.log10(f.max())), ln_label)]
    swap = _swapped(fmt)
    if swap is not None:
        mistake, other = swap
        wrong.append(
            mistake.gives(
                root * float(np.log(FORMATS[other].max())),
                m_label,
                explanation=f"{fmt}'s largest value is {f.max():.6g}; "
                f"{other}'s is {FORMATS[other].max():.6g}.",
            )
        )
    if d_k > 1:
        wrong += [
            FORGOT_SCALE.gives(ln_max, last),
            SCALE_BY_D.gives(d_k * ln_max, last),
        ]
    return result(value, tuple(steps), wrong, notes=notes)


SOFTMAX_WHICH = ("shifted_exp", "weight")


def score_row(scores: Matrix, row: int, col: int) -> Matrix:
    s = np.asarray(scores, dtype=np.float64)  # (T, S)
    if s.ndim != 2 or s.size == 0:
        raise ValueError(f"scores must be a non-empty 2-D matrix, got shape {s.shape}")
    if not (0 <= row < s.shape[0] and 0 <= col < s.shape[1]):
        raise ValueError(f"entry (row={row}, col={col}) is outside scores of shape {s.shape}")
    out: Matrix = s[row]  # (S,)
    return out


def vec_text(v: Matrix) -> str:
    return "[" + ", ".join([f"{x:.4g}" for x in v.tolist()]) + "]"  # (n,) as plain floats


FORGOT_MAX_SUBTRACTION = Mistake(
    "forgot-max-subtraction",
    "You exponentiated the raw score",
    "The question asks for exp(s_j - max): subtracting the max first keeps every exponent <= 0.",
)
SUBTRACTED_MIN = Mistake(
    "subtracted-min",
    "You subtracted the row minimum",
    "Subtracting the minimum makes every exponent >= 0, which is exactly what can overflow.",
)
FORGOT_EXP = Mistake(
    "forgot-exp",
    "You gave the shifted score, not its exp",
    "After the shift, take exp: the value lies in (0, 1].",
)
UNNORMALISED = Mistake(
    "unnormalised",
    "You gave exp(s_j - max) without dividing by the row sum",
    "The weights are normalised: divide by the sum of the row's exps.",
)
DROPPED_MAX_TERM = Mistake(
    "dropped-max-term",
    "You left the max entry's exp(0) = 1 out of the sum",
    "The maximum stays in the row: it contributes exp(0) = 1 to the denominator.",
)


@register(
    summary="exp(s_j - max) or the softmax weight of one score in a row, computed with the max subtracted.",
    unit="",
    misconceptions=(
        FORGOT_MAX_SUBTRACTION,
        SUBTRACTED_MIN,
        FORGOT_EXP,
        UNNORMALISED,
        DROPPED_MAX_TERM,
    ),
)
def stable_softmax_entry(
    scores: Annotated[Matrix, Param("attention scores, one row per query (T, S)")],
    row: Row,
    col: Col,
    which: Annotated[
        Literal["shifted_exp", "weight"], Param("shifted_exp (exp(s_j - row max)) or weight")
    ] = "weight",
    *,
    worked: bool = True,
) -> Derivation:
    """softmax(s) = softmax(s - c) for any c; c = max makes every exponent <= 0, so exp cannot overflow."""
    if which not in SOFTMAX_WHICH:
        raise ValueError(f"which={which!r} must be one of {', '.join(SOFTMAX_WHICH)}")
    s = score_row(scores, row, col)  # (S,)
    top = float(s.max())  # scalar
    shifted = s - top  # (S,): every entry <= 0
    e = np.exp(shifted)  # (S,): every entry in (0, 1]
    total = float(e.sum())  # scalar, >= 1 (the max contributes exp(0) = 1)
    w = e / total  # (S,)
    value = float(e[col] if which == "shifted_exp" else w[col])
    if not worked:
        return result(value)
    sh_label, e_label, sum_label, w_label = "Subtract the row max", "Exponentiate", "Sum of the row", "Weight"
    steps = [
        Step("Row max", f"m = max_j s_{row}j", vec_text(s), top),
        Step(
            sh_label, f"s_{row}j - m", f"{vec_text(s)} - {top:.4g} = {vec_text(shifted)}", float(shifted[col])
        ),
        Step(e_label, f"exp(s_{row}j - m)", vec_text(e), float(e[col])),
    ]
    if which == "weight":
        steps += [
            Step(sum_label, "sum_j exp(s_j - m)", " + ".join([f"{x:.4g}" for x in e.tolist()]), total),
            Step(w_label, f"exp(s_{row}{col} - m) / sum", f"{e[col]:.4g} / {total:.4g}", value),
        ]
    with np.errstate(over="ignore", invalid="ignore"):
        naive16 = np.exp(s.astype(np.float16))  # (S,) in fp16: overflows to inf above ~11.09
        naive_w16 = naive16 / naive16.sum()  # (S,): inf / inf = NaN when anything overflowed
    notes = (
        f"Without the shift, in fp16: exp(s) = {vec_text(naive16.astype(np.float64))}, "
        f"weights = {vec_text(naive_w16.astype(np.float64))}.",
    )
    wrong: list[Misconception] = []
    if which == "shifted_exp":
        lo = float(s.min())  # scalar
        wrong += [
            FORGOT_MAX_SUBTRACTION.gives(float(np.exp(s[col])), sh_label),
            SUBTRACTED_MIN.gives(float(np.exp(s[col] - lo)), sh_label),
            FORGOT_EXP.gives(float(shifted[col]), e_label),
        ]
    else:
        rest = total - 1.0
        wrong.append(UNNORMALISED.gives(float(e[col]), w_label))
        if rest > 0:
            wrong.append(DROPPED_MAX_TERM.gives(float(e[col] / rest), sum_label))
    return result(value, tuple(steps), wrong, notes=notes)
