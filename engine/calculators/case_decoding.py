"""Provides the decoding steps case studies chain: local-global layer counts and speculative decoding.

Speculative decoding follows Leviathan et al. 2023 (arXiv:2211.17192), section 3: with acceptance rate a
and gamma drafted tokens, one target pass yields (1 - a^(gamma+1)) / (1 - a) tokens on average, and a
round costs gamma x c + 1 target-pass times when one draft pass costs c of a target pass.
"""

from __future__ import annotations

from typing import Annotated, Literal

from engine.calculator import Param, register
from engine.calculators.case_common import formula_result, num
from engine.calculators.common import Gamma
from engine.derivation import Derivation, Mistake

Alpha = Annotated[float, Param("acceptance rate of one drafted token")]
DraftCost = Annotated[float, Param("time of one draft pass as a fraction of one target pass", gt=0)]


ROUNDED_UP = Mistake(
    "rounded-up",
    "You rounded the global count up",
    "A global layer comes at the end of each full period; a partial period at the top has none.",
)
RATIO_AS_PERIOD = Mistake(
    "ratio-as-period",
    "You divided by the local count, not the period",
    "5 local to 1 global is a period of 6 layers, not 5.",
)
SWAPPED_KINDS = Mistake(
    "swapped-kinds",
    "You counted the other kind of layer",
    "Most layers are local; only one per period is global.",
)


