"""Provides forget_drawing: a way round a leak in Textual 8.2 that grew the app by 0.1 MiB a card.

Each widget keeps the lines it last drew (its line cache, and the lines cropped and recoloured from them).
Textual memoises a colour lookup with that cache in the key (an `lru_cache` on a method), so the caches of
the last 1,024 widgets ever drawn stay alive after their widgets are removed, lines and all: over a study
session that was most of what the collector walked (full collections of 40-60 ms) and most of the memory
growth. A repaint request empties a widget's line cache; made just before a removal, it never runs.
"""

from __future__ import annotations

from collections.abc import Iterable

from textual.widget import Widget


def forget_drawing(widgets: Iterable[Widget]) -> None:
    """Empties the line caches of `widgets` and everything in them: call just before removing them."""
    for widget in widgets:
        for node in widget.walk_children(Widget, with_self=True):
            node.refresh()
