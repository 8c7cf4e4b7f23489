"""Provides BrowserScreen, the card browser (`b` from home): every card with its state, due date,
interval, reps, lapses and last rating, filtered (due, suspended, leeches, a deck, a search) and sorted
(`o`: catalog order, due soonest, most lapses, weakest recall), the highlighted card's history below, and
the actions suspend, unsuspend, bury, reset and study now.

The screen only lays out what quizapp.study.browser returns: every read and every action runs in a
worker thread that posts a message back, so the event loop never waits for the progress database.
"""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING, ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.widgets import Header, Static

from quizapp.study.browser import apply_action, card_detail, list_cards, next_order, order_name, search_texts
from quizapp.tui.guard import on
from quizapp.tui.screens.base import QuizScreen
from quizapp.tui.widgets.card_detail import CardDetailPane
from quizapp.tui.widgets.card_filters import CardFilterBar
from quizapp.tui.widgets.card_table import CardTable, Layout, Row, page_rows
from quizapp.tui.widgets.card_text import history_text, page_text
from quizapp.tui.widgets.footer import KeyFooter

if TYPE_CHECKING:
    from collections.abc import Mapping
    from datetime import datetime

    from rich.text import Text

    from quizapp.records.questions import QuestionRef
    from quizapp.study.browser import CardDetail, CardFilter, CardOrder, CardPage, CardView
    from quizapp.tui.backend import Backend

PAGE_SIZE = 100
"""Cards per page: one read of the store each (the browser's first page is what opening it waits for)."""


