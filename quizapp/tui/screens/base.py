"""Provides QuizScreen, every full screen's base: the router to the app, one error guard, the save worker
that answers are written in and the fetch worker that reads are made in: the event loop never waits for
the progress database."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from contextlib import AbstractContextManager, nullcontext
from typing import TYPE_CHECKING, Any, TypeVar, cast

from textual import work
from textual.reactive import var
from textual.screen import Screen

from quizapp.tui.guard import guard_handlers, on
from quizapp.tui.messages import AnswerSaved, Fetched, FetchFailed, SaveFailed
from quizapp.tui.widgets.drawing import forget_drawing

if TYPE_CHECKING:
    from quizapp.tui.routing import Router

ResultT = TypeVar("ResultT")
T = TypeVar("T")


class QuizScreen(Screen[ResultT]):
    """A screen that reaches the app only through the Router protocol, and whose handlers never take the
    app down: an exception in any of them becomes a notification (the user's words for a QuizappError,
    a crash log for a bug) and the screen stays usable (quizapp.tui.guard: its `action_*` and `on_*`
    methods are guarded here; handlers registered with `on` use quizapp.tui.guard.on)."""

    saving: var[bool] = var(False, bindings=True)
    """A write is in the save worker: keys that act on the session wait for it (see check_action)."""

    @property
    def router(self) -> Router:
        return cast("Router", self.app)

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        guard_handlers(cls)

    def on_screen_suspend(self) -> None:
        """Another screen covers or replaces this one: the lines it drew are dropped (they would outlive it,
        see quizapp.tui.widgets.drawing), and drawn again if it comes back."""
        forget_drawing(self.children)

    def write(self, save: Callable[[], T], then: Callable[[T], Awaitable[None]]) -> None:
        """Runs one session write (grading, then a commit that waits for the disk) in the save worker, so
        the screen never waits for it; `then` shows the outcome. One write at a time."""
        if self.saving:
            return
        self.saving = True
        self._save_worker(save, then)

    @work(thread=True, group="save", exit_on_error=False)
    def _save_worker(self, save: Callable[[], Any], then: Callable[[Any], Awaitable[None]]) -> None:
        try:
            with self._one_at_a_time():
                outcome = save()
        except Exception as exc:
            self.post_message(SaveFailed(exc))
            return
        self.post_message(AnswerSaved(outcome, then))

    @on(AnswerSaved)
    async def _saved(self, event: AnswerSaved) -> None:
        self.saving = False
        await event.then(event.outcome)

    @on(SaveFailed)
    def _save_failed(self, event: SaveFailed) -> None:
        self.saving = False
        self.router.report_error(event.error)

    def _one_at_a_time(self) -> AbstractContextManager[None]:
        """The store's connection for this worker alone (Store.one_at_a_time), once it is open."""
        backend = self.router.backend
        return nullcontext() if backend is None else backend.store.one_at_a_time()

    def fetch(self, read: Callable[[], T], then: Callable[[T], Awaitable[None]]) -> None:
        """Runs a read of the progress database (stats, a list, a report) in the fetch worker; `then`
        shows the outcome."""
        self._fetch_worker(read, then)

    @work(thread=True, group="fetch", exit_on_error=False)
    def _fetch_worker(self, read: Callable[[], Any], then: Callable[[Any], Awaitable[None]]) -> None:
        try:
            with self._one_at_a_time():
                outcome = read()
        except Exception as exc:
            self.post_message(FetchFailed(exc))
            return
        self.post_message(Fetched(outcome, then))

    @on(Fetched)
    async def _fetched(self, event: Fetched) -> None:
        event.stop()
        await event.then(event.outcome)

    @on(FetchFailed)
    def _fetch_failed(self, event: FetchFailed) -> None:
        event.stop()
        self.show_busy(False)
        self.router.report_error(event.error)

    def show_busy(self, busy: bool) -> None:
        """Shows (or hides) that something this screen asked for is being read or started in a worker;
        screens with a body to cover override it."""
