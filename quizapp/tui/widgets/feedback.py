"""Provides the panels shown after an answer: the verdict with its diagnosis, derivation, explanation and
heatmap (FeedbackPanel, built hidden with the question and revealed by the answer), and the explain
questions' model answer with key points to tick (KeyPointsPanel).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from rich.console import Group
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.widget import AwaitMount
from textual.widgets import SelectionList, Static

from quizapp.grading.explain import MARKS, Reading, rating_from_ticks
from quizapp.grading.rating import EASY, HINT_CAPS, RATING_NAMES
from quizapp.study.views import EASY_HELD, easy_held
from quizapp.tui.widgets.derivation import DerivationView
from quizapp.tui.widgets.heatmap import HeatmapView
from quizapp.tui.widgets.rendered import CompactMarkdown, RenderedBlock, flowing
from quizapp.tui.widgets.ticklist import TickList

NEXT_KEYS = "1-4: rate & next · Enter or Space: accept & next · Ctrl+Z: undo · Esc: home"
"""The one rule for keys after an answer, on every kind of question (the help and README say it too)."""
REASON_LINES = 7
"""The lines kept for why each chosen option is wrong: a choice question has at most 8 options, one right."""
DONT_KNOW = "I don't know"
"""The answer the session saves for Ctrl+O (StudySession.dont_know)."""

if TYPE_CHECKING:
    from quizapp.content.instance import Instance
    from quizapp.study.session import ExplainPending, Feedback


def verdict_line(feedback: Feedback) -> Text:
    """✓/✗, the rating it earned, and where the card goes next (or that drill leaves it alone)."""
    v = feedback.verdict
    line = Text()
    inst = feedback.instance
    if inst.kind == "explain":
        badge = f" {len(feedback.covered)}/{len(inst.key_points)} key points "
        line.append(badge, style="bold black on green" if v.correct else "bold white on red")
    elif v.correct:
        line.append(" ✓ Correct ", style="bold black on green")
    else:
        line.append(" ✗ Not quite ", style="bold white on red")
    line.append(f"  rated {RATING_NAMES.get(feedback.rating, '?')}")
    if feedback.hints_used:
        n = feedback.hints_used
        cap = RATING_NAMES[HINT_CAPS[min(n, len(HINT_CAPS) - 1)]]
        line.append(f" ({n} hint{'s' * (n != 1)}: at most {cap})", style="dim")
    if feedback.next_interval:
        line.append(f" · next review in {feedback.next_interval}")
    elif not feedback.scheduled:
        line.append(" · schedule unchanged", style="dim")
    line.append(" · saved", style="dim")
    return line


def answer_lines(feedback: Feedback) -> Text:
    """What was typed, how it was read, and the verdict's own sentence."""
    v = feedback.verdict
    text = Text()
    if feedback.instance.kind == "code":
        text.append(f"Ran {v.parsed} on this review's inputs, edge cases first.\n", style="dim")
    elif feedback.instance.kind not in ("flashcard", "explain"):
        text.append("You answered: ", style="dim")
        text.append(feedback.answer.strip() or "(nothing)")
        if v.parsed and v.parsed != feedback.answer.strip():
            prefix = "  → " if v.parsed.startswith("read as") else "  → read as "
            text.append(prefix, style="dim")
            text.append(v.parsed)
        text.append("\n")
    text.append(v.message)
    if feedback.instance.kind == "explain" and feedback.answer == DONT_KNOW and feedback.instance.key_points:
        text.append("\nKey points an interviewer listens for:", style="bold")
        for point in feedback.instance.key_points:
            text.append(f"\n  • {point}")
    for step in v.steps:  # a case study: each step's own verdict, carried forward where it was
        mark = "✓" if step.verdict.correct else "↪" if step.carried_forward else "✗"
        text.append(f"\n  {mark} step {step.index}: ", style="bold")
        text.append(step.verdict.message)
    return text


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


def rating_choices_line(feedback: Feedback) -> Text:
    """`1 Again 10m · 2 Hard 1d · [3 Good 3d] · 4 Easy 8d`: the saved rating marked, Enter to accept."""
    line = Text()
    line.append("Your call: ", style="bold")
    for i, choice in enumerate(feedback.choices):
        if i:
            line.append(" · ", style="dim")
        saved = choice.rating == feedback.rating
        # the rating saved shows the interval saved, fuzz included, as "next review in" does; the others
        # are before fuzz
        interval = (feedback.next_interval or choice.interval) if saved else choice.interval
        label = f"{choice.rating} {choice.name} {interval}"
        if saved:
            line.append(f"[{label}]", style="bold reverse")
        else:
            line.append(label)
    line.append("\n")
    line.append_text(rating_reason(feedback))
    if easy_held(feedback.choices) and EASY in (feedback.rating, feedback.suggested):
        # only where it applies: said under every answer it pushed the feedback off a 24-row screen
        line.append("\n" + EASY_HELD, style="dim")
    return line


