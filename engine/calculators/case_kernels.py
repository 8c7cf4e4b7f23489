"""Provides the kernel steps case studies chain: split-KV (FlashDecoding) combine and Llama-3.1 rope
scaling.

Split-KV (FlashDecoding) combine: split i returns its max m_i, its sum l_i = sum exp(s - m_i) and its
normalised output o_i; with M = max m_i, the exact result is sum l_i e^(m_i - M) o_i / sum l_i e^(m_i - M).
Llama-3.1 rope scaling (transformers' _compute_llama3_parameters): wavelengths below original /
high_freq_factor keep their frequency, above original / low_freq_factor are divided by `factor`, and in
between the divisor is interpolated with smooth = (original / wavelength - low) / (high - low).
"""

from __future__ import annotations

import math

from engine.calculator import Arg, register
from engine.calculators.case_common import formula_result, num, require_positive_numbers
from engine.derivation import Derivation

_M = tuple(Arg(f"m{i}", "float", f"split {i}'s running max") for i in (1, 2, 3))
_LS = tuple(Arg(f"l{i}", "float", f"split {i}'s sum of exp(score - m{i})") for i in (1, 2, 3))
_OS = tuple(Arg(f"o{i}", "float", f"split {i}'s normalised output (one channel)") for i in (1, 2, 3))


