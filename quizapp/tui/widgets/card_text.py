"""Provides the card browser's words for a card: its state, when it is due, its interval, and its
history, newest first (display only: the numbers come from quizapp.study.browser)."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from rich.text import Text

from quizapp.grading.rating import RATING_NAMES
from quizapp.study import format_interval
from quizapp.tui.widgets.heatmap import shorten

if TYPE_CHECKING:
    from quizapp.study.browser import CardDetail, CardPage, CardView

HISTORY_LINES = 20
"""How many of the highlighted card's latest answers its history shows."""


def when_text(due: datetime | None, now: datetime) -> str:
    """The due column: "new" when never scheduled, "now" when due, else the local date and time."""
    if due is None:
        return "—"
    if due <= now:
        return "now"
    return f"{due.astimezone(now.tzinfo):%b %d %H:%M}"


def interval_text(days: float | None) -> str:
    return "—" if days is None else format_interval(timedelta(days=days))


def state_text(card: CardView) -> Text:
    if card.suspended:
        return Text("suspended", style="yellow")
    if card.buried:
        return Text("buried", style="dim")
    style = {"new": "cyan", "learning": "magenta", "relearning": "red"}.get(card.state, "")
    return Text(card.state, style=style)


def drilled_text(drills: int) -> str:
    return f"drilled {drills}×"


def row_state_text(card: CardView) -> Text:
    """The state column: a new card that was drilled says so (its 0 reps count scheduled answers only)."""
    if card.state == "new" and card.drills and not (card.suspended or card.buried):
        return Text(drilled_text(card.drills), style="cyan")
    return state_text(card)


def page_text(page: CardPage) -> Text:
    """The line above the list: which cards of how many it shows, and the keys it does not name."""
    if not page.total:
        return Text("No card matches this filter.", style="dim")
    return Text.assemble(
        (f"Cards {page.offset + 1}-{page.offset + len(page.cards)} of {page.total:,}", "bold"),
        ("  ·  Tab: filters  ·  [ ] pages  ·  ⚑ leech", "dim"),
    )


def history_text(detail: CardDetail, now: datetime) -> Text:
    """The highlighted card in one line, then its latest answers, newest first."""
    card = detail.card
    text = Text()
    text.append(card.question_id, style="bold")
    text.append(f"  ({card.deck_id})  ", style="dim")
    text.append_text(state_text(card))
    if card.drills:
        text.append(f" · {drilled_text(card.drills)}")
    text.append(f" · due {when_text(card.due, now)} · interval {interval_text(card.interval_days)}")
    if card.reps or not card.drills:  # reps count scheduled answers: "0 reps" of a drilled card misleads
        text.append(f" · {card.reps} reps")
    text.append(f" · {card.lapses} lapses")
    if card.leech:
        text.append(" · leech", style="red")
    history = detail.history
    if not history:
        text.append("\nNever answered.", style="dim")
        return text
    text.append(f"\n{len(history)} answer{'s' * (len(history) != 1)}, newest first:", style="dim")

    for review in reversed(history[-HISTORY_LINES:]):
        local = review.reviewed_at.astimezone(now.tzinfo)
        mark = ("✓ ", "green") if review.correct else ("✗ ", "red")
        text.append("\n")
        text.append(f"{local:%Y-%m-%d %H:%M} ", style="dim")
        text.append(*mark)
        text.append(f"{RATING_NAMES.get(review.rating, '?'):<5} {review.mode:<9}")
        text.append(f" {review.duration_ms / 1000:5.0f} s  ", style="dim")
        answer = " ".join(review.answer.split())
        text.append(shorten(answer, 40) if answer else "")
        if review.diagnosis:
            text.append(f"  ({review.diagnosis})", style="italic")
    return text
