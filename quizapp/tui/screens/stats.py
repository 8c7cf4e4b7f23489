"""Provides StatsScreen: calendar of reviews, retention and mastery per deck, a 30-day forecast, the
user's most frequent misconceptions, each opening a drill of the questions that showed it, and the key points
of explain answers the grader misses most (when the learner ever overruled it)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

from rich.cells import cell_len
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.widgets import Header, OptionList, Static
from textual.widgets.option_list import Option

from quizapp.reports.stats import compute_stats
from quizapp.reports.text import disagreement_counts, format_hours
from quizapp.tui.guard import on
from quizapp.tui.screens.base import QuizScreen
from quizapp.tui.widgets.charts import CalendarView, ForecastChart, calendar_text
from quizapp.tui.widgets.deck_table import mastery_bar
from quizapp.tui.widgets.drawing import forget_drawing
from quizapp.tui.widgets.footer import KeyFooter
from quizapp.tui.widgets.heatmap import shorten
from quizapp.tui.widgets.rendered import RenderedBlock

if TYPE_CHECKING:
    from quizapp.reports.stats import DayCount, Stats
    from quizapp.tui.backend import Backend


CALENDAR_MARGIN = 7
"""Cells of a calendar row that are not weeks: the weekday's name, and room for a month name's tail."""
MIN_CALENDAR_WEEKS = 4

MIN_TITLE_WIDTH = 12
"""A deck title is cut to no fewer cells than this, even if the columns beside it then run off a narrow
page."""


DECK_STATS_HEADINGS = ("Deck", "Retention", "Mastery", "Ready", "Cards")
DECK_STATS_RIGHT = 3
"""The Ready column: its percentages line up on the right."""


MASTERY_WIDTH = 6
"""The mastery bar's cells: narrower than home's, to leave room for readiness beside it."""


def _percent(share: float | None) -> str:
    return "—" if share is None else f"{share * 100:.0f}%"


def _readiness_meaning(stats: Stats) -> Text:
    """Readiness over every deck, then what it means, in one line of dim text."""
    readiness = stats.readiness
    if readiness is None:
        return Text("")
    line = Text()
    line.append(f"Ready {_percent(readiness.recall)}", style="bold")
    line.append(" · ")
    line.append(readiness.meaning, style="dim")
    return line


def _point_misses(stats: Stats) -> Text:
    """Each key point the learner's ticks overruled the grader on: question id, number, text, and how often
    each way (missed: ticked though the grader did not credit it; over-credited: the reverse)."""
    text = Text()
    for n, miss in enumerate(stats.point_misses):
        if n:
            text.append("\n")
        text.append(miss.question_id, style="bold")
        text.append(f", point {miss.point}")
        if miss.text:
            text.append(f": {miss.text}")
        text.append(f"  {disagreement_counts(miss)}", style="dim")
    return text


@dataclass(frozen=True)
class StatsPage:
    """Everything the page shows, made in the fetch worker: the event loop only mounts it, in one go
    (at 100,000 cards the page used to be drawn in three mounts, its texts built between them)."""

    stats: Stats
    room: int
    """The page's width the deck table was laid out for."""
    summary: Text
    deck_table: Text
    readiness: Text
    misconceptions: tuple[Option, ...]
    point_misses: Text | None


def _summary(stats: Stats) -> Text:
    """The reviews of the year and of today, the streak, time spent, retention, what is waiting."""
    year = sum(d.reviews for d in stats.calendar)
    summary = Text()
    summary.append(f"{year:,}", style="bold")
    summary.append(f" reviews in the last {len(stats.calendar)} days · today ")
    summary.append(f"{stats.reviews_today:,}", style="bold")
    summary.append(" · streak ")
    summary.append(f"{stats.streak_days} day{'s' if stats.streak_days != 1 else ''}", style="bold")
    summary.append(f" · time spent {format_hours(stats.total_seconds)}")
    summary.append(" · retention ")
    summary.append(_percent(stats.overall_retention), style="bold")
    if stats.counts is not None:  # the same three numbers as home and the study session
        c = stats.counts
        summary.append(f"\nWaiting now: {c.new} new · {c.learning} learning · {c.review} review")
    return summary


