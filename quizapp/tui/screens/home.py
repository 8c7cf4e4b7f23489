"""Provides HomeScreen: the decks with their counts, today's totals and streak, and the keys to start."""

from __future__ import annotations

from datetime import date
from typing import TYPE_CHECKING, ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.widgets import Header, LoadingIndicator, Static

from quizapp.content.remembered_decks import remembered_decks
from quizapp.tui.messages import OverviewLoaded
from quizapp.tui.screens.base import QuizScreen
from quizapp.tui.widgets.deck_table import DeckTable, column_names, remembered_rows, title_width_for
from quizapp.tui.widgets.footer import KeyFooter

if TYPE_CHECKING:
    from textual.widgets import OptionList

    from quizapp.content.remembered_decks import RememberedDeck
    from quizapp.reports.overview import Overview
    from quizapp.study.readiness import Readiness
    from quizapp.tui.backend import Backend


SLOW_START_S = 2.0
STILL_LOADING = (
    "Still reading your decks and progress… A first start checks every deck; if another quizapp has your "
    "progress file open, this waits for it (up to {seconds:g} s)."
)

DAY_CHECK_S = 1.0
"""How often home compares the app's date with the day of its counts (only a clock read each time)."""

HOME_PADDING = 2
"""Cells of #home-body's padding (app.tcss), beside the deck table."""


