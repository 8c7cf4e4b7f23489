"""Provides the yardstick for benchmarks/tty.py: a bare Textual app, launched in the same pseudo-terminal.

It draws one line ("bare app ready") on its first screen, and each Enter repaints a label ("pressed N"),
so the launch and a key's repaint can be timed exactly as the real app's are.
"""

from __future__ import annotations

from typing import ClassVar

from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.widgets import Footer, Header, Static

READY = "bare app ready"
PRESSED = "pressed {n} times"


class Bare(App[None]):
    BINDINGS: ClassVar[list[BindingType]] = [Binding("enter", "press", "Press"), Binding("q", "quit", "Quit")]

    def __init__(self) -> None:
        super().__init__()
        self.presses = 0

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(READY)
        yield Static("", id="count")
        yield Footer()

    def action_press(self) -> None:
        self.presses += 1
        self.query_one("#count", Static).update(PRESSED.format(n=self.presses))


if __name__ == "__main__":
    Bare().run()
