"""Provides QuizScreen, every full screen's base: the router to the app, one error guard, and the one way
a screen's slow work runs: `write` (the session's saves, one at a time) and `fetch` (reads of the progress
database and slow steps such as a forward pass or training, `fetch_reporting` with progress) run it in a
worker thread and bring its outcome or error back to the screen as a message: the event loop never waits
for it, and a worker's error is reported, never ends the app."""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable
from contextlib import AbstractContextManager, nullcontext
from functools import partial
from typing import TYPE_CHECKING, Any, TypeVar, cast

from textual.reactive import var
from textual.screen import Screen
from textual.worker import active_worker

from quizapp.tui.guard import guard_handlers, on
from quizapp.tui.messages import WorkerDone, WorkerFailed
from quizapp.tui.widgets.drawing import forget_drawing

if TYPE_CHECKING:
    from quizapp.content.instance import Instance
    from quizapp.tui.routing import Router
    from quizapp.tui.widgets.question_pane import QuestionPane

ResultT = TypeVar("ResultT")
T = TypeVar("T")
P = TypeVar("P")
Shown = Callable[[T], Awaitable[None] | None]
"""What shows a worker's outcome on the event loop (sync or async)."""
Failed = Callable[[Exception], Awaitable[None] | None]
"""What shows a worker's error on the event loop in place of the app's report."""


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

    async def build_ahead(self, pane: QuestionPane, inst: Instance) -> bool:
        """Builds `inst`'s input in `pane`, hidden, while the learner reads (QuestionPane.build_ahead);
        a cursor in the new input blinks as the screen's others do. True if it was built now."""
        if not await pane.build_ahead(inst):
            return False
        self.router.set_blink(pane)
        return True

    def write(self, save: Callable[[], T], then: Shown[T]) -> None:
        """Runs one session write (grading, then a commit that waits for the disk) in the save worker, so
        the screen never waits for it; `then` shows the outcome. One write at a time."""
        if self.saving:
            return
        self.saving = True
        self._in_worker(
            save,
            partial(self._saved, then),
            group="save",
            exclusive=False,
            store=True,
            failed=self._save_failed,
        )

    async def _saved(self, then: Shown[T], outcome: T) -> None:
        self.saving = False
        await _shown(then(outcome))

    def _save_failed(self, error: Exception) -> None:
        self.saving = False
        self.router.report_error(error)

    def _one_at_a_time(self) -> AbstractContextManager[None]:
        """The store's connection for this worker alone (Store.one_at_a_time), once it is open."""
        backend = self.router.backend
        return nullcontext() if backend is None else backend.store.one_at_a_time()

    def fetch(
        self,
        read: Callable[[], T],
        then: Shown[T],
        *,
        group: str = "fetch",
        exclusive: bool = False,
        store: bool = True,
        failed: Failed | None = None,
    ) -> None:
        """Runs `read` (a read of the progress database, or with `store=False` a slow step that needs no
        store, such as a forward pass) in a worker thread; `then` shows the outcome on the event loop.
        `exclusive`: a newer fetch of the same `group` cancels this one (a thread cannot be stopped: it
        still finishes, so `then` checks its outcome is still wanted). `failed` takes what `read` raised
        (default: the app reports it, as for any handler, and the screen stays)."""
        self._in_worker(read, then, group=group, exclusive=exclusive, store=store, failed=failed)

    def fetch_reporting(
        self,
        read: Callable[[Callable[[P], None]], T],
        progress: Shown[P],
        then: Shown[T],
        *,
        group: str,
        exclusive: bool = False,
        store: bool = False,
        failed: Failed | None = None,
    ) -> None:
        """`fetch` for a long step that reports as it goes: `read` is given a function to call (in its
        thread) with each report, which `progress` shows on the event loop, in order, before `then`."""

        def report(value: P) -> None:
            self.post_message(WorkerDone(value, progress))

        self._in_worker(
            partial(read, report), then, group=group, exclusive=exclusive, store=store, failed=failed
        )

    def _in_worker(
        self,
        step: Callable[[], Any],
        then: Shown[Any],
        *,
        group: str,
        exclusive: bool,
        store: bool,
        failed: Failed | None,
    ) -> None:
        """The one way a screen's worker is run and its result comes back: the step runs in a thread
        (holding the store's connection if `store`), and its outcome or error is posted to this screen,
        whose handlers run `then` or `failed` on the event loop. An error never ends the app."""

        def run() -> None:
            try:
                with self._one_at_a_time() if store else nullcontext():
                    outcome = step()
            except Exception as exc:
                self.post_message(WorkerFailed(exc, failed))
                return
            finally:
                let_go_of_worker()
            self.post_message(WorkerDone(outcome, then))

        self.run_worker(run, name=group, group=group, exclusive=exclusive, thread=True, exit_on_error=False)

    @on(WorkerDone)
    async def _worker_done(self, event: WorkerDone) -> None:
        event.stop()
        await _shown(event.then(event.outcome))

    @on(WorkerFailed)
    async def _worker_failed(self, event: WorkerFailed) -> None:
        event.stop()
        if event.failed is not None:
            await _shown(event.failed(event.error))
            return
        self.show_busy(False)
        self.router.report_error(event.error)

    def show_busy(self, busy: bool) -> None:
        """Shows (or hides) that something this screen asked for is being read or started in a worker;
        screens with a body to cover override it."""


def let_go_of_worker() -> None:
    """Clears the mark Textual leaves in a worker thread's own context (`active_worker`, set before the
    work runs and never reset): the executor's idle thread kept the worker, its screen and everything the
    screen drew alive until another job happened to land on that thread. Call last, in the worker thread."""
    active_worker.set(None)  # type: ignore[arg-type]  # "no worker": nothing reads it after the work


async def _shown(result: Awaitable[None] | None) -> None:
    """Awaits what an async `then` returned (a sync one returns None)."""
    if inspect.isawaitable(result):
        await result
