"""Provides QuestionCard (deck, difficulty stars, prompt as Markdown) and SessionBar (done and left).

The prompt is a Rich Markdown renderable in one widget, like the feedback's explanation, rather than
Textual's Markdown (a widget per block, remounted for every question): the study screen keeps one card
and shows each new question in it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Static

from quizapp.tui.widgets.heatmap import HeatmapView, shorten
from quizapp.tui.widgets.rendered import CompactMarkdown, RenderedBlock

if TYPE_CHECKING:
    from quizapp.content.instance import Instance
    from quizapp.study.session import SessionCounts

TITLE_WIDTH = 32
"""The session bar shortens long titles ("Drill: <deck>") so done and left always fit 80 columns."""

KIND_WORDS = {
    "numeric": "number",
    "tensor": "tensor entry",
    "shape": "shape",
    "choice": "choice",
    "flashcard": "flashcard",
    "explain": "explain",
    "scenario": "case study",
}


def stars(difficulty: int) -> str:
    """★★☆ for difficulty 2 of 3."""
    d = max(1, min(3, difficulty))
    return "★" * d + "☆" * (3 - d)


def card_header(inst: Instance) -> Text:
    text = Text()
    text.append(inst.deck_title or inst.deck_id, style="bold")
    text.append("  ")
    text.append(stars(inst.difficulty), style="yellow")
    text.append(f"  {KIND_WORDS.get(inst.kind, inst.kind)}", style="dim")
    if inst.kind == "choice" and inst.multiple:
        text.append(" · select all that apply", style="dim")
    return text


class PromptView(RenderedBlock):
    """The prompt, as Markdown with its numbers filled in."""

    def show(self, inst: Instance) -> None:
        self.update(CompactMarkdown(inst.prompt))


class QuestionCard(Vertical):
    """The question being asked: deck, stars, and the prompt with its numbers filled in."""

    DEFAULT_CSS = """
    QuestionCard { height: auto; }
    QuestionCard > #prompt { margin: 0; padding: 0 1; height: auto; }
    QuestionCard > #prompt-heatmap { margin: 1 1 0 1; }
    """

    def __init__(self, inst: Instance, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.instance = inst

    def compose(self) -> ComposeResult:
        yield Static(card_header(self.instance), id="card-header")
        yield PromptView(CompactMarkdown(self.instance.prompt), id="prompt")
        yield HeatmapView(
            None, title="The heads the question asks about", id="prompt-heatmap", side_by_side=2
        )

    def on_mount(self) -> None:
        self._show_heatmap(self.instance)

    def show(self, inst: Instance) -> None:
        """Shows another question in the same widgets (cheaper than a new card: nothing is mounted)."""
        self.instance = inst
        self.query_one("#card-header", Static).update(card_header(inst))
        self.query_one(PromptView).show(inst)
        self._show_heatmap(inst)

    def _show_heatmap(self, inst: Instance) -> None:
        """A heatmap that is part of the question is drawn under the prompt (others wait for the answer)."""
        view = self.query_one("#prompt-heatmap", HeatmapView)
        shown = inst.prompt_heatmap and inst.heatmap is not None
        view.set_heatmap(inst.heatmap if shown else None)
        view.display = shown


def progress_text(title: str, progress: SessionCounts, number: int | None) -> Text:
    text = Text()
    text.append(f" {shorten(title, TITLE_WIDTH)} ", style="bold reverse")
    if number is not None:
        text.append(f"  card {number}")
    text.append(f"  ·  {progress.done} done")
    if progress.done:
        text.append(f" ({progress.correct} right)")
    left = "endless" if progress.left is None else f"{progress.left} left"
    text.append(f"  ·  {left}")
    return text


class SessionBar(Static):
    """One line above the card: the mode, how many are done and how many are left, then a note on what
    the last key did (the rating saved), which a toast used to say over the card's text at 80x24."""

    DEFAULT_CSS = """
    SessionBar { height: 1; text-wrap: nowrap; text-overflow: ellipsis; }
    """

    _counts = Text()
    _note = ""

    def show(self, title: str, progress: SessionCounts, number: int | None = None) -> None:
        self._counts = progress_text(title, progress, number)
        self._draw()

    def say(self, note: str) -> None:
        """Shows `note` after the counts until the next note ("" takes it away)."""
        if note != self._note:
            self._note = note
            self._draw()

    @property
    def note(self) -> str:
        return self._note

    def _draw(self) -> None:
        text = self._counts.copy()
        if self._note:
            text.append("  ·  ")
            text.append(self._note, style="bold")
        self.update(text)
