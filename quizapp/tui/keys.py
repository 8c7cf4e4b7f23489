"""Provides every binding id of the app, the names config.toml's [keymap] may use.

Read from the classes themselves (the app, every registered screen, and every widget of quizapp's that
declares bindings), so a new key is listed without anyone remembering to add it here.
"""

from __future__ import annotations

from textual.binding import Binding
from textual.dom import DOMNode

from quizapp.tui.routing import SCREENS


def bindings() -> dict[str, Binding]:
    """Binding id -> its default Binding, for every Binding with an id in quizapp's TUI."""
    from quizapp.tui.app import QuizApp

    for entry in SCREENS:  # importing the screens imports their widgets
        entry.screen_class()
    found: dict[str, Binding] = {}
    for cls in (QuizApp, *_subclasses(DOMNode)):
        if not cls.__module__.startswith("quizapp.tui"):
            continue
        for item in cls.__dict__.get("BINDINGS", ()):
            if isinstance(item, Binding) and item.id:
                found.setdefault(item.id, item)
    return dict(sorted(found.items()))


def binding_ids() -> frozenset[str]:
    """The ids alone."""
    return frozenset(bindings())


def _subclasses(cls: type[DOMNode]) -> list[type[DOMNode]]:
    out: list[type[DOMNode]] = []
    for sub in cls.__subclasses__():
        out.append(sub)
        out.extend(_subclasses(sub))
    return out
