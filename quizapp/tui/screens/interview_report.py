"""Provides InterviewReportScreen: a finished (or reopened) mock interview's report.

Top to bottom: the score, the score per topic, a table with the time and result of every question, then
each question with the user's answer, the expected answer, the diagnosis and the worked derivation. The
numbers and words come from quizapp.interview.report; this screen only lays them out.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.widgets import Header, Static

from quizapp.grading.explain_reading import MARKS, Reading
from quizapp.tui.screens.base import QuizScreen
from quizapp.tui.widgets.derivation import DerivationView
from quizapp.tui.widgets.footer import KeyFooter
from quizapp.tui.widgets.key_points import STATUS_STYLES, misconceptions_text
from quizapp.tui.widgets.rendered import CompactMarkdown, RenderedBlock

if TYPE_CHECKING:
    from collections.abc import Sequence

    from quizapp.interview.report import InterviewReport, ReportItem

OUTCOME_STYLES = {
    "right": "bold green",
    "partly": "bold yellow",
    "wrong": "bold red",
    "skipped": "yellow",
    "no answer": "yellow",
    "compare": "cyan",
}
OUTCOME_MARKS = {"right": "✓", "partly": "◐", "wrong": "✗", "skipped": "–", "no answer": "–", "compare": "?"}


def summary_text(report: InterviewReport) -> Text:
    """The score line, the time used and what happened to the schedule."""
    text = Text()
    text.append("Score: ", style="bold")
    text.append(report.score_text)
    text.append("\nTime: ", style="bold")
    text.append(report.time_text)
    text.append("\nSchedule: ", style="bold")
    if report.update_schedule:
        schedule = "these answers updated your review schedule"
    elif report.misses_to_review:
        schedule = "the questions you missed are due for review now; the rest of your schedule is unchanged"
    else:
        schedule = "logged as interview answers; your review schedule is unchanged"
    text.append(schedule, style="dim")
    return text


def topics_table(report: InterviewReport) -> Table:
    table = Table(box=None, padding=(0, 2, 0, 0), show_edge=False, header_style="bold")
    table.add_column("Topic")
    table.add_column("Score", justify="right")
    table.add_column("Asked", justify="right")
    for t in report.topics:
        table.add_row(t.topic, t.text, str(t.asked))
    return table


def questions_table(report: InterviewReport) -> Table:
    """One row per question: number, topic, result, time against the question's target, flag."""
    table = Table(box=None, padding=(0, 2, 0, 0), show_edge=False, header_style="bold")
    table.add_column("#", justify="right")
    table.add_column("Topic", overflow="ellipsis", no_wrap=True, max_width=22)
    table.add_column("Result")
    table.add_column("Time / target")
    table.add_column("", no_wrap=True)
    for item in report.items:
        outcome = item.outcome
        time = Text(item.time_text, style="red" if item.over_time else "")
        table.add_row(
            str(item.number),
            item.topic,
            Text(f"{OUTCOME_MARKS[outcome]} {outcome}", style=OUTCOME_STYLES[outcome]),
            time,
            Text("⚑", style="bold yellow") if item.flagged else "",
        )
    return table


def item_heading(item: ReportItem) -> Text:
    outcome = item.outcome
    text = Text()
    text.append(f"Q{item.number} ", style="bold")
    text.append(f"{OUTCOME_MARKS[outcome]} {outcome}", style=OUTCOME_STYLES[outcome])
    text.append(f"  ·  {item.deck_title}  ·  {item.time_text}", style="dim")
    if item.flagged:
        text.append("  ⚑ flagged", style="bold yellow")
    return text


def answer_text(item: ReportItem) -> Text:
    text = Text()
    if item.kind == "code":  # the code and the model solution follow as code blocks
        lines = len(item.answer.strip().splitlines())
        text.append("Your code: ", style="bold")
        text.append(f"{lines} line(s), below" if lines else "(none)", style="dim")
    else:
        text.append("Your answer: ", style="bold")
        text.append(item.answer.strip() or "(none)", style="" if item.answer.strip() else "dim")
    if item.kind not in ("explain", "code"):
        text.append("\nExpected: ", style="bold")
        text.append(item.expected)
    if item.diagnosis:
        text.append("\nDiagnosis: ", style="bold")
        text.append(item.diagnosis)
        if item.astray_step:
            text.append(f"  (at the step “{item.astray_step}”)", style="dim")
    return text


