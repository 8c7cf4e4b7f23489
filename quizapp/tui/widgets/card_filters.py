"""Provides CardFilterBar: the card browser's filter row (which cards, which deck, a search), and the
CardFilter it describes. It posts Changed when any of them changes (the screen reads the list again) and
Done when Enter is pressed in the search."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.message import Message
from textual.widgets import Input, Select

from quizapp.study.browser import CardFilter
from quizapp.tui.guard import on
from quizapp.tui.widgets.heatmap import shorten

if TYPE_CHECKING:
    from collections.abc import Sequence

    from quizapp.study.browser import CardOrder

FILTERS: tuple[tuple[str, str], ...] = (
    ("All cards", "all"),
    ("Due now", "due"),
    ("Suspended", "suspended"),
    ("Leeches", "leeches"),
)
ALL_DECKS = "*"


class CardFilterBar(Horizontal):
    """A row of two Selects (kind of card, deck) and the search box."""

    class Changed(Message):
        """The filter it describes changed."""

    class Done(Message):
        """Enter was pressed in the search: back to the cards."""

    def __init__(
        self, decks: Sequence[tuple[str, str]], deck_id: str | None, *, id: str | None = None
    ) -> None:
        super().__init__(id=id)
        self._decks = [(shorten(title, 30), deck) for title, deck in decks]
        """(title, deck id) of each deck the deck Select offers."""
        self._deck_id = deck_id

    def compose(self) -> ComposeResult:
        yield Select(FILTERS, value="all", allow_blank=False, id="browser-filter", compact=True)
        yield Select(
            [("Every deck", ALL_DECKS), *self._decks],
            value=self._deck_id or ALL_DECKS,
            allow_blank=False,
            id="browser-deck",
            compact=True,
        )
        yield Input(placeholder="search (/)", id="browser-search", compact=True)

    def card_filter(self, order: CardOrder) -> CardFilter:
        """The filter the row describes, listing in `order`."""
        kind = self.query_one("#browser-filter", Select).value
        deck = self.query_one("#browser-deck", Select).value
        return CardFilter(
            deck_id=deck if isinstance(deck, str) and deck != ALL_DECKS else None,
            due=kind == "due",
            suspended=kind == "suspended",
            leeches=kind == "leeches",
            search=self.query_one("#browser-search", Input).value,
            order=order,
        )

    @on(Select.Changed)
    def _picked(self, event: Select.Changed) -> None:
        event.stop()
        self.post_message(self.Changed())

    @on(Input.Changed)
    def _typed(self, event: Input.Changed) -> None:
        event.stop()
        self.post_message(self.Changed())

    @on(Input.Submitted)
    def _submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.post_message(self.Done())

    def focus_search(self) -> None:
        self.query_one("#browser-search", Input).focus()
