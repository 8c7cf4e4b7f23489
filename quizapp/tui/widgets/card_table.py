"""Provides CardTable: the card browser's list, one row per card of a page, whose columns fit the width.

Question ids are long ("case-studies-70b-tp8-serving"), and an id cut short is a card one cannot tell
from its neighbours. So the id column takes the room the fixed columns leave; when that is too little
(80 columns), the interval and last-rating columns go first (the highlighted card's line below shows
both), and only an id longer than what is left is cut, with an ellipsis.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual.coordinate import Coordinate
from textual.events import Resize
from textual.widgets import DataTable

from quizapp.tui.widgets.card_text import interval_text, row_state_text, when_text
from quizapp.tui.widgets.heatmap import shorten

if TYPE_CHECKING:
    from datetime import datetime

    from quizapp.study.browser import CardPage, CardView

COLUMNS: tuple[tuple[str, str, int], ...] = (
    ("state", "State", 11),
    ("due", "Due", 12),
    ("ivl", "Ivl", 5),
    ("reps", "Reps", 4),
    ("laps", "Laps", 4),
    ("last", "Last", 5),
)
"""(key, label, width) of each column beside the question id; "drilled 12×" is the widest state."""
DROPPED_FIRST = ("last", "ivl")
"""The columns that give up their room to the id when it is narrow (the detail line shows them)."""
ID_WANTED = 32
"""Room the id column wants: most ids are 20 to 37 characters."""
ID_LEAST = 16
LEECH = " ⚑"


def fit_columns(room: int, padding: int) -> tuple[int, tuple[tuple[str, str, int], ...]]:
    """The id column's width and the other columns shown in `room` cells (each column takes `padding`
    more): a column of DROPPED_FIRST is left out only while the id would be narrower than ID_WANTED."""
    shown = list(COLUMNS)

    def id_width() -> int:
        return room - padding - sum(width + padding for _, _, width in shown)

    for key in DROPPED_FIRST:
        if id_width() >= ID_WANTED:
            break
        shown = [c for c in shown if c[0] != key]
    return max(ID_LEAST, id_width()), tuple(shown)


Layout = tuple[int, tuple[tuple[str, str, int], ...]]
"""The id column's width and the other columns shown (fit_columns)."""
Row = tuple[object, ...]


def page_rows(page: CardPage, now: datetime, layout: Layout) -> tuple[Row, ...]:
    """The cells of each card of `page` under `layout`: made in the browser's worker, so the event loop
    only puts them in the table (its first page at 100,000 cards froze the screen for 80-90 ms)."""
    width, columns = layout
    rows = []
    for card in page.cards:
        leech = LEECH if card.leech else ""
        cells = _cells(card, now)
        row = (shorten(card.question_id, width - len(leech)) + leech, *(cells[k] for k, _, _ in columns))
        rows.append(tuple(_plain(cell) for cell in row))
    return tuple(rows)


def _plain(cell: object) -> object:
    """A text cell as Text, made in the worker: the table parses a str as markup each time it draws it
    (some 25 ms of the first page's frame at 100,000 cards)."""
    return Text(cell, no_wrap=True, end="") if isinstance(cell, str) else cell


class CardTable(DataTable[Any]):
    """The browser's cards: `show` lays out a page; a resize lays it out again to the new width."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id, cursor_type="row", zebra_stripes=True)
        self._layout: tuple[int, tuple[tuple[str, str, int], ...]] | None = None
        self._shown: tuple[CardPage, datetime] | None = None

    @property
    def id_width(self) -> int:
        """How many cells the question id has now (0 before the first layout)."""
        return self._layout[0] if self._layout is not None else 0

    def on_resize(self, event: Resize) -> None:
        if self._fit(event.size.width) and self._shown is not None:
            self.show(*self._shown)

    def layout_now(self) -> Layout:
        """The columns the table has now (laid out for its width first, if they never were)."""
        if self._layout is None:
            self._fit(self.size.width)
        return self._layout or fit_columns(0, 0)

    def _fit(self, width: int) -> bool:
        """Sets the columns for `width` cells; True if they changed."""
        room = width - self.styles.scrollbar_size_vertical  # kept for the scrollbar a page brings
        layout = fit_columns(room, 2 * self.cell_padding)
        if layout == self._layout:
            return False
        self._layout = layout
        self.clear(columns=True)
        self.add_column("Question", width=layout[0], key="question")
        for key, label, col_width in layout[1]:
            self.add_column(label, width=col_width, key=key)
        return True

    def show(
        self, page: CardPage, now: datetime, prepared: tuple[Layout, tuple[Row, ...]] | None = None
    ) -> None:
        """Lays out `page` (keeping the highlighted card highlighted if it is still there), with the rows
        `prepared` for a layout (page_rows, in a worker) if it is still the table's."""
        self._shown = (page, now)
        layout = self.layout_now()
        rows = prepared[1] if prepared is not None and prepared[0] == layout else page_rows(page, now, layout)
        kept_id = self._row_id(self.cursor_row)
        self.clear()
        for card, row in zip(page.cards, rows, strict=True):
            self.add_row(*row, key=card.question_id)
        ids = [c.question_id for c in page.cards]
        if kept_id in ids:
            self.move_cursor(row=ids.index(kept_id))

    def _row_id(self, row: int) -> str | None:
        if not 0 <= row < self.row_count:
            return None
        key = self.coordinate_to_cell_key(Coordinate(row, 0)).row_key
        return key.value


def _cells(card: CardView, now: datetime) -> dict[str, object]:
    return {
        "state": row_state_text(card),
        "due": when_text(card.due, now),
        "ivl": interval_text(card.interval_days),
        "reps": str(card.reps),
        "laps": str(card.lapses),
        "last": card.last_rating_name or "—",
    }
