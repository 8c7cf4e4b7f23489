"""Provides the error guard: a screen's handlers and key actions report what they raise (the user's words
for a QuizappError, a crash log for a bug) and the app goes on, using only public Textual API.

QuizScreen guards every `action_*` and `on_*` method of its subclasses itself; a handler registered with
a decorator is guarded by using this module's `on` in place of `textual.on`.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any, TypeVar, cast

import textual
from textual.message import Message

F = TypeVar("F", bound=Callable[..., Any])
_GUARDED = "_quizapp_guarded"


def guarded(method: F) -> F:
    """`method` (sync or async, on a widget or screen), with what it raises reported by the app."""
    if getattr(method, _GUARDED, False):
        return method
    if inspect.iscoroutinefunction(method):

        @functools.wraps(method)
        async def guard_async(self: Any, *args: Any, **kwargs: Any) -> Any:
            try:
                return await method(self, *args, **kwargs)
            except Exception as exc:
                self.app.report_error(exc)
                return None

        wrapper: Callable[..., Any] = guard_async
    else:

        @functools.wraps(method)
        def guard(self: Any, *args: Any, **kwargs: Any) -> Any:
            try:
                return method(self, *args, **kwargs)
            except Exception as exc:
                self.app.report_error(exc)
                return None

        wrapper = guard
    setattr(wrapper, _GUARDED, True)
    return cast("F", wrapper)


def on(message_type: type[Message], selector: str | None = None, **kwargs: str) -> Callable[[F], F]:
    """`textual.on`, with the handler guarded."""
    register = textual.on(message_type, selector, **kwargs)

    def decorate(method: F) -> F:
        return register(guarded(method))

    return decorate


def guard_handlers(cls: type) -> None:
    """Guards the `action_*` and `on_*` methods `cls` itself defines. One guarded with this module's `on`
    is left as it is (`guarded` wraps once); Textual dispatches it by its registration, never also by its
    name, so either way it runs once per message."""
    for name, value in list(vars(cls).items()):
        if inspect.isfunction(value) and name.startswith(("action_", "on_", "_on_")):
            setattr(cls, name, guarded(value))
