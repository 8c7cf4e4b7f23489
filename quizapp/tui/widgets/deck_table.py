"""Provides DeckTable: the home screen's decks with their new and due counts and a readiness bar (the
expected recall on the interview day, quizapp.study.readiness), which follows once it is computed.

An OptionList of pre-drawn rows, rather than a DataTable: the list is what start-up waits for, and a
DataTable measures and styles every cell of every row for its first frame (home's decks came 0.1x of a
bare Textual app's start-up later with it). The column header is a Static the screen places above.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from quizapp.tui.widgets.heatmap import shorten

if TYPE_CHECKING:
    from collections.abc import Mapping

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
            names = "Deck".ljust(self._title_width) + "New".rjust(COUNT_WIDTH) + "Due".rjust(COUNT_WIDTH)
            self._header.update(Text(names + "  Ready", style="bold"))
        self.clear_options()
        self.add_options([Option(self._row(row), id=row.deck_id) for row in rows])
        if rows:
            self.highlighted = self._deck_ids.index(keep) if keep in self._deck_ids else 0

    def _row(self, row: DeckRow) -> Text:
        line = Text(no_wrap=True, overflow="ellipsis")
        line.append(shorten(row.title, self._title_width).ljust(self._title_width))
        line.append(str(row.new).rjust(COUNT_WIDTH))
        line.append(str(row.due).rjust(COUNT_WIDTH), style="bold" if row.due else "dim")
        line.append("  ")
        ready = self._ready.get(row.deck_id)
        if ready is None:  # computed after the counts: a blank bar until it arrives
            line.append("·" * BAR_WIDTH + "   …", style="dim")
        else:
            line.append_text(mastery_bar(ready))
        return line

    def _fit_width(self) -> int:
        """How wide a deck title may be so the whole row fits the screen (long titles get an ellipsis)."""
        width = self.size.width or self.container_size.width or self.app.size.width
        return max(12, width - NUMBERS_WIDTH)

    def on_resize(self) -> None:
        if self._rows and self._fit_width() != self._title_width:
            self.show_rows(self._rows)

    @property
    def highlighted_deck_id(self) -> str | None:
        index = self.highlighted
        if index is None or not 0 <= index < len(self._deck_ids):
            return None
        return self._deck_ids[index]
