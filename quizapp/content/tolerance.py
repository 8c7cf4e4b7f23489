"""Provides the tolerance a numeric question grades with, and the words that state it to the user."""

from __future__ import annotations

import math
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field


class Tolerance(BaseModel):
    """How close an answer must be: exact, relative, absolute, or to n significant figures.

    Comparisons happen in base units except `absolute`, whose value is in the question's display unit.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    kind: Literal["exact", "relative", "absolute", "sigfigs"] = "exact"
    value: float = Field(default=0.0, ge=0)

    def describe(self) -> str:
        """The tolerance in words, shown next to the prompt."""
        if self.kind == "exact":
            return "exact answer"
        if self.kind == "relative":
            return f"within {self.value * 100:g}%"
        if self.kind == "absolute":
            return f"within ±{self.value:g}"
        return f"to {int(self.value)} significant figures"

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
