"""Provides DeckTable: the home screen's decks with their new and due counts and a mastery bar."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text
from textual.widgets import DataTable

from quizapp.tui.widgets.heatmap import shorten

if TYPE_CHECKING:
    from quizapp.reports.overview import DeckRow

BAR_WIDTH = 10
NUMBERS_WIDTH = 36
"""Room the New, Due and Mastery columns (with cell padding and the scrollbar) take beside the title."""


def mastery_bar(share: float, width: int = BAR_WIDTH) -> Text:
    """A bar of `width` cells filled in proportion to `share`, then the percentage (display only)."""
    share = min(1.0, max(0.0, share))
    filled = round(share * width)
    bar = Text()
    bar.append("█" * filled, style="green")
    bar.append("░" * (width - filled), style="dim")
    bar.append(f" {share * 100:3.0f}%")
    return bar


class DeckTable(DataTable[str | Text]):
    """One row per deck; the highlighted row is what `d` drills."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id, cursor_type="row", zebra_stripes=True)
        self._deck_ids: list[str] = []
        self._rows: tuple[DeckRow, ...] = ()
        self._title_width = 0

    def on_mount(self) -> None:
        # Text labels and cells, not strings: a string is parsed as markup (a "[" in a title would be
        # taken for a tag), and the first markup parse imports Rich's emoji table at start-up.
        self.add_column(Text("Deck"), key="deck")
        self.add_column(Text("New", justify="right"), key="new")
        self.add_column(Text("Due", justify="right"), key="due")
        self.add_column(Text("Mastery"), key="mastery")

    def show_rows(self, rows: tuple[DeckRow, ...]) -> None:
        """Replaces the rows, keeping the cursor on the same deck."""
        keep = self.highlighted_deck_id
        self.clear()
        self._rows = rows
        self._deck_ids = [r.deck_id for r in rows]
        self._title_width = self._fit_width()
        for row in rows:
            self.add_row(
                Text(shorten(row.title, self._title_width)),
                Text(str(row.new), justify="right"),
                Text(str(row.due), justify="right", style="bold" if row.due else "dim"),
                mastery_bar(row.mastery),
                key=row.deck_id,
            )
        if keep in self._deck_ids:
            self.move_cursor(row=self._deck_ids.index(keep))

    def _fit_width(self) -> int:
        """How wide a deck title may be so the whole table fits the screen (long titles get an ellipsis)."""
        width = self.size.width or self.app.size.width
        return max(12, width - NUMBERS_WIDTH)

    def on_resize(self) -> None:
        if self._rows and self._fit_width() != self._title_width:
            self.show_rows(self._rows)

    @property
    def highlighted_deck_id(self) -> str | None:
        if not self._deck_ids or not 0 <= self.cursor_row < len(self._deck_ids):
            return None
        return self._deck_ids[self.cursor_row]
