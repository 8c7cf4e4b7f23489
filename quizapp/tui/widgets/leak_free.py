"""Provides ways round two leaks in Textual 8.2 that grew the app by 0.2 MiB a card.

- Each widget keeps the lines it last drew (its line cache, and the lines cropped and recoloured from
  them). Textual memoises a colour lookup with that cache in the key (an `lru_cache` on a method), so the
  caches of the last 1,024 widgets ever drawn stay alive after their widgets are removed, lines and all:
  over a study session that is most of what the collector walked (full collections of 40-60 ms) and most
  of the memory growth. `forget_drawing` empties the caches of widgets about to be removed (a repaint
  request does that; the widgets are gone before it would run).
- Input and TextArea subscribe to their screen's text-selection signal when mounted and never unsubscribe.
  The signal keeps subscribers in a weak-keyed table, but the callback it stores holds the widget, so the
  entry never lapses: each answer box a card removed stayed alive with its parent and siblings.
  `TextBox` and `TextEditor` unsubscribe when removed.
"""

from __future__ import annotations

from collections.abc import Iterable

from textual.widget import Widget
from textual.widgets import Input, TextArea


def forget_drawing(widgets: Iterable[Widget]) -> None:
    """Empties the line caches of `widgets` and everything in them: call just before removing them."""
    for widget in widgets:
        for node in widget.walk_children(Widget, with_self=True):
            node.refresh()


class TextBox(Input):
    """An Input that unsubscribes from its screen's signal when removed (see the module docstring)."""

    def on_unmount(self) -> None:
        self.screen.text_selection_started_signal.unsubscribe(self)


class TextEditor(TextArea):
    """A TextArea that unsubscribes from its screen's signal when removed (see the module docstring)."""

    def on_unmount(self) -> None:
        self.screen.text_selection_started_signal.unsubscribe(self)
