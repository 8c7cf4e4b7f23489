"""Provides DerivationView: the engine's worked derivation, one numbered step per block, with the step
where the user's answer went astray marked."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.table import Table
from rich.text import Text

from engine.derivation import format_quantity
from quizapp.tui.widgets.rendered import RenderedBlock

if TYPE_CHECKING:
    from engine import Derivation, Step


def step_text(step: Step, *, astray: bool = False) -> Text:
    """One step: its label and formula, then the formula with the numbers put in and the value."""
    text = Text()
    text.append(step.label, style="bold red" if astray else "bold")
    text.append(": ")
    text.append(step.formula, style="italic")
    if astray:
        text.append("  ← your answer went astray here", style="red")
    text.append("\n= ")
    if step.substituted and step.substituted != step.formula:
        text.append(step.substituted)
        # a step that works out a whole row names the entry it carries on with: true as shown
        text.append(f"  → {step.picks} = " if step.picks else " = ")
    text.append(format_quantity(step.value, step.unit), style="bold")
    return text


def derivation_table(derivation: Derivation, *, astray_step: str | None = None) -> Table:
    """The whole derivation as a two-column grid (numbers, then steps), so long lines wrap indented."""
    table = Table.grid(padding=(0, 1))
    table.add_column(justify="right", style="bold", no_wrap=True)
    table.add_column(ratio=1)
    for i, step in enumerate(derivation.steps, start=1):
        table.add_row(f"{i}.", step_text(step, astray=astray_step is not None and step.label == astray_step))
    result = Text(format_quantity(derivation.value, derivation.unit), style="bold green")
    table.add_row("", Text.assemble(("Result: ", "bold"), result))
    for note in derivation.notes:
        table.add_row("", Text(note, style="dim"))
    return table


class DerivationView(RenderedBlock):
    """The worked derivation of an instance, step by step with its own numbers (one Rich table, rendered
    once per width: the study screen renders it while the question is still being answered)."""

    DEFAULT_CSS = """
    DerivationView {
        height: auto;
        padding: 0 1;
    }
    """

    def __init__(
        self, derivation: Derivation | None, *, astray_step: str | None = None, id: str | None = None
    ) -> None:
        table = derivation_table(derivation, astray_step=astray_step) if derivation is not None else ""
        super().__init__(table, id=id)
        self.derivation = derivation
        self.astray_step = astray_step
        self.border_title = "Worked derivation"

    def show_derivation(self, derivation: Derivation | None) -> None:
        """Shows another derivation, no step marked (the study screen reuses one view per question)."""
        self.derivation = derivation
        self.astray_step = None
        self.update(derivation_table(derivation) if derivation is not None else "")

    def mark_astray(self, step: str | None) -> None:
        """Marks the step where an answer went astray (None: no mark)."""
        if step != self.astray_step and self.derivation is not None:
            self.astray_step = step
            self.update(derivation_table(self.derivation, astray_step=step))
