"""Provides QuizScreen, every full screen's base: the router to the app, and one error guard."""

from __future__ import annotations

from typing import TYPE_CHECKING, TypeVar, cast

from textual.message import Message
from textual.screen import Screen

if TYPE_CHECKING:
    from quizapp.tui.routing import Router

ResultT = TypeVar("ResultT")


class QuizScreen(Screen[ResultT]):
    """A screen that reaches the app only through the Router protocol, and whose handlers never take the
    app down: an exception in any of them becomes a notification (the user's words for a QuizappError,
    a crash log for a bug) and the screen stays usable. Key actions get the same guard in QuizApp."""

    @property
    def router(self) -> Router:
        return cast("Router", self.app)

    async def _on_message(self, message: Message) -> None:
        try:
            await super()._on_message(message)
        except Exception as exc:  # the guard: report, keep running
            self.router.report_error(exc)
