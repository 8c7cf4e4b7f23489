"""Provides the yardsticks for benchmarks/tty.py: a bare Textual app, launched in the same pseudo-terminal.

It draws one line ("bare app ready") on its first screen, and each Enter repaints a label ("pressed N"),
so the launch and a key's repaint can be timed exactly as the real app's are.

Each `n` turns a page: the page's widgets are removed and six new stock widgets mounted, the kinds a
card and its feedback are made of (a prompt, an answer box, worked steps, a coloured grid, four ratings),
with the two garbage-collection habits the app has (everything alive after the first screen frozen; a
widget's drawing dropped before it is removed). Its stalls, collections and memory per page are what
Textual itself costs for a page of new widgets on this machine: the floor under the app's study loop.

Each `u` updates a page in place instead: the same six stock widgets, mounted once, get the next page's
content (Static.update, Input.value, OptionList options), as the study screen keeps its widgets from card
to card; with the app's own garbage-collection policy (quizapp's collector: the loaded objects frozen, the
screen settled after its first page, a collection while each page is read). What Textual costs for a card
drawn the way the app draws it: the yardstick for its keys, stalls and collections.
"""

from __future__ import annotations

import gc
import importlib
from types import ModuleType
from typing import ClassVar

from rich.text import Text
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.widgets import Footer, Header, Input, OptionList, Static

READY = "bare app ready"
PRESSED = "pressed {n} times"
PAGE = "page {n} shown"
UPDATED = "update {n} shown"


def collector() -> ModuleType:
    """The app's collector functions, wherever they live in this tree (they are moving to the core)."""
    try:
        return importlib.import_module("quizapp.collector")
    except ImportError:
        return importlib.import_module("quizapp.tui.collector")


def page_texts(n: int) -> tuple[Text, Text, Text]:
    """Page `n`'s prompt, worked steps and coloured grid."""
    prompt = Text()
    for i in range(6):
        prompt.append(f"Line {i} of page {n}: with d_model = {512 + n} and 8 heads, what is ")
        prompt.append("d_k", style="bold cyan")
        prompt.append("?\n")
    steps = Text()
    for i in range(16):
        steps.append(f"step {i}: {n} x {i} = {n * i}  ", style="green" if i % 2 else "yellow")
        steps.append("the projection splits d_model across the heads\n", style="dim")
    grid = Text()
    for row in range(8):
        for col in range(8):
            grid.append(" ██", style=f"rgb({(row * 30 + n) % 256},{col * 30},120)")
        grid.append("\n")
    return prompt, steps, grid


class Bare(App[None]):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "press", "Press"),
        Binding("n", "page", "Page"),
        Binding("u", "update_page", "Update"),
        Binding("q", "quit", "Quit"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.presses = 0
        self.pages = 0
        self.updates = 0

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(READY)
        yield Static("", id="count")
        yield VerticalScroll(id="page")
        yield Footer()

    def on_mount(self) -> None:
        self.call_after_refresh(self._freeze)

    def _freeze(self) -> None:
        gc.collect()
        gc.freeze()

    def action_press(self) -> None:
        self.presses += 1
        self.query_one("#count", Static).update(PRESSED.format(n=self.presses))

    def action_page(self) -> None:
        self.pages += 1
        n = self.pages
        page = self.query_one("#page", VerticalScroll)
        for old in page.children:
            old.refresh()  # drops the widget's drawn lines, which Textual's style cache keeps otherwise
        page.remove_children()
        prompt, steps, grid = page_texts(n)
        page.mount_all(
            [
                Static(PAGE.format(n=n)),
                Static(prompt),
                Input(placeholder="your answer"),
                Static(steps),
                Static(grid),
                OptionList("Again", "Hard", "Good", "Easy"),
            ]
        )

    def action_update_page(self) -> None:
        """The next page in place: six stock widgets, mounted on the first `u`, updated on each next."""
        self.updates += 1
        n = self.updates
        page = self.query_one("#page", VerticalScroll)
        prompt, steps, grid = page_texts(n)
        gc_policy = collector()
        if n == 1:
            for old in page.children:
                old.refresh()
            page.remove_children()
            page.mount_all(
                [
                    Static(UPDATED.format(n=n), id="u-title"),
                    Static(prompt, id="u-prompt"),
                    Input(placeholder="your answer", id="u-answer"),
                    Static(steps, id="u-steps"),
                    Static(grid, id="u-grid"),
                    OptionList("Again", "Hard", "Good", "Easy", id="u-ratings"),
                ]
            )
            self.call_after_refresh(gc_policy.settle)  # the screen's widgets live as long as it does
            return
        page.query_one("#u-title", Static).update(UPDATED.format(n=n))
        page.query_one("#u-prompt", Static).update(prompt)
        page.query_one("#u-answer", Input).value = ""
        page.query_one("#u-steps", Static).update(steps)
        page.query_one("#u-grid", Static).update(grid)
        ratings = page.query_one("#u-ratings", OptionList)
        ratings.clear_options()
        ratings.add_options([f"Again ({n})", "Hard", "Good", "Easy"])
        # as the study screen does: a collection while the page is read, after its later frames
        self.call_after_refresh(
            lambda: self.set_timer(gc_policy.READING_STARTS_S, lambda: gc_policy.collect_while_reading(n))
        )


if __name__ == "__main__":
    Bare().run()
