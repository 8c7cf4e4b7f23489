"""Provides the worked-derivation records every calculator returns: steps, misconceptions, text."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

Value = int | float | tuple[int, ...]
"""A calculator's result: an exact count, a real number, or a shape."""

BYTE_UNITS: tuple[tuple[str, int], ...] = (
    ("TiB", 1024**4),
    ("GiB", 1024**3),
    ("MiB", 1024**2),
    ("KiB", 1024),
)
DECIMAL_BYTE_UNITS: tuple[tuple[str, int], ...] = (
    ("TB", 1000**4),
    ("GB", 1000**3),
    ("MB", 1000**2),
    ("KB", 1000),
)


RESULT_UNIT = "<the calculator's unit>"
"""A Step's unit when it is the calculator's own: the registry writes the declared unit in its place."""


@dataclass(frozen=True)
class Step:
    """One line of a worked derivation, so a learner sees the formula before the numbers."""

    label: str
    formula: str
    substituted: str
    value: Value
    unit: str = ""
    picks: str = ""
    """When `substituted` works out a whole row, the name of the one entry `value` is (`a_1,0`), so the
    display reads `[...] -> a_1,0 = 0.94` rather than an untrue `[...] = 0.94`."""


@dataclass(frozen=True)
class Misconception:
    """A wrong formula people use, evaluated on the same arguments so a wrong answer can be named."""

    id: str
    label: str
    explanation: str
    value: Value
    step: str = ""
    """The label of the Step where this mistake goes astray."""


@dataclass(frozen=True)
class Mistake:
    """A wrong turn a calculator recognises, declared once at module level and named in its
    `@register(misconceptions=...)`, so the ids a calculator declares and the ids it returns are one.

    `gives(value, step)` is the Misconception for one instance; a calculator whose wording names the
    instance's numbers (or differs from the declared one) passes `label=` or `explanation=` there."""

    id: str
    label: str
    explanation: str = ""

    def gives(
        self, value: Value, step: str = "", *, label: str | None = None, explanation: str | None = None
    ) -> Misconception:
        """This mistake's wrong value for one instance, going astray at the Step labelled `step`."""
        return Misconception(
            self.id,
            self.label if label is None else label,
            self.explanation if explanation is None else explanation,
            value,
            step,
        )


@dataclass(frozen=True, eq=False)
class Heatmap:
    """Attention weights to draw, with the token labels for rows (queries) and columns (keys)."""

    weights: npt.NDArray[np.floating]  # (H, T, S)
    row_labels: tuple[str, ...]
    col_labels: tuple[str, ...]
    head_labels: tuple[str, ...] = ()
    allowed: npt.NDArray[np.bool_] | None = None  # (H, T, S) False where the mask removed the key
    asked: tuple[int, int | None] | None = None
    """The (row, column) the question asks about (column None when it asks about a whole row)."""

    def to_text(self) -> str:
        """The weights as plain-text tables, one per head, for a terminal with no colour or a card."""
        width = max(6, *(len(c) for c in self.col_labels))
        pad = max((len(r) for r in self.row_labels), default=0)
        blocks = []
        for h in range(self.weights.shape[0]):
            lines = [self.head_labels[h]] if h < len(self.head_labels) and self.head_labels[h] else []
            lines.append(" " * pad + "  " + " ".join(c.rjust(width) for c in self.col_labels))
            for r, row_label in enumerate(self.row_labels):
                cells = " ".join(f"{float(w):.3f}".rjust(width) for w in self.weights[h, r])
                lines.append(f"{row_label.rjust(pad)}  {cells}")
            blocks.append("\n".join(lines))
        return "\n\n".join(blocks)


@dataclass(frozen=True, eq=False)
class Derivation:
    """The engine's answer to one calculation, with every step shown and the wrong turns it can recognise."""

    calculator: str
    value: Value
    unit: str
    steps: tuple[Step, ...]
    misconceptions: tuple[Misconception, ...] = ()
    heatmap: Heatmap | None = None
    notes: tuple[str, ...] = field(default=())

    def misconception(self, misconception_id: str) -> Misconception:
        """Looks one misconception up by id, so tests and grading need not search by hand."""
        for m in self.misconceptions:
            if m.id == misconception_id:
                return m
        known = ", ".join(m.id for m in self.misconceptions) or "none"
        raise KeyError(f"{self.calculator} has no misconception {misconception_id!r} (known: {known})")

    def to_text(self) -> str:
        """Renders the derivation for a terminal: numbered steps, then the result in its unit."""
        lines = []
        for i, step in enumerate(self.steps, start=1):
            lines.append(f"{i}. {step.label}")
            lines.append(f"     {step.formula}")
            if step.substituted and step.substituted != step.formula:
                lines.append(f"   = {step.substituted}")
            shown = format_quantity(step.value, step.unit)
            lines.append(f"   -> {step.picks} = {shown}" if step.picks else f"   = {shown}")
        lines.append(f"Result: {format_quantity(self.value, self.unit)}")
        lines.extend(self.notes)
        return "\n".join(lines)


def format_number(value: float | int) -> str:
    """Writes integers with thousands separators and reals with up to six significant figures."""
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, (int, np.integer)):
        return f"{int(value):,}"
    v = float(value)
    if not np.isfinite(v):
        return str(v)
    if v == int(v) and abs(v) < 1e15:
        return f"{int(v):,}"
    if v != 0 and (abs(v) >= 1e9 or abs(v) < 1e-4):
        return f"{v:.4e}"
    return f"{v:,.6g}" if abs(v) >= 1000 else f"{v:.6g}"


def format_quantity(value: Value, unit: str = "") -> str:
    """Writes a value with its unit; byte counts also get their GiB and GB readings."""
    if isinstance(value, tuple):
        return "(" + ", ".join(str(v) for v in value) + ")"
    text = format_number(value)
    if unit == "B":
        extras = []
        for units in (BYTE_UNITS, DECIMAL_BYTE_UNITS):
            for name, factor in units:
                if abs(float(value)) >= factor:
                    extras.append(f"{float(value) / factor:,.4g} {name}")
                    break
        return f"{text} B" + (f" ({' = '.join(extras)})" if extras else "")
    return f"{text} {unit}".rstrip()


def distinct(answer: Value, candidates: list[Misconception]) -> tuple[Misconception, ...]:
    """Keeps the misconceptions whose value differs from the answer, once per id.

    A wrong formula that happens to give the right number here cannot be told apart from the right one,
    so it is dropped. Two wrong formulas with the same value are both kept: grading then names both
    (in the order of `candidates`, the order of preference) instead of silently picking one.
    """
    kept: list[Misconception] = []
    ids: set[str] = set()
    answer_key = _keyed(answer)
    for m in candidates:
        if m.id in ids:
            continue
        value, number = _keyed(m.value)
        if _same(value, number, *answer_key):
            continue
        kept.append(m)
        ids.add(m.id)
    return tuple(kept)


def _keyed(value: Value) -> tuple[Value, float | None]:
    """A value with its float (None for a shape), converted once instead of at every comparison."""
    return value, None if isinstance(value, tuple) else float(value)


def _same(a: Value, fa: float | None, b: Value, fb: float | None) -> bool:
    if fa is None or fb is None:
        return a == b
    return abs(fa - fb) <= 1e-9 * max(abs(fa), abs(fb), 1e-300)
