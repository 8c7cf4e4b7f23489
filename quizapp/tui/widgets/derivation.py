"""Provides DerivationView: the engine's worked derivation, one numbered step per block, with the step
where the user's answer went astray marked."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text
from textual.widgets import Static

if TYPE_CHECKING:
    from engine import Derivation, Step


def step_text(index: int, step: Step, *, astray: bool = False) -> Text:
    """One step: its label, the formula, the formula with the numbers put in, and the value."""
    from engine.derivation import format_quantity

    text = Text()
    text.append(f"{index}. ", style="bold")
    text.append(step.label, style="bold red" if astray else "bold")
    text.append(": ")
    text.append(step.formula, style="italic")
    if astray:
        text.append("  ← your answer went astray here", style="red")
    text.append("\n   = ")
    if step.substituted and step.substituted != step.formula:
        text.append(step.substituted)
        text.append(" = ")
    text.append(format_quantity(step.value, step.unit), style="bold")
    return text


def derivation_text(derivation: Derivation, *, astray_step: str | None = None) -> Text:
    """The whole derivation, then its result and notes, as one block of text."""
    from engine.derivation import format_quantity

    parts = [
        step_text(i, step, astray=astray_step is not None and step.label == astray_step)
        for i, step in enumerate(derivation.steps, start=1)
    ]
    out = Text("\n").join(parts)
    out.append("\n Result: ", style="bold")
    out.append(format_quantity(derivation.value, derivation.unit), style="bold green")
    for note in derivation.notes:
        out.append(f"\n {note}", style="dim")
    return out


class DerivationView(Static):
    """The worked derivation of an instance, step by step with its own numbers."""

    DEFAULT_CSS = """
    DerivationView {
        height: auto;
        padding: 0 1;
    }
    """

    def __init__(
        self, derivation: Derivation, *, astray_step: str | None = None, id: str | None = None
    ) -> None:
        super().__init__(derivation_text(derivation, astray_step=astray_step), id=id)
        self.border_title = "Worked derivation"
