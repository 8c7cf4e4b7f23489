"""Provides BrowserScreen, the card browser (`b` from home): every card with its state, due date,
interval, reps, lapses and last rating, filtered (due, suspended, leeches, a deck, a search), the
highlighted card's history below, and the actions suspend, unsuspend, bury, reset and study now.

The screen only lays out what quizapp.study.browser returns: every read and every action runs in a
worker thread that posts a message back, so the event loop never waits for the progress database.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, VerticalScroll
from textual.message import Message
from textual.widgets import DataTable, Header, Input, Select, Static

from quizapp.tui.guard import on
from quizapp.tui.screens.base import QuizScreen
from quizapp.tui.widgets.card_text import history_text, interval_text, state_text, when_text
from quizapp.tui.widgets.footer import KeyFooter
from quizapp.tui.widgets.heatmap import shorten

if TYPE_CHECKING:
    from collections.abc import Mapping

    from quizapp.store.cards import QuestionRef
    from quizapp.study.browser import CardDetail, CardFilter, CardPage
    from quizapp.tui.backend import Backend

PAGE_SIZE = 100
"""Cards per page: one read of the store each (the browser's first page is what opening it waits for)."""
FILTERS: tuple[tuple[str, str], ...] = (
    ("All cards", "all"),
    ("Due now", "due"),
    ("Suspended", "suspended"),
    ("Leeches", "leeches"),
)
ALL_DECKS = "*"
FIXED_COLUMNS_WIDTH = 60
"""Room the state, due, interval, reps, lapses and last-rating columns take beside the question id."""


@dataclass
class CardsListed(Message):
    """A page of the browser was read (in a worker) for the filter now on screen."""

    page: CardPage
    filt: CardFilter


@dataclass
class CardDetailed(Message):
    """The highlighted card and its history were read (in a worker)."""

    detail: CardDetail


@dataclass
class CardActionDone(Message):
    """A browser action was applied to a card (in a worker); `said` says what it did."""

    question_id: str
    said: str


class BrowserScreen(QuizScreen[None]):
    """The card browser: a filter row, the cards, and the highlighted card's history."""

    _reads: ClassVar[threading.Lock] = threading.Lock()
    """One browser worker at a time on the store's connection: the highlight moves faster than a card's
    history is read, and several readers of one connection gain nothing."""

    BINDINGS: ClassVar[list[BindingType]] = [
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
            "Study now",
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
            tooltip="Search the ids and prompts",
            id="browser.search",
        ),
        Binding("right_square_bracket", "page(1)", "Next page", key_display="]", id="browser.next_page"),
        Binding("left_square_bracket", "page(-1)", "Prev page", key_display="[", id="browser.prev_page"),
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

    def compose(self) -> ComposeResult:
        backend = self.router.backend
        decks = [(shorten(d.title, 30), d.id) for d in (backend.decks if backend is not None else ())]
        yield Header()
        with Horizontal(id="browser-filters"):
            yield Select(FILTERS, value="all", allow_blank=False, id="browser-filter", compact=True)
            yield Select(
                [("Every deck", ALL_DECKS), *decks],
                value=self._deck_id or ALL_DECKS,
                allow_blank=False,
                id="browser-deck",
                compact=True,
            )
            yield Input(placeholder="search (/)", id="browser-search", compact=True)
        yield Static("Reading the cards…", id="browser-status")
        yield DataTable(id="browser-table", cursor_type="row", zebra_stripes=True)
        with VerticalScroll(id="browser-detail"):
            yield Static("", id="browser-history")
        yield KeyFooter()

    def on_mount(self) -> None:
        self.title = "Cards"
        self.sub_title = "every card, its schedule and its history"
        self.query_one("#browser-detail").can_focus = False  # Tab goes from the cards to the filters
        self.router.set_blink(self)
        table = self.query_one("#browser-table", DataTable)
        for label, width in (
            ("Question", self._id_width()),
            ("State", 10),
            ("Due", 12),
            ("Ivl", 5),
            ("Reps", 4),
            ("Laps", 4),
            ("Last", 5),
        ):
            table.add_column(label, width=width, key=label.lower())
        table.focus()
        self.reload()

    def on_screen_resume(self) -> None:
        self.reload()  # a drill from here may have changed the cards

    def _id_width(self) -> int:
        return max(16, self.app.size.width - FIXED_COLUMNS_WIDTH)

    # -- reading ----------------------------------------------------------------------------------------

    @property
    def card_filter(self) -> CardFilter:
        """The filter the row above the table describes."""
        from quizapp.study.browser import CardFilter

        kind = self.query_one("#browser-filter", Select).value
        deck = self.query_one("#browser-deck", Select).value
        return CardFilter(
            deck_id=deck if isinstance(deck, str) and deck != ALL_DECKS else None,
            due=kind == "due",
            suspended=kind == "suspended",
            leeches=kind == "leeches",
            search=self.query_one("#browser-search", Input).value,
        )

    def reload(self) -> None:
        backend = self.router.require_backend()
        if backend is not None:
            self._list(backend, self.card_filter, self._offset)

    @work(thread=True, exclusive=True, group="browser-list", exit_on_error=False)
    def _list(self, backend: Backend, filt: CardFilter, offset: int) -> None:
        from quizapp.study.browser import list_cards

        texts = None
        if filt.search.strip():
            if self._texts is None:
                self._texts = _prompts(backend)
            texts = self._texts
        with self._reads:
            page = list_cards(
                backend.store,
                _refs(backend),
                filt,
                now=backend.now(),
                limit=PAGE_SIZE,
                offset=offset,
                texts=texts,
            )
        if page.total and offset >= page.total:  # the list got shorter (a card unsuspended): last page
            last = (page.total - 1) // PAGE_SIZE * PAGE_SIZE
            with self._reads:
                page = list_cards(
                    backend.store,
                    _refs(backend),
                    filt,
                    now=backend.now(),
                    limit=PAGE_SIZE,
                    offset=last,
                    texts=texts,
                )
        self.post_message(CardsListed(page, filt))

    @on(CardsListed)
    def _listed(self, event: CardsListed) -> None:
        event.stop()
        if event.filt != self.card_filter:
            return  # typed on since: the list for the newer filter is on its way
        page = event.page
        self._page = page
        self._offset = page.offset
        backend = self.router.backend
        if backend is None:
            return
        now = backend.now()
        table = self.query_one("#browser-table", DataTable)
        keep = self.highlighted_id
        table.clear()
        width = self._id_width()
        for card in page.cards:
            leech = " ⚑" if card.leech else ""
            table.add_row(
                shorten(card.question_id, width - len(leech)) + leech,
                state_text(card),
                when_text(card.due, now),
                interval_text(card.interval_days),
                str(card.reps),
                str(card.lapses),
                card.last_rating_name or "—",
                key=card.question_id,
            )
        ids = [c.question_id for c in page.cards]
        if keep in ids:
            table.move_cursor(row=ids.index(keep))
        status = self.query_one("#browser-status", Static)
        if page.total:
            status.update(
                Text.assemble(
                    (f"Cards {page.offset + 1}-{page.offset + len(page.cards)} of {page.total:,}", "bold"),
                    ("  ·  Tab: filters  ·  [ ] pages  ·  ⚑ leech", "dim"),
                )
            )
        else:
            status.update(Text("No card matches this filter.", style="dim"))
            self.query_one("#browser-history", Static).update("")
        self._show_highlighted()

    @property
    def highlighted_id(self) -> str | None:
        page = self._page
        if page is None or not page.cards:
            return None
        row = self.query_one("#browser-table", DataTable).cursor_row
        return page.cards[row].question_id if 0 <= row < len(page.cards) else None

    @on(DataTable.RowHighlighted, "#browser-table")
    def _highlighted(self, event: DataTable.RowHighlighted) -> None:
        event.stop()
        self._reset_armed = None
        self._show_highlighted()

    def _show_highlighted(self) -> None:
        backend = self.router.backend
        ref = self._ref(self.highlighted_id)
        if backend is not None and ref is not None:
            self._detail(backend, ref)

    @work(thread=True, exclusive=True, group="browser-detail", exit_on_error=False)
    def _detail(self, backend: Backend, ref: QuestionRef) -> None:
        from quizapp.study.browser import card_detail

        with self._reads:
            detail = card_detail(backend.store, ref, now=backend.now())
        self.post_message(CardDetailed(detail))

    @on(CardDetailed)
    def _detailed(self, event: CardDetailed) -> None:
        event.stop()
        backend = self.router.backend
        if backend is None or event.detail.card.question_id != self.highlighted_id:
            return
        self.query_one("#browser-history", Static).update(history_text(event.detail, backend.now()))

    # -- filters ----------------------------------------------------------------------------------------

    @on(Select.Changed)
    def _filter_changed(self, event: Select.Changed) -> None:
        event.stop()
        self._offset = 0
        self.reload()

    @on(Input.Changed, "#browser-search")
    def _search_changed(self, event: Input.Changed) -> None:
        event.stop()
        self._offset = 0
        self.reload()

    @on(Input.Submitted, "#browser-search")
    def _search_done(self, event: Input.Submitted) -> None:
        event.stop()
        self.query_one("#browser-table", DataTable).focus()

    def action_search(self) -> None:
        self.query_one("#browser-search", Input).focus()

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
            return self.highlighted_id is not None and not self._acting
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

    @work(thread=True, group="browser-act", exit_on_error=False)
    def _act(self, backend: Backend, ref: QuestionRef, action: str) -> None:
        from quizapp.study.browser import apply_action

        try:
            with self._reads:
                said = apply_action(backend.store, ref, action, now=backend.now())
        finally:
            self._acting = False  # a failure is reported by the app; the next key may try again
        self.post_message(CardActionDone(ref.question_id, said))

    @on(CardActionDone)
    def _acted(self, event: CardActionDone) -> None:
        event.stop()
        self.notify(event.said, timeout=5, markup=False)
        self.reload()

    def action_drill(self) -> None:
        qid = self.highlighted_id
        if qid is not None:
            self.router.start_session("drill", question_ids=(qid,), title=f"Drill: {qid}")

    def _ref(self, qid: str | None) -> QuestionRef | None:
        backend = self.router.backend
        if backend is None or qid is None:
            return None
        return backend.questions.by_id.get(qid)


def _refs(backend: Backend) -> list[QuestionRef]:
    """Every question in the catalog's order (the browser lists them as the decks hold them)."""
    by_id = backend.questions.by_id
    return [by_id[qid] for deck in backend.decks for qid in deck.question_ids if qid in by_id]


def _prompts(backend: Backend) -> dict[str, str]:
    """Each question's prompt (a flashcard's front), for the search: every question model is built, so
    only when a search first asks, in the list's worker."""
    out = {}
    questions = backend.catalog.questions
    for qid in questions:
        question = questions[qid]
        out[qid] = str(getattr(question, "prompt", "") or getattr(question, "front", ""))
    return out
