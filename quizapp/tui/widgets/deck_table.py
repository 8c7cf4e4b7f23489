"""Provides DeckTable: the home screen's decks with their new and due counts and a readiness bar (the
expected recall on the interview day, quizapp.study.readiness), which follows once it is computed.

An OptionList of pre-drawn rows, rather than a DataTable: the list is what start-up waits for, and a
DataTable measures and styles every cell of every row for its first frame (home's decks came 0.1x of a
bare Textual app's start-up later with it). The column header is a Static the screen places above.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text
from textual.widget import Widget
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from quizapp.tui.widgets.heatmap import shorten

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from quizapp.content.remembered_decks import RememberedDeck
    from quizapp.reports.overview import DeckRow

BAR_WIDTH = 10
COUNT_WIDTH = 5
NUMBERS_WIDTH = 2 * COUNT_WIDTH + 2 + BAR_WIDTH + 5 + 2
"""Room the New, Due and Ready columns (and the list's scrollbar) take beside the title."""


def mastery_bar(share: float, width: int = BAR_WIDTH) -> Text:
    """A bar of `width` cells filled in proportion to `share`, then the percentage (display only)."""
    share = min(1.0, max(0.0, share))
    filled = round(share * width)
    bar = Text()
    bar.append("█" * filled, style="green")
    bar.append("░" * (width - filled), style="dim")
    bar.append(f" {share * 100:3.0f}%")
    return bar


def title_width_for(width: int) -> int:
    """How wide a deck title may be so a row `width` cells wide fits (long titles get an ellipsis)."""
    return max(12, width - NUMBERS_WIDTH)


def column_names(title_width: int) -> Text:
    """The header over the rows' columns."""
    names = "Deck".ljust(title_width) + "New".rjust(COUNT_WIDTH) + "Due".rjust(COUNT_WIDTH)
    return Text(names + "  Ready", style="bold")


def deck_line(title: str, counts: tuple[int, int] | None, title_width: int, ready: float | None) -> Text:
    """One deck's row: title, new and due counts (None: "…", not counted yet), and the readiness bar."""
    line = Text(no_wrap=True, overflow="ellipsis")
    line.append(shorten(title, title_width).ljust(title_width))
    if counts is None:
        line.append("…".rjust(COUNT_WIDTH) * 2, style="dim")
    else:
        new, due = counts
        line.append(str(new).rjust(COUNT_WIDTH))
        line.append(str(due).rjust(COUNT_WIDTH), style="bold" if due else "dim")
    line.append("  ")
    if ready is None:  # computed after the counts: a blank bar until it arrives
        line.append("·" * BAR_WIDTH + "   …", style="dim")
    else:
        line.append_text(mastery_bar(ready))
    return line


def remembered_rows(decks: Sequence[RememberedDeck], width: int) -> Text:
    """The rows of the decks the last start loaded, counts "…", as one Text for home's first frame (an
    OptionList measures and styles each row: a third of that frame), for a table `width` cells wide."""
    title_width = title_width_for(width)
    rows = [deck_line(d.title, None, title_width, None) for d in decks]
    return Text("\n", no_wrap=True).join(rows)


class DeckTable(OptionList):
    """One row per deck; the highlighted row is what `d` drills, Enter or a click too. `header`, if
    given, is kept showing the column names over the rows' columns."""

    def __init__(self, *, header: Static | None = None, id: str | None = None) -> None:
        super().__init__(id=id, compact=True)
        self._header = header
        self._deck_ids: list[str] = []
        self._rows: tuple[DeckRow, ...] = ()
        self._ready: Mapping[str, float] = {}
        self._title_width = 0

    def show_readiness(self, ready: Mapping[str, float]) -> None:
        """Each deck's readiness (deck id -> expected recall, 0..1), drawn in its row's bar."""
        self._ready = dict(ready)
        if self._rows:
            self.show_rows(self._rows)

    def show_rows(self, rows: tuple[DeckRow, ...]) -> None:
        """Replaces the rows, keeping the highlight on the same deck."""
        keep = self.highlighted_deck_id
        self._rows = rows
        self._deck_ids = [r.deck_id for r in rows]
        self._title_width = self._fit_width()
        if self._header is not None:
            self._header.update(column_names(self._title_width))
        self.clear_options()
        self.add_options([Option(self._row(row), id=row.deck_id) for row in rows])
        if rows:
            self.highlighted = self._deck_ids.index(keep) if keep in self._deck_ids else 0

    def _row(self, row: DeckRow) -> Text:
        return deck_line(row.title, (row.new, row.due), self._title_width, self._ready.get(row.deck_id))

    def _fit_width(self) -> int:
        """How wide a deck title may be so the whole row fits the screen (long titles get an ellipsis)."""
        width = self.size.width or self.container_size.width
        if not width and isinstance(self.parent, Widget):  # mounted, not laid out yet: its parent's room
            width = self.parent.content_size.width
        return title_width_for(width or self.app.size.width)

    def on_resize(self) -> None:
        if self._rows and self._fit_width() != self._title_width:
            self.show_rows(self._rows)

    @property
    def highlighted_deck_id(self) -> str | None:
        index = self.highlighted
        if index is None or not 0 <= index < len(self._deck_ids):
            return None
        return self._deck_ids[index]
