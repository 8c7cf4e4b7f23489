"""Provides sampling from the LM head's logits: temperature, top-k, top-p and the nucleus size."""

from __future__ import annotations

from dataclasses import replace
from typing import Annotated

import numpy as np
import numpy.typing as npt

from engine.calculator import Param, register, result
from engine.calculators.common import Share
from engine.calculators.quant_sampling import apart
from engine.derivation import Derivation, Misconception, Mistake, Step

Vector = npt.NDArray[np.float64]
Logits = Annotated[Vector, Param("the LM head's logits, one row (1, V)")]
Temperature = Annotated[float, Param("temperature applied first", gt=0)]
TopP = Annotated[Share, Param("nucleus threshold, 0 < p <= 1")]

# ------------------------------------------------------------------------------------------ sampling


def _logits(logits: Vector) -> Vector:
    z = np.asarray(logits, dtype=np.float64).reshape(-1)  # (V,)
    if z.size < 2:
        raise ValueError(f"logits need at least 2 tokens, got {z.size}")
    return z


def _softmax(z: Vector, temperature: float) -> Vector:
    s = z / temperature  # (V,)
    e = np.exp(s - s.max())  # (V,): every exponent <= 0
    out: Vector = e / e.sum()
    return out


def vec_text(v: Vector) -> str:
    return "[" + ", ".join(f"{x:.4g}" for x in v.tolist()) + "]"


MULTIPLIED_BY_T = Mistake(
    "multiplied-by-t", "You multiplied the logits by T", "Temperature divides the logits."
)
IGNORED_TEMPERATURE = Mistake(
    "ignored-temperature", "You left the temperature out", "Divide the logits by T before the softmax."
)
FORGOT_NORMALISE = Mistake(
    "forgot-normalise",
    "You did not divide by the sum",
    "Probabilities sum to 1: divide by the sum of the exponentials.",
)


@register(
    summary="Probability of one token after temperature: softmax(logits / T)[col].",
    unit="",
    misconceptions=(MULTIPLIED_BY_T, IGNORED_TEMPERATURE, FORGOT_NORMALISE),
)
def temperature_probability(
    logits: Logits,
    temperature: Annotated[float, Param("temperature T", gt=0)],
    col: Annotated[int, Param("the token asked about (0-based)")],
    *,
    worked: bool = True,
) -> Derivation:
    """Dividing logits by T < 1 sharpens the distribution toward the argmax; T > 1 flattens it."""
    z = _logits(logits)
    if not 0 <= col < z.size:
        raise ValueError(f"col={col} is outside {z.size} logits")
    p = _softmax(z, temperature)  # (V,)
    value = float(p[col])
    if not worked:
        return result(value)
    s = z / temperature  # (V,)
    e = np.exp(s - s.max())  # (V,)
    steps = (
        Step(
            "Scaled logits",
            "z / T",
            f"{vec_text(z)} / {temperature:g} = {vec_text(s)}",
            float(s[col]),
            picks=f"s_{col}",
        ),
        Step("Exponentials", "exp(z / T - max)", vec_text(e), float(e[col]), picks=f"e_{col}"),
        Step("Probability", f"exp_{col} / sum", f"{e[col]:.6g} / {e.sum():.6g}", value),
    )
    wrong: list[Misconception] = [
        MULTIPLIED_BY_T.gives(float(_softmax(z, 1 / temperature)[col])),
        IGNORED_TEMPERATURE.gives(float(_softmax(z, 1.0)[col])),
        FORGOT_NORMALISE.gives(float(e[col])),
    ]
    return result(value, steps, _misconceptions(value, wrong, "Probability"))


def _misconceptions(value: float, wrong: list[Misconception], step: str) -> list[Misconception]:
    """The wrong turns clearly away from the answer, each pinned to the step where it goes astray."""
    return [replace(m, step=step) for m in apart(value, wrong)]


def _kept_mass(p_sorted: Vector, keep: int) -> float:
    return float(p_sorted[:keep].sum())


def _largest_first(probs: Vector) -> Vector:
    out: Vector = np.sort(probs)[::-1]  # (V,) -> (V,) largest first
    return out


def _sorted_step(ps: Vector, temperature: float) -> Step:
    """The first line of every top-k and top-p derivation: the tempered probabilities, sorted."""
    return Step(
        "Probabilities, largest first",
        f"softmax(z / {temperature:g}), sorted",
        vec_text(ps),
        float(ps[0]),
        picks="p_max",
    )


NOT_RENORMALISED = Mistake(
    "not-renormalised",
    "You kept the probability from before the cut",
    "The kept tokens are renormalised to sum to 1.",
)
UNIFORM_OVER_K = Mistake(
    "uniform-over-k", "You spread the mass evenly over the k tokens", "Top-k keeps the tokens' relative odds."
)
KEPT_K_PLUS_ONE = Mistake("kept-k-plus-one", "You kept one token too many")


