"""Provides CardDetailPane: below the card browser's list, the highlighted card in one line and its latest
answers, which the browser reads from the store in its fetch worker (the event loop never waits for the
progress database)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Static

from quizapp.tui.widgets.card_text import history_text

if TYPE_CHECKING:
    from datetime import datetime

    from rich.text import Text

    from quizapp.study.browser import CardDetail


class CardDetailPane(VerticalScroll, can_focus=False):  # Tab goes from the cards to the filters
    """The highlighted card's history: the screen reads it and `show`s it if still highlighted."""

    def compose(self) -> ComposeResult:
        yield Static("", id="browser-history")

    def show(self, detail: CardDetail, now: datetime) -> None:
        self.show_text(history_text(detail, now))

    def show_text(self, text: Text) -> None:
        """Shows a history already made into text (in the browser's worker)."""
        self.query_one("#browser-history", Static).update(text)

    def clear(self) -> None:
        self.query_one("#browser-history", Static).update("")
