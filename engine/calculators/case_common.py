"""Provides the small worked formulas case studies chain: one line each, with the wrong turns it catches.

A case-study step takes earlier answers as plain numbers (bytes, FLOPs, milliseconds), so these
calculators take quantities, not model shapes. `formula_result` builds the Derivation of a one-line
formula so each calculator states only its formula, its numbers and its named mistakes.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from engine.calculator import result
from engine.derivation import RESULT_UNIT, Derivation, Misconception, Step, Value


def formula_result(
    value: Value,
    label: str,
    formula: str,
    substituted: str,
    wrong: Sequence[Misconception],
    *,
    worked: bool,
    before: Sequence[Step] = (),
) -> Derivation:
    """The Derivation of one formula (after any `before` lines), misconceptions that differ kept; a
    misconception with no step of its own goes astray at this formula."""
    if not worked:
        return result(value)
    steps = (*before, Step(label, formula, substituted, value, RESULT_UNIT))
    return result(value, steps, [m if m.step else replace(m, step=label) for m in wrong])


def require_positive_numbers(**values: float) -> None:
    """Rejects zero or negative quantities a calculator derives, naming each."""
    bad = [f"{k}={v}" for k, v in values.items() if not v > 0]
    if bad:
        raise ValueError(f"values must be positive, got {', '.join(bad)}")


def num(value: float) -> str:
    """A number as a substitution line shows it: integers with separators, reals to 6 figures."""
    if float(value).is_integer() and abs(value) < 1e15:
        return f"{int(value):,}"
    return f"{value:.6g}"
