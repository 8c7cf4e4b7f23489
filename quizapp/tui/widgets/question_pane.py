"""Provides QuestionPane: the question asked and the input that answers it, shared by the study screen and
the mock interview.

The pane is built once per screen and shows each new question in the same widgets: the card is filled
in again, and each kind of input (a typed box, an option list, a text area, the code editor, a case
study's steps) is built with the first question of its kind, then kept: shown and reset for the next
question of that kind, hidden for the others. Nothing is mounted or removed per question (remounting
some 25 widgets per question took about 100 ms and left their strips and styles to the garbage
collector; a new code editor compiled tree-sitter's highlight query, up to 185 ms).
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
    ExplainArea,
    MultiChoiceList,
    answer_hint,
    answer_kind,
    answer_widgets,
)
from quizapp.tui.widgets.code_editor import CodeArea
from quizapp.tui.widgets.question_card import QuestionCard
from quizapp.tui.widgets.ticklist import BOX_WIDTH

if TYPE_CHECKING:
    from quizapp.content.instance import Instance


BUILD_AHEAD_S = 0.5
"""Seconds after a question is drawn before an input of a kind asked later is built (one at a time): the
question is drawn and read first, and the later question only fills its input in."""


class AnswerSlot(Vertical):
    """The input of one kind of question with its reminder line: built once, shown or hidden."""

    DEFAULT_CSS = """
    AnswerSlot { height: auto; }
    """


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
        self._slots: dict[str, AnswerSlot] = {}
        """The input of each kind of question shown so far, by `answer_kind`."""
        self._slot: AnswerSlot | None = None

    def compose(self) -> ComposeResult:
        yield QuestionCard(self.instance, id="card")
        yield self._slot_for(self.instance)
        yield Static("", id="answer-error")

    def _slot_for(self, inst: Instance) -> AnswerSlot:
        self._slot = self._built(inst)
        return self._slot

    def _built(self, inst: Instance) -> AnswerSlot:
        """A new input for `inst`'s kind, kept as that kind's."""
        slot = self._slots[answer_kind(inst)] = AnswerSlot(*answer_widgets(inst, reveal=self.reveal))
        return slot

    async def build_ahead(self, inst: Instance) -> bool:
        """Builds the input of `inst`'s kind, hidden, when no question of that kind was shown yet: the
        first question of the kind then only fills it in. Called while a question is read (a code
        editor compiles tree-sitter's highlight query as it is built, some 20 ms the next key waited for
        otherwise). True if it was built now."""
        if answer_kind(inst) in self._slots:
            return False
        slot = self._built(inst)
        slot.display = False
        await self.mount(slot, before=self.error_line)
        return True

    @property
    def slot(self) -> AnswerSlot:
        """The input shown now, with its reminder: where `#answer` is looked up (the hidden kinds have
        one each too)."""
        assert self._slot is not None, "composed"
        return self._slot

    def on_mount(self) -> None:
        self.error_line.display = False

    @property
    def error_line(self) -> Static:
        return self.query_one("#answer-error", Static)  # kept for the pane's life: a cached lookup is safe

    async def show(self, inst: Instance) -> bool:
        """Shows `inst` in the widgets the last question used; the input starts empty and enabled. True
        if its input was built now (the first question of its kind)."""
        self.instance = inst
        self.error_line.display = False
        card = self.query_one(QuestionCard)
        card.show(inst)
        kind = answer_kind(inst)
        slot = self._slots.get(kind)
        if slot is None:  # the first question of its kind: its input is built, and kept
            await self.mount(self._slot_for(inst), after=card)
        else:
            if slot is not self._slot:
                # First after the card: a screen's lookup of #answer (breadth first) finds the one shown.
                self.move_child(slot, after=card)
            self._slot = slot
            for widget in slot.query("#answer, #answer *").results(Widget):
                widget.disabled = False
            for field in slot.query_children("#answer"):
                if isinstance(field, ANSWER_WIDGETS):
                    field.reset(inst)
            self.hint_line(answer_hint(inst))
        for other in self._slots.values():
            other.display = other is self._slot
        self._kind = kind
        return slot is None

    def restore_answer(self, answer: str) -> bool:
        """Puts the answer Ctrl+Z took back in the input, to fix rather than retype; False when this input
        does not take one back (see RESTORABLE)."""
        for field in self.slot.query_children("#answer"):
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
        for line in self.slot.query_children("#answer-hint").results(Static):
            line.update(text)

    def show_error(self, message: str) -> Widget:
        """Says why the answer could not be read, and returns the line that says it; the question stays
        open. Under the input; for code, above the editor (which shrinks meanwhile): at 80x24 a line
        under an editor of half the screen was below the bottom edge."""
        for area in self.slot.query_children(CodeArea).results(CodeArea):
            return area.show_error(message)
        self.error_line.update(Text(message, style="red"))
        self.error_line.display = True
        return self.error_line

    def hide_error(self) -> None:
        self.error_line.display = False
        for area in self.slot.query_children(CodeArea).results(CodeArea):
            area.show_error("")

    def focus_answer(self) -> bool:
        """Focuses the input without scrolling to it (the screen decides where a long question opens);
        False when the question has no input (a flashcard)."""
        found = self.slot.query_children("#answer")
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
        found = self.slot.query_children("#answer")
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