class HomeScreen(QuizScreen[None]):
    """Where the app opens and where Escape leads back to."""

    _remembered_decks: tuple[RememberedDeck, ...] = ()
    """The decks the last start loaded, while their rows stand in for the deck table."""
    _failed = False
    _counted_on: date | None = None
    """The app's date when the counts on screen were asked for (a new day reads them again)."""
    """The reason the decks or their counts could not be read is on screen (show_failure)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("s", "study", "Study", tooltip="Study what is due, then new cards", id="home.study"),
        Binding(
            "d", "drill", "Drill", tooltip="Drill the highlighted deck (no schedule change)", id="home.drill"
        ),
        Binding(  # not in the key bar: at 80x24 it pushed Quit off the edge (the help and Ctrl+P list it)
            "c",
            "cram",
            "Cram",
            show=False,
            tooltip="Cram every card, due or not (no schedule change)",
            id="home.cram",
        ),
        Binding(
            "b",
            "browse",
            "Cards",
            tooltip="Browse every card: state, due date, history; suspend, bury, reset, study now",
            id="home.browse",
        ),
        Binding("i", "interview", "Interview", tooltip="Start a timed mock interview", id="home.interview"),
        Binding("e", "explore", "Explore", tooltip="Play with attention in a sandbox", id="home.explore"),
        Binding(
            "t", "stats", "Stats", tooltip="Calendar, retention, forecast and misconceptions", id="home.stats"
        ),
        Binding(
            "comma",
            "settings",
            "Settings",
            key_display=",",
            tooltip="Retention, new cards, theme",
            id="home.settings",
        ),
        Binding(
            "question_mark",
            "help",
            "Help",
            key_display="?",
            tooltip="Every key of every screen",
            id="home.help",
        ),
        Binding("q", "app.quit", "Quit", tooltip="Leave quizapp (progress is already saved)", id="home.quit"),
    ]

    def compose(self) -> ComposeResult:
        remembered = self._remembered()
        yield Header()
        with Vertical(id="home-body"):
            if remembered is None:
                yield Static("Loading the decks…", id="home-status")
                yield LoadingIndicator(id="home-loading")
            else:
                yield Static(Text("Counting your cards…", style="dim"), id="home-status")
            yield Static("", id="home-plan")
            yield Static("", id="home-totals")
            yield Static("", id="home-readiness")
            yield Static("", id="home-hint")
            if remembered is not None:
                yield from remembered
        yield KeyFooter(show_command_palette=False)

    def _remembered(self) -> tuple[Static, Static] | None:
        """The decks the last start loaded, for the first frame, their counts "…" until the store is read
        (quizapp.content.remembered_decks): a column header and the rows as text, which the deck table
        replaces when the counts come. None on a first start (a loading indicator then), or when the decks
        are here already."""
        if self.router.backend is not None:
            return None

        self._remembered_decks = remembered_decks(self.router.config.deck_key())
        if not self._remembered_decks:
            return None
        header, rows = Static(id="decks-header"), Static(id="decks-remembered")
        self._draw_remembered(header, rows)
        return header, rows

    def _draw_remembered(self, header: Static, rows: Static) -> None:
        width = self.app.size.width - HOME_PADDING
        header.update(column_names(title_width_for(width)))
        rows.update(remembered_rows(self._remembered_decks, width))

    def on_resize(self) -> None:
        """The remembered rows, if they still show, refit as the deck table's would."""
        found = self.query("#decks-remembered")
        if found:
            self._draw_remembered(self.query_one("#decks-header", Static), found.first(Static))

    def on_mount(self) -> None:
        self.set_interval(DAY_CHECK_S, self._check_day)
        backend = self.router.backend
        if backend is not None:
            self.show_backend(backend)
        else:
            self.set_timer(SLOW_START_S, self._still_loading)

    def _still_loading(self) -> None:
        """Says what a long wait may be: another quizapp holding the progress file (the store waits for it)
        or a first start reading every deck."""
        if self.router.backend is not None or self.deck_table is not None or self._failed:
            return
        from quizapp.workspace import busy_timeout_s

        status = self.query_one("#home-status", Static)
        status.update(Text(STILL_LOADING.format(seconds=busy_timeout_s()), style="dim"))

    def on_screen_resume(self) -> None:
        backend = self.router.backend
        if backend is not None:
            self.show_backend(backend)

    @property
    def deck_table(self) -> DeckTable | None:
        """The decks, once counted (the table comes with the counts: see on_overview_loaded)."""
        found = self.query(DeckTable)
        return found.first() if found else None

    def show_backend(self, backend: Backend) -> None:
        """Refreshes the table and totals from the store (after loading, and whenever the screen returns);
        the counts are read in a worker, never on the event loop."""
        self._counted_on = backend.now().date()
        self.load_overview(backend)

    def _check_day(self) -> None:
        """Past midnight by the app's clock (which $QUIZAPP_TODAY moves), the new day's counts: today's new
        cards are allowed again, buried cards are back, nothing is answered yet today."""
        backend = self.router.backend
        if backend is None or not self.is_current:
            return  # a screen on top: home counts afresh when it comes back (on_screen_resume)
        if self._counted_on is not None and backend.now().date() != self._counted_on:
            self.show_backend(backend)

    def load_overview(self, backend: Backend) -> None:
        self.fetch(
            lambda: OverviewLoaded(backend.overview(), backend.plan_line()),
            self.on_overview_loaded,
            group="overview",
            exclusive=True,
            failed=self._not_counted,
        )

    def _not_counted(self, exc: Exception) -> None:
        """The counts could not be read: the error is reported, and remembered rows (which would show "…"
        for good) make room for the reason."""
        self.router.report_error(exc)
        if self.query("#decks-remembered"):
            self.show_failure("your progress could not be read (see the message in the corner)")

    async def on_overview_loaded(self, message: OverviewLoaded) -> None:
        if self.deck_table is None:  # the table comes with the counts: the first frame does without it
            body = self.query_one("#home-body")
            found = self.query("#decks-header")
            header = found.first(Static) if found else Static(id="decks-header", markup=False)
            table = DeckTable(header=header, id="decks")
            mounted = body.mount(*([table] if found else [header, table]))
            removed = self.query("#decks-remembered").remove()  # in the same frame as the table comes
            await mounted
            await removed
        backend = self.router.backend
        if self._counted_on is None and backend is not None:  # counts the start-up's loader read
            self._counted_on = backend.now().date()
        plan = self.query_one("#home-plan", Static)
        plan.update(message.plan_line)
        plan.display = bool(message.plan_line)
        self._show_overview(message.overview, date_set=bool(message.plan_line))
        if backend is not None:
            self.load_readiness(backend)  # after the counts: the decks never wait for NumPy and FSRS

    def load_readiness(self, backend: Backend) -> None:
        self.fetch(backend.readiness, self._show_readiness, group="readiness", exclusive=True)

    def _show_readiness(self, readiness: Readiness) -> None:
        table = self.deck_table
        if table is not None:
            table.show_readiness({d.deck_id: d.recall for d in readiness.decks})
        self.query_one("#home-readiness", Static).update(readiness_line(readiness))

    def _show_overview(self, overview: Overview, *, date_set: bool) -> None:
        table = self.deck_table
        if table is None:
            return
        self.query("#home-loading").set(display=False)  # only a first start has one
        self.query_one("#home-status").display = False
        table.show_rows(overview.decks)
        self.query_one("#home-totals", Static).update(_totals(overview))
        self.query_one("#home-hint", Static).update(_hint(overview, date_set=date_set))
        if self.focused is None:
            table.focus()

    def show_busy(self, busy: bool) -> None:
        """A session is being started in a worker: the decks show a loading indicator until it opens."""
        table = self.deck_table
        if table is not None:
            table.loading = busy

    def show_failure(self, message: str) -> None:
        self._failed = True
        self.query("#home-loading").set(display=False)  # only a first start has one
        self.query("#decks-header, #decks-remembered").remove()  # they would never be counted
        status = self.query_one("#home-status", Static)
        status.update(Text(f"Could not load: {message}\nPress q to quit."))  # no markup: paths hold "["
        status.display = True

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        """Enter (or a click) on a deck drills it."""
        event.stop()
        self.action_drill()

    def action_study(self) -> None:
        self.router.start_session("study")

    def action_drill(self) -> None:
        table = self.deck_table
        deck_id = table.highlighted_deck_id if table is not None else None
        if deck_id is None:
            counting = bool(self.query("#decks-remembered"))
            text = (
                "The decks are being counted: pick one in a moment."
                if counting
                else "No deck highlighted yet."
            )
            self.notify(text, severity="information" if counting else "warning", timeout=4)
            return
        from quizapp.tui.screens.exercises import is_code_deck

        backend = self.router.backend
        if backend is not None and is_code_deck(backend, deck_id):
            self.router.open_screen("exercises", deck_id)  # pick one exercise, each with its status
            return
        title = backend.deck_title(deck_id) if backend else deck_id
        self.router.start_session("drill", deck_id=deck_id, title=f"Drill: {title}")

    def action_cram(self) -> None:
        self.router.start_session("cram")

    def action_browse(self) -> None:
        self.router.open_screen("browser")

    def action_interview(self) -> None:
        self.router.open_screen("interview")

    def action_explore(self) -> None:
        self.router.open_screen("explore")

    def action_stats(self) -> None:
        self.router.open_screen("stats")

    def action_settings(self) -> None:
        self.router.open_screen("settings")

    def action_help(self) -> None:
        self.router.open_screen("help")