def rating_reason(feedback: Feedback) -> Text:
    """Why the rating was suggested ("Suggested Good: right in 38 s"), or that the saved one is the
    learner's own."""
    suggested = RATING_NAMES.get(feedback.suggested, "?")
    reason = feedback.verdict.reason
    why = reason.split(": ", 1)[-1] if reason else ""
    if not why and feedback.answer == DONT_KNOW:
        why = "you asked for the answer (Ctrl+O)"
    text = Text()
    text.append("Suggested ", style="dim")
    text.append(suggested, style="bold")
    if why:
        text.append(f": {why}")
    if feedback.rating != feedback.suggested:
        text.append(f" (saved: your {RATING_NAMES.get(feedback.rating, '?')})", style="dim")
    return text


def diagnosis_text(feedback: Feedback) -> Text | None:
    """The misconception the answer matches, the step where it goes astray and why (None: no diagnosis)."""
    v = feedback.verdict
    if not v.diagnosis:
        return None
    diag = Text()
    diag.append("Diagnosis: ", style="bold")
    diag.append(v.diagnosis)
    if v.step:
        diag.append(f"  (at the step “{v.step}”)", style="dim")
    if v.explanation:
        diag.append("\n")
        diag.append(v.explanation, style="italic")
    return diag


def chosen_line(feedback: Feedback) -> Text:
    """For choice questions: the options the user chose."""
    v = feedback.verdict
    by_key = {o.key: o for o in feedback.instance.options}
    chosen = sorted(v.value) if isinstance(v.value, frozenset) else []
    text = Text()
    text.append("You chose: ", style="dim")
    text.append(", ".join(f"{k}) {by_key[k].text}" for k in chosen if k in by_key) or "nothing")
    return text


def choice_lines(feedback: Feedback) -> tuple[list[Text], Text | None]:
    """For choice questions: why each chosen wrong option is wrong, then the right answer, said once
    (None after a right answer).

    "You chose" above already names the options chosen, so a wrong one is named by its letter; the right
    options are listed only in the answer line (they were also listed as "missed", the answer twice)."""
    v = feedback.verdict
    lines: list[Text] = []
    for opt in v.option_feedback:
        line = Text()
        line.append(f"✗ {opt.key}) ", style="bold red")
        line.append(opt.feedback)
        lines.append(line)
    if v.correct:
        return lines, None
    right = [o for o in feedback.instance.options if o.correct]
    answer = Text()
    answer.append("Correct answer: " if len(right) == 1 else "Correct answers: ", style="bold")
    for i, option in enumerate(right):
        if i:
            answer.append(" · ", style="dim")
        answer.append(f"{option.key}) {option.text}")
        if len(right) > 1 and option.key in v.missed_options:
            answer.append(" (you left it out)", style="dim")
    return lines, answer


