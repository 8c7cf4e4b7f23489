"""Provides CardDetailPane: below the card browser's list, the highlighted card in one line and its latest
answers, read from the store in a worker (the event loop never waits for the progress database)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from textual import work
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.message import Message
from textual.widgets import Static

from quizapp.tui.widgets.card_text import history_text

if TYPE_CHECKING:
    from datetime import datetime

    from quizapp.store.cards import QuestionRef
    from quizapp.study.browser import CardDetail
    from quizapp.tui.backend import Backend


class CardDetailPane(VerticalScroll, can_focus=False):  # Tab goes from the cards to the filters
    """The highlighted card's history: `read` asks for it, the screen `show`s it if still highlighted."""

    @dataclass
    class Read(Message):
        """A card and its history were read (in a worker)."""

        detail: CardDetail

    def compose(self) -> ComposeResult:
        yield Static("", id="browser-history")

    def read(self, backend: Backend, ref: QuestionRef) -> None:
        """Reads `ref`'s card and history in a worker; a newer read replaces this one."""
        self._read(backend, ref)

    @work(thread=True, exclusive=True, group="browser-detail", exit_on_error=False)
    def _read(self, backend: Backend, ref: QuestionRef) -> None:
        from quizapp.study.browser import card_detail

        with backend.store.one_at_a_time():
            detail = card_detail(backend.store, ref, now=backend.now())
        self.post_message(self.Read(detail))

    def show(self, detail: CardDetail, now: datetime) -> None:
        self.query_one("#browser-history", Static).update(history_text(detail, now))

    def clear(self) -> None:
        self.query_one("#browser-history", Static).update("")