@register(
    summary="Layers of each kind when every `period`-th layer is global and the rest local (Gemma 3: 6).",
    unit="",
    misconceptions=(ROUNDED_UP, RATIO_AS_PERIOD, SWAPPED_KINDS),
)
def local_global_layers(
    n_layers: Annotated[int, Param("layers in the model", gt=0)],
    period: Annotated[int, Param("one global layer every `period` layers (local layers between)", gt=0)],
    which: Annotated[Literal["global", "local"], Param("global or local")] = "global",
    *,
    worked: bool = True,
) -> Derivation:
    """Layer i (from 1) is global when i is a multiple of the period, so floor(L / period) are global."""
    if period < 2:
        raise ValueError(f"period must be at least 2 (one global among local layers), got {period}")
    n_global = n_layers // period
    n_local = n_layers - n_global
    value = n_global if which == "global" else n_local
    other = n_local if which == "global" else n_global
    wrong_global = -(-n_layers // period)
    wrong_ratio = n_layers // (period - 1)
    label = "Global layers" if which == "global" else "Local layers"
    formula = "floor(L / period)" if which == "global" else "L - floor(L / period)"
    return formula_result(
        value,
        label,
        formula,
        f"floor({n_layers} / {period})"
        if which == "global"
        else f"{n_layers} - floor({n_layers} / {period})",
        [
            ROUNDED_UP.gives(wrong_global if which == "global" else n_layers - wrong_global),
            RATIO_AS_PERIOD.gives(wrong_ratio if which == "global" else n_layers - wrong_ratio),
            SWAPPED_KINDS.gives(other),
        ],
        worked=worked,
    )


def _expected_tokens(alpha: float, gamma: int) -> float:
    return (1 - alpha ** (gamma + 1)) / (1 - alpha)


def _check_spec(alpha: float, gamma: int) -> None:
    if not 0 < alpha < 1:
        raise ValueError(f"the acceptance rate lies strictly between 0 and 1, got {alpha}")
    if gamma < 1:
        raise ValueError(f"gamma (tokens drafted per round) must be at least 1, got {gamma}")


FORGOT_BONUS_TOKEN = Mistake(
    "forgot-bonus-token",
    "You left out the target's own token",
    "Every round ends with one "
    "token from the target (a correction or a bonus), so add 1 to the accepted drafts.",
)
LINEAR_ACCEPTANCE = Mistake(
    "linear-acceptance",
    "You took gamma x a + 1",
    "Acceptance stops at the first rejection: "
    "token k counts only if all k before it passed, probability a^k.",
)
ALL_ACCEPTED = Mistake(
    "all-accepted",
    "You assumed every draft is accepted",
    "Each drafted token passes only with probability a.",
)


@register(
    summary="Tokens one verification pass yields on average: (1 - a^(gamma+1)) / (1 - a).",
    unit="",
    misconceptions=(FORGOT_BONUS_TOKEN, LINEAR_ACCEPTANCE, ALL_ACCEPTED),
)
def spec_expected_tokens(
    alpha: Alpha,
    gamma: Annotated[int, Param("tokens drafted per round")],
    *,
    worked: bool = True,
) -> Derivation:
    """Accepted drafts stop at the first rejection; the target then adds one token of its own."""
    _check_spec(alpha, gamma)
    value = _expected_tokens(alpha, gamma)
    return formula_result(
        value,
        "Expected tokens per target pass",
        "(1 - a^(gamma+1)) / (1 - a)",
        f"(1 - {alpha:g}^{gamma + 1}) / (1 - {alpha:g})",
        [
            FORGOT_BONUS_TOKEN.gives(value - 1),
            LINEAR_ACCEPTANCE.gives(gamma * alpha + 1),
            ALL_ACCEPTED.gives(gamma + 1),
        ],
        worked=worked,
    )


FORGOT_DRAFT_COST = Mistake(
    "forgot-draft-cost",
    "You ignored the draft model's time",
    "The gamma draft passes run before each verification: the round costs gamma x c + 1.",
)
FORGOT_TARGET_PASS = Mistake(
    "forgot-target-pass", "You left out the verification pass", "Each round also runs the target once: + 1."
)
INVERTED = Mistake("inverted", "You inverted the ratio", "Speed-up is tokens per unit time now over before.")


@register(
    summary="Speed-up of speculative decoding: tokens per round / (gamma x c + 1) target-pass times.",
    unit="x",
    misconceptions=(FORGOT_DRAFT_COST, FORGOT_TARGET_PASS, INVERTED),
)
def spec_speedup(
    tokens_per_round: Annotated[float, Param("expected tokens one round yields", gt=0)],
    gamma: Gamma,
    draft_cost: DraftCost,
    *,
    worked: bool = True,
) -> Derivation:
    """Plain decoding makes one token per target pass; a round makes more but costs the drafts too."""
    cost = gamma * draft_cost + 1
    value = tokens_per_round / cost
    return formula_result(
        value,
        "Speed-up over plain decoding",
        "tokens per round / (gamma x c + 1)",
        f"{num(tokens_per_round)} / ({gamma} x {draft_cost:g} + 1)",
        [
            FORGOT_DRAFT_COST.gives(tokens_per_round),
            FORGOT_TARGET_PASS.gives(tokens_per_round / (gamma * draft_cost)),
            INVERTED.gives(cost / tokens_per_round),
        ],
        worked=worked,
    )


LONGEST_DRAFT = Mistake(
    "longest-draft",
    "You took the longest draft",
    "Each extra draft token is accepted with probability a^k but always costs c.",
)


@register(
    summary="The draft length (1..max_gamma) with the highest speed-up for an acceptance rate and cost.",
    unit="",
    misconceptions=(LONGEST_DRAFT,),
)
def spec_best_gamma(
    alpha: Alpha,
    draft_cost: DraftCost,
    max_gamma: Annotated[int, Param("the longest draft considered")],
    *,
    worked: bool = True,
) -> Derivation:
    """Longer drafts add tokens with shrinking probability a^k but cost c each: the best length is finite."""
    _check_spec(alpha, max(max_gamma, 1))
    speed = {g: _expected_tokens(alpha, g) / (g * draft_cost + 1) for g in range(1, max_gamma + 1)}
    value = max(speed, key=lambda g: (speed[g], -g))
    table = ", ".join(f"{g}: {s:.3f}" for g, s in speed.items())
    return formula_result(
        value,
        "Best draft length",
        "argmax over gamma of (1 - a^(gamma+1)) / ((1 - a)(gamma c + 1))",
        f"speed-ups {table}",
        [
            LONGEST_DRAFT.gives(max_gamma),
        ],
        worked=worked,
    )
