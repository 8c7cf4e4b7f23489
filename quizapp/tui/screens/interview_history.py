"""Provides InterviewHistoryScreen: every saved mock interview, newest first, to reopen its report."""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.widgets import DataTable, Header, Static

from quizapp.interview.report import summary_line
from quizapp.interview.session import open_report as read_report
from quizapp.tui.guard import on
from quizapp.tui.screens.base import QuizScreen
from quizapp.tui.widgets.footer import KeyFooter

if TYPE_CHECKING:
    from quizapp.interview.report import InterviewReport
    from quizapp.records.interviews import InterviewSummary


class InterviewHistoryScreen(QuizScreen[None]):
    """A table of past interviews; Enter (or a click) opens the highlighted one's report."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "app.pop_screen", "Back", tooltip="Leave the list", id="interview_history.back"),
        Binding("enter", "open", "Open report", tooltip="Reopen this report", id="interview_history.open"),
    ]

    def compose(self) -> ComposeResult:
        yield Header()
        with Vertical(id="history-body"):
            yield Static("", id="history-status")
            yield DataTable(id="history-table", cursor_type="row", zebra_stripes=True)
        yield KeyFooter()

    def on_mount(self) -> None:
        self.title = "Past interviews"
        self.sub_title = "Enter reopens a report"
        self.show_rows()

    def on_screen_resume(self) -> None:
        self.show_rows()

    def show_rows(self) -> None:
        """Lists the interviews in the fetch worker; the table fills in when they arrive."""
        backend = self.router.require_backend()
        if backend is None:
            return
        self.query_one("#history-status", Static).update(Text("Reading past interviews…", style="dim"))
        self.fetch(backend.workspace.interviews, self._listed)

    async def _listed(self, past: tuple[InterviewSummary, ...]) -> None:
        table = self.query_one("#history-table", DataTable)
        status = self.query_one("#history-status", Static)
        table.clear(columns=True)
        rows = [(str(summary.id), *summary_line(summary)) for summary in past]
        # Widths from the cells: the table's own sizing, on a screen shown again, kept the labels' widths
        # and cut every date and score short.
        for i, label in enumerate(("#", "Started", "Answered", "Right", "")):
            table.add_column(label, width=max([len(label), *(len(row[i]) for row in rows)]))
        for summary, row in zip(past, rows, strict=True):
            table.add_row(*row, key=str(summary.id))
        if past:
            status.update(Text(f"{len(past)} saved interview(s), newest first.", style="dim"))
            table.display = True
            table.focus()
        else:
            status.update("No interviews yet. Press Escape, then start one from the set-up (Ctrl+S).")
            table.display = False

    @on(DataTable.RowSelected)
    def _selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        self.open_report(event.row_key.value)

    def action_open(self) -> None:
        table = self.query_one("#history-table", DataTable)
        if not table.row_count:
            return
        key = table.coordinate_to_cell_key(table.cursor_coordinate).row_key
        self.open_report(key.value)

    def open_report(self, key: str | None) -> None:
        """Reads the report in the fetch worker and opens it."""
        backend = self.router.require_backend()
        if backend is None or key is None:
            return
        self.fetch(lambda: read_report(backend.store, backend.catalog, int(key)), self._opened)

    async def _opened(self, report: InterviewReport) -> None:
        self.router.open_screen("report", report)
