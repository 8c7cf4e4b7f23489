"""Provides the home screen's numbers: per deck how many questions are new, due and mastered, plus totals.

Built from the store's cards and the stats module, so the TUI only lays the figures out.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from quizapp.reports.stats import mastery_by_deck, reviews_per_day, streak
from quizapp.store.cards import due_flags
from quizapp.store.database import Store
from quizapp.store.reviews import review_count
from quizapp.study.queues import new_left_today

STREAK_WINDOW_DAYS = 400
"""How far back the home screen looks for the current streak (longer than any calendar year)."""


@dataclass(frozen=True)
class DeckInfo:
    """What the overview needs to know about a deck: its id, title and question ids."""

    id: str
    title: str
    question_ids: tuple[str, ...]


@dataclass(frozen=True)
class DeckRow:
    """One line of the home table."""

    deck_id: str
    title: str
    questions: int
    new: int
    due: int
    mastered: int

    @property
    def mastery(self) -> float:
        """Mastered questions as a share of all the deck's questions (0 for an empty deck)."""
        return self.mastered / self.questions if self.questions else 0.0


@dataclass(frozen=True)
class Overview:
    """The home screen: decks, totals, today's count, the streak and whether this is a first run."""

    decks: tuple[DeckRow, ...]
    questions: int
    new: int
    due: int
    new_left_today: int
    reviews_today: int
    streak_days: int
    total_reviews: int

    @property
    def first_run(self) -> bool:
        """Nothing answered yet: the home screen shows a one-line "press s to start"."""
        return self.total_reviews == 0

    @property
    def study_now(self) -> int:
        """How many cards `s` would show right now: everything due plus today's new-card allowance."""
        return self.due + min(self.new, self.new_left_today)


def build_overview(store: Store, decks: Sequence[DeckInfo], *, now: datetime) -> Overview:
    """Counts new, due and mastered questions per deck as of `now`."""
    rows: list[DeckRow] = []
    mastered = {m.deck_id: m.mastered for m in mastery_by_deck(store)}
    flags = dict(due_flags(store.conn, now))  # one covered index scan, not a record per card
    for deck in decks:
        scheduled = [flags[q] for q in deck.question_ids if q in flags]
        rows.append(
            DeckRow(
                deck_id=deck.id,
                title=deck.title,
                questions=len(deck.question_ids),
                new=len(deck.question_ids) - len(scheduled),
                due=sum(scheduled),
                mastered=min(mastered.get(deck.id, 0), len(deck.question_ids)),
            )
        )
    calendar = reviews_per_day(store, now=now, days=STREAK_WINDOW_DAYS)
    left, _ = new_left_today(store, now=now)
    total = review_count(store)
    return Overview(
        decks=tuple(rows),
        questions=sum(r.questions for r in rows),
        new=sum(r.new for r in rows),
        due=sum(r.due for r in rows),
        new_left_today=left,
        reviews_today=calendar[-1].reviews if calendar else 0,
        streak_days=streak(calendar),
        total_reviews=total,
    )
