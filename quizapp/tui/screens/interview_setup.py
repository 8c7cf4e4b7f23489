"""Provides InterviewSetupScreen: the mock interview's form (questions, minutes, decks or tags, difficulty
mix, whether answers move the schedule), then the start.

The form starts from the last set-up used (quizapp.interview.setup.setup_defaults, read in a worker),
else from the user's settings (10 questions in 30 minutes). The form only collects text;
quizapp.interview.setup parses it, checks it and chooses the questions.
"""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING, ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Grid, Horizontal, VerticalScroll
from textual.widgets import Button, Checkbox, Header, Input, Label, Select, SelectionList, Static

from quizapp.errors import QuizappError
from quizapp.interview.session import InterviewSession
from quizapp.interview.setup import (
    DIFFICULTY_MIXES,
    MAX_MINUTES,
    MAX_QUESTIONS,
    candidates,
    config_from_settings,
    parse_count,
    parse_tags,
    setup_defaults,
)
from quizapp.records.interviews import InterviewConfig
from quizapp.tui.guard import on
from quizapp.tui.screens.base import QuizScreen
from quizapp.tui.widgets.footer import KeyFooter
from quizapp.tui.widgets.ticklist import TickList

if TYPE_CHECKING:
    from quizapp.tui.backend import Backend

MIX_LABELS: tuple[tuple[str, str], ...] = (
    ("any", "As they come"),
    ("balanced", "Balanced: 1/3 each"),
    ("warm-up", "Warm-up: mostly easy"),
    ("hard", "Hard: mostly difficulty 3"),
)


