"""Provides the stats screen's pictures: a calendar of reviews and a 30-day forecast bar chart.

The calendar grid comes from quizapp.reports.text (the same one `quizapp stats` prints); here it only gets
colour. The bar heights are display arithmetic: how many character rows a count fills.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text
from textual.widgets import Static

from quizapp.reports.text import calendar_grid
from quizapp.tui.widgets.rendered import RenderedBlock

if TYPE_CHECKING:
    from quizapp.reports.stats import DayCount, DueDay

CALENDAR_STYLES = {"·": "dim", "░": "green", "▒": "green", "▓": "bold green", "█": "bold green"}
EIGHTHS = " ▁▂▃▄▅▆▇█"
CHART_ROWS = 5


def calendar_text(calendar: tuple[DayCount, ...]) -> Text:
    """GitHub-style weeks-as-columns calendar, shade characters coloured green."""
    out = Text()
    for n, line in enumerate(calendar_grid(calendar)):
        if n:
            out.append("\n")
        for ch in line:
            out.append(ch, style=CALENDAR_STYLES.get(ch, ""))
    return out


def forecast_text(forecast: tuple[DueDay, ...], rows: int = CHART_ROWS, col_width: int = 2) -> Text:
    """A vertical bar per day (today first), `rows` tall, with the peak count and day offsets labelled."""
    peak = max((d.due for d in forecast), default=0)
    out = Text()
    if peak == 0:
        return Text(f"Nothing falls due in the next {len(forecast)} days.", style="dim")
    label_w = max(3, len(str(peak)))
    for r in range(rows, 0, -1):
        label = str(peak) if r == rows else ("0" if r == 1 and peak == 0 else "")
        out.append(label.rjust(label_w) + " ┤", style="dim")
        for day in forecast:
            eighths = round(day.due / peak * rows * 8) if peak else 0
            filled = max(0, min(8, eighths - (r - 1) * 8))
            if day.due and r == 1 and filled == 0:
                filled = 1  # any card due shows at least a sliver
            out.append(EIGHTHS[filled] * (col_width - 1) + " ", style="cyan")
        out.append("\n")
    axis = " " * label_w + " └" + "─" * (len(forecast) * col_width)
    out.append(axis + "\n", style="dim")
    ticks = [" "] * (len(forecast) * col_width + label_w + 2)
    for i in range(0, len(forecast), 7):
        tag = "today" if i == 0 else f"+{i}d"
        start = label_w + 2 + i * col_width
        for k, ch in enumerate(tag):
            if start + k < len(ticks):
                ticks[start + k] = ch
    out.append("".join(ticks).rstrip(), style="dim")
    return out


class CalendarView(RenderedBlock):
    """Reviews per day over the last year (a cell per day, each styled: drawn once per width, as the
    Rich renderable it is, which took Textual's own text path some 20 ms at 100,000 cards)."""

    DEFAULT_CSS = "CalendarView { height: auto; }"

    def __init__(self, calendar: tuple[DayCount, ...], *, id: str | None = None) -> None:
        super().__init__(calendar_text(calendar), id=id)


class ForecastChart(Static):
    """Cards falling due over the next 30 days."""

    DEFAULT_CSS = "ForecastChart { height: auto; }"

    def __init__(self, forecast: tuple[DueDay, ...], *, id: str | None = None) -> None:
        super().__init__(forecast_text(forecast), id=id)
