"""Provides QuizApp, the full-screen trainer, and make_app, the factory the command line and tests share.

The app loads the catalog and opens the progress database in a worker thread, then routes between the
screens. Every error a screen meets becomes a notification; no traceback reaches the terminal.
"""

from __future__ import annotations

import dataclasses
import inspect
import io
import sys
import threading
from collections.abc import Awaitable, Callable, Iterable
from datetime import datetime
from functools import partial
from pathlib import Path, PurePath
from typing import TYPE_CHECKING, Any, ClassVar, TypeVar

from rich.console import Console
from textual import work
from textual.app import App, SystemCommand
from textual.binding import Binding, BindingType
from textual.screen import Screen
from textual.widget import Widget
from textual.worker import Worker, WorkerState

from quizapp.collector import freeze_loaded
from quizapp.content.remembered_decks import RememberedDeck, remember_decks
from quizapp.crash import write_crash_log, write_crash_text
from quizapp.errors import QuizappError
from quizapp.terminal_text import terminal_text
from quizapp.tui.backend import AppConfig, Backend, Clock, load_backend
from quizapp.tui.keys import binding_ids
from quizapp.tui.messages import (
    BackendFailed,
    BackendLoaded,
    BackupFailed,
    OverviewLoaded,
    SessionOpened,
    SessionRefused,
    WorkerDone,
)
from quizapp.tui.routing import REGISTRY
from quizapp.tui.screens.base import QuizScreen
from quizapp.tui.screens.help import listed
from quizapp.tui.screens.home import HomeScreen
from quizapp.tui.warm_up import import_ahead

if TYPE_CHECKING:
    from textual.notifications import SeverityLevel

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

T = TypeVar("T")

WARM_UP_AFTER_S = 0.3
"""Seconds after the backend arrives before the warm-up imports start: home draws its decks first."""

PROBLEM_LINES = 6
"""How many skipped decks the start-up notification names before "and N more"."""


