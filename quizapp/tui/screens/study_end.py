"""Provides SessionEnd, the study screen's part for the end of a session: "session complete", what comes
back later today (a store read, in a worker), and `w`, which waits for those cards with a countdown and
goes on with them when the first is due.

Kept apart from StudyScreen, which mixes it in, so each file holds one idea; it uses only the screen's
public surface (session, body, phase, write, fetch, prepare, show_next, update_bar) and Textual's.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual.widgets import Static

if TYPE_CHECKING:
    from textual.timer import Timer

    from quizapp.study.coming_back import ComingBack
    from quizapp.study.session import StudySession
    from quizapp.tui.screens.base import QuizScreen
    from quizapp.tui.widgets.study_body import StudyBody

    _Screen = QuizScreen[None]
else:
    _Screen = object  # a mixin at run time; typed as the screen it is mixed into

WAIT_TICK_S = 1.0
"""How often the wait for the cards that come back redraws its countdown and asks whether one is due."""


class SessionEnd(_Screen):
    """ "Session complete" and the wait for the cards that come back later today."""

    session: StudySession
    phase: str
    _coming: ComingBack | None = None
    """At the end of a study session: what comes back later today (read in a worker)."""
    _waiting: Timer | None = None
    """The countdown's timer while `w` waits for those cards."""
    _done_shown = False
    """"Session complete" is shown and the question hidden (Ctrl+Z or the wait may bring one back)."""

    @property
    def body(self) -> StudyBody:
        raise NotImplementedError  # the study screen's

    def update_bar(self) -> None: ...  # the study screen's

    def prepare(self, card: Any) -> Any: ...  # the study screen's: the next card, read in a worker

    async def show_next(self, next_card: Any) -> None: ...  # the study screen's

    async def hide_transients(self) -> None: ...  # the study screen's

    async def show_done(self) -> None:
        body = self.body
        await self.hide_transients()
        for widget in body.children:
            widget.display = False
        self._done_shown = True
        self._stop_waiting()
        self._coming = None
        await body.mount(Static(self._done_text(), id="session-done"))  # once a session, not per card
        body.focus()
        self.phase = "done"
        self.update_bar()
        if self.session.mode == "study":  # what comes back later today is a store read: in a worker
            self.fetch(self.session.coming_back, self._show_coming_back)

    def _done_text(self) -> Text:
        """ "Session complete", what comes back later today (or when the next card is due), and the wait."""
        done, right, coming = self.session.done, self.session.correct, self._coming
        text = Text()
        text.append("Session complete. ", style="bold")
        if done:
            text.append(f"You answered {done} question(s), {right} right; every answer is saved.\n")
        else:
            text.append(self.session.empty_message + "\n")
        summary = coming.summary() if coming is not None else ""
        if summary:
            text.append(summary + "\n")
        if coming is not None and self._waiting is not None:
            text.append(f"Waiting: {coming.countdown(self.session.clock())}; ", style="bold")
            text.append("study goes on when the first is due.\n", style="bold")
            text.append("Press Enter or Escape to go home.", style="dim")
        elif coming is not None and coming.first is not None:
            them = "it" if coming.later_today == 1 else "them"
            text.append(f"Press w to wait for {them}, Enter or Escape to go home.", style="dim")
        else:
            text.append("Press Enter or Escape to go home.", style="dim")
        return text

    def _redraw_done(self) -> None:
        for shown in self.query("#session-done").results(Static):
            shown.update(self._done_text())

    async def _show_coming_back(self, coming: ComingBack | None) -> None:
        if self.phase != "done":  # Ctrl+Z brought a question back meanwhile
            return
        self._coming = coming
        self._redraw_done()
        self.refresh_bindings()

    def can_wait(self) -> bool:
        """`w` applies: the session is over, cards come back later today, and nothing waits for them yet."""
        coming = self._coming
        return (
            self.phase == "done" and coming is not None and coming.first is not None and self._waiting is None
        )

    def action_wait(self) -> None:
        """w at the end of a session: waits for the cards that come back later today with a countdown, and
        goes on with them as soon as the first is due (the timer only asks ComingBack.ready, with the
        app's clock)."""
        if self._coming is None or self._coming.first is None or self._waiting is not None:
            return
        self._waiting = self.set_interval(WAIT_TICK_S, self._tick_wait)
        self._redraw_done()
        self.refresh_bindings()

    def _tick_wait(self) -> None:
        coming = self._coming
        if coming is None or self.phase != "done":
            self._stop_waiting()
        elif not coming.ready(self.session.clock()):
            self._redraw_done()
        elif not self.saving:  # else at the next tick
            self._stop_waiting()
            self.write(lambda: self.prepare(self.session.resume()), self.show_next)

    def _stop_waiting(self) -> None:
        if self._waiting is not None:
            self._waiting.stop()
            self._waiting = None
