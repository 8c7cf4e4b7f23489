"""Provides QuestionPane: the question asked and the input that answers it, shared by the study screen and
the mock interview.

The pane is built once per screen and shows each new question in the same widgets: the card is filled
in again, the input is reset when the new question takes the same kind of answer, and only an input of
another kind is swapped (remounting some 25 widgets per question took about 100 ms and left their
strips and styles to the garbage collector).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widget import Widget
from textual.widgets import Input, SelectionList, Static, TextArea

from quizapp.tui.widgets.answer import (
    ANSWER_WIDGETS,
    RESTORABLE,
    CodeArea,
    ExplainArea,
    MultiChoiceList,
    answer_hint,
    answer_kind,
    answer_widgets,
)
from quizapp.tui.widgets.drawing import forget_drawing
from quizapp.tui.widgets.question_card import QuestionCard
from quizapp.tui.widgets.ticklist import BOX_WIDTH

if TYPE_CHECKING:
    from quizapp.content.instance import Instance


class QuestionPane(Vertical):
    """Card (deck, stars, prompt), the input that fits the question, its reminder line, and the line that
    says why an answer could not be read."""

    DEFAULT_CSS = """
    QuestionPane { height: auto; }
    """

    def __init__(self, inst: Instance, *, reveal: bool = True, id: str | None = None) -> None:
        super().__init__(id=id)
        self.instance = inst
        self._kind = answer_kind(inst)
        self.reveal = reveal
        """A case study shows each step's verdict as it goes; a mock interview keeps them for its report."""

    def compose(self) -> ComposeResult:
        yield QuestionCard(self.instance, id="card")
        yield from answer_widgets(self.instance, reveal=self.reveal)
        yield Static("", id="answer-error")

    def on_mount(self) -> None:
        self.error_line.display = False

    @property
    def error_line(self) -> Static:
        return self.query_one("#answer-error", Static)  # kept for the pane's life: a cached lookup is safe

    async def show(self, inst: Instance) -> None:
        """Shows `inst` in the widgets the last question used; the input starts empty and enabled."""
        self.instance = inst
        self.error_line.display = False
        self.query_one(QuestionCard).show(inst)
        kind = answer_kind(inst)
        if kind == self._kind and inst.kind != "scenario":  # a case study's steps are built afresh
            for widget in self.query("#answer, #answer *").results(Widget):
                widget.disabled = False
            for field in self.query("#answer"):
                if isinstance(field, ANSWER_WIDGETS):
                    field.reset(inst)
            self.hint_line(answer_hint(inst))
            return
        # Looked up with query, not query_one: these widgets come and go, and query_one keeps its results.
        leaving = self.query("#answer, #answer-hint")
        forget_drawing(leaving)
        await leaving.remove()
        await self.mount_all(answer_widgets(inst, reveal=self.reveal), before=self.error_line)
        self._kind = kind

    def restore_answer(self, answer: str) -> bool:
        """Puts the answer Ctrl+Z took back in the input, to fix rather than retype; False when this input
        does not take one back (see RESTORABLE)."""
        for field in self.query("#answer"):
            if isinstance(field, RESTORABLE):
                field.restore(answer)
                return True
        return False

    @on(SelectionList.SelectionHighlighted, "#answer")
    def _option_in_full(self, event: SelectionList.SelectionHighlighted[str]) -> None:
        """A select-all option wider than the list is cut with an ellipsis (wrapped, Textual's
        SelectionList would give each of its lines a checkbox and shift the rest): the highlighted one
        is shown whole above the reminder, so no option is ticked unread."""
        self._highlighted_in_full(event.selection_list)

    def _highlighted_in_full(self, options: SelectionList[str], tries: int = 3) -> None:
        width = options.scrollable_content_region.width
        if not width:  # a list just mounted is not laid out yet: measure it once it is drawn
            if tries and options.is_attached:
                self.call_after_refresh(self._highlighted_in_full, options, tries - 1)
            return
        hint = answer_hint(self.instance)
        if options.highlighted is not None:
            prompt = options.get_option_at_index(options.highlighted).prompt
            text = str(getattr(prompt, "plain", prompt))
            if len(text) + BOX_WIDTH > width:
                hint = Text.assemble(Text(text), "\n", hint)
        self.hint_line(hint)

    def hint_line(self, text: Text) -> None:
        """Replaces the reminder under the input (the accepted forms, or "Running your code…")."""
        for line in self.query("#answer-hint").results(Static):
            line.update(text)

    def show_error(self, message: str) -> Widget:
        """Says why the answer could not be read, and returns the line that says it; the question stays
        open. Under the input; for code, above the editor (which shrinks meanwhile): at 80x24 a line
        under an editor of half the screen was below the bottom edge."""
        for area in self.query(CodeArea).results(CodeArea):
            return area.show_error(message)
        self.error_line.update(Text(message, style="red"))
        self.error_line.display = True
        return self.error_line

    def hide_error(self) -> None:
        self.error_line.display = False
        for area in self.query(CodeArea).results(CodeArea):
            area.show_error("")

    def focus_answer(self) -> bool:
        """Focuses the input without scrolling to it (the screen decides where a long question opens);
        False when the question has no input (a flashcard)."""
        found = self.query("#answer")
        if not found:
            return False
        widget = found.first()
        if isinstance(widget, (ExplainArea, CodeArea)):
            widget.query(TextArea).first().focus(scroll_visible=False)
        else:
            widget.focus(scroll_visible=False)
        return True

    def answer_text(self) -> str:
        """What the input holds right now (a highlighted option is not an answer until chosen)."""
        found = self.query("#answer")
        if not found:
            return ""
        widget = found.first()
        if isinstance(widget, Input):
            return widget.value
        if isinstance(widget, MultiChoiceList):
            return ", ".join(sorted(widget.selected))
        if isinstance(widget, (ExplainArea, CodeArea)):
            return widget.text
        return ""
