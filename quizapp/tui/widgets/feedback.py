"""Provides the panel shown after an answer: the verdict with its diagnosis, derivation, explanation and
heatmap (FeedbackPanel, built hidden with the question and revealed by the answer). Its lines are made in
quizapp.tui.widgets.feedback_text; the explain questions' key points are quizapp.tui.widgets.key_points.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.console import Group
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widget import AwaitMount
from textual.widgets import Static

from quizapp.tui.widgets.derivation import DerivationView
from quizapp.tui.widgets.feedback_text import (
    NEXT_KEYS,
    answer_lines,
    choice_lines,
    chosen_line,
    diagnosis_text,
    rating_choices_line,
    verdict_line,
)
from quizapp.tui.widgets.heatmap import HeatmapView
from quizapp.tui.widgets.rendered import CompactMarkdown, RenderedBlock

REASON_LINES = 7
"""The lines kept for why each chosen option is wrong: a choice question has at most 8 options, one right."""

if TYPE_CHECKING:
    from quizapp.content.instance import Instance
    from quizapp.study.session import Feedback


class FeedbackPanel(Vertical):
    """Everything learned from one answer, top to bottom: verdict, diagnosis, derivation, why, heatmap.

    The study screen keeps one panel and `load`s each question into it, hidden: the derivation, heatmap
    and explanation depend only on the instance, so they are built (and rendered, by `prepare`) while
    the question is being answered, and `show` only fills in the verdict and what it says about the
    answer, then reveals the panel. Nothing is mounted per question: a choice question's lines (why each
    chosen wrong option is wrong, the right answer) are Statics kept hidden between choice questions.
    """

    DEFAULT_CSS = """
    FeedbackPanel { height: auto; }
    FeedbackPanel > #choice-lines { height: auto; }
    """

    def __init__(self, instance: Instance, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.instance = instance
        self.display = False
        self._verdict = Static(id="verdict")
        self._choices = Static(id="rating-choices")
        self._message = Static(id="verdict-message")
        self._diagnosis = Static(id="diagnosis")
        self._reasons = [Static(classes="option-feedback") for _ in range(REASON_LINES)]
        self._choice_answer = Static(id="choice-answer")
        self._option_lines = Vertical(*self._reasons, self._choice_answer, id="choice-lines")
        self._derivation = DerivationView(None, id="derivation")
        self._heatmap = HeatmapView(None, id="feedback-heatmap")
        self._explanation = RenderedBlock("", id="explanation")
        self._next_hint = Static(id="next-hint")
        self.load(instance)

    def compose(self) -> ComposeResult:
        yield self._verdict
        yield self._choices
        yield self._message
        yield self._diagnosis
        yield self._option_lines
        yield self._derivation
        yield self._heatmap
        # A Rich renderable rather than Textual's Markdown: one widget, rendered ahead of time.
        yield self._explanation
        yield self._next_hint

    def load(self, inst: Instance) -> None:
        """Hides the panel and fills in what depends only on `inst`, for its answer to `show` later."""
        self.instance = inst
        self.display = False
        self._verdict.remove_class("correct", "wrong")
        self._choices.display = False
        self._diagnosis.display = False
        worked = inst.derivation is not None and inst.kind in ("numeric", "tensor", "shape", "scenario")
        self._derivation.show_derivation(inst.derivation if worked else None)
        self._derivation.display = worked
        self._heatmap.set_heatmap(inst.heatmap)
        if self._heatmap.show_values:
            self._heatmap.show_values = False
        self._heatmap.display = inst.heatmap is not None
        explained = bool(inst.explanation.strip())
        why: Group | str = (
            Group(Text("Why", style="bold"), CompactMarkdown(inst.explanation)) if explained else ""
        )
        if inst.kind == "code":  # the model answer to read after any verdict
            solution = CompactMarkdown(f"```python\n{str(inst.expected).rstrip()}\n```")
            why = Group(*([why] if explained else []), Text("Model solution", style="bold"), solution)
            explained = True
        self._explanation.update(why)
        self._explanation.display = explained
        closing = Text()
        if inst.source:
            closing.append(f"Source: {inst.source}\n", style="dim")
        closing.append(NEXT_KEYS, style="dim")
        self._next_hint.update(closing)
        for line in (*self._reasons, self._choice_answer):  # built hidden, and hidden again
            line.display = False

    def prepare(self, width: int) -> None:
        """Renders the derivation, heatmap and explanation for a panel `width` wide (its content box)."""
        for block in self.children:
            if isinstance(block, (RenderedBlock, HeatmapView)) and block.display:
                block.prepare(width - block.styles.gutter.width - block.styles.margin.width)

    def show(self, feedback: Feedback) -> AwaitMount | None:
        """Fills in the verdict, what the answer was read as and the diagnosis, and reveals the panel.

        Returns the mount of a choice question's reason lines when it has more wrong options chosen than
        any before it (None otherwise: the lines are kept)."""
        v = feedback.verdict
        self._verdict.add_class("correct" if v.correct else "wrong")
        self.rerated(feedback)
        mounting = None
        if feedback.instance.kind == "choice":
            self._message.update(chosen_line(feedback))
            mounting = self._show_choice_lines(feedback)
        else:
            self._message.update(answer_lines(feedback))
            diagnosis = diagnosis_text(feedback)
            if diagnosis is not None:
                self._diagnosis.update(diagnosis)
                self._diagnosis.display = True
        self._derivation.mark_astray(v.step)
        if v.heatmap is not None:  # a code answer's first failure: expected and yours side by side
            self._heatmap.set_heatmap(v.heatmap)
            self._heatmap.display = True
        self.display = True
        return mounting

    def _show_choice_lines(self, feedback: Feedback) -> AwaitMount | None:
        reasons, answer = choice_lines(feedback)
        mounting = None
        if len(reasons) > len(self._reasons):  # more than any question before: the pool grows, once
            more = [Static(classes="option-feedback") for _ in range(len(reasons) - len(self._reasons))]
            self._reasons += more
            mounting = self._option_lines.mount_all(more, before=self._choice_answer)
        for i, line in enumerate(self._reasons):
            if i < len(reasons):
                line.update(reasons[i])
            line.display = i < len(reasons)
        if answer is not None:
            self._choice_answer.update(answer)
        self._choice_answer.display = answer is not None
        return mounting

    def rerated(self, feedback: Feedback) -> None:
        """Shows the rating saved (suggested, or the user's own) and the keys that change it."""
        self._verdict.update(verdict_line(feedback))
        if feedback.choices:
            self._choices.update(rating_choices_line(feedback))
            self._choices.display = True
