"""Provides QuizApp, the full-screen trainer, and make_app, the factory the command line and tests share.

The app loads the catalog and opens the progress database in a worker thread (its base, BackendApp in
quizapp.tui.app_backend), then routes between the screens; a session is opened in a worker too
(quizapp.tui.session_opening). Every error a screen meets becomes a notification; no traceback reaches the
terminal.
"""

from __future__ import annotations

import io
import sys
from collections.abc import Callable, Iterable
from datetime import datetime
from functools import partial
from pathlib import Path, PurePath
from typing import TYPE_CHECKING, Any, ClassVar

from rich.console import Console
from textual import work
from textual.app import SystemCommand
from textual.binding import Binding, BindingType
from textual.screen import Screen
from textual.widget import Widget

from quizapp.collector import SWITCH_HOLD_S, hold_for_switch, switch_drawn
from quizapp.crash import write_crash_text
from quizapp.tui.app_backend import BackendApp
from quizapp.tui.backend import AppConfig, Clock
from quizapp.tui.keys import binding_ids
from quizapp.tui.messages import SessionOpened, SessionRefused
from quizapp.tui.routing import REGISTRY
from quizapp.tui.screens.base import QuizScreen
from quizapp.tui.screens.help import listed
from quizapp.tui.session_opening import open_session

if TYPE_CHECKING:
    from textual.timer import Timer

    from quizapp.config import UserConfig
    from quizapp.content.catalog import Catalog
    from quizapp.study.session import SessionMode

SCREEN_STYLES = (
    "browser.tcss",
    "explore.tcss",
    "interview.tcss",
    "interview_history.tcss",
    "interview_report.tcss",
    "interview_setup.tcss",
    "trained.tcss",
)
"""Each screen's stylesheet, loaded with the app's: a screen's own CSS_PATH is read when the screen is
first opened, and Textual then restyles every widget of every open screen (up to 0.1 s at that key)."""