class KeyPointList(TickList[int]):
    """The key points as the reader found them; Space changes a tick (`[x]`), Enter saves the rating."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "done", "Save", tooltip="Save the key points as ticked", id="keypoints.done"),
    ]

    async def action_done(self) -> None:
        await self.screen.run_action("finish_explain")


STATUS_STYLES = {"covered": "bold green", "missing": "dim", "contradicted": "bold red"}
"""How each status is drawn: the mark (✓ · ✗) says it too, for a terminal without colour."""


class KeyPointsPanel(Vertical):
    """An explanation read point by point: each key point's status with the words that decided it, the
    misconceptions with their corrections, the answer with its evidence marked, then the model answer.
    The ticks start from the points read as covered; the learner has the last word before it is saved."""

    DEFAULT_CSS = """
    KeyPointsPanel { height: auto; }
    KeyPointsPanel KeyPointList { height: auto; max-height: 30; }
    KeyPointsPanel #key-point-full { margin: 0 0 0 2; }
    KeyPointsPanel #explain-rating { margin: 0 0 1 0; }
    """

    def __init__(self, pending: ExplainPending | None = None, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.pending = pending
        self.reading: Reading | None = None
        self._instructions = Static("", classes="instructions")
        self._points: KeyPointList = KeyPointList(id="key-points")
        self._full = Static("", id="key-point-full")
        self._rating_line = Static("", id="explain-rating")
        self._misconceptions = Static("", id="misconceptions")
        self._marked = Static("", id="marked-answer")
        self._model = RenderedBlock("", id="model-answer")

    def compose(self) -> ComposeResult:
        yield self._instructions
        # One line each, cut with an ellipsis: Textual's SelectionList draws a wrapped prompt's second line
        # with a checkbox of its own and shifts every point after it, so the boxes no longer match the
        # points. The highlighted point is shown in full under the list: nothing is ticked unread.
        yield self._points
        yield self._full
        yield self._rating_line
        yield self._misconceptions
        yield self._marked
        yield Static("Model answer", classes="section-title")
        yield self._model

    def on_mount(self) -> None:
        if self.pending is not None:
            self.show(self.pending)

    def show(self, pending: ExplainPending) -> None:
        """Shows the reading of another explanation in the same widgets (the study screen keeps one
        panel: a new one per explain question mounted some dozen widgets)."""
        self.pending = pending
        reading = pending.reading if pending.reading is not None and pending.reading.readable else None
        self.reading = reading
        self._instructions.update(
            "Tick the key points your answer covered (Space), then press Enter or Ctrl+S to save."
            if reading is None
            else "Your answer, read point by point (✓ covered · ✗ stated wrongly · · missing). "
            "Space changes a tick if the reading is wrong; Enter or Ctrl+S saves."
        )
        covered = reading.covered() if reading is not None else frozenset()
        points = self._points
        points.clear_options()
        points.add_options([(self._line(i), i, i in covered) for i in range(len(pending.key_points))])
        points.highlighted = 0 if pending.key_points else None
        self._full.update(self._in_full(0))
        self._rating_line.display = self._marked.display = reading is not None
        self._misconceptions.display = reading is not None and bool(reading.misconceptions)
        if reading is not None:
            self._rating_line.update(self._rating(covered))
            if reading.misconceptions:
                self._misconceptions.update(misconceptions_text(reading))
            self._marked.update(marked_answer(pending.answer, reading))
        self._model.update(flowing(pending.model_answer))

    def _line(self, index: int) -> Text:
        assert self.pending is not None
        point = self.pending.key_points[index]
        if self.reading is None:
            return Text(f"{index + 1}. {point}", no_wrap=True, overflow="ellipsis")
        status = self.reading.points[index].status
        line = Text(no_wrap=True, overflow="ellipsis")
        line.append(f"{MARKS[status]} ", style=STATUS_STYLES[status])
        line.append(f"{index + 1}. {point}")
        return line

    def _in_full(self, index: int) -> Text:
        points = self.pending.key_points if self.pending is not None else ()
        if not 0 <= index < len(points):
            return Text("")
        text = Text(f"{index + 1}. {points[index]}")
        if self.reading is not None:
            p = self.reading.points[index]
            words = {"covered": "covered", "missing": "missing", "contradicted": "stated wrongly"}[p.status]
            text.append(f"\n{MARKS[p.status]} {words}", style=STATUS_STYLES[p.status])
            if p.evidence is not None and p.status != "missing":
                text.append(f": “{p.evidence.text}”", style="italic")
            if p.core:
                text.append("  (the core point)", style="dim")
        return text

    def _rating(self, ticked: frozenset[int]) -> Text:
        assert self.reading is not None
        rating, reason = rating_from_ticks(self.reading.points, ticked, self.reading.misconceptions)
        text = Text()
        text.append("Suggested ", style="dim")
        text.append(RATING_NAMES[rating], style="bold")
        text.append(f": {reason.split(': ', 1)[-1]}")
        if ticked != self.reading.covered():
            text.append(" (with your ticks)", style="dim")
        return text

    @on(SelectionList.SelectionHighlighted, "#key-points")
    def _show_in_full(self, event: SelectionList.SelectionHighlighted[int]) -> None:
        self._full.update(self._in_full(event.selection_index))

    @on(SelectionList.SelectedChanged, "#key-points")
    def _rerate(self, event: SelectionList.SelectedChanged[int]) -> None:
        if self.reading is not None:
            self._rating_line.update(self._rating(frozenset(self.ticked)))

    @property
    def ticked(self) -> list[int]:
        return list(self._points.selected)


def misconceptions_text(reading: Reading) -> Text:
    """Each misconception found, the words that stated it, and its correction."""
    text = Text()
    for n, m in enumerate(reading.misconceptions):
        if n:
            text.append("\n")
        text.append("✗ Misconception: ", style="bold red")
        text.append(m.text)
        text.append(f"  “{m.evidence.text}”", style="italic")
        text.append("\n  Correction: ", style="bold")
        text.append(m.correction)
    return text


def marked_answer(answer: str, reading: Reading) -> Text:
    """The answer as typed, with the words behind each covered point underlined in green and those
    behind a contradiction in red."""
    text = Text()
    text.append("Your answer\n", style="bold")
    body = Text(answer.strip())
    offset = len(answer) - len(answer.lstrip())
    for p in reading.points:
        if p.evidence is not None and p.status != "missing":
            style = "underline green" if p.status == "covered" else "underline red"
            body.stylize(style, p.evidence.start - offset, p.evidence.end - offset)
    for m in reading.misconceptions:
        body.stylize("underline red", m.evidence.start - offset, m.evidence.end - offset)
    text.append_text(body)
    return text
