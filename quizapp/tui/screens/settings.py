"""Provides SettingsScreen: desired retention, new cards per day, interview defaults, the interview date
(today or later), the daily study budget and low-priority decks for the plan, whether mock-interview misses
go to review, and the theme, saved to the progress database (the store validates every value and says
what is allowed)."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Grid, Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Header, Input, Label, Select, Static

from quizapp.errors import QuizappError
from quizapp.tui.guard import on
from quizapp.tui.screens.base import QuizScreen
from quizapp.tui.widgets.footer import KeyFooter

if TYPE_CHECKING:
    from quizapp.records.settings import Settings

FIELDS: tuple[tuple[str, str, str], ...] = (
    ("desired_retention", "Desired retention", "0.70-0.99; higher: more reviews"),
    ("new_per_day", "New cards per day", "a date raises it, a budget caps it"),
    ("interview_questions", "Interview questions", "mock interview length"),
    ("interview_minutes", "Interview minutes", "mock interview time limit"),
    ("interview_date", "Interview date", "YYYY-MM-DD, not past; empty: none"),
    ("daily_minutes", "Minutes a day", "study budget for the plan; 0: none"),
    ("low_priority_decks", "Low-priority decks", "deck ids, commas: left out first"),
)
MISSES_FIELD = "interview_misses_to_review"


def _shown(value: object) -> str:
    """A setting as its field shows it: deck ids joined by commas, anything else as text."""
    if isinstance(value, tuple):
        return ", ".join(map(str, value))
    return str(value)


class LeaveSettingsScreen(ModalScreen[str]):
    """Asks what to do with edits not saved when Escape leaves the settings: "save", "discard" or "keep"
    (editing), so a slip of the Escape key never throws a form away."""

    DEFAULT_CSS = """
    LeaveSettingsScreen { align: center middle; }
    LeaveSettingsScreen #leave-dialog {
        width: 60; max-width: 95%; height: auto; border: round $warning; background: $surface; padding: 1 2;
    }
    LeaveSettingsScreen .leave-buttons { height: auto; margin: 1 0 0 0; }
    LeaveSettingsScreen .leave-buttons Button { margin: 0 2 0 0; }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("s", "answer('save')", "Save", id="settings_leave.save"),
        Binding("d", "answer('discard')", "Discard", id="settings_leave.discard"),
        Binding("k,escape", "answer('keep')", "Keep editing", id="settings_leave.keep"),
    ]

    def compose(self) -> ComposeResult:
        with Vertical(id="leave-dialog"):
            yield Static("The settings have changes that are not saved.", id="leave-question")
            with Horizontal(classes="leave-buttons"):
                yield Button("Save (s)", id="leave-save", variant="primary", compact=True)
                yield Button("Discard (d)", id="leave-discard", variant="error", compact=True)
                yield Button("Keep editing (k)", id="leave-keep", compact=True)

    def on_mount(self) -> None:
        self.query_one("#leave-keep", Button).focus()

    def action_answer(self, choice: str) -> None:
        self.dismiss(choice)

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        self.dismiss(str(event.button.id).removeprefix("leave-"))


