"""Provides the home screen's numbers: per deck how many questions are new, due and mastered, plus totals.

Built from the store's cards and the stats module, so the TUI only lays the figures out.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

from quizapp.store.database import Store
from quizapp.store.stats_queries import DeckCounts, deck_counts, has_reviews, reviews_on, streak_days
from quizapp.store.times import day_start
from quizapp.study.counts import DueCounts, due_counts

if TYPE_CHECKING:
    from quizapp.content.deck import DeckRef
    from quizapp.study.plan import Plan, PlanQuestion

STREAK_WINDOW_DAYS = 400
"""How far back the home screen looks for the current streak (longer than any calendar year)."""


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
    """Questions never seen (neither suspended nor buried today)."""
    due: int
    """Learning and review cards due now (not suspended, not buried today)."""
    new_left_today: int
    reviews_today: int
    streak_days: int
    total_reviews: int
    """0 before the first answer ever, else 1: only whether there is a history (a count would cost a scan)."""
    counts: DueCounts | None = None
    """New, Learning and Review waiting now (study.counts): the same numbers as the study session's."""

    @property
    def first_run(self) -> bool:
        """Nothing answered yet: the home screen shows a one-line "press s to start"."""
        return self.total_reviews == 0

    @property
    def study_now(self) -> int:
        """How many cards `s` would show right now: everything due plus today's new-card allowance."""
        if self.counts is not None:
            return self.counts.total
        return self.due + min(self.new, self.new_left_today)


def build_overview(
    store: Store,
    decks: Sequence[DeckRef],
    *,
    now: datetime,
    questions: Mapping[str, PlanQuestion] | None = None,
    plan: Plan | None = None,
) -> Overview:
    """Counts new, due and mastered questions per deck as of `now`: one GROUP BY over a covering index,
    then today's reviews and the streak, walked back day by day only as far as the streak goes. `plan`:
    the interview plan computed already (Workspace.plan), which a daily budget's new-card limit reads."""
    counts = deck_counts(store, (deck.id for deck in decks), now=now)
    rows: list[DeckRow] = []
    for deck in decks:
        c = counts.get(deck.id, DeckCounts(0, 0, 0))
        n = len(deck.question_ids)
        rows.append(
            DeckRow(
                deck_id=deck.id,
                title=deck.title,
                questions=n,
                new=max(0, n - c.scheduled),
                due=min(c.due, n),
                mastered=min(c.mastered, n),
            )
        )
    waiting = due_counts(store, decks, now=now, questions=questions, plan=plan)
    return Overview(
        decks=tuple(rows),
        questions=sum(r.questions for r in rows),
        new=waiting.unseen,
        due=waiting.due,
        new_left_today=waiting.new_left_today,
        reviews_today=reviews_on(store, day_start(now)),
        streak_days=streak_days(store, now=now, limit=STREAK_WINDOW_DAYS),
        total_reviews=1 if has_reviews(store) else 0,
        counts=waiting,
    )
