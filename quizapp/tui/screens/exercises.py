"""Provides ExercisePickerScreen: the "Write it yourself" deck opens a list of its coding exercises, each
with its solved status (solved, tried, new), and Enter drills the one picked (or all of them in order).

The statuses are quizapp.reports.exercises' (the same as `quizapp code`), read in a worker thread.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.widgets import Header, OptionList, Static
from textual.widgets.option_list import Option

from quizapp.reports.exercises import exercise_statuses
from quizapp.tui.guard import on
from quizapp.tui.screens.base import QuizScreen
from quizapp.tui.widgets.footer import KeyFooter

if TYPE_CHECKING:
    from quizapp.reports.exercises import ExerciseStatus
    from quizapp.tui.backend import Backend

EVERY = "*every*"
"""The option that drills every exercise of the deck in order."""
STATUS_STYLES = {"solved": ("✓ solved", "green"), "tried": ("… tried ", "yellow"), "new": ("· new   ", "dim")}


def is_code_deck(backend: Backend, deck_id: str) -> bool:
    """Whether `deck_id` is a deck of coding exercises (its questions are code questions): it opens the
    picker instead of a drill."""
    for deck in backend.decks:
        if deck.id == deck_id and deck.question_ids:
            question = backend.catalog.questions.get(deck.question_ids[0])
            return question is not None and question.type == "code"
    return False


def status_line(status: ExerciseStatus) -> Text:
    """`✓ solved  Softmax, stable  (3 tries)`: one option of the picker."""
    label, style = STATUS_STYLES[status.status]
    line = Text(no_wrap=True, overflow="ellipsis")
    line.append(label, style=style)
    line.append("  ")
    line.append(status.title, style="bold" if not status.solved else "")
    line.append(f"  {'★' * status.difficulty}", style="dim")
    if status.attempts:
        line.append(f"  ({status.attempts} tr{'ies' if status.attempts != 1 else 'y'})", style="dim")
    return line


class ExercisePickerScreen(QuizScreen[None]):
    """The coding exercises with their solved status; Enter drills the highlighted one."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "app.pop_screen", "Back", tooltip="Back to the decks", id="exercises.back"),
    ]

    DEFAULT_CSS = """
    ExercisePickerScreen #exercises-body { height: 1fr; padding: 1 1 0 1; }
    ExercisePickerScreen #exercises-status { margin: 0 0 1 0; }
    ExercisePickerScreen #exercises { height: 1fr; }
    """

    def __init__(self, deck_id: str = "code") -> None:
        super().__init__()
        self.deck_id = deck_id
        self._by_id: dict[str, ExerciseStatus] = {}

    def compose(self) -> ComposeResult:
        yield Header()
        with Vertical(id="exercises-body"):
            yield Static("Reading your answers…", id="exercises-status")
            yield OptionList(id="exercises", compact=True)
        yield KeyFooter()

    def on_mount(self) -> None:
        backend = self.router.backend
        self.title = backend.deck_title(self.deck_id) if backend is not None else "Coding exercises"
        self.sub_title = "Enter: write it · Escape: back"
        self.query_one("#exercises", OptionList).focus()
        self.reload()

    def on_screen_resume(self) -> None:
        self.reload()  # an exercise just solved shows as solved

    def reload(self) -> None:
        backend = self.router.require_backend()
        if backend is not None:
            self._read(backend)

    def _read(self, backend: Backend) -> None:
        deck = {q for d in backend.decks if d.id == self.deck_id for q in d.question_ids}

        def read() -> tuple[ExerciseStatus, ...]:
            statuses = exercise_statuses(backend.store, backend.catalog)
            return tuple(s for s in statuses if s.question_id in deck)

        self.fetch(read, self._shown, group="exercises", exclusive=True)

    def _shown(self, statuses: tuple[ExerciseStatus, ...]) -> None:
        self._by_id = {s.question_id: s for s in statuses}
        options = self.query_one("#exercises", OptionList)
        keep = options.highlighted
        options.clear_options()
        options.add_option(Option(Text("▶ Every exercise, in order", style="bold"), id=EVERY))
        options.add_options([Option(status_line(s), id=s.question_id) for s in statuses])
        solved = sum(s.solved for s in statuses)
        self.query_one("#exercises-status", Static).update(
            Text.assemble(
                (f"{solved} of {len(statuses)} solved. ", "bold"),
                ("Pick one and press Enter; in the editor Ctrl+R tries it, Ctrl+S submits it.", "dim"),
            )
        )
        if statuses:
            first_open = next((i + 1 for i, s in enumerate(statuses) if not s.solved), 1)
            options.highlighted = keep if keep is not None and keep < options.option_count else first_open

    @on(OptionList.OptionSelected, "#exercises")
    def _picked(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        picked = event.option.id
        if picked == EVERY:
            backend = self.router.backend
            title = backend.deck_title(self.deck_id) if backend is not None else self.deck_id
            self.router.start_session("drill", deck_id=self.deck_id, title=f"Drill: {title}")
            return
        status = self._by_id.get(picked or "")
        if status is not None:
            self.router.start_session(  # solved, it ends: back here, marked solved (on_screen_resume)
                "drill", question_ids=(status.question_id,), title=status.title, until_solved=True
            )