class BrowserScreen(QuizScreen[None]):
    """The card browser: a filter row, the cards, and the highlighted card's history."""

    BINDINGS: ClassVar[list[BindingType]] = [
        # Short labels, and suspend or unsuspend (whichever applies): every key fits 80 columns.
        Binding("escape", "app.pop_screen", "Back", tooltip="Back to the decks", id="browser.back"),
        Binding(
            "s", "act('suspend')", "Suspend", tooltip="Take the card out of every queue", id="browser.suspend"
        ),
        Binding(
            "u",
            "act('unsuspend')",
            "Unsuspend",
            tooltip="Bring a suspended card back",
            id="browser.unsuspend",
        ),
        Binding("b", "act('bury')", "Bury", tooltip="Set the card aside until tomorrow", id="browser.bury"),
        Binding(
            "r",
            "act('reset')",
            "Reset",
            tooltip="Start the card again as new (press twice; its history is kept)",
            id="browser.reset",
        ),
        Binding(
            "n",
            "act('study-now')",
            "Due now",
            tooltip="Make the card due now: Study (s on home) asks it next",
            id="browser.study_now",
        ),
        Binding(
            "d",
            "drill",
            "Drill",
            tooltip="Drill this one card (its schedule is unchanged)",
            id="browser.drill",
        ),
        Binding(
            "slash",
            "search",
            "Search",
            key_display="/",
            tooltip="Search ids and prompts",
            id="browser.search",
        ),
        Binding(
            "o",
            "sort",
            "Sort",
            tooltip="List the cards in the next order: catalog, due soonest, most lapses, weakest recall",
            id="browser.sort",
        ),
        Binding(
            "right_square_bracket",
            "page(1)",
            "Page",
            key_display="[ ]",
            tooltip="] the next page of cards, [ the one before",
            id="browser.next_page",
        ),
        Binding(
            "left_square_bracket",
            "page(-1)",
            "Prev page",
            key_display="[",
            show=False,  # the footer's "[ ] Page" names it
            id="browser.prev_page",
        ),
    ]

    def __init__(self, deck_id: str | None = None) -> None:
        super().__init__()
        self._deck_id = deck_id
        self._offset = 0
        self._page: CardPage | None = None
        self._texts: Mapping[str, str] | None = None
        """Every question's prompt, read once, when a search first needs it."""
        self._acting = False
        """An action is being applied in its worker: the next waits for it (one write at a time)."""
        self._reset_armed: str | None = None
        """The card whose reset the last `r` asked to confirm."""
        self._order: CardOrder = "catalog"
        """The order the cards are listed in (`o` steps to the next)."""
        self._suspended_shown: bool | None = None
        """Whether the footer's keys are the ones for a suspended card (None: for no card)."""

    def compose(self) -> ComposeResult:
        backend = self.router.backend
        decks = [(d.title, d.id) for d in (backend.decks if backend is not None else ())]
        yield Header()
        yield CardFilterBar(decks, self._deck_id, id="browser-filters")
        yield Static("Reading the cards…", id="browser-status")
        yield CardTable(id="browser-table")
        yield CardDetailPane(id="browser-detail")
        yield KeyFooter(show_command_palette=False)  # Ctrl+P still opens it: the room goes to the keys

    def on_mount(self) -> None:
        self.title = "Cards"
        self._show_order()
        self.router.set_blink(self)
        self.query_one(CardTable).focus()
        self.reload()

    def on_screen_resume(self) -> None:
        self.reload()  # a drill from here may have changed the cards

    def _show_order(self) -> None:
        self.sub_title = f"sorted by {order_name(self._order)} (o)"

    # -- reading ----------------------------------------------------------------------------------------

    @property
    def card_filter(self) -> CardFilter:
        """The filter the row above the table describes, in the order chosen with `o`."""
        return self.query_one(CardFilterBar).card_filter(self._order)

    def reload(self) -> None:
        backend = self.router.require_backend()
        if backend is not None:
            self._list(backend, self.card_filter, self._offset)

    def _list(self, backend: Backend, filt: CardFilter, offset: int) -> None:
        layout = self.query_one(CardTable).layout_now()
        self.fetch(
            partial(self._read_page, backend, filt, offset, layout),
            partial(self._listed, filt),
            group="browser-list",
            exclusive=True,
            store=False,  # it holds the store itself, after the search texts are built
        )

    def _read_page(
        self, backend: Backend, filt: CardFilter, offset: int, layout: Layout
    ) -> tuple[CardPage, datetime, Layout, tuple[Row, ...]]:
        """In the worker: the page of cards `filt` and `offset` ask for, and its rows' cells for the
        table's `layout` (the event loop only puts them in)."""
        if filt.search.strip() and self._texts is None:
            self._texts = search_texts(backend.catalog.questions)  # the search looks in them
        now = backend.now()
        with backend.store.one_at_a_time():
            page = list_cards(
                backend.store,
                _refs(backend),
                filt,
                now=now,
                limit=PAGE_SIZE,
                offset=offset,
                texts=self._texts,
                last_page=True,  # the list got shorter (a card unsuspended): its last page
            )
        return page, now, layout, page_rows(page, now, layout)

    def _listed(self, filt: CardFilter, read: tuple[CardPage, datetime, Layout, tuple[Row, ...]]) -> None:
        if filt != self.card_filter:
            return  # typed on since: the list for the newer filter is on its way
        page, now, layout, rows = read
        self._page = page
        self._offset = page.offset
        if self.router.backend is None:
            return
        self.query_one(CardTable).show(page, now, (layout, rows))
        self.query_one("#browser-status", Static).update(page_text(page))
        if not page.total:
            self.query_one(CardDetailPane).clear()
        self._show_highlighted()

    @property
    def highlighted_id(self) -> str | None:
        card = self._highlighted_card()
        return card.question_id if card is not None else None

    def _highlighted_card(self) -> CardView | None:
        page, row = self._page, self.query_one(CardTable).cursor_row
        return page.cards[row] if page is not None and 0 <= row < len(page.cards) else None

    @on(CardTable.RowHighlighted, "#browser-table")
    def _highlighted(self, event: CardTable.RowHighlighted) -> None:
        event.stop()
        self._reset_armed = None
        self._show_highlighted()

    def _show_highlighted(self) -> None:
        card = self._highlighted_card()
        suspended = None if card is None else card.suspended
        if suspended != self._suspended_shown:  # suspend or unsuspend: whichever the card takes
            self._suspended_shown = suspended  # (redrawing the footer on every Down cost a frame)
            self.refresh_bindings()
        backend = self.router.backend
        ref = self._ref(self.highlighted_id)
        if backend is not None and ref is not None:
            self.fetch(
                partial(_read_detail, backend, ref), self._detailed, group="browser-detail", exclusive=True
            )  # a newer read wins

    def _detailed(self, read: tuple[CardDetail, Text]) -> None:
        detail, text = read
        if self.router.backend is None or detail.card.question_id != self.highlighted_id:
            return
        self.query_one(CardDetailPane).show_text(text)

    # -- filters ----------------------------------------------------------------------------------------

    @on(CardFilterBar.Changed)
    def _filter_changed(self, event: CardFilterBar.Changed) -> None:
        event.stop()
        self._offset = 0
        self.reload()

    @on(CardFilterBar.Done)
    def _search_done(self, event: CardFilterBar.Done) -> None:
        event.stop()
        self.query_one(CardTable).focus()

    def action_search(self) -> None:
        self.query_one(CardFilterBar).focus_search()

    def action_sort(self) -> None:
        """Lists the cards in the next order, from the first page (the core sorts them)."""
        self._order = next_order(self._order)
        self._show_order()
        self._offset = 0
        self.reload()

    def action_page(self, step: int) -> None:
        page = self._page
        if page is None:
            return
        offset = self._offset + step * PAGE_SIZE
        if offset < 0 or offset >= page.total:
            return
        self._offset = offset
        self.reload()

    # -- actions ----------------------------------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "act":
            card = self._highlighted_card()
            if card is None or self._acting:
                return False
            if parameters in (("suspend",), ("unsuspend",)):
                return card.suspended == (parameters == ("unsuspend",))
            return True
        if action == "drill":
            return self.highlighted_id is not None
        return True

    def action_act(self, action: str) -> None:
        """Applies an action to the highlighted card in a worker; the list and its history follow."""
        qid = self.highlighted_id
        ref = self._ref(qid)
        backend = self.router.require_backend()
        if ref is None or backend is None:
            return
        if action == "reset" and self._reset_armed != qid:
            self._reset_armed = qid
            self.notify(
                f"Press r again to reset {qid}: it starts again as a new card (its history is kept).",
                title="Reset this card?",
                severity="warning",
                timeout=6,
            )
            return
        self._reset_armed = None
        self._acting = True
        self._act(backend, ref, action)

    def _act(self, backend: Backend, ref: QuestionRef, action: str) -> None:
        act = partial(apply_action, backend.store, ref, action, now=backend.now())
        self.fetch(act, self._acted, group="browser-act", failed=self._not_acted)

    def _acted(self, said: str) -> None:
        self._acting = False
        self.refresh_bindings()
        self.notify(said, timeout=5, markup=False)
        self.reload()

    def _not_acted(self, error: Exception) -> None:
        self._acting = False  # the next key may try again
        self.refresh_bindings()
        self.router.report_error(error)

    def action_drill(self) -> None:
        qid = self.highlighted_id
        if qid is not None:
            self.router.start_session("drill", question_ids=(qid,), title=f"Drill: {qid}")

    def _ref(self, qid: str | None) -> QuestionRef | None:
        backend = self.router.backend
        if backend is None or qid is None:
            return None
        return backend.questions.by_id.get(qid)


def _read_detail(backend: Backend, ref: QuestionRef) -> tuple[CardDetail, Text]:
    """In the worker: the card's history, and the text that shows it (the event loop only puts it in)."""
    now = backend.now()
    detail = card_detail(backend.store, ref, now=now)
    return detail, history_text(detail, now)


def _refs(backend: Backend) -> list[QuestionRef]:
    """Every question in the catalog's order (the browser lists them as the decks hold them)."""
    by_id = backend.questions.by_id
    return [by_id[qid] for deck in backend.decks for qid in deck.question_ids if qid in by_id]