@register(
    "ceil_div",
    summary="How many pieces of a size cover a length: ceil(total / piece).",
    unit="",
    args=(Arg("total", "int", "the length to cover"), Arg("piece", "int", "the size of one piece")),
    misconceptions=("floor-not-ceil", "not-rounded"),
)
def ceil_div(total: int, piece: int, *, worked: bool = True) -> Derivation:
    """A last, partial piece is still a piece."""
    calc = "ceil_div"
    require_positive_numbers(calc, total=total, piece=piece)
    value = -(-total // piece)
    return formula_result(
        calc,
        value,
        "",
        "Pieces",
        "ceil(total / piece)",
        f"ceil({total} / {piece})",
        [
            (
                "floor-not-ceil",
                "You rounded down",
                "The last partial piece still needs its own split.",
                total // piece,
            ),
            ("not-rounded", "You kept the fraction", "Pieces come whole.", total / piece),
        ],
        worked=worked,
    )


@register(
    "split_kv_max",
    summary="The combined running max of three splits: max(m1, m2, m3).",
    unit="",
    args=_M,
    misconceptions=("used-mean", "used-first"),
)
def split_kv_max(m1: float, m2: float, m3: float, *, worked: bool = True) -> Derivation:
    """Every split's sums are rescaled to the largest max, so nothing overflows."""
    calc = "split_kv_max"
    value = max(m1, m2, m3)
    return formula_result(
        calc,
        value,
        "",
        "Global max",
        "M = max(m1, m2, m3)",
        f"max({m1:g}, {m2:g}, {m3:g})",
        [
            (
                "used-mean",
                "You averaged the maxima",
                "The reference point is the largest max.",
                (m1 + m2 + m3) / 3,
            ),
            ("used-first", "You kept the first split's max", "Another split may hold a larger score.", m1),
        ],
        worked=worked,
    )


@register(
    "split_kv_rescale",
    summary="The factor that moves a split's sum onto the global max: exp(m_i - M).",
    unit="",
    args=(Arg("m_i", "float", "the split's max"), Arg("m_max", "float", "the global max M")),
    misconceptions=("sign-flipped", "forgot-exp"),
)
def split_kv_rescale(m_i: float, m_max: float, *, worked: bool = True) -> Derivation:
    """exp(s - m_i) x exp(m_i - M) = exp(s - M): the factor is at most 1."""
    calc = "split_kv_rescale"
    value = math.exp(m_i - m_max)
    return formula_result(
        calc,
        value,
        "",
        "Rescale factor",
        "exp(m_i - M)",
        f"exp({m_i:g} - {num(m_max)})",
        [
            (
                "sign-flipped",
                "You used exp(M - m_i)",
                "Moving to a larger max shrinks the sum: the factor is at most 1.",
                math.exp(m_max - m_i),
            ),
            ("forgot-exp", "You used the difference itself", "Maxima live in the exponent.", m_i - m_max),
        ],
        worked=worked,
    )


def _weights(m_max: float, ms: tuple[float, ...], ls: tuple[float, ...]) -> list[float]:
    return [li * math.exp(mi - m_max) for mi, li in zip(ms, ls, strict=True)]


@register(
    "split_kv_denominator",
    summary="The combined softmax denominator: sum of l_i exp(m_i - M).",
    unit="",
    args=(Arg("m_max", "float", "the global max M"), *_M, *_LS),
    misconceptions=("no-rescale", "sign-flipped"),
)
def split_kv_denominator(
    m_max: float, m1: float, m2: float, m3: float, l1: float, l2: float, l3: float, *, worked: bool = True
) -> Derivation:
    """Each split's sum was taken against its own max; on a common max they add."""
    calc = "split_kv_denominator"
    ms, ls = (m1, m2, m3), (l1, l2, l3)
    require_positive_numbers(calc, l1=l1, l2=l2, l3=l3)
    value = sum(_weights(m_max, ms, ls))
    return formula_result(
        calc,
        value,
        "",
        "Combined denominator",
        "L = sum l_i exp(m_i - M)",
        " + ".join(f"{li:g} exp({mi:g} - {num(m_max)})" for mi, li in zip(ms, ls, strict=True)),
        [
            (
                "no-rescale",
                "You added the sums as they came",
                "Each l_i was taken against its own max; rescale to M first.",
                l1 + l2 + l3,
            ),
            (
                "sign-flipped",
                "You rescaled with exp(M - m_i)",
                "The factor is at most 1.",
                sum(li * math.exp(m_max - mi) for mi, li in zip(ms, ls, strict=True)),
            ),
        ],
        worked=worked,
    )


@register(
    "split_kv_output",
    summary="The combined output: sum l_i exp(m_i - M) o_i / L.",
    unit="",
    args=(
        Arg("m_max", "float", "the global max M"),
        Arg("denominator", "float", "the combined L"),
        *_M,
        *_LS,
        *_OS,
    ),
    misconceptions=("plain-mean", "no-rescale", "unnormalised"),
)
def split_kv_output(
    m_max: float,
    denominator: float,
    m1: float,
    m2: float,
    m3: float,
    l1: float,
    l2: float,
    l3: float,
    o1: float,
    o2: float,
    o3: float,
    *,
    worked: bool = True,
) -> Derivation:
    """Each split's normalised output is weighted by its share of the total softmax mass."""
    calc = "split_kv_output"
    require_positive_numbers(calc, denominator=denominator, l1=l1, l2=l2, l3=l3)
    ms, ls, os_ = (m1, m2, m3), (l1, l2, l3), (o1, o2, o3)
    w = _weights(m_max, ms, ls)
    numerator = sum(wi * oi for wi, oi in zip(w, os_, strict=True))
    value = numerator / denominator
    return formula_result(
        calc,
        value,
        "",
        "Combined output",
        "O = sum l_i exp(m_i - M) o_i / L",
        f"({' + '.join(f'{wi:.9g} x {oi:g}' for wi, oi in zip(w, os_, strict=True))}) / {denominator:.9g}",
        [
            (
                "plain-mean",
                "You averaged the outputs",
                "Splits carry different shares of the softmax mass; weight each by l_i exp(m_i - M).",
                (o1 + o2 + o3) / 3,
            ),
            (
                "no-rescale",
                "You weighted by l_i without the exp(m_i - M)",
                "Each l_i was taken against its own max.",
                (l1 * o1 + l2 * o2 + l3 * o3) / (l1 + l2 + l3),
            ),
            ("unnormalised", "You did not divide by L", "The weights must sum to 1.", numerator),
        ],
        worked=worked,
    )


@register(
    "llama3_rope_threshold",
    summary="A Llama-3.1 rope-scaling wavelength threshold: original context / frequency factor.",
    unit="",
    args=(
        Arg("original_context", "int", "original_max_position_embeddings"),
        Arg("freq_factor", "float", "high_freq_factor (short threshold) or low_freq_factor (long one)"),
    ),
    misconceptions=("multiplied", "used-full-context"),
)
def llama3_rope_threshold(original_context: int, freq_factor: float, *, worked: bool = True) -> Derivation:
    """Wavelengths are compared with the original context: a factor of 4 marks a quarter of it."""
    calc = "llama3_rope_threshold"
    require_positive_numbers(calc, original_context=original_context, freq_factor=freq_factor)
    value = original_context / freq_factor
    return formula_result(
        calc,
        value,
        "",
        "Wavelength threshold (tokens)",
        "original context / factor",
        f"{original_context} / {freq_factor:g}",
        [
            (
                "multiplied",
                "You multiplied by the factor",
                "The threshold is the context divided by the factor.",
                original_context * freq_factor,
            ),
            (
                "used-full-context",
                "You used the extended 131,072-token context",
                "Thresholds come from the original 8,192.",
                131072 / freq_factor,
            ),
        ],
        worked=worked,
    )


@register(
    "llama3_rope_divisor",
    summary="What Llama-3.1 rope scaling divides a pair's frequency by: 1, `factor`, or interpolated.",
    unit="x",
    args=(
        Arg("wavelength", "float", "the pair's wavelength in tokens, 2 pi / frequency"),
        Arg("high_wavelength", "float", "below this, keep the frequency (original / high_freq_factor)"),
        Arg("low_wavelength", "float", "above this, divide by factor (original / low_freq_factor)"),
        Arg("factor", "float", "the scaling factor (8)"),
        Arg("original_context", "int", "original_max_position_embeddings (8192)"),
        Arg("low_freq_factor", "float", "low_freq_factor (1)"),
        Arg("high_freq_factor", "float", "high_freq_factor (4)"),
    ),
    misconceptions=("wrong-band", "smooth-inverted"),
)
def llama3_rope_divisor(
    wavelength: float,
    high_wavelength: float,
    low_wavelength: float,
    factor: float,
    original_context: int,
    low_freq_factor: float,
    high_freq_factor: float,
    *,
    worked: bool = True,
) -> Derivation:
    """Short wavelengths are already learned; long ones are stretched; the band between blends both."""
    calc = "llama3_rope_divisor"
    require_positive_numbers(
        calc,
        wavelength=wavelength,
        high_wavelength=high_wavelength,
        low_wavelength=low_wavelength,
        factor=factor,
    )
    if high_freq_factor == low_freq_factor:
        raise ValueError(f"{calc}: high_freq_factor and low_freq_factor must differ")
    smooth = (original_context / wavelength - low_freq_factor) / (high_freq_factor - low_freq_factor)
    if wavelength < high_wavelength:
        value, band = 1.0, "short: kept"
    elif wavelength > low_wavelength:
        value, band = factor, "long: divided by factor"
    else:
        value, band = 1 / ((1 - smooth) / factor + smooth), f"between: smooth = {smooth:.4g}"
    if wavelength < high_wavelength:
        other = factor  # divided as if long
    elif wavelength > low_wavelength:
        other = 1.0  # kept as if short
    else:
        other = factor if wavelength > (high_wavelength + low_wavelength) / 2 else 1.0
    wrong = [
        (
            "wrong-band",
            "You put the pair in the wrong band",
            "Compare the wavelength with both "
            "thresholds: below the short one keep it, above the long one divide by the factor, and blend "
            "in between.",
            other,
        ),
    ]
    if high_wavelength <= wavelength <= low_wavelength:
        wrong.append(
            (
                "smooth-inverted",
                "You blended the wrong way round",
                "smooth = 1 means keep the frequency; smooth = 0 means divide by the factor.",
                1 / (smooth / factor + (1 - smooth)),
            )
        )
    return formula_result(
        calc,
        value,
        "x",
        f"Frequency divisor ({band})",
        "1 if wavelength < high; factor if wavelength > low; else 1 / ((1 - s) / factor + s)",
        f"wavelength {num(wavelength)} against {num(high_wavelength)} and {num(low_wavelength)}",
        wrong,
        worked=worked,
    )


@register(
    "scaled_wavelength",
    summary="A pair's wavelength after its frequency is divided: wavelength x divisor.",
    unit="",
    args=(
        Arg("wavelength", "float", "wavelength before, tokens"),
        Arg("divisor", "float", "frequency divisor"),
    ),
    misconceptions=("divided-not-multiplied",),
)
def scaled_wavelength(wavelength: float, divisor: float, *, worked: bool = True) -> Derivation:
    """A lower frequency is a longer wavelength."""
    calc = "scaled_wavelength"
    require_positive_numbers(calc, wavelength=wavelength, divisor=divisor)
    value = wavelength * divisor
    return formula_result(
        calc,
        value,
        "",
        "Scaled wavelength (tokens)",
        "wavelength x divisor",
        f"{num(wavelength)} x {num(divisor)}",
        [
            (
                "divided-not-multiplied",
                "You divided the wavelength",
                "Dividing the frequency multiplies the wavelength.",
                wavelength / divisor,
            )
        ],
        worked=worked,
    )
