"""Provides BackendApp, QuizApp's base: the backend loaded in a worker and handed to the screens, the warm-up,
the way back from the app's workers, and every error as a notification.

The catalog is loaded and the progress database opened off the event loop (QuizApp's home screen paints
meanwhile); a session or screen asked for before they are ready opens once they are; the store is closed
when the app ends, even mid-load. Textual finds the `on_*` handlers here as on QuizApp itself.
"""

from __future__ import annotations

import dataclasses
import inspect
import sys
import threading
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, TypeVar

from textual import work
from textual.app import App
from textual.worker import Worker, WorkerState

from quizapp.collector import freeze_loaded
from quizapp.content.remembered_decks import RememberedDeck, remember_decks
from quizapp.crash import write_crash_log
from quizapp.errors import QuizappError
from quizapp.terminal_text import terminal_text
from quizapp.tui.backend import AppConfig, Backend, load_backend
from quizapp.tui.messages import (
    BackendFailed,
    BackendLoaded,
    BackupFailed,
    OverviewLoaded,
    WorkerDone,
)
from quizapp.tui.screens.home import HomeScreen
from quizapp.tui.warm_up import import_ahead

if TYPE_CHECKING:
    from textual.notifications import SeverityLevel

T = TypeVar("T")

WARM_UP_AFTER_S = 0.3
"""Seconds after the backend arrives before the warm-up imports start: home draws its decks first."""

PROBLEM_LINES = 6
"""How many skipped decks the start-up notification names before "and N more"."""


class BackendApp(App[None]):
    """The app's side of the backend: loading, handing over, warming up, closing, and errors."""

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

    # -- notifications --------------------------------------------------------------------------------

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

    # -- the backend: loaded in a worker, handed over, closed ---------------------------------------------

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
        stack = self.screen_stack  # empty once the app is closing: the warm-up may finish after that
        if stack and isinstance(stack[-1], HomeScreen):
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