def reading_lines(reading: Reading) -> Text:
    """An explanation's key points as they were read, each with its mark and evidence, then each
    misconception with its correction."""
    text = Text("Key points, as read:", style="bold")
    for p in reading.points:
        text.append(f"\n  {MARKS[p.status]} ", style=STATUS_STYLES[p.status])
        text.append(f"{p.index + 1}. {p.text}", style="")
        if p.evidence is not None and p.status != "missing":
            text.append(f"  “{p.evidence.text}”", style="italic dim")
    if reading.misconceptions:
        text.append("\n")
        text.append_text(misconceptions_text(reading))
    return text


def _markdown(text: str, classes: str) -> RenderedBlock:
    return RenderedBlock(CompactMarkdown(text), classes=classes)


class ReportItemView(Vertical):
    """One question of the report: heading, prompt, answers, diagnosis, then derivation or model answer."""

    def __init__(self, item: ReportItem) -> None:
        super().__init__(classes="report-item")
        self.item = item

    def compose(self) -> ComposeResult:
        item = self.item
        yield Static(item_heading(item), classes="item-heading")
        # Rich Markdown in one widget each (as the study screen shows prompts), not Textual's Markdown: a
        # widget per paragraph or code block, for every question, held the report's first frame 0.1 s.
        yield _markdown(item.prompt, "item-prompt")
        yield Static(answer_text(item), classes="item-answer")
        if item.derivation is not None:
            yield DerivationView(item.derivation, astray_step=item.astray_step)
        if item.kind == "code":
            if item.answer.strip():
                yield _markdown(f"```python\n{item.answer.rstrip()}\n```", "item-model")
            yield Static(Text("Model solution", style="bold"), classes="item-subtitle")
            yield _markdown(f"```python\n{item.expected.rstrip()}\n```", "item-model")
        if item.kind == "explain":
            if item.reading is not None and item.reading.readable:
                yield Static(reading_lines(item.reading), classes="item-points")
            yield Static(Text("Model answer", style="bold"), classes="item-subtitle")
            yield _markdown(item.expected, "item-model")
            if item.key_points and (item.reading is None or not item.reading.readable):
                points = Text("Key points to compare with:", style="bold")
                for point in item.key_points:
                    points.append(f"\n  • {point}", style="")
                yield Static(points, classes="item-points")


class InterviewReportScreen(QuizScreen[None]):
    """The report; arrows and PgUp/PgDn scroll it, Escape leaves, n starts another interview."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "app.pop_screen", "Back", tooltip="Leave the report", id="interview_report.back"),
        Binding("n", "new", "New interview", tooltip="Set up another interview", id="interview_report.new"),
        Binding(
            "p", "history", "Past interviews", tooltip="Every saved interview", id="interview_report.history"
        ),
    ]

    def __init__(self, report: InterviewReport) -> None:
        super().__init__()
        self.report = report

    def compose(self) -> ComposeResult:
        report = self.report
        yield Header()
        with VerticalScroll(id="report-body"):
            yield Static(Text(report.title, style="bold"), id="report-title")
            yield Static(summary_text(report), id="report-score")
            yield Static(Text("Per topic", style="bold"), classes="report-section")
            yield Static(topics_table(report), id="report-topics")
            yield Static(Text("Time per question", style="bold"), classes="report-section")
            yield Static(questions_table(report), id="report-questions")
            yield Static(Text("Each question", style="bold"), classes="report-section")
            yield from (ReportItemView(item) for item in report.items[:1])  # the rest: _mount_items
            if report.not_reached:
                yield Static(
                    Text(f"{report.not_reached} question(s) were not reached before the end.", style="dim"),
                    id="report-not-reached",
                )
        yield KeyFooter()

    def on_mount(self) -> None:
        self.title = "Interview report"
        self.sub_title = self.report.headline
        self.query_one("#report-body").focus()
        self.call_after_refresh(self._mount_items, self.report.items[1:])

    async def _mount_items(self, items: Sequence[ReportItem]) -> None:
        """Mounts the questions after the first one, one per frame: laying out and drawing each one's
        worked derivation took 10 ms and more, and all of them at once held the report's first frame
        (the score and tables, all that fits the screen) for over 0.1 s."""
        if not items or not self.is_attached:
            return
        body = self.query_one("#report-body")
        after = body.query_children("#report-not-reached")
        await body.mount(ReportItemView(items[0]), before=after.first() if after else None)
        self.call_after_refresh(self._mount_items, items[1:])

    def action_new(self) -> None:

        self.router.open_screen("interview", replace=True)

    def action_history(self) -> None:

        self.router.open_screen("history")