class SettingsScreen(QuizScreen[None]):
    """A small form; Ctrl+S or the button saves; Escape leaves, asking first when there are edits."""

    _initial: tuple[object, ...] = ()
    """The form as it opened: Escape asks before it drops anything that differs."""
    _opening_theme: str = ""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "leave", "Back", tooltip="Leave; asks first if edited", id="settings.back"),
        Binding("ctrl+s", "save", "Save", priority=True, tooltip="Save the settings", id="settings.save"),
        Binding(
            "ctrl+o",
            "optimize",
            "Optimize",
            priority=True,
            tooltip="Fit the scheduler's FSRS weights to your own reviews",
            id="settings.optimize",
        ),
    ]

    def compose(self) -> ComposeResult:
        backend = self.router.backend
        current = backend.last_settings if backend is not None else None  # read in the load worker
        yield Header()
        with VerticalScroll(id="settings-body"):
            with Grid(id="settings-grid"):
                for key, label, help_text in FIELDS:
                    yield Label(label, classes="setting-label")
                    value = "" if current is None else _shown(getattr(current, key))
                    yield Input(value=value, id=f"setting-{key}", tooltip=help_text, compact=True)
                    yield Static(help_text, classes="setting-help")
                yield Label("Interview misses", classes="setting-label")
                misses = current.interview_misses_to_review if current is not None else True
                yield Select(
                    [("go to review at once", True), ("leave the schedule alone", False)],
                    value=misses,
                    allow_blank=False,
                    id=f"setting-{MISSES_FIELD}",
                    compact=True,
                )
                yield Static("missed in a mock interview", classes="setting-help")
                yield Label("Theme", classes="setting-label")
                themes = sorted(self.app.available_themes)
                theme = current.theme if current is not None and current.theme in themes else self.app.theme
                yield Select(
                    [(t, t) for t in themes], value=theme, allow_blank=False, id="setting-theme", compact=True
                )
                yield Static("applied at once", classes="setting-help")
            yield Static("", id="settings-error")
            with Horizontal(classes="buttons"):
                yield Button("Save (Ctrl+S)", id="settings-save", variant="primary", compact=True)
                yield Button("Optimize FSRS (Ctrl+O)", id="settings-optimize", compact=True)
            yield Static("", id="settings-optimized")
        yield KeyFooter()

    def on_mount(self) -> None:
        self.sub_title = "settings"
        self.router.set_blink(self)
        self.query_one("#settings-error").display = False
        self.query_one("#settings-optimized").display = False
        self.query_one(f"#setting-{FIELDS[0][0]}", Input).focus()
        self._initial, self._opening_theme = self._form(), self.app.theme

    def _form(self) -> tuple[object, ...]:
        """What the form holds now, every field and choice, to compare with how it opened."""
        return tuple(i.value for i in self.query(Input).results(Input)) + tuple(
            s.value for s in self.query(Select).results(Select)
        )

    def action_leave(self) -> None:
        """Escape: leaves at once when nothing was edited; otherwise asks save, discard or keep editing."""
        if self._form() == self._initial:
            self.app.pop_screen()
            return
        self.app.push_screen(LeaveSettingsScreen(), self._left)

    def _left(self, choice: str | None) -> None:
        if choice == "save":
            self.action_save()
        elif choice == "discard":
            if self._opening_theme in self.app.available_themes:
                self.app.theme = self._opening_theme  # the theme was only tried, never saved
            self.app.pop_screen()

    @on(Select.Changed, "#setting-theme")
    def _theme(self, event: Select.Changed) -> None:
        if isinstance(event.value, str) and event.value in self.app.available_themes:
            self.app.theme = event.value

    @on(Button.Pressed, "#settings-save")
    def _save_pressed(self) -> None:
        self.action_save()

    @on(Button.Pressed, "#settings-optimize")
    def _optimize_pressed(self) -> None:
        self.action_optimize()

    def action_optimize(self) -> None:
        """Fits the FSRS weights in a worker (it takes seconds on a long history); the result follows."""
        backend = self.router.require_backend()
        if backend is None:
            return
        box = self.query_one("#settings-optimized", Static)
        box.update("Fitting FSRS weights to your reviews…")
        box.display = True
        self._show(box)
        self.fetch(backend.fit_weights, self._fitted, group="optimize", exclusive=True)

    def _fitted(self, fitted: tuple[str, bool]) -> None:
        """What the FSRS optimizer found, in words, or why it could not run."""
        box = self.query_one("#settings-optimized", Static)
        box.update(fitted[0])
        self._show(box)

    def _show(self, box: Static) -> None:
        """The result sits under the buttons, off-screen at 80x24: jump to it once it is laid out (an
        animated scroll would leave it half in view for a moment)."""
        self.call_after_refresh(lambda: box.scroll_visible(animate=False, immediate=True))

    @on(Input.Submitted)
    def _enter(self) -> None:
        self.action_save()

    def read_form(self, base: Settings) -> Settings:
        """The form's values over `base`; a value that is not a number raises QuizappError naming it."""
        values: dict[str, object] = {}
        for key, label, _ in FIELDS:
            raw = self.query_one(f"#setting-{key}", Input).value.strip()
            if isinstance(getattr(base, key), str):
                values[key] = raw
                continue
            if isinstance(getattr(base, key), tuple):
                values[key] = self._deck_ids(raw, label)
                continue
            try:
                values[key] = float(raw) if isinstance(getattr(base, key), float) else int(raw)
            except ValueError:
                raise QuizappError(f"{label} must be a number, got {raw!r}.") from None
        misses = self.query_one(f"#setting-{MISSES_FIELD}", Select).value
        if isinstance(misses, bool):
            values[MISSES_FIELD] = misses
        theme = self.query_one("#setting-theme", Select).value
        if isinstance(theme, str):
            values["theme"] = theme
        return replace(base, **values)  # type: ignore[arg-type]

    def _deck_ids(self, raw: str, label: str) -> tuple[str, ...]:
        """The deck ids typed (commas or spaces between them); one the catalog lacks is refused."""
        wanted = tuple(dict.fromkeys(part for part in raw.replace(",", " ").split() if part))
        backend = self.router.backend
        known = [d.id for d in backend.decks] if backend is not None else []
        unknown = [d for d in wanted if d not in known]
        if unknown:
            raise QuizappError(
                f"{label}: there is no deck {', '.join(map(repr, unknown))}. Decks: {', '.join(known)}."
            )
        return wanted

    def action_save(self) -> None:
        """Saves in the save worker (a commit waits for the disk); the screen closes once it is saved."""
        backend = self.router.require_backend()
        if backend is None:
            return

        base = backend.last_settings
        try:
            if base is None:
                raise QuizappError("The settings could not be read; go back and open them again.")
            wanted = self.read_form(base)
        except QuizappError as exc:
            self._show_error(str(exc))
            return

        today = backend.now().date()  # a date in the past is refused, as on the command line

        def save() -> Settings | QuizappError:
            try:
                return backend.save_settings(wanted, today=today)
            except QuizappError as exc:  # a value out of range: said under the form
                return exc

        self.write(save, self._saved_settings)

    def _show_error(self, text: str) -> None:
        error = self.query_one("#settings-error", Static)
        error.update(text)
        error.display = True

    async def _saved_settings(self, saved: Settings | Exception) -> None:
        if isinstance(saved, Exception):
            self._show_error(str(saved))
            return
        self.query_one("#settings-error", Static).display = False
        date_words = f", interview on {saved.interview_date}" if saved.interview_date else ""
        if saved.daily_minutes:
            date_words += f", {saved.daily_minutes} min a day"
        self.notify(
            f"Retention {saved.desired_retention:g}, {saved.new_per_day} new cards a day, interviews of "
            f"{saved.interview_questions} questions in {saved.interview_minutes} min, theme {saved.theme}"
            f"{date_words}.",
            title="Settings saved",
            timeout=5,
        )
        self.app.pop_screen()
