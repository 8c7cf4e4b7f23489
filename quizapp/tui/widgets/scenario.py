"""Provides ScenarioInput: a case study asked one step at a time, as an interviewer would.

The current step's question and an answer box; Enter grades that step (quizapp.grading.scenario, so a
wrong earlier number is carried forward) and brings the next one, with the earlier steps and their
verdicts above it; a case study with a part in words asks it last, in the same box, and shows each key
point as read. After the last step the whole answer (steps joined by `;`) is posted as one
AnswerSubmitted, so the screen grades and saves the case study as one card. In a mock interview the
verdicts stay hidden until the report (`reveal=False`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Input, Static

from quizapp.grading.explain_reading import MARKS
from quizapp.grading.scenario import grade_follow_up, grade_step, part_of, parts_of
from quizapp.grading.verdict import StepVerdict
from quizapp.tui.messages import AnswerSubmitted
from quizapp.tui.widgets.key_points import STATUS_STYLES
from quizapp.tui.widgets.study_body import StudyBody
from quizapp.tui.widgets.text_boxes import TextBox

if TYPE_CHECKING:
    from quizapp.content.instance import Instance


def step_line(inst: Instance, k: int, answer: str, verdict: StepVerdict | None) -> Text:
    """One answered step: its question, what was typed and, when shown, the verdict's own sentence (for
    the part in words, each key point's mark)."""
    text = Text()
    text.append(f"Step {k + 1} of {parts_of(inst)}: ", style="bold")
    text.append(part_of(inst, k + 1).prompt.strip() + "\n")
    text.append("  You answered: ", style="dim")
    text.append(answer or "(nothing)")
    if verdict is not None:
        v = verdict.verdict
        if v.correct:
            mark, style = "  ✓ ", "green"
        elif verdict.carried_forward:
            mark, style = "  ↪ carried forward ", "yellow"
        else:
            mark, style = "  ✗ ", "red"
        text.append("\n" + mark, style=f"bold {style}")
        text.append(v.message)
        if v.reading is not None and v.reading.readable:
            for p in v.reading.points:
                text.append(f"\n    {MARKS[p.status]} {p.index + 1}. {p.text}", style=STATUS_STYLES[p.status])
                if p.evidence is not None and p.status != "missing":
                    text.append(f"  “{p.evidence.text}”", style="italic dim")
    return text


class ScenarioInput(Vertical):
    """The steps answered so far, the step being asked, and its answer box."""

    DEFAULT_CSS = """
    ScenarioInput { height: auto; }
    ScenarioInput #scenario-done { height: auto; margin-bottom: 1; }
    ScenarioInput #scenario-step { height: auto; }
    """

    def __init__(self, inst: Instance, *, reveal: bool = True, id: str | None = None) -> None:
        super().__init__(id=id)
        self.instance = inst
        self.reveal = reveal
        self.answers: list[str] = []
        self.verdicts: list[StepVerdict] = []

    def compose(self) -> ComposeResult:
        yield Static("", id="scenario-done")
        yield Static("", id="scenario-step")
        yield TextBox(placeholder=self._placeholder(), id="scenario-input")

    def on_mount(self) -> None:
        self._draw()

    @property
    def step(self) -> int:
        """The step being asked, from 0."""
        return len(self.answers)

    def reset(self, inst: Instance) -> None:
        """Step 1 of the next case study (the last one's end hid the step and the box)."""
        self.instance = inst
        self.answers, self.verdicts = [], []
        box = self.query_one("#scenario-input", Input)
        box.value = ""
        box.display = True
        self.query_one("#scenario-step", Static).display = True
        self._draw()

    def focus(self, scroll_visible: bool = True) -> ScenarioInput:
        self.query_one("#scenario-input", Input).focus(scroll_visible=scroll_visible)
        return self

    def _placeholder(self) -> str:
        steps = self.instance.steps
        if self.step >= len(steps) and self.instance.follow_up is not None:
            return f"step {self.step + 1}: say why, in a sentence or two (Enter submits)"
        unit = steps[self.step].unit if self.step < len(steps) else ""
        return f"step {min(self.step + 1, len(steps))}: your answer in {unit or 'a number'}"

    def _draw(self) -> None:
        inst = self.instance
        done = Text("\n\n").join(
            step_line(inst, k, a, self.verdicts[k] if self.reveal else None)
            for k, a in enumerate(self.answers)
        )
        box = self.query_one("#scenario-done", Static)
        box.update(done)
        box.display = bool(self.answers)
        current = self.query_one("#scenario-step", Static)
        if self.step < parts_of(inst):
            part = part_of(inst, self.step + 1)
            text = Text()
            text.append(f"Step {self.step + 1} of {parts_of(inst)}: ", style="bold")
            text.append(part.prompt.strip())
            hint = (
                part.answer_hint()
                if part.kind != "explain"
                else "In words, as you would say it; read point by point."
            )
            if hint:
                text.append("\n" + hint, style="dim")
            current.update(text)
        self.query_one("#scenario-input", Input).placeholder = self._placeholder()

    @on(Input.Submitted, "#scenario-input")
    def _answered(self, event: Input.Submitted) -> None:
        """Grades this step; an unreadable answer stays to be fixed, a readable one brings the next step."""
        event.stop()
        inst, k = self.instance, self.step
        if k >= parts_of(inst) or not event.value.strip():
            return
        if k < len(inst.steps):
            verdict = grade_step(inst, k, [*self.answers, event.value], self.verdicts)
        else:  # the part in words
            verdict = grade_follow_up(inst, event.value)
        if verdict.verdict.unparseable:
            self.query_one("#scenario-step", Static).update(
                Text(inst.steps[k].prompt.strip() + "\n") + Text(verdict.verdict.message, style="red")
            )
            self._in_view()
            return
        self.answers.append(event.value.strip())
        self.verdicts.append(verdict)
        event.input.value = ""
        if self.step == parts_of(inst):
            self.query_one("#scenario-step", Static).display = False
            event.input.display = False
            self._draw()
            self.post_message(AnswerSubmitted("; ".join(self.answers)))
            return
        self._draw()
        self._in_view()

    def _in_view(self) -> None:
        """The step just shown under the earlier ones, and its box, in view on the study screen (three
        steps in, at 80x24, they were below the bottom edge), in the frame that draws them."""
        for ancestor in self.ancestors:
            if isinstance(ancestor, StudyBody):
                ancestor.show_end_of(self)
                return
