"""Provides the small worked formulas case studies chain: one line each, with the wrong turns it catches.

A case-study step takes earlier answers as plain numbers (bytes, FLOPs, milliseconds), so these
calculators take quantities, not model shapes. `formula_result` builds the Derivation of a one-line
formula so each calculator states only its formula, its numbers and its named mistakes.
"""

from __future__ import annotations

from collections.abc import Sequence

from engine.calculators.common import distinct
from engine.derivation import Derivation, Misconception, Step, Value

Wrong = tuple[str, str, str, Value]
"""(id, label, why it is wrong, the value it gives)."""


def formula_result(
    calc: str,
    value: Value,
    unit: str,
    label: str,
    formula: str,
    substituted: str,
    wrong: Sequence[Wrong],
    *,
    worked: bool,
    before: Sequence[Step] = (),
) -> Derivation:
    """The Derivation of one formula (after any `before` lines), misconceptions that differ kept."""
    if not worked:
        return Derivation(calc, value, unit, ())
    steps = (*before, Step(label, formula, substituted, value, unit))
    found = [Misconception(i, lab, why, v, label) for i, lab, why, v in wrong]
    return Derivation(calc, value, unit, steps, distinct(value, found))


def require_positive_numbers(calc: str, **values: float) -> None:
    """Rejects zero or negative quantities, naming each (a learner's carried number may be one)."""
    bad = [f"{k}={v}" for k, v in values.items() if not v > 0]
    if bad:
        raise ValueError(f"{calc}: values must be positive, got {', '.join(bad)}")


def num(value: float) -> str:
    """A number as a substitution line shows it: integers with separators, reals to 6 figures."""
    if float(value).is_integer() and abs(value) < 1e15:
        return f"{int(value):,}"
    return f"{value:.6g}"