def _totals(o: Overview) -> str:
    streak = f"{o.streak_days} day{'s' if o.streak_days != 1 else ''}"
    if o.counts is not None:  # Anki's three numbers, the same as the study session's "left"
        c = o.counts
        waiting = f"[b]{c.new}[/b] new · [b]{c.learning}[/b] learning · [b]{c.review}[/b] review"
    else:
        waiting = f"[b]{min(o.new, o.new_left_today)}[/b] new · [b]{o.due}[/b] due"
    return f"{waiting} · [b]{o.reviews_today}[/b] answered today · streak [b]{streak}[/b]"


def readiness_line(readiness: Readiness) -> Text:
    """`Ready 34%`, then what the number means, in one line of dim text."""
    line = Text()
    line.append(f"Ready {readiness.recall:.0%}", style="bold")
    line.append(" · ")
    line.append(readiness.meaning, style="dim")
    return line


def _hint(o: Overview, *, date_set: bool) -> str:
    """What to press next; a first run is asked for the interview date only while none is set (the plan
    line above says it once it is)."""
    if o.first_run and date_set:
        return "First time here? Press [b]s[/b] to start studying, [b]?[/b] for every key."
    if o.first_run:
        return (
            "First time here? Press [b],[/b] to set your interview date, [b]s[/b] to start studying, "
            "[b]?[/b] for every key."
        )
    if o.study_now:
        return f"Press [b]s[/b] to study the {o.study_now} card(s) waiting, or [b]d[/b] to drill a deck."
    return "All caught up. Press [b]d[/b] to drill the highlighted deck or [b]c[/b] to cram."