class QuizApp(App[None]):
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

    def __init__(self, config: AppConfig | None = None) -> None:
        super().__init__()
        self.config = dataclasses.replace(config or AppConfig(), report=self._backup_failed)
        self.backend: Backend | None = None
        self._deferred: Callable[[], None] | None = None
        """A session or screen asked for while the decks were loading; it opens once they are ready."""
        self._opened: Backend | None = None
        """The backend as soon as the load worker has it (before the app does), so closing finds it."""
        self._opened_lock = threading.Lock()
        self._closed_down = False
        self._failed = ""
        """Why the decks could not be loaded ("" while loading, or once loaded)."""

    # -- start-up -----------------------------------------------------------------------------------------

    def on_mount(self) -> None:
        self.apply_user_config()
        self.open_screen("home")
        self.load()  # in a thread, while the home screen paints its first frame

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

    def notify(
        self,
        message: str,
        *,
        title: str = "",
        severity: SeverityLevel = "information",
        timeout: float | None = None,
        markup: bool = True,
    ) -> None:
        """Every notification as plain text: messages carry paths, deck titles, ids and error text, in
        which "[" is markup (a home folder named `qa[/]home` crashed the app with a MarkupError), and
        which may hold escape sequences (a file name): both pass terminal_text."""
        super().notify(
            terminal_text(message),
            title=terminal_text(title),
            severity=severity,
            timeout=timeout,
            markup=False,
        )

    def _backup_failed(self, text: str) -> None:
        """The store's report hook: called in whichever thread wrote; post_message is thread-safe."""
        self.post_message(BackupFailed(text))

    def on_backup_failed(self, message: BackupFailed) -> None:
        self.notify(message.message, title="Backup", severity="warning", timeout=20, markup=False)

    @work(thread=True, exclusive=True, exit_on_error=False, group="load")
    def load(self) -> None:
        """Loads the catalog and opens the store off the event loop (the first run parses every deck)."""
        try:
            backend = load_backend(self.config)
        except QuizappError as exc:
            self.post_message(BackendFailed(str(exc)))
            return
        except Exception as exc:
            log = write_crash_log()
            self.post_message(BackendFailed(f"Loading failed: {exc!r} (details in {log})"))
            return
        remember_decks(  # for the next start's first frame
            self.config.deck_key(),
            [RememberedDeck(d.id, d.title, len(d.question_ids)) for d in backend.decks],
        )
        freeze_loaded()  # the catalog and the store live until the app ends: the collector skips them
        with self._opened_lock:
            if self._closed_down:  # the app ended while loading: nobody will close this store
                backend.close()
                return
            self._opened = backend
        first: OverviewLoaded | None = None
        theme = ""
        try:  # what home shows next, read here too: no second trip to a worker before the decks show
            with backend.store.one_at_a_time():  # closing the store on exit waits for these reads
                first = OverviewLoaded(backend.overview(), backend.plan_line())
                theme = backend.settings().theme
        except Exception as exc:  # home reads them again in its own worker, and reports what fails
            if not self._closed_down:  # the app ended meanwhile and closed the store: nothing to say
                self.from_worker(self.report_error, exc)
        self.post_message(BackendLoaded(backend, first, theme))
        backend.questions  # noqa: B018  built here, not on the event loop when a screen first asks

    def on_backend_loaded(self, message: BackendLoaded) -> None:
        self.backend = message.backend
        if message.theme in self.available_themes:
            self.theme = message.theme
        for notice in message.backend.notices:
            self.notify(notice, title="Progress database", severity="warning", timeout=30)
        if message.backend.skipped_decks:
            self.notify_skipped(message.backend.skipped_decks)

        for screen in self.screen_stack:
            if isinstance(screen, HomeScreen):
                if message.overview is None:
                    screen.show_backend(message.backend)
                else:
                    screen.post_message(message.overview)
        deferred, self._deferred = self._deferred, None
        if deferred is not None:
            deferred()
        self.set_timer(WARM_UP_AFTER_S, self.warm_up)

    @work(thread=True, exclusive=True, exit_on_error=False, group="warm-up")
    def warm_up(self) -> None:
        """Imports what the first card needs while home is idle (see quizapp.tui.warm_up)."""
        import_ahead()
        self.from_worker(lambda _: self._freeze_if_home(), None)

    def from_worker(self, then: Callable[[T], Awaitable[None] | None], outcome: T) -> None:
        """The app's workers' way back to the event loop, the same as a screen's (QuizScreen.fetch): a
        message, which `then` handles there; posting is thread-safe and never waits for the loop."""
        self.post_message(WorkerDone(outcome, then))

    async def on_worker_done(self, message: WorkerDone) -> None:
        shown = message.then(message.outcome)
        if inspect.isawaitable(shown):
            await shown

    def _freeze_if_home(self) -> None:
        """What the warm-up imported lives until the app ends: out of the collector's sight with the
        catalog, so a full collection on stats or the interview does not walk every module again. Only on
        home: a screen opened meanwhile freezes what is alive itself, and frees it when it goes."""
        if isinstance(self.screen, HomeScreen):
            freeze_loaded()

    def on_backend_failed(self, message: BackendFailed) -> None:
        text = terminal_text(message.message)  # it names files: their names are someone else's text
        self._deferred = None
        self._failed = text
        self.notify(text, title="Cannot start", severity="error", timeout=60)
        for screen in self.screen_stack:
            if isinstance(screen, HomeScreen):
                screen.show_failure(text)

    def on_unmount(self) -> None:
        """The app is closing: close the database so no connection is left open, and end the standby
        child of the coding exercises, if one was started."""
        with self._opened_lock:
            self._closed_down = True
            if self._opened is not None:
                self._opened.close()
        standby = sys.modules.get("quizapp.runner.standby")
        if standby is not None:
            standby.POOL.close()

    def notify_skipped(self, decks: tuple[str, ...]) -> None:
        """Reports the decks that failed to load, once, in a notification the user can click away."""
        names = ", ".join(decks[:PROBLEM_LINES]) + (
            f" and {len(decks) - PROBLEM_LINES} more" if len(decks) > PROBLEM_LINES else ""
        )
        self.notify(
            f"{names}. Their questions are left out; `quizapp validate` says why. (Click to dismiss.)",
            title=f"Skipped {len(decks)} deck{'s' if len(decks) != 1 else ''} with errors",
            severity="warning",
            timeout=20,
            markup=False,
        )

    # -- routing ----------------------------------------------------------------------------------------

    def defer_until_loaded(self, action: Callable[[], None]) -> bool:
        """True if the decks are still loading: `action` then runs once they are (the latest request wins)."""
        if self.backend is not None:
            return False
        if self._failed:  # nothing is loading any more: waiting would promise what never comes
            self.notify(
                f"{self._failed} Quit with q, then start quizapp again.",
                title="Cannot start",
                severity="error",
                timeout=15,
            )
            return True
        self._deferred = action
        self.notify("Loading the decks; this opens as soon as they are ready.", timeout=4)
        return True

    def require_backend(self) -> Backend | None:
        """The backend, or None with a notification if loading has not finished."""
        if self.backend is None:
            self.notify("Still loading the decks; try again in a moment.", severity="warning")
        return self.backend

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
        self._open_session(backend, mode, deck_id, question_ids, title, until_solved)

    @work(thread=True, exclusive=True, group="session", exit_on_error=False)
    def _open_session(
        self,
        backend: Backend,
        mode: SessionMode,
        deck_id: str | None,
        question_ids: tuple[str, ...] | None,
        title: str,
        until_solved: bool = False,
    ) -> None:
        """Builds the session and draws its first card off the event loop (its queue reads the store; at
        100k cards a cram queue takes most of a second)."""
        from quizapp.study.session import StudySession

        try:
            with backend.store.one_at_a_time():
                session = StudySession.start(
                    backend.catalog,
                    backend.store,
                    backend.questions,
                    mode=mode,
                    clock=backend.now,
                    rng=backend.rng,
                    deck_id=deck_id,
                    question_ids=question_ids,
                    fuzzing=backend.config.fuzzing,
                    title=title,
                    plan_questions=backend.workspace.plan_questions,  # a daily budget sets the new-card limit
                    plan=backend.plan(backend.now()) if mode == "study" else None,  # home's, cached
                    until_solved=until_solved,
                )
                if session.finished:
                    self.post_message(SessionRefused(session.empty_message, None))
                    return
                card = session.current
                code = ""
                if card is not None and card.instance.kind == "code":
                    code = backend.code_text(card.instance.question_id, card.instance.starter)
                left = session.progress().left
            # here, not on the event loop: a first `s` soon after start-up would wait there for the
            # warm-up's import of the same module (0.05 s of frozen screen)
            REGISTRY["study"].screen_class()
        except Exception as exc:
            self.post_message(SessionRefused("", exc))
            return
        self.post_message(SessionOpened(session, code, left))

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

    # -- errors -----------------------------------------------------------------------------------------

    def report_error(self, exc: BaseException) -> None:
        """Turns an exception into a notification: the user's words for QuizappError, a log for bugs."""
        from quizapp.workspace import damaged, from_the_store

        if self._closed_down and from_the_store(exc):
            return  # a worker that read the store after the app closed it on the way out: nothing was lost
        exc = damaged(exc) or exc  # a damaged database page: where the backups are, not "internal error"
        if isinstance(exc, QuizappError):
            self.notify(str(exc), title="Cannot do that", severity="error", timeout=10, markup=False)
            return
        log = write_crash_log(exc)
        self.notify(
            f"Something went wrong: {exc!r}. The app keeps running; details are in {log}.",
            title="Internal error",
            severity="error",
            timeout=15,
            markup=False,
        )

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.state == WorkerState.ERROR and event.worker.error is not None:
            self.report_error(event.worker.error)

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