@register(
    summary="Probability of the most likely token after top-k: p_max / sum of the k largest probabilities.",
    unit="",
    misconceptions=(NOT_RENORMALISED, KEPT_K_PLUS_ONE, UNIFORM_OVER_K),
)
def top_k_probability(
    logits: Logits,
    k: Annotated[int, Param("tokens kept")],
    temperature: Temperature = 1.0,
    *,
    worked: bool = True,
) -> Derivation:
    """Top-k drops all but the k most likely tokens and renormalises the rest to sum to 1."""
    z = _logits(logits)
    if not 1 <= k <= z.size:
        raise ValueError(f"k must be 1 to {z.size}, got {k}")
    ps = _largest_first(_softmax(z, temperature))  # (V,)
    mass = _kept_mass(ps, k)
    value = float(ps[0] / mass)
    if not worked:
        return result(value)
    steps = (
        _sorted_step(ps, temperature),
        Step("Mass of the top k", f"sum of the {k} largest", " + ".join(f"{x:.6g}" for x in ps[:k]), mass),
        Step("Renormalised top probability", "p_max / kept mass", f"{ps[0]:.6g} / {mass:.6g}", value),
    )
    wrong: list[Misconception] = [
        NOT_RENORMALISED.gives(float(ps[0])),
        UNIFORM_OVER_K.gives(1 / k),
    ]
    if k < z.size:
        wrong.insert(
            1,
            KEPT_K_PLUS_ONE.gives(
                float(ps[0] / _kept_mass(ps, k + 1)), explanation=f"Exactly {k} tokens survive."
            ),
        )
    return result(value, steps, _misconceptions(value, wrong, "Renormalised top probability"))


def _nucleus_size(ps: Vector, p: float) -> int:
    """Smallest count of the first probabilities whose sum reaches p: the nucleus (Holtzman et al. 2019)
    when `ps` is sorted largest first, the unsorted-order slip when it is in vocabulary order."""
    cum = np.cumsum(ps)  # (V,)
    return int(np.searchsorted(cum, p - 1e-12) + 1)


DIVIDED_BY_P = Mistake(
    "divided-by-p", "You divided by p, not the nucleus mass", "Renormalise by the mass actually kept."
)
UNSORTED_ORDER = Mistake(
    "unsorted-order",
    "You summed in vocabulary order",
    "Sort by probability first: the nucleus takes the most likely tokens.",
)
EXCLUDED_CROSSING_TOKEN = Mistake("excluded-crossing-token", "You stopped before the token that crosses p")


def _excluded_crossing(value: float, p: float) -> Misconception:
    return EXCLUDED_CROSSING_TOKEN.gives(
        value,
        explanation=f"The nucleus is the smallest set reaching {p:g}: the token that crosses it is kept.",
    )


@register(
    summary="Probability of the most likely token after top-p: p_max / mass of the smallest set reaching p.",
    unit="",
    misconceptions=(NOT_RENORMALISED, EXCLUDED_CROSSING_TOKEN, DIVIDED_BY_P, UNSORTED_ORDER),
)
def top_p_probability(
    logits: Logits,
    p: TopP,
    temperature: Temperature = 1.0,
    *,
    worked: bool = True,
) -> Derivation:
    """The nucleus is the smallest set of most likely tokens whose mass reaches p, then renormalised."""
    z = _logits(logits)
    probs = _softmax(z, temperature)  # (V,)
    ps = _largest_first(probs)  # (V,)
    n = _nucleus_size(ps, p)
    mass = _kept_mass(ps, n)
    value = float(ps[0] / mass)
    if not worked:
        return result(value)
    cum = np.cumsum(ps)  # (V,)
    steps = (
        _sorted_step(ps, temperature),
        Step(
            "Running sums",
            f"cumulative, until >= {p:g}",
            vec_text(cum[: min(n + 1, ps.size)]),
            n,
            picks="tokens kept",
        ),
        Step("Nucleus mass", f"sum of the {n} largest", " + ".join(f"{x:.6g}" for x in ps[:n]), mass),
        Step("Renormalised top probability", "p_max / nucleus mass", f"{ps[0]:.6g} / {mass:.6g}", value),
    )
    wrong: list[Misconception] = [
        NOT_RENORMALISED.gives(float(ps[0]), explanation="The nucleus is renormalised to sum to 1."),
    ]
    if n > 1:
        wrong.append(_excluded_crossing(float(ps[0] / _kept_mass(ps, n - 1)), p))
    wrong.append(DIVIDED_BY_P.gives(float(ps[0] / p)))
    in_order = np.cumsum(probs)  # (V,) in vocabulary order
    m = _nucleus_size(probs, p)
    top = int(np.argmax(probs))
    if top < m:
        wrong.append(UNSORTED_ORDER.gives(float(probs[top] / in_order[m - 1])))
    return result(value, steps, _misconceptions(value, wrong, "Renormalised top probability"))


@register(
    summary="Tokens top-p keeps: the smallest count of the most likely tokens whose mass reaches p.",
    unit="",
    misconceptions=(EXCLUDED_CROSSING_TOKEN, IGNORED_TEMPERATURE, UNSORTED_ORDER),
)
def nucleus_size(
    logits: Logits,
    p: TopP,
    temperature: Temperature = 1.0,
    *,
    worked: bool = True,
) -> Derivation:
    """The nucleus widens as the temperature flattens the distribution: the count is what top-p adapts."""
    z = _logits(logits)
    probs = _softmax(z, temperature)  # (V,)
    ps = _largest_first(probs)  # (V,)
    value = _nucleus_size(ps, p)
    if not worked:
        return result(value)
    cum = np.cumsum(ps)  # (V,)
    steps = (
        _sorted_step(ps, temperature),
        Step(
            "Tokens kept",
            f"first running sum >= {p:g}",
            vec_text(cum[: min(value + 1, ps.size)]),
            value,
        ),
    )
    wrong: list[Misconception] = []
    if value > 1:
        wrong.append(_excluded_crossing(value - 1, p))
    wrong.append(
        IGNORED_TEMPERATURE.gives(
            _nucleus_size(_largest_first(_softmax(z, 1.0)), p),
            label="You counted the nucleus at T = 1",
            explanation=(
                "Top-p runs on the distribution after the temperature: apply T first, then sort and sum."
            ),
        )
    )
    wrong.append(UNSORTED_ORDER.gives(_nucleus_size(probs, p)))
    return result(value, steps, [replace(m, step="Tokens kept") for m in wrong if m.value != value])
