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
from typing import Annotated

from engine.calculator import Param, register
from engine.calculators.case_common import formula_result, num
from engine.calculators.common import OriginalContext
from engine.derivation import Derivation, Mistake

L1 = Annotated[float, Param("split 1's sum of exp(score - m1)", gt=0)]
L2 = Annotated[float, Param("split 2's sum of exp(score - m2)", gt=0)]
L3 = Annotated[float, Param("split 3's sum of exp(score - m3)", gt=0)]
M1 = Annotated[float, Param("split 1's running max")]
M2 = Annotated[float, Param("split 2's running max")]
M3 = Annotated[float, Param("split 3's running max")]
MMax = Annotated[float, Param("the global max M")]


FLOOR_NOT_CEIL = Mistake(
    "floor-not-ceil", "You rounded down", "The last partial piece still needs its own split."
)
NOT_ROUNDED = Mistake("not-rounded", "You kept the fraction", "Pieces come whole.")


@register(
    summary="How many pieces of a size cover a length: ceil(total / piece).",
    unit="",
    misconceptions=(FLOOR_NOT_CEIL, NOT_ROUNDED),
)
def ceil_div(
    total: Annotated[int, Param("the length to cover", gt=0)],
    piece: Annotated[int, Param("the size of one piece", gt=0)],
    *,
    worked: bool = True,
) -> Derivation:
    """A last, partial piece is still a piece."""
    value = -(-total // piece)
    return formula_result(
        value,
        "Pieces",
        "ceil(total / piece)",
        f"ceil({total} / {piece})",
        [
            FLOOR_NOT_CEIL.gives(total // piece),
            NOT_ROUNDED.gives(total / piece),
        ],
        worked=worked,
    )


USED_MEAN = Mistake("used-mean", "You averaged the maxima", "The reference point is the largest max.")
USED_FIRST = Mistake("used-first", "You kept the first split's max", "Another split may hold a larger score.")


@register(
    summary="The combined running max of three splits: max(m1, m2, m3).",
    unit="",
    misconceptions=(USED_MEAN, USED_FIRST),
)
def split_kv_max(m1: M1, m2: M2, m3: M3, *, worked: bool = True) -> Derivation:
    """Every split's sums are rescaled to the largest max, so nothing overflows."""
    value = max(m1, m2, m3)
    return formula_result(
        value,
        "Global max",
        "M = max(m1, m2, m3)",
        f"max({m1:g}, {m2:g}, {m3:g})",
        [
            USED_MEAN.gives((m1 + m2 + m3) / 3),
            USED_FIRST.gives(m1),
        ],
        worked=worked,
    )


SIGN_FLIPPED = Mistake(
    "sign-flipped",
    "You used exp(M - m_i)",
    "Moving to a larger max shrinks the sum: the factor is at most 1.",
)
FORGOT_EXP = Mistake("forgot-exp", "You used the difference itself", "Maxima live in the exponent.")


@register(
    summary="The factor that moves a split's sum onto the global max: exp(m_i - M).",
    unit="",
    misconceptions=(SIGN_FLIPPED, FORGOT_EXP),
)
def split_kv_rescale(
    m_i: Annotated[float, Param("the split's max")],
    m_max: MMax,
    *,
    worked: bool = True,
) -> Derivation:
    """exp(s - m_i) x exp(m_i - M) = exp(s - M): the factor is at most 1."""
    value = math.exp(m_i - m_max)
    return formula_result(
        value,
        "Rescale factor",
        "exp(m_i - M)",
        f"exp({m_i:g} - {num(m_max)})",
        [
            SIGN_FLIPPED.gives(math.exp(m_max - m_i)),
            FORGOT_EXP.gives(m_i - m_max),
        ],
        worked=worked,
    )


def _weights(m_max: float, ms: tuple[float, ...], ls: tuple[float, ...]) -> list[float]:
    return [li * math.exp(mi - m_max) for mi, li in zip(ms, ls, strict=True)]


NO_RESCALE = Mistake(
    "no-rescale",
    "You added the sums as they came",
    "Each l_i was taken against its own max; rescale to M first.",
)


@register(
    summary="The combined softmax denominator: sum of l_i exp(m_i - M).",
    unit="",
    misconceptions=(NO_RESCALE, SIGN_FLIPPED),
)
def split_kv_denominator(
    m_max: MMax,
    m1: M1,
    m2: M2,
    m3: M3,
    l1: L1,
    l2: L2,
    l3: L3,
    *,
    worked: bool = True,
) -> Derivation:
    """Each split's sum was taken against its own max; on a common max they add."""
    ms, ls = (m1, m2, m3), (l1, l2, l3)
    value = sum(_weights(m_max, ms, ls))
    return formula_result(
        value,
        "Combined denominator",
        "L = sum l_i exp(m_i - M)",
        " + ".join(f"{li:g} exp({mi:g} - {num(m_max)})" for mi, li in zip(ms, ls, strict=True)),
        [
            NO_RESCALE.gives(l1 + l2 + l3),
            SIGN_FLIPPED.gives(
                sum(li * math.exp(m_max - mi) for mi, li in zip(ms, ls, strict=True)),
                label="You rescaled with exp(M - m_i)",
                explanation="The factor is at most 1.",
            ),
        ],
        worked=worked,
    )


PLAIN_MEAN = Mistake(
    "plain-mean",
    "You averaged the outputs",
    "Splits carry different shares of the softmax mass; weight each by l_i exp(m_i - M).",
)
UNNORMALISED = Mistake("unnormalised", "You did not divide by L", "The weights must sum to 1.")


@register(
    summary="The combined output: sum l_i exp(m_i - M) o_i / L.",
    unit="",
    misconceptions=(PLAIN_MEAN, NO_RESCALE, UNNORMALISED),
)
def split_kv_output(
    m_max: MMax,
    denominator: Annotated[float, Param("the combined L", gt=0)],
    m1: M1,
    m2: M2,
    m3: M3,
    l1: L1,
    l2: L2,
    l3: L3,
    o1: Annotated[float, Param("split 1's normalised output (one channel)")],
    o2: Annotated[float, Param("split 2's normalised output (one channel)")],
    o3: Annotated[float, Param("split 3's normalised output (one channel)")],
    *,
    worked: bool = True,
) -> Derivation:
    """Each split's normalised output is weighted by its share of the total softmax mass."""
    ms, ls, os_ = (m1, m2, m3), (l1, l2, l3), (o1, o2, o3)
    w = _weights(m_max, ms, ls)
    numerator = sum(wi * oi for wi, oi in zip(w, os_, strict=True))
    value = numerator / denominator
    return formula_result(
        value,
        "Combined output",
        "O = sum l_i exp(m_i - M) o_i / L",
        f"({' + '.join(f'{wi:.9g} x {oi:g}' for wi, oi in zip(w, os_, strict=True))}) / {denominator:.9g}",
        [
            PLAIN_MEAN.gives((o1 + o2 + o3) / 3),
            NO_RESCALE.gives(
                (l1 * o1 + l2 * o2 + l3 * o3) / (l1 + l2 + l3),
                label="You weighted by l_i without the exp(m_i - M)",
                explanation="Each l_i was taken against its own max.",
            ),
            UNNORMALISED.gives(numerator),
        ],
        worked=worked,
    )


MULTIPLIED = Mistake(
    "multiplied", "You multiplied by the factor", "The threshold is the context divided by the factor."
)
USED_FULL_CONTEXT = Mistake(
    "used-full-context",
    "You used the extended 131,072-token context",
    "Thresholds come from the original 8,192.",
)


@register(
    summary="A Llama-3.1 rope-scaling wavelength threshold: original context / frequency factor.",
    unit="",
    misconceptions=(MULTIPLIED, USED_FULL_CONTEXT),
)
def llama3_rope_threshold(
    original_context: OriginalContext,
    freq_factor: Annotated[
        float, Param("high_freq_factor (short threshold) or low_freq_factor (long one)", gt=0)
    ],
    *,
    worked: bool = True,
) -> Derivation:
    """Wavelengths are compared with the original context: a factor of 4 marks a quarter of it."""
    value = original_context / freq_factor
    return formula_result(
        value,
        "Wavelength threshold (tokens)",
        "original context / factor",
        f"{original_context} / {freq_factor:g}",
        [
            MULTIPLIED.gives(original_context * freq_factor),
            USED_FULL_CONTEXT.gives(131072 / freq_factor),
        ],
        worked=worked,
    )


WRONG_BAND = Mistake(
    "wrong-band",
    "You put the pair in the wrong band",
    "Compare the wavelength with both "
    "thresholds: below the short one keep it, above the long one divide by the factor, and blend "
    "in between.",
)
SMOOTH_INVERTED = Mistake(
    "smooth-inverted",
    "You blended the wrong way round",
    "smooth = 1 means keep the frequency; smooth = 0 means divide by the factor.",
)


@register(
    summary="What Llama-3.1 rope scaling divides a pair's frequency by: 1, `factor`, or interpolated.",
    unit="x",
    misconceptions=(WRONG_BAND, SMOOTH_INVERTED),
)
def llama3_rope_divisor(
    wavelength: Annotated[float, Param("the pair's wavelength in tokens, 2 pi / frequency", gt=0)],
    high_wavelength: Annotated[
        float, Param("below this, keep the frequency (original / high_freq_factor)", gt=0)
    ],
    low_wavelength: Annotated[
        float, Param("above this, divide by factor (original / low_freq_factor)", gt=0)
    ],
    factor: Annotated[float, Param("the scaling factor (8)", gt=0)],
    original_context: Annotated[int, Param("original_max_position_embeddings (8192)")],
    low_freq_factor: Annotated[float, Param("low_freq_factor (1)")],
    high_freq_factor: Annotated[float, Param("high_freq_factor (4)")],
    *,
    worked: bool = True,
) -> Derivation:
    """Short wavelengths are already learned; long ones are stretched; the band between blends both."""
    if high_freq_factor == low_freq_factor:
        raise ValueError("high_freq_factor and low_freq_factor must differ")
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
        WRONG_BAND.gives(other),
    ]
    if high_wavelength <= wavelength <= low_wavelength:
        wrong.append(SMOOTH_INVERTED.gives(1 / (smooth / factor + (1 - smooth))))
    return formula_result(
        value,
        f"Frequency divisor ({band})",
        "1 if wavelength < high; factor if wavelength > low; else 1 / ((1 - s) / factor + s)",
        f"wavelength {num(wavelength)} against {num(high_wavelength)} and {num(low_wavelength)}",
        wrong,
        worked=worked,
    )


DIVIDED_NOT_MULTIPLIED = Mistake(
    "divided-not-multiplied",
    "You divided the wavelength",
    "Dividing the frequency multiplies the wavelength.",
)


@register(
    summary="A pair's wavelength after its frequency is divided: wavelength x divisor.",
    unit="",
    misconceptions=(DIVIDED_NOT_MULTIPLIED,),
)
def scaled_wavelength(
    wavelength: Annotated[float, Param("wavelength before, tokens", gt=0)],
    divisor: Annotated[float, Param("frequency divisor", gt=0)],
    *,
    worked: bool = True,
) -> Derivation:
    """A lower frequency is a longer wavelength."""
    value = wavelength * divisor
    return formula_result(
        value,
        "Scaled wavelength (tokens)",
        "wavelength x divisor",
        f"{num(wavelength)} x {num(divisor)}",
        [DIVIDED_NOT_MULTIPLIED.gives(wavelength / divisor)],
        worked=worked,
    )