class InterviewSetupScreen(QuizScreen[None]):
    """The set-up form; Ctrl+S (or Enter in a field) starts, Ctrl+O lists past interviews."""

    AUTO_FOCUS: ClassVar[str | None] = "#setup-questions"
    """Straight to the first field: the form's scrolling body, focused first and then left, restyled the
    whole form twice (some 35 ms at 100x32)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "app.pop_screen", "Home", tooltip="Back to the decks", id="interview_setup.back"),
        Binding(
            "ctrl+s",
            "start",
            "Start",
            priority=True,
            tooltip="Start the interview",
            id="interview_setup.start",
        ),
        Binding(
            "ctrl+o",
            "history",
            "Past interviews",
            priority=True,
            tooltip="Reopen the report of a past interview",
            id="interview_setup.history",
        ),
    ]

    def compose(self) -> ComposeResult:
        backend = self.router.backend
        config = _defaults(backend)
        yield Header()
        with VerticalScroll(id="setup-body"):
            with Grid(id="setup-grid"):
                yield Label("Questions", classes="setup-label")
                yield Input(str(config.questions), id="setup-questions", compact=True, type="integer")
                yield Label("Minutes", classes="setup-label")
                yield Input(str(config.minutes), id="setup-minutes", compact=True, type="integer")
                yield Label("Difficulty", classes="setup-label")
                yield Select(
                    [(label, key) for key, label in MIX_LABELS],
                    value="any",
                    allow_blank=False,
                    id="setup-mix",
                    compact=True,
                )
                yield Label("Tags", classes="setup-label")
                yield Input(
                    placeholder="any tag; or e.g. kv-cache, gqa",
                    id="setup-tags",
                    compact=True,
                    tooltip="Only questions with one of these tags (comma or space separated)",
                )
            yield Checkbox(
                "Answers update my review schedule (FSRS)",
                value=config.update_schedule,
                id="setup-schedule",
                compact=True,
            )
            yield Checkbox(
                "Questions I miss go to review at once",
                value=config.misses_to_review is not False,
                id="setup-misses",
                compact=True,
            )
            yield Static(
                Text("Decks (Space ticks; none ticked = every deck):", style="bold"), id="decks-title"
            )
            decks = backend.decks if backend is not None else ()
            yield TickList[str](*((d.title, d.id) for d in decks), id="setup-decks", compact=True)
            yield Static("", id="setup-status")
            with Horizontal(classes="setup-buttons"):
                yield Button("Start (Ctrl+S)", id="setup-start", variant="primary", compact=True)
                yield Button("Past interviews (Ctrl+O)", id="setup-history", compact=True)
        yield KeyFooter()

    def on_mount(self) -> None:
        self.title = "Mock interview"
        self.sub_title = "set-up"
        self.router.set_blink(self)
        self.query_one("#setup-questions", Input).focus()
        backend = self.router.backend
        if backend is None:  # opened while the decks load: fill the form when they arrive
            self.show_pool()
            self._waiting = self.set_interval(0.2, self._backend_arrived, name="wait for decks")
        else:
            self._read_defaults(backend)

    def _read_defaults(self, backend: Backend) -> None:
        """The last set-up used (else the settings) and how many questions it allows, both in one
        worker; the form and its count are then put in together, in one frame (at 10,000 questions the
        form used to be drawn three times: empty, counted, then filled and counted again)."""

        def prepare() -> tuple[InterviewConfig, int | QuizappError]:
            with backend.store.one_at_a_time():
                config = setup_defaults(backend.store)
            try:
                return config, len(candidates(backend.catalog, backend.questions, config))
            except QuizappError as exc:  # its words go under the form, as when typed
                return config, exc

        self.query_one("#setup-status", Static).update(Text("Reading your last set-up…", style="dim"))
        self.fetch(prepare, self._prepared, group="setup-defaults", exclusive=True, store=False)

    def _prepared(self, prepared: tuple[InterviewConfig, int | Exception]) -> None:
        """Fills the form and says what it allows, from one worker's outcome: the count read there is
        shown if the form now says just what was counted (a deck since removed is left out: counted again)."""
        config, pool = prepared
        self.fill(config, count=False)
        try:
            shown = self.read_config()
        except QuizappError:
            shown = None
        if shown != config:
            self.show_pool()
        elif isinstance(pool, Exception):
            self._pool_refused(pool)
        else:
            self._pool_counted(config, pool)

    def fill(self, config: InterviewConfig, *, count: bool = True) -> None:
        """Puts `config` in the form: counts, difficulty mix, tags, decks ticked, the two switches."""
        with self.prevent(Input.Changed, Select.Changed, Checkbox.Changed, SelectionList.SelectedChanged):
            self.query_one("#setup-questions", Input).value = str(config.questions)
            self.query_one("#setup-minutes", Input).value = str(config.minutes)
            mix = next((k for k, v in DIFFICULTY_MIXES.items() if v == config.difficulty_mix), "any")
            self.query_one("#setup-mix", Select).value = mix
            self.query_one("#setup-tags", Input).value = ", ".join(config.tags)
            decks = self.query_one("#setup-decks", SelectionList)
            decks.deselect_all()
            for deck_id in config.deck_ids:
                try:
                    decks.select(deck_id)
                except Exception:  # a deck no longer installed: left out of the form
                    continue
            self.query_one("#setup-schedule", Checkbox).value = config.update_schedule
            self.query_one("#setup-misses", Checkbox).value = config.misses_to_review is not False
        if count:
            self.show_pool()

    def _backend_arrived(self) -> None:
        backend = self.router.backend
        if backend is None:
            return
        self._waiting.stop()
        config = _defaults(backend)
        self.query_one("#setup-questions", Input).value = str(config.questions)
        self.query_one("#setup-minutes", Input).value = str(config.minutes)
        decks = self.query_one("#setup-decks", SelectionList)
        decks.add_options([(d.title, d.id) for d in backend.decks])
        self.show_pool()
        self._read_defaults(backend)

    # -- reading the form -----------------------------------------------------------------------------------

    def read_config(self) -> InterviewConfig:
        """The form as an InterviewConfig; text the core cannot read raises QuizappError."""
        mix = self.query_one("#setup-mix", Select).value
        return InterviewConfig(
            questions=parse_count(
                self.query_one("#setup-questions", Input).value, "number of questions", 1, MAX_QUESTIONS
            ),
            minutes=parse_count(self.query_one("#setup-minutes", Input).value, "minutes", 1, MAX_MINUTES),
            deck_ids=tuple(self.query_one("#setup-decks", SelectionList).selected),
            tags=parse_tags(self.query_one("#setup-tags", Input).value),
            difficulty_mix=DIFFICULTY_MIXES.get(str(mix), ()),
            update_schedule=self.query_one("#setup-schedule", Checkbox).value,
            misses_to_review=self.query_one("#setup-misses", Checkbox).value,
        )

    def show_pool(self) -> None:
        """Says how many questions the current choices allow, or what is wrong with them; the count runs
        in a worker (it filters every question of the catalog: 10,000 in a big deck)."""
        status = self.query_one("#setup-status", Static)
        backend = self.router.backend
        if backend is None:
            status.update(Text("Still loading the decks…", style="dim"))
            return
        try:
            config = self.read_config()
        except QuizappError as exc:
            status.update(Text(str(exc), style="red"))
            return
        self._count_pool(backend, config)

    def _count_pool(self, backend: Backend, config: InterviewConfig) -> None:
        self.fetch(
            lambda: len(candidates(backend.catalog, backend.questions, config)),
            partial(self._pool_counted, config),
            group="setup-pool",
            exclusive=True,
            store=False,  # the catalog only
            failed=self._pool_refused,
        )

    def _pool_counted(self, config: InterviewConfig, pool: int) -> None:
        self.query_one("#setup-status", Static).update(
            Text.assemble(
                (f"{pool} questions match; ", "dim"),
                (f"{min(pool, config.questions)} in {config.minutes} min", "bold"),
                (". No feedback until the end; Ctrl+N skips, Ctrl+F flags.", "dim"),
            )
        )

    def _pool_refused(self, error: Exception) -> None:
        """The choices match nothing (the core's words, in red under the form); a bug is reported."""
        if not isinstance(error, QuizappError):
            self.router.report_error(error)
            return
        self.query_one("#setup-status", Static).update(Text(str(error), style="red"))

    @on(Input.Changed)
    @on(Select.Changed)
    @on(Checkbox.Changed)
    @on(SelectionList.SelectedChanged)
    def _changed(self) -> None:
        self.show_pool()

    # -- actions -------------------------------------------------------------------------------------------

    @on(Input.Submitted)
    @on(Button.Pressed, "#setup-start")
    def _start_pressed(self) -> None:
        self.action_start()

    @on(Button.Pressed, "#setup-history")
    def _history_pressed(self) -> None:
        self.action_history()

    def action_start(self) -> None:
        """Starts in the save worker: choosing the questions reads the store, and the interview's row is
        written before the first question shows."""
        backend = self.router.require_backend()
        if backend is None:
            return
        try:
            config = self.read_config()
        except QuizappError as exc:
            self.query_one("#setup-status", Static).update(Text(str(exc), style="red"))
            return

        def start() -> InterviewSession | QuizappError:
            try:
                return InterviewSession.start(
                    backend.catalog,
                    backend.store,
                    backend.questions,
                    config,
                    rng=backend.rng,
                    now=backend.now(),
                    fuzzing=backend.config.fuzzing,
                )
            except QuizappError as exc:  # nothing matches, say: said under the form
                return exc

        self.query_one("#setup-status", Static).update(Text("Choosing the questions…", style="dim"))
        self.write(start, self._started)

    async def _started(self, session: InterviewSession | Exception) -> None:
        if isinstance(session, Exception):
            self.query_one("#setup-status", Static).update(Text(str(session), style="red"))
            return
        for problem in session.problems:
            self.notify(problem, title="Question left out", severity="warning", timeout=8, markup=False)
        self.router.open_screen("interview-run", session, replace=True)

    def action_history(self) -> None:

        self.router.open_screen("history")


def _defaults(backend: Backend | None) -> InterviewConfig:
    if backend is None or backend.last_settings is None:  # unreadable settings: the documented defaults
        return InterviewConfig()
    return config_from_settings(backend.last_settings)  # read in a worker (start-up, home, a save)