def _misconception_options(stats: Stats) -> tuple[Option, ...]:
    return tuple(
        Option(
            Text.assemble(
                (f"{d.count:>4}× ", "bold"),
                d.label,
                (f"  ({len(d.question_ids)} question{'s' if len(d.question_ids) != 1 else ''})", "dim"),
            ),
            id=f"diagnosis-{n}",  # not the diagnosis id: a wrong option of two questions shares one
        )
        for n, d in enumerate(stats.diagnoses)
    )


class StatsScreen(QuizScreen[None]):
    """What the user has done and what is coming; Enter on a misconception drills it."""

    _shown: tuple[Stats, Backend] | None = None
    """What the page shows now, for the deck table to be drawn again at another width."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "app.pop_screen", "Back", tooltip="Back to the decks", id="stats.back"),
        Binding("r", "reload", "Refresh", tooltip="Recount from the progress database", id="stats.reload"),
    ]

    def compose(self) -> ComposeResult:
        yield Header()
        yield VerticalScroll(id="stats-body")
        yield KeyFooter()

    def on_mount(self) -> None:
        self.sub_title = "stats"
        self.action_reload()

    def action_reload(self) -> None:
        """Counts in the fetch worker (a year of reviews, every card's due date); the page shows a
        loading indicator until the figures arrive."""
        backend = self.router.require_backend()
        if backend is None:
            return

        self.show_busy(True)
        room = self._room()  # read here: the page is laid out in the worker, to the width it has now

        def prepare() -> StatsPage:
            stats = compute_stats(
                backend.store,
                now=backend.now(),
                decks=backend.catalog.deck_refs(),
                questions=backend.workspace.plan_questions,
                catalog=backend.catalog,  # the key points' text: a question model each, built here too
                plan=backend.plan(backend.now()),  # readiness and the new-card count: home's cached plan
            )
            return StatsPage(
                stats=stats,
                room=room,
                summary=_summary(stats),
                deck_table=_deck_table(stats, backend, room),
                readiness=_readiness_meaning(stats),
                misconceptions=_misconception_options(stats),
                point_misses=_point_misses(stats) if stats.point_misses else None,
            )

        self.fetch(prepare, self._computed)

    async def _computed(self, page: StatsPage) -> None:
        self.show_busy(False)
        backend = self.router.backend
        if backend is not None:
            await self.show(page, backend)

    def show_busy(self, busy: bool) -> None:
        self.query_one("#stats-body", VerticalScroll).loading = busy

    def on_resize(self) -> None:
        """The calendar and the deck table refit the page's new width (both are text)."""
        found = self.query("#deck-stats")
        if found and self._shown is not None:
            stats, backend = self._shown
            found.first(Static).update(_deck_table(stats, backend, self._room()))
            self.query_one("#calendar", CalendarView).update(
                calendar_text(_calendar_days(stats, self._room()))
            )

    def _room(self) -> int:
        """The page's width for text: the screen's, less the page's padding and scrollbar."""
        body = self.query_one("#stats-body")
        return self.size.width - body.styles.gutter.width - body.styles.scrollbar_size_vertical

    async def show(self, page: StatsPage, backend: Backend) -> None:
        """Puts the prepared page in place: the old one removed, the new one mounted in one go."""
        stats = page.stats
        self._shown = (stats, backend)
        body = self.query_one("#stats-body", VerticalScroll)
        forget_drawing(body.children)
        await body.remove_children()  # gone before the new page's widgets, which reuse their ids (r)
        # the arrows and page keys scroll the whole page; Tab reaches the list. Focused while empty:
        # focusing it with the page in it restyled every widget of the page again.
        body.focus()
        room = self._room()
        deck_table = page.deck_table if room == page.room else _deck_table(stats, backend, room)
        misconceptions: Static | OptionList
        if page.misconceptions:
            self._diagnoses = {f"diagnosis-{n}": d for n, d in enumerate(stats.diagnoses)}
            misconceptions = OptionList(*page.misconceptions, id="misconceptions")
        else:
            misconceptions = Static(
                Text(
                    "None diagnosed yet: wrong answers that match a known mistake show up here.", style="dim"
                ),
                id="misconceptions-empty",
            )
        widgets = [
            Static(page.summary, id="stats-summary"),
            Static("Reviews per day", classes="section-title"),
            CalendarView(_calendar_days(stats, room), id="calendar"),
            Static("Retention, mastery and readiness per deck", classes="section-title"),
            RenderedBlock(deck_table, id="deck-stats"),
            Static(page.readiness, id="stats-readiness"),
            Static(
                f"Due in the next {len(stats.forecast)} days (overdue now: {stats.overdue})",
                classes="section-title",
            ),
            ForecastChart(stats.forecast, id="forecast"),
            Static(
                "Your most frequent misconceptions (Tab to the list; Enter drills the questions that "
                "showed one)",
                classes="section-title",
            ),
            misconceptions,
        ]
        if page.point_misses is not None:
            widgets += [
                Static(
                    "Key points the grader misses most (missed: you ticked it, the grader did not; "
                    "over-credited: the reverse)",
                    classes="section-title",
                ),
                Static(page.point_misses, id="point-misses"),
            ]
        await body.mount_all(widgets)

    @on(OptionList.OptionSelected, "#misconceptions")
    def _drill_misconception(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        found = self._diagnoses.get(event.option.id or "")
        if found is None:
            return
        self.router.start_session(
            "drill", question_ids=found.question_ids, title=f"Drill: {found.label[:40]}"
        )


def _calendar_days(stats: Stats, room: int) -> tuple[DayCount, ...]:
    """The days whose weeks fit the page, the latest ones (a narrow terminal wrapped each row in two)."""
    weeks = max(MIN_CALENDAR_WEEKS, room - CALENDAR_MARGIN)
    return stats.calendar[-(weeks - 1) * 7 :]


def _deck_table(stats: Stats, backend: Backend, room: int) -> Text:
    """Columns padded in one Text: nothing in the table is picked, and a DataTable (or a Rich Table,
    measured three times per layout) took a third of the page's first frame at 100k cards."""
    retention = {r.deck_id: r for r in stats.retention}
    mastery = {m.deck_id: m for m in stats.mastery}
    ready = {d.deck_id: d.recall for d in stats.readiness.decks} if stats.readiness else {}
    rows: list[tuple[Text, ...]] = [tuple(Text(h, style="bold") for h in DECK_STATS_HEADINGS)]
    for deck in backend.decks:
        r = retention.get(deck.id)
        m = mastery.get(deck.id)
        share = m.share_of(len(deck.question_ids)) if m else 0.0
        recall = ready.get(deck.id)
        rows.append(
            (
                Text(deck.title),
                Text(f"{_percent(r.retention)} ({r.passed}/{r.total})") if r else Text("—", style="dim"),
                mastery_bar(share, width=MASTERY_WIDTH),
                Text(_percent(recall), style="bold" if recall else "dim"),
                Text(f"{m.cards if m else 0}/{len(deck.question_ids)} seen"),
            )
        )
    widths = [max(cell_len(row[c].plain) for row in rows) for c in range(len(DECK_STATS_HEADINGS))]
    # the titles take what the other columns leave of the page's width (the numbers never get cut)
    widths[0] = min(widths[0], max(MIN_TITLE_WIDTH, room - sum(widths[1:]) - 2 * (len(widths) - 1)))
    for row in rows[1:]:
        row[0].plain = shorten(row[0].plain, widths[0])
    table = Text(no_wrap=True, overflow="ellipsis")
    for n, row in enumerate(rows):
        if n:
            table.append("\n")
        for c, cell in enumerate(row):
            gap = widths[c] - cell_len(cell.plain)
            if c == DECK_STATS_RIGHT:
                table.append(" " * gap)
            table.append_text(cell)
            if c < len(row) - 1:
                table.append(" " * (0 if c == DECK_STATS_RIGHT else gap) + "  ")
        if n == 0:
            table.append("\n" + "─" * (sum(widths) + 2 * (len(widths) - 1)), style="dim")
    return table
