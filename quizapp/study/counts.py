"""Provides the one count of what is waiting, as Anki shows it: New, Learning and Review cards study
would show now. Home, the study session's "N left" and stats all call `due_counts`, so they agree at every
moment: a buried or suspended card leaves every count at once, an undone answer comes back in every count,
and new cards count only as far as today's limit allows.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

from fsrs import State

from quizapp.store.buried import buried_on
from quizapp.store.cards import cards_among
from quizapp.store.database import Store
from quizapp.store.stats_queries import state_counts
from quizapp.store.times import day_start, to_us
from quizapp.study.limits import new_cards_per_day, new_left_today

if TYPE_CHECKING:
    from quizapp.content.deck import DeckRef
    from quizapp.study.plan import Plan, PlanQuestion


@dataclass(frozen=True)
class DueCounts:
    """New, Learning and Review cards waiting now (Anki's three numbers), and what the new count is of."""

    new: int
    """New cards study would show today: the unseen questions, as far as today's new-card limit allows."""
    learning: int
    """Cards in learning or relearning steps, due now."""
    review: int
    """Cards in review, due now."""
    unseen: int
    """Questions never seen (neither suspended nor buried today), whatever the limit."""
    new_left_today: int
    """New cards today's limit still allows."""

    @property
    def due(self) -> int:
        return self.learning + self.review

    @property
    def total(self) -> int:
        """Everything `s` would show now: the session's "N left"."""
        return self.new + self.learning + self.review


def due_counts(
    store: Store,
    decks: Sequence[DeckRef],
    *,
    now: datetime,
    new_per_day: int | None = None,
    questions: Mapping[str, PlanQuestion] | None = None,
    plan: Plan | None = None,
) -> DueCounts:
    """The counts over `decks` at `now` (its time zone is the learner's day).

    `new_per_day` None: limits.new_cards_per_day, the limit the study session uses too (with `questions`,
    id -> type and difficulty, a daily budget's plan decides it; `plan`: that plan, Workspace.plan's).
    """
    counts = state_counts(store, (deck.id for deck in decks), now=now)
    learning = sum(c.learning for c in counts.values())
    review = sum(c.review for c in counts.values())
    unseen_all = max(0, sum(len(d.question_ids) - counts[d.id].taken for d in decks if d.id in counts))
    buried = buried_on(store, day_start(now).date())
    wanted = {q for deck in decks for q in deck.question_ids}
    buried_new = 0
    if buried & wanted:
        cards = cards_among(store.conn, buried & wanted)
        now_us = to_us(now)
        for qid in buried & wanted:
            card = cards.get(qid)
            if card is None or (card.due is None and not card.suspended):
                buried_new += 1
            elif card.due is not None and not card.suspended and to_us(card.due) <= now_us:
                if card.state == State.Review:
                    review -= 1
                else:
                    learning -= 1
    unseen = max(0, unseen_all - buried_new)
    if new_per_day is None:
        new_per_day = new_cards_per_day(
            store, decks, unseen=unseen_all, now=now, questions=questions, plan=plan
        )
    allowed, _ = new_left_today(store, now=now, new_per_day=new_per_day)
    return DueCounts(
        new=min(unseen, allowed),
        learning=max(0, learning),
        review=max(0, review),
        unseen=unseen,
        new_left_today=allowed,
    )
