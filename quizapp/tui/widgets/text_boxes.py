"""Provides the Input and TextArea that questions mount and remove again, card after card.

Textual's Input and TextArea (8.2) subscribe to their screen's text-selection signal when mounted and
never unsubscribe. The signal keeps subscribers in a weak-keyed table, but the callback it stores holds
the widget, so the entry never lapses: every answer box a card removed stayed alive, with its parent and
siblings, for as long as the screen. These unsubscribe when removed.
"""

from __future__ import annotations

from textual.widgets import Input, TextArea


class TextBox(Input):
    """An Input that unsubscribes from its screen's signal when removed."""

    def on_unmount(self) -> None:
        self.screen.text_selection_started_signal.unsubscribe(self)


class TextEditor(TextArea):
    """A TextArea that unsubscribes from its screen's signal when removed. (Textual also keeps a removed
    TextArea in the app's theme watchers until the theme next changes; there is no public way out.)"""

    def on_unmount(self) -> None:
        self.screen.text_selection_started_signal.unsubscribe(self)
