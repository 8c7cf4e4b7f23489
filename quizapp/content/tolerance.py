"""Provides the tolerance a numeric question grades with, and the words that state it to the user.

An estimate (a time, a throughput, a model's FLOPs or memory) is graded the way an interviewer takes it:
to 3 significant figures, within 0.5%, so "4.69 million", "26.2M" and 403 for 404 are right. An exact count
(parameters of a given shape, heads, bytes of a given tensor) stays exact. `resolve_tolerance` decides which
a question is, from its YAML (`estimate:` and `tolerance:`) and, by default, from the unit it asks for.
"""

from __future__ import annotations

import math
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field


class Tolerance(BaseModel):
    """How close an answer must be: exact, relative, absolute, to n significant figures, or an estimate.

    Comparisons happen in base units except `absolute`, whose value is in the question's display unit.
    `estimate` (value: significant figures, 3 by default) accepts any answer within 5 units of the
    figure after the last one, relative to the answer: 0.5% for 3, so a figure off by one in its third
    digit (403 for 404) is right, as it is for an interviewer.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    kind: Literal["exact", "relative", "absolute", "sigfigs", "estimate"] = "exact"
    value: float = Field(default=0.0, ge=0)

    def describe(self) -> str:
        """The tolerance in words, shown next to the prompt."""
        if self.kind == "exact":
            return "exact answer"
        if self.kind == "relative":
            return f"within {self.value * 100:g}%"
        if self.kind == "absolute":
            return f"within ±{self.value:g}"
        if self.kind == "estimate":
            return f"an estimate to {self.figures} significant figures, within {self.relative * 100:g}%"
        return f"to {int(self.value)} significant figures"

    @property
    def figures(self) -> int:
        """The significant figures an estimate is read to (3 unless the deck says otherwise)."""
        return max(1, int(self.value)) if self.value else ESTIMATE_FIGURES

    @property
    def relative(self) -> float:
        """An estimate's relative width: 5 in the figure after the last significant one (0.5% for 3)."""
        return 5 * 10.0**-self.figures

    def accepts(self, expected: float, got: float, *, display_factor: float = 1.0) -> bool:
        """True when `got` is close enough to `expected` (both in base units)."""
        if not (math.isfinite(expected) and math.isfinite(got)):
            return False
        diff = abs(got - expected)
        scale = max(abs(expected), 1e-300)
        if self.kind == "exact":
            return diff <= 1e-9 * scale or diff == 0
        if self.kind == "relative":
            return diff <= self.value * scale * (1 + 1e-12)
        if self.kind == "absolute":
            return diff <= self.value * display_factor * (1 + 1e-9)
        if self.kind == "estimate":
            return diff <= self.relative * scale * (1 + 1e-12)
        digits = max(1, int(self.value))
        if expected == 0:
            return got == 0
        exponent = math.floor(math.log10(abs(expected))) - digits + 1
        return diff <= 0.5 * 10.0**exponent * (1 + 1e-9)


def default_tolerance(expected_display: float) -> Tolerance:
    """Exact for integer answers, 1% for real ones, as the question bank's default."""
    if float(expected_display).is_integer():
        return _EXACT
    return _ONE_PERCENT


_EXACT = Tolerance(kind="exact")
_ONE_PERCENT = Tolerance(kind="relative", value=0.01)
"""Shared: a Tolerance is frozen, and every seed of every numeric question asks for one of these two."""
ESTIMATE_FIGURES = 3
ESTIMATE = Tolerance(kind="estimate", value=ESTIMATE_FIGURES)
"""An estimate's tolerance: 3 significant figures (within 0.5%)."""
ESTIMATE_DIMENSIONS = frozenset({"time", "angle"})
"""Answers that are always estimates: a latency or an angle is never an exact count."""
ESTIMATE_UNITS = frozenset({"GB", "GiB", "TB", "TiB", "TFLOPs", "B params"})
"""Units that ask for a model-sized amount (its memory, its FLOPs, its parameters): an estimate. Smaller
units (B, MiB, M params, GFLOPs) ask for a given tensor or layer, which stays as declared."""
_PLAIN_THREE = Tolerance(kind="sigfigs", value=3)


def is_estimate(declared: bool | None, dimension: str, display: str) -> bool:
    """Whether a question's answer is an estimate: as the deck declares (`estimate:`), else by its unit."""
    if declared is not None:
        return declared
    return dimension in ESTIMATE_DIMENSIONS or display in ESTIMATE_UNITS


def resolve_tolerance(
    declared: Tolerance | None, estimate: bool | None, dimension: str, display: str, expected_display: float
) -> Tolerance:
    """The tolerance a question grades with.

    `estimate: true` gives the estimate tolerance; `estimate: false` keeps `tolerance` as written. Left
    out, an answer in a time, an angle or a model-sized unit is an estimate, and its "3 significant
    figures" (the bank's old way to say so) reads as one; a deck that tightened it (relative 0.2%, 5
    significant figures, exact) keeps its choice. Without a tolerance, exact for an integer, 1% otherwise.
    """
    if estimate is True:
        return declared if declared is not None and declared.kind == "estimate" else ESTIMATE
    if estimate is None and is_estimate(None, dimension, display) and declared in (None, _PLAIN_THREE):
        return ESTIMATE
    return declared if declared is not None else default_tolerance(expected_display)
