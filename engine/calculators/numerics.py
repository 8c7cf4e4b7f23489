"""Provides the floating-point numbers behind attention's numerics: format limits, the score at which
exp overflows, the max-subtracted softmax, logit soft-capping and what a mask constant does in fp16.

A binary float with e exponent bits and m stored mantissa bits (IEEE 754 style, the all-ones exponent kept
for inf/NaN) has bias 2^(e-1) - 1, largest finite value (2 - 2^-m) x 2^bias, smallest normal 2^(1 - bias)
and epsilon (gap above 1) 2^-m. NumPy does the arithmetic; its float16 and float32 are the real formats.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from engine.calculator import Arg, register
from engine.calculators.common import distinct
from engine.calculators.serving import require_positive
from engine.derivation import Derivation, Misconception, Step

Matrix = npt.NDArray[np.float64]


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
_FMT = Arg("fmt", "str", "float format: fp32, fp16, bf16 or fp8-e5m2", choices=tuple(FORMATS))


def _format(calc: str, fmt: str) -> FloatFormat:
    if fmt not in FORMATS:
        raise ValueError(f"{calc}: fmt={fmt!r} must be one of {', '.join(FORMATS)}")
    return FORMATS[fmt]


def _limit(f: FloatFormat, which: str) -> float:
    return {"max": f.max, "smallest_normal": f.smallest_normal, "epsilon": f.epsilon}[which]()


def _swapped(fmt: str) -> tuple[str, str, str] | None:
    """The format people confuse this one with: (id, label, other format), or None."""
    if fmt == "fp16":
        return "fp32-for-fp16", "You used fp32's value for fp16", "fp32"
    if fmt == "bf16":
        return "fp16-for-bf16", "You used fp16's value for bf16", "fp16"
    return None


@register(
    "float_limit",
    summary="Largest finite value, smallest normal or epsilon of fp32, fp16, bf16 or fp8-e5m2.",
    unit="",
    args=(
        _FMT,
        Arg(
            "which",
            "str",
            "max, smallest_normal or epsilon (gap between 1 and the next number)",
            choices=LIMITS,
        ),
    ),
    misconceptions=(
        "fp32-for-fp16",
        "fp16-for-bf16",
        "int-range",
        "forgot-mantissa",
        "subnormal-for-normal",
        "counted-implicit-bit",
    ),
)
def float_limit(fmt: str, which: str, *, worked: bool = True) -> Derivation:
    """Read off the bit layout: the exponent bits fix the range, the mantissa bits the precision."""
    calc = "float_limit"
    f = _format(calc, fmt)
    if which not in LIMITS:
        raise ValueError(f"{calc}: which={which!r} must be one of {', '.join(LIMITS)}")
    value = _limit(f, which)
    if not worked:
        return Derivation(calc, value, "", ())
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
        wid, text, other = swap
        wrong.append(
            Misconception(
                wid,
                text,
                f"{fmt} has {e} exponent and {m} mantissa bits; {other} has "
                f"{FORMATS[other].exponent} and {FORMATS[other].mantissa}.",
                _limit(FORMATS[other], which),
                label,
            )
        )
    if which == "max":
        wrong += [
            Misconception(
                "int-range",
                f"You gave the largest unsigned {f.bits}-bit integer",
                "A float spends its bits on a sign, an exponent and a mantissa; its range comes from the "
                "exponent, not from counting bit patterns.",
                float(2**f.bits - 1),
                label,
            ),
            Misconception(
                "forgot-mantissa",
                "You gave 2^bias, forgetting the mantissa",
                "The largest number has every mantissa bit set: 1.11...1 (binary) x 2^bias, almost "
                "2^(bias+1).",
                float(2**bias),
                label,
            ),
        ]
    elif which == "smallest_normal":
        wrong.append(
            Misconception(
                "subnormal-for-normal",
                "You gave the smallest subnormal",
                "Subnormals go below the smallest normal, down to 2^(1 - bias - m), at reduced precision.",
                float(np.ldexp(1.0, 1 - bias - m)),
                label,
            )
        )
    else:
        wrong.append(
            Misconception(
                "counted-implicit-bit",
                "You counted the implicit leading bit as a fraction bit",
                f"{fmt} has {m + 1} bits of precision but only {m} are stored after the point: "
                f"epsilon is 2^-{m}.",
                float(np.ldexp(1.0, -m - 1)),
                label,
            )
        )
    return Derivation(calc, value, "", tuple(steps), distinct(value, wrong))


@register(
    "exp_overflow_score",
    summary="Largest raw dot product q.k whose exp(q.k / sqrt(d_k)) is still finite: sqrt(d_k) x ln(max).",
    unit="",
    args=(
        _FMT,
        Arg(
            "d_k",
            "int",
            "key width; scores are q.k / sqrt(d_k) (1: the score itself)",
            default=1,
            required=False,
        ),
    ),
    misconceptions=("used-log10", "fp32-for-fp16", "fp16-for-bf16", "forgot-scale", "scale-by-d"),
)
def exp_overflow_score(fmt: str, d_k: int = 1, *, worked: bool = True) -> Derivation:
    """exp(s) overflows once s > ln(max); a naive softmax (no max subtraction) then gives inf / inf = NaN."""
    calc = "exp_overflow_score"
    f = _format(calc, fmt)
    require_positive(calc, d_k=d_k)
    ln_max = float(np.log(np.float64(f.max())))
    root = float(np.sqrt(d_k))
    value = root * ln_max
    if not worked:
        return Derivation(calc, value, "", ())
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
    wrong = [
        Misconception(
            "used-log10",
            "You took log10 of the maximum",
            "exp is base e, so the limit is the natural log ln(max), not log10(max).",
            root * float(np.log10(f.max())),
            ln_label,
        )
    ]
    swap = _swapped(fmt)
    if swap is not None:
        wid, text, other = swap
        wrong.append(
            Misconception(
                wid,
                text,
                f"{fmt}'s largest value is {f.max():.6g}; {other}'s is {FORMATS[other].max():.6g}.",
                root * float(np.log(FORMATS[other].max())),
                m_label,
            )
        )
    if d_k > 1:
        wrong += [
            Misconception(
                "forgot-scale",
                "You gave the limit on the scaled score, not on q.k",
                "The softmax sees q.k / sqrt(d_k), so q.k itself may be sqrt(d_k) times larger.",
                ln_max,
                last,
            ),
            Misconception(
                "scale-by-d",
                "You multiplied by d_k instead of sqrt(d_k)",
                "Scores are divided by sqrt(d_k), not by d_k.",
                d_k * ln_max,
                last,
            ),
        ]
    return Derivation(calc, value, "", tuple(steps), distinct(value, wrong), notes=notes)


SOFTMAX_WHICH = ("shifted_exp", "weight")


def _row(calc: str, scores: Matrix, row: int, col: int) -> Matrix:
    s = np.asarray(scores, dtype=np.float64)  # (T, S)
    if s.ndim != 2 or s.size == 0:
        raise ValueError(f"{calc}: scores must be a non-empty 2-D matrix, got shape {s.shape}")
    if not (0 <= row < s.shape[0] and 0 <= col < s.shape[1]):
        raise ValueError(f"{calc}: entry (row={row}, col={col}) is outside scores of shape {s.shape}")
    out: Matrix = s[row]  # (S,)
    return out


def _vec(v: Matrix) -> str:
    return "[" + ", ".join([f"{x:.4g}" for x in v.tolist()]) + "]"  # (n,) as plain floats


@register(
    "stable_softmax_entry",
    summary="exp(s_j - max) or the softmax weight of one score in a row, computed with the max subtracted.",
    unit="",
    args=(
        Arg("scores", "matrix", "attention scores, one row per query (T, S)"),
        Arg("row", "int", "query index (0-based)"),
        Arg("col", "int", "key index (0-based)"),
        Arg(
            "which",
            "str",
            "shifted_exp (exp(s_j - row max)) or weight",
            default="weight",
            required=False,
            choices=SOFTMAX_WHICH,
        ),
    ),
    misconceptions=(
        "forgot-max-subtraction",
        "subtracted-min",
        "forgot-exp",
        "unnormalised",
        "dropped-max-term",
    ),
)
def stable_softmax_entry(
    scores: Matrix, row: int, col: int, which: str = "weight", *, worked: bool = True
) -> Derivation:
    """softmax(s) = softmax(s - c) for any c; c = max makes every exponent <= 0, so exp cannot overflow."""
    calc = "stable_softmax_entry"
    if which not in SOFTMAX_WHICH:
        raise ValueError(f"{calc}: which={which!r} must be one of {', '.join(SOFTMAX_WHICH)}")
    s = _row(calc, scores, row, col)  # (S,)
    top = float(s.max())  # scalar
    shifted = s - top  # (S,): every entry <= 0
    e = np.exp(shifted)  # (S,): every entry in (0, 1]
    total = float(e.sum())  # scalar, >= 1 (the max contributes exp(0) = 1)
    w = e / total  # (S,)
    value = float(e[col] if which == "shifted_exp" else w[col])
    if not worked:
        return Derivation(calc, value, "", ())
    sh_label, e_label, sum_label, w_label = "Subtract the row max", "Exponentiate", "Sum of the row", "Weight"
    steps = [
        Step("Row max", f"m = max_j s_{row}j", _vec(s), top),
        Step(sh_label, f"s_{row}j - m", f"{_vec(s)} - {top:.4g} = {_vec(shifted)}", float(shifted[col])),
        Step(e_label, f"exp(s_{row}j - m)", _vec(e), float(e[col])),
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
        f"Without the shift, in fp16: exp(s) = {_vec(naive16.astype(np.float64))}, "
        f"weights = {_vec(naive_w16.astype(np.float64))}.",
    )
    wrong: list[Misconception] = []
    if which == "shifted_exp":
        lo = float(s.min())  # scalar
        wrong += [
            Misconception(
                "forgot-max-subtraction",
                "You exponentiated the raw score",
                "The question asks for exp(s_j - max): subtracting the max first keeps every exponent <= 0.",
                float(np.exp(s[col])),
                sh_label,
            ),
            Misconception(
                "subtracted-min",
                "You subtracted the row minimum",
                "Subtracting the minimum makes every exponent >= 0, which is exactly what can overflow.",
                float(np.exp(s[col] - lo)),
                sh_label,
            ),
            Misconception(
                "forgot-exp",
                "You gave the shifted score, not its exp",
                "After the shift, take exp: the value lies in (0, 1].",
                float(shifted[col]),
                e_label,
            ),
        ]
    else:
        rest = total - 1.0
        wrong.append(
            Misconception(
                "unnormalised",
                "You gave exp(s_j - max) without dividing by the row sum",
                "The weights are normalised: divide by the sum of the row's exps.",
                float(e[col]),
                w_label,
            )
        )
        if rest > 0:
            wrong.append(
                Misconception(
                    "dropped-max-term",
                    "You left the max entry's exp(0) = 1 out of the sum",
                    "The maximum stays in the row: it contributes exp(0) = 1 to the denominator.",
                    float(e[col] / rest),
                    sum_label,
                )
            )
    return Derivation(calc, value, "", tuple(steps), distinct(value, wrong), notes=notes)


@register(
    "soft_cap",
    summary="A soft-capped logit: cap x tanh(x / cap), which stays inside (-cap, cap).",
    unit="",
    args=(
        Arg("x", "float", "the logit before capping"),
        Arg("cap", "float", "the soft cap (Gemma 2: 50 or 30)"),
    ),
    misconceptions=("tanh-without-scale", "forgot-outer-cap", "forgot-inner-scale", "hard-clip"),
)
def soft_cap(x: float, cap: float, *, worked: bool = True) -> Derivation:
    """Near 0 the cap changes little (tanh(u) ~ u); large logits are squashed smoothly towards +-cap."""
    calc = "soft_cap"
    require_positive(calc, cap=cap)
    u = float(np.float64(x) / np.float64(cap))  # scalar
    t = float(np.tanh(u))  # scalar
    value = cap * t
    if not worked:
        return Derivation(calc, value, "", ())
    d_label, t_label, label = "Divide by the cap", "tanh", "Capped logit"
    steps = (
        Step(d_label, "x / cap", f"{x:g} / {cap:g}", u),
        Step(t_label, "tanh(x / cap)", f"tanh({u:.6g})", t),
        Step(label, "cap x tanh(x / cap)", f"{cap:g} x {t:.6g}", value),
    )
    wrong = [
        Misconception(
            "tanh-without-scale",
            "You took tanh of the raw logit",
            "Divide by the cap before tanh and multiply by it after; plain tanh squashes every logit "
            "into (-1, 1).",
            float(np.tanh(x)),
            d_label,
        ),
        Misconception(
            "forgot-outer-cap",
            "You did not multiply by the cap after tanh",
            "tanh(x / cap) lies in (-1, 1); multiplying by the cap puts the logit back on its scale.",
            t,
            label,
        ),
        Misconception(
            "forgot-inner-scale",
            "You did not divide by the cap inside tanh",
            "cap x tanh(x) saturates at about |x| = 3 whatever the cap; dividing first keeps small logits "
            "almost unchanged.",
            cap * float(np.tanh(x)),
            d_label,
        ),
        Misconception(
            "hard-clip",
            "You clipped the logit to [-cap, cap]",
            "Soft-capping is smooth: every logit is changed a little, and none reaches the cap exactly.",
            float(np.clip(x, -cap, cap)),
            label,
        ),
    ]
    return Derivation(calc, value, "", steps, distinct(value, wrong))


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


@register(
    "masked_softmax_weight",
    summary="One softmax weight after the last n_masked keys get a mask constant, in fp16 or fp32.",
    unit="",
    args=(
        Arg("scores", "matrix", "a (1, S) row of scores"),
        Arg("n_masked", "int", "how many keys at the end of the row are masked (0 to S)"),
        Arg("col", "int", "key index (0-based)"),
        Arg(
            "fill",
            "str",
            "mask constant: finfo_min, neg_inf or neg_1e9",
            default="finfo_min",
            required=False,
            choices=tuple(FILLS),
        ),
        Arg("dtype", "str", "fp16 or fp32", default="fp16", required=False, choices=tuple(DTYPES)),
    ),
    misconceptions=("ignored-mask", "zero-fill", "expected-zero"),
)
def masked_softmax_weight(
    scores: Matrix,
    n_masked: int,
    col: int,
    fill: str = "finfo_min",
    dtype: str = "fp16",
    *,
    worked: bool = True,
) -> Derivation:
    """A finite fill keeps a fully masked row uniform; -inf (and -1e9 cast to fp16 is -inf) gives NaN."""
    calc = "masked_softmax_weight"
    if fill not in FILLS:
        raise ValueError(f"{calc}: fill={fill!r} must be one of {', '.join(FILLS)}")
    if dtype not in DTYPES:
        raise ValueError(f"{calc}: dtype={dtype!r} must be one of {', '.join(DTYPES)}")
    s = np.asarray(scores, dtype=np.float64)  # (1, S)
    if s.ndim != 2 or s.shape[0] != 1 or s.shape[1] < 1:
        raise ValueError(f"{calc}: scores must be one row (1, S), got shape {s.shape}")
    row = _row(calc, s, 0, col)  # (S,)
    n = row.size
    if not 0 <= n_masked <= n:
        raise ValueError(f"{calc}: n_masked={n_masked} must lie between 0 and S={n}")
    masked = np.arange(n) >= n - n_masked  # (S,): the last n_masked keys
    w = _masked_softmax(row, masked, fill, dtype)  # (S,)
    value = float(w[col])
    if not worked:
        return Derivation(calc, value, "", ())
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
            _vec(filled),
            float(filled[col]),
        ),
        Step(label, f"softmax in {dtype}, max subtracted", _vec(w), value),
    )
    plain = np.exp(row - row.max())  # (S,)
    zero = np.where(masked, 0.0, row)  # (S,)
    ez = np.exp(zero - zero.max())  # (S,)
    wrong = [
        Misconception(
            "ignored-mask",
            "You left the masked keys in the softmax",
            "Masked keys get the mask constant before the softmax, which drives their weight to 0.",
            float(plain[col] / plain.sum()),
            "Row after masked_fill",
        ),
        Misconception(
            "zero-fill",
            "You set the masked scores to 0",
            "A score of 0 still gets weight exp(0 - max); masking needs a large negative number.",
            float(ez[col] / ez.sum()),
            f_label,
        ),
    ]
    if n_masked == n:
        wrong.append(
            Misconception(
                "expected-zero",
                "You expected every weight of a fully masked row to be 0",
                "With a finite fill every entry equals the same constant, so the shifted row is all 0 and "
                "the softmax is uniform: 1 / S each.",
                0.0,
                label,
            )
        )
    return Derivation(calc, value, "", steps, distinct(value, wrong))
