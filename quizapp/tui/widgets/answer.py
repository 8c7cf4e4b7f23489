"""Provides the answer inputs, one per kind of question, each posting AnswerSubmitted or RatingChosen.

numeric/tensor/shape: a one-line input with the accepted forms and tolerance under it; choice: an option
list (a selection list when several options may be right); explain: a text area; code: the editor of
quizapp.tui.widgets.code_editor; flashcards: the back and four rating buttons labelled with their next
intervals.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from rich.text import Text
from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.widget import Widget
from textual.widgets import Button, OptionList, Static, TextArea
from textual.widgets.option_list import Option

from quizapp.study.views import EASY_HELD, easy_held
from quizapp.tui.messages import AnswerSubmitted, RatingChosen
from quizapp.tui.widgets.code_editor import CodeArea
from quizapp.tui.widgets.rendered import RenderedBlock, flowing
from quizapp.tui.widgets.scenario import ScenarioInput
from quizapp.tui.widgets.text_boxes import TextBox, TextEditor
from quizapp.tui.widgets.ticklist import TickList

if TYPE_CHECKING:
    from quizapp.content.instance import Instance
    from quizapp.study.session import RatingChoice


class AnswerInput(TextBox):
    """The single-line answer box; Enter submits. In an empty box `h` asks for a hint instead of typing."""

    def check_consume_key(self, key: str, character: str | None) -> bool:
        if key == "h" and not self.value:
            return False  # no answer starts with h: let the screen's hint binding have it
        return super().check_consume_key(key, character)

    async def action_submit(self) -> None:
        self.post_message(AnswerSubmitted(self.value))

    def reset(self, inst: Instance) -> None:
        """Empty, for the next question of a kind that takes a typed answer."""
        self.value = ""
        self.placeholder = input_placeholder(inst)
        self.select_on_focus = True

    def restore(self, answer: str) -> None:
        """The answer Ctrl+Z took back, with the cursor after it: focusing must not select it all, or the
        first key typed to fix it would replace it."""
        self.value = answer
        self.cursor_position = len(answer)
        self.select_on_focus = False


class ChoiceList(OptionList):
    """One correct option: Enter (or a click) on an option submits it, but only one the learner picked:
    the arrows, or the option's letter or number, pick; the option highlighted at first does not, so a
    habitual Enter (after the last card's feedback) never answers for them."""

    MOVES: ClassVar[frozenset[str]] = frozenset({"up", "down", "home", "end", "pageup", "pagedown"})

    def __init__(self, inst: Instance, *, id: str | None = None) -> None:
        super().__init__(*(Option(f"{o.key}) {o.text}", id=o.key) for o in inst.options), id=id)
        self.keys = [o.key for o in inst.options]
        self.picked = False
        """The learner moved to an option or typed its letter or number (set per question)."""

    def on_mount(self) -> None:
        self.highlighted = 0

    def reset(self, inst: Instance) -> None:
        """The options of the next single-answer question, the first highlighted, none picked."""
        self.clear_options()
        self.add_options([Option(f"{o.key}) {o.text}", id=o.key) for o in inst.options])
        self.keys = [o.key for o in inst.options]
        self.highlighted = 0
        self.picked = False

    def restore(self, answer: str) -> None:
        """The option chosen before Ctrl+Z, highlighted and picked again (Enter chooses it again)."""
        if answer in self.keys:
            self.highlighted = self.keys.index(answer)
            self.picked = True

    def on_key(self, event: events.Key) -> None:
        char = (event.character or "").lower()
        if char in self.keys:
            self.highlighted = self.keys.index(char)
            self.picked = True
            event.stop()
        elif char.isdigit() and 1 <= int(char) <= len(self.keys):
            self.highlighted = int(char) - 1
            self.picked = True
            event.stop()
        elif event.key in self.MOVES:
            self.picked = True  # the list's own binding moves the highlight

    def on_click(self) -> None:
        self.picked = True  # a click on an option picks it (the list then selects it)

    def action_select(self) -> None:
        if not self.picked:
            self.notify(
                "Pick an option first: the arrows, or its letter or number; then Enter.",
                title="No option picked",
                severity="warning",
                timeout=4,
            )
            return
        super().action_select()

    @on(OptionList.OptionSelected)
    def _chosen(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.post_message(AnswerSubmitted(event.option.id or ""))


class MultiChoiceList(TickList[str]):
    """Select all that apply: Space (or a letter) ticks an option (`[x]`), Enter submits the ticked set."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "submit", "Submit", tooltip="Submit the ticked options", id="choice.submit"),
    ]

    def __init__(self, inst: Instance, *, id: str | None = None) -> None:
        super().__init__(*((f"{o.key}) {o.text}", o.key) for o in inst.options), id=id)
        self.keys = [o.key for o in inst.options]

    def reset(self, inst: Instance) -> None:
        """The options of the next select-all question, none ticked."""
        self.clear_options()
        self.add_options([(f"{o.key}) {o.text}", o.key) for o in inst.options])
        self.keys = [o.key for o in inst.options]
        self.highlighted = 0

    def restore(self, answer: str) -> None:
        """The options ticked before Ctrl+Z, ticked again (`answer` as action_submit joined them)."""
        for key in answer.split(", "):
            if key in self.keys:
                self.select(key)

    def on_key(self, event: events.Key) -> None:
        if event.character and event.character.lower() in self.keys:
            self.toggle(event.character.lower())
            self.highlighted = self.keys.index(event.character.lower())
            event.stop()

    def action_submit(self) -> None:
        if not self.selected:
            self.notify(
                "Tick at least one option (Space or its letter), then press Enter.", severity="warning"
            )
            return
        self.post_message(AnswerSubmitted(", ".join(sorted(self.selected))))


class ExplainArea(Vertical):
    """A text area for the explanation, submitted with Ctrl+S or the button."""

    DEFAULT_CSS = """
    ExplainArea { height: auto; }
    ExplainArea TextArea { height: 8; }
    ExplainArea Button { margin: 0 0 0 1; }
    """

    def compose(self) -> ComposeResult:
        yield TextEditor(id="explain-text", soft_wrap=True, show_line_numbers=False)
        with Horizontal(classes="buttons"):
            yield Button("Submit (Ctrl+S)", id="explain-submit", variant="primary", compact=True)

    @property
    def text(self) -> str:
        return self.query_one(TextArea).text

    def reset(self, inst: Instance) -> None:
        """Empty and enabled again, for the next explain question."""
        self.query_one(TextArea).clear()

    def restore(self, answer: str) -> None:
        """The explanation Ctrl+Z took back, the cursor at its end (its own undo history starts here, so
        a second Ctrl+Z takes back the answer before, not this text)."""
        area = self.query_one(TextArea)
        area.load_text(answer)
        area.move_cursor(area.document.end)

    @on(Button.Pressed, "#explain-submit")
    def _pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.post_message(AnswerSubmitted(self.text))


class FlashcardBack(Vertical):
    """The back of a flashcard and the four rating buttons, each with its next interval.

    The study screen builds one at the first reveal and `show`s every later flashcard in it: the back
    and the why are Rich Markdown in one widget each (Textual's Markdown mounts a widget per block), and
    the buttons are relabelled, so a reveal mounts nothing."""

    DEFAULT_CSS = """
    FlashcardBack { height: auto; }
    FlashcardBack .ratings { height: auto; }
    FlashcardBack Button { margin: 0 1 0 0; min-width: 14; }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._back = RenderedBlock("", id="flashcard-back")
        self._why_title = Static("Why", classes="section-title")
        self._why = RenderedBlock("", id="flashcard-explanation")
        self._ask = Static("", classes="instructions")
        self._buttons = [
            Button(str(r), id=f"rate-{r}", compact=True, variant="error" if r == 1 else "default")
            for r in (1, 2, 3, 4)
        ]

    def compose(self) -> ComposeResult:
        yield Static("Answer", classes="section-title")
        yield self._back
        yield self._why_title
        yield self._why
        yield self._ask
        with Horizontal(classes="ratings"):
            yield from self._buttons

    def show(self, inst: Instance, choices: tuple[RatingChoice, ...]) -> None:
        """Shows `inst`'s back and why, and labels the buttons with `choices`' next intervals."""
        self._back.update(flowing(str(inst.expected or "")))
        explained = bool(inst.explanation.strip())
        self._why.update(flowing(inst.explanation) if explained else "")
        self._why_title.display = self._why.display = explained
        ask = "How well did you know it? Press 1-4."
        self._ask.update(f"{ask} {EASY_HELD}" if easy_held(choices) else ask)
        labels = {
            c.rating: f"{c.rating} {c.name}" + (f" · {c.interval}" if c.interval else "") for c in choices
        }
        for rating, button in enumerate(self._buttons, start=1):
            button.label = labels.get(rating, "")
            button.display = rating in labels

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if event.button.id and event.button.id.startswith("rate-"):
            self.post_message(RatingChosen(int(event.button.id.removeprefix("rate-"))))


ANSWER_WIDGETS = (AnswerInput, ChoiceList, MultiChoiceList, ExplainArea, CodeArea, ScenarioInput)
"""What `answer_widgets` gives as #answer: each can `reset` for another question of its kind."""
RESTORABLE = (AnswerInput, ChoiceList, MultiChoiceList, ExplainArea)
"""The inputs that take an answer back after Ctrl+Z (`restore`); a code question's editor opens with it
(StudyScreen.prepare), and a case study's steps are answered afresh (each step's verdict leads on)."""


def answer_kind(inst: Instance) -> str:
    """Which input a question takes: questions of one kind can share one input, reset between them."""
    if inst.kind in ("numeric", "tensor", "shape"):
        return "typed"
    if inst.kind == "choice":
        return "multiple" if inst.multiple else "single"
    return inst.kind


def input_placeholder(inst: Instance) -> str:
    if inst.kind == "shape":
        return "e.g. 2, 4" if inst.unordered else "e.g. (2, 8, 128, 64)"
    return f"your answer in {inst.unit or 'a number'}"


HINTS = {
    "single": "Arrows or a letter pick an option; Enter submits.",
    "multiple": "Space or a letter ticks an option; Enter submits.",
    "explain": "Say it as you would in an interview: it is read point by point. Ctrl+S submits.",
    "flashcard": "Recall the answer, then press Space to reveal it.",
    "code": "Write the function in NumPy. Ctrl+R tries it on practice cases (never rated); Ctrl+S "
    "submits it to be graded. Ctrl+E opens $EDITOR; your draft is kept as you type.",
    "scenario": "A case study: answer each step and press Enter; the next step follows and may use your "
    "number. The last asks you to explain your choice.",
}


def answer_hint(inst: Instance) -> Text:
    """The reminder line that goes with the input: the accepted forms, or the keys that answer."""
    kind = answer_kind(inst)
    return Text(inst.answer_hint() if kind == "typed" else HINTS[kind], style="dim")


def answer_widgets(inst: Instance, *, reveal: bool = True) -> list[Widget]:
    """The input that fits the question's kind, with its reminder line where there is one (`reveal`:
    a case study shows each step's verdict as it goes; a mock interview keeps them for the report)."""
    kind = answer_kind(inst)
    hint = Static(
        answer_hint(inst), id="answer-hint", classes="instructions" if kind == "flashcard" else None
    )
    if kind == "typed":
        return [AnswerInput(placeholder=input_placeholder(inst), id="answer"), hint]
    if kind == "multiple":
        return [MultiChoiceList(inst, id="answer"), hint]
    if kind == "single":
        return [ChoiceList(inst, id="answer"), hint]
    if kind == "explain":
        return [hint, ExplainArea(id="answer")]
    if kind == "code":
        return [hint, CodeArea(inst, id="answer")]
    if kind == "scenario":
        return [hint, ScenarioInput(inst, reveal=reveal, id="answer")]
    return [hint]
