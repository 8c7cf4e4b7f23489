"""Provides the explain questions' key-point panel: each key point as the answer was read (covered,
missing or stated wrongly) with the words that decided it, ticks the learner can change before the rating
is saved, the misconceptions found with their corrections, the answer with its evidence marked, and the
model answer (KeyPointsPanel, KeyPointList).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.widgets import SelectionList, Static

from quizapp.grading.explain_reading import MARKS, Reading, core_unfound, rating_from_ticks
from quizapp.grading.rating import RATING_NAMES
from quizapp.tui.widgets.rendered import RenderedBlock, flowing
from quizapp.tui.widgets.ticklist import TickList

if TYPE_CHECKING:
    from quizapp.study.session import ExplainPending


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
        unfound = core_unfound(self.reading.points, ticked, self.reading.misconceptions)
        if unfound is not None:
            text.append(
                f"\nSaid point {unfound.number} in other words? Tick it: {RATING_NAMES[unfound.rating]}",
                style="dim",
            )
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