class QuizApp(BackendApp):
    """The attention interview trainer: home, study, mock interview, explore, stats, settings and help."""

    CSS_PATH: ClassVar[list[str | PurePath]] = [
        Path(__file__).with_name("app.tcss"),
        *(Path(__file__).parent / "screens" / name for name in SCREEN_STYLES),
    ]
    TITLE = "quizapp"
    SUB_TITLE = "multi-head attention trainer"
    ENABLE_COMMAND_PALETTE = True
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+q", "quit", "Quit", show=False, priority=True, id="app.quit"),
        Binding("f1", "help", "Help", show=False, id="app.help"),
    ]
    _switch_timer: Timer | None = None
    """Ends the collector's hold after the latest screen switch (see _hold_collections)."""

    # -- start-up -----------------------------------------------------------------------------------------

    def on_mount(self) -> None:
        self.apply_user_config()
        self.open_screen("home")
        self.load()  # in a thread, while the home screen paints its first frame

    def on_unmount(self) -> None:
        switch_drawn()  # a switch's hold on the collector ends with the app

    # -- screens ------------------------------------------------------------------------------------------
    # Opening or closing a screen holds the collector off until the new screen is drawn (quizapp.collector).

    def push_screen(self, *args: Any, **kwargs: Any) -> Any:
        self._hold_collections()
        return super().push_screen(*args, **kwargs)

    def switch_screen(self, *args: Any, **kwargs: Any) -> Any:
        self._hold_collections()
        return super().switch_screen(*args, **kwargs)

    def pop_screen(self) -> Any:
        self._hold_collections()
        return super().pop_screen()

    def _hold_collections(self) -> None:
        """Holds the collector off for SWITCH_HOLD_S from the latest switch (a quick second switch, as
        Escape then a key, extends the hold rather than ending it midway)."""
        hold_for_switch()
        if self._switch_timer is not None:
            self._switch_timer.stop()
        self._switch_timer = self.set_timer(SWITCH_HOLD_S, self._switch_drawn, name="collector held off")

    def _switch_drawn(self) -> None:
        self._switch_timer = None
        switch_drawn()

    def apply_user_config(self) -> None:
        """Applies config.toml's keymap and says what in it was ignored (the file, the key, why)."""
        user = self.config.user
        if user is None:
            return
        problems = list(user.messages)
        if user.keymap:
            known = binding_ids()
            unknown = [binding_id for binding_id, _ in user.keymap if binding_id not in known]
            if unknown:
                problems.append(
                    f"{user.file}: [keymap] unknown binding id{'s' if len(unknown) > 1 else ''} "
                    f"{', '.join(unknown)} ignored; the help screen (?) lists every id."
                )
            self.set_keymap({k: v for k, v in user.keymap if k in known})
        if user.theme and user.theme not in self.available_themes:
            problems.append(
                f"{user.file}: theme {user.theme!r} is not a Textual theme; "
                f"known: {', '.join(sorted(self.available_themes))}."
            )
        for problem in problems:
            self.notify(
                problem, title="config.toml and --decks", severity="warning", timeout=30, markup=False
            )

    # -- routing ----------------------------------------------------------------------------------------

    def start_session(
        self,
        mode: SessionMode,
        *,
        deck_id: str | None = None,
        question_ids: tuple[str, ...] | None = None,
        title: str = "",
        until_solved: bool = False,
    ) -> None:
        """Opens the study screen in study, drill or cram mode (drill: one deck or a set of questions;
        `until_solved`: it ends once they are answered right, see StudySession.start)."""
        retry = partial(
            self.start_session,
            mode,
            deck_id=deck_id,
            question_ids=question_ids,
            title=title,
            until_solved=until_solved,
        )
        if self.defer_until_loaded(retry):
            return
        backend = self.require_backend()
        if backend is None:
            return

        if isinstance(self.screen, QuizScreen):
            self.screen.show_busy(True)
        self._open_session(partial(open_session, backend, mode, deck_id, question_ids, title, until_solved))

    @work(thread=True, exclusive=True, group="session", exit_on_error=False)
    def _open_session(self, opening: Callable[[], SessionOpened | SessionRefused]) -> None:
        """Builds the session and draws its first card off the event loop (`opening`: open_session of
        quizapp.tui.session_opening, with start_session's arguments)."""
        self.post_message(opening())

    def on_session_opened(self, message: SessionOpened) -> None:
        self._not_busy()
        self.open_screen("study", message.session, message.code, message.left)

    def on_session_refused(self, message: SessionRefused) -> None:
        self._not_busy()
        if message.error is not None:
            self.report_error(message.error)
        else:
            self.notify(message.message, title="Nothing to do", timeout=8)

    def _not_busy(self) -> None:
        for screen in self.screen_stack:
            if isinstance(screen, QuizScreen):
                screen.show_busy(False)

    def open_screen(
        self, name: str, *args: Any, replace: bool = False, callback: Callable[[Any], None] | None = None
    ) -> None:
        """Opens the screen registered as `name` (quizapp.tui.routing), built with `args`: pushed on top,
        or in place of the current one with `replace`. The one way any screen is opened."""
        entry = REGISTRY.get(name)
        if entry is None:
            self.notify(f"There is no {name} screen.", title="Not found", timeout=4)
            return
        reopen = partial(self.open_screen, name, *args, replace=replace, callback=callback)
        if entry.needs_backend and self.defer_until_loaded(reopen):
            return
        try:
            screen = entry.screen_class()(*args)
        except Exception as exc:
            self.report_error(exc)
            return
        if replace:
            self.switch_screen(screen)
        else:
            self.push_screen(screen, callback)

    def action_help(self) -> None:
        self.open_screen("help")

    def set_blink(self, root: Widget) -> None:
        """Applies the configured cursor blink to every text field under `root` (off in snapshot tests)."""
        from textual.widgets import Input, TextArea  # not at start-up: TextArea is slow to import

        for field in root.query("Input, TextArea"):
            if isinstance(field, (Input, TextArea)):
                field.cursor_blink = self.config.cursor_blink

    def get_system_commands(self, screen: Screen[Any]) -> Iterable[SystemCommand]:
        """Every key shown in the current screen's footer, or left out of it for room, is also a command
        in the palette (Ctrl+P)."""
        seen: set[str] = set()
        for active in screen.active_bindings.values():
            binding = active.binding
            if not listed(binding) or not active.enabled or binding.action in seen:
                continue
            if active.node is self:
                continue
            seen.add(binding.action)
            key = self.get_key_display(binding)
            yield SystemCommand(
                binding.description,
                binding.tooltip or f"{binding.description} (key: {key})",
                partial(self.run_action, binding.action, active.node),
            )
        yield from super().get_system_commands(screen)

    def run_for_exit_code(self, *, headless: bool = False) -> int:
        """Runs the app until the user quits; returns the exit code for the shell.

        A bug nothing caught ends the app (Textual then exits with code 1 and renders the traceback to
        its error console): the user sees one line and exit code 3, and the traceback goes to the crash
        log. Anything else on the error console (an exit message) is printed as it is.
        """
        buffer = io.StringIO()
        self.error_console = Console(file=buffer, markup=False, highlight=False, width=120, no_color=True)
        self.run(headless=headless)
        code = int(self.return_code or 0)
        text = buffer.getvalue()
        if code == 1:
            log = write_crash_text(text)
            last = next((line.strip() for line in reversed(text.splitlines()) if line.strip()), "")
            sys.stderr.write(f"quizapp: internal error: {last} (details in {log})\n")
            return 3
        if text:
            sys.stderr.write(text)
        return code


def make_app(
    db_path: str | Path | None = None,
    now: datetime | Clock | None = None,
    rng_seed: int | None = None,
    *,
    content_paths: Iterable[str | Path] = (),
    fuzzing: bool | None = None,
    cursor_blink: bool = True,
    catalog: Catalog | None = None,
    user_config: UserConfig | None = None,
) -> QuizApp:
    """Builds the app. Tests pass a fixed `now` (or a clock) and a seed so every screen is reproducible;
    fuzzing of intervals is off whenever a seed is given unless asked for. `catalog` skips loading decks
    (tests load the bank once), `cursor_blink=False` keeps snapshots stable. `user_config` is config.toml
    with `--decks` (quizapp.config.load_config); None reads no config file."""
    clock: Clock | None
    if now is None:
        clock = None
    elif isinstance(now, datetime):
        fixed = now if now.tzinfo is not None else now.astimezone()
        clock = lambda: fixed  # noqa: E731
    else:
        clock = now
    config = AppConfig(
        db_path=Path(db_path) if db_path is not None else None,
        clock=clock,
        rng_seed=rng_seed,
        content_paths=tuple(Path(p) for p in content_paths),
        fuzzing=(rng_seed is None) if fuzzing is None else fuzzing,
        cursor_blink=cursor_blink,
        catalog=catalog,
        user=user_config,
    )
    return QuizApp(config)
