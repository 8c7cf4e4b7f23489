"""Provides SessionOrdering: which question a StudySession asks next, and in what order.

Study's set-up (the day's new-card limit, the interview plan's order for new cards, the weakest decks first
in the last days), the draw from a drill or cram queue or from the store's study queue after every answer,
and `queue()`, the order that draw gives if each question is answered once. A mixin: StudySession
(quizapp.study.session) holds the state it reads.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from datetime import date, datetime, timedelta
from typing import TYPE_CHECKING

from quizapp.store.buried import buried_on
from quizapp.store.cards import not_new_ids
from quizapp.store.database import Store
from quizapp.store.settings import load_settings
from quizapp.store.times import day_start
from quizapp.study.limits import new_cards_per_day, new_left_today
from quizapp.study.plan import FINAL_DAYS
from quizapp.study.queues import QuestionSet, QueueItem, due_questions, new_questions, next_card
from quizapp.study.session_state import Clock, Draw, Focus, Tally, Turn
from quizapp.study.stored_plan import interview_plan

__all__ = ["SessionOrdering"]

if TYPE_CHECKING:
    from quizapp.study.plan import Plan, PlanQuestion


class SessionOrdering:
    """The queue half of StudySession: set-up from the plan, the next item, and the order ahead."""

    store: Store
    questions: QuestionSet
    clock: Clock
    rng: random.Random
    new_per_day: int | None
    until_solved: bool
    _turn: Turn
    _tally: Tally
    _draw: Draw
    _focus: Focus

    def _follow_plan(
        self,
        questions: QuestionSet,
        plan_questions: Mapping[str, PlanQuestion] | None,
        plan: Plan | None,
    ) -> None:
        """Study's set-up: the day's new-card limit and, with an interview date, the plan's order for new
        cards (quizapp.study.priority) and its focus on the weakest decks in the last days."""
        now = self.clock()
        if plan is None and plan_questions is not None:
            plan = _interview_plan(self.store, questions, now, plan_questions)
        self.new_per_day = _planned_new_per_day(self.store, questions, now, plan_questions, plan)
        if plan is not None and plan.order:
            self.questions = self.questions.led_by(plan.order)
        self._focus_on_weak_decks(plan)

    def queue(self) -> tuple[str, ...]:
        """The questions this study session asks from now on, in order, if each is answered once and
        comes back no sooner than tomorrow: the question on screen, the cards due now (most overdue
        first), in the last days the weakest decks' cards due before the interview, then today's new
        cards in the plan's order."""
        pool, now = self._pool(), self.clock()
        ids = due_questions(self.store, pool, now)
        if self._focus.until is not None:
            asked = {qid for qid, n in self._tally.attempts.items() if n}
            weak = [r.question_id for r in pool.ordered if r.deck_id in self._focus.decks]
            early = due_questions(self.store, pool.select(question_ids=weak), self._focus.until)
            ids += [q for q in early if q not in asked and q not in ids]
        new_left, _ = new_left_today(self.store, now=now, new_per_day=self.new_per_day)
        ids += new_questions(self.store, pool, new_left)
        card = self._turn.card
        if card is not None and not self._turn.answered:
            qid = card.instance.question_id
            ids = [qid, *(q for q in ids if q != qid)]
        return tuple(ids)

    def _focus_on_weak_decks(self, plan: Plan | None = None) -> None:
        """In the last days before the interview, the weakest decks (lowest expected recall on the day)
        come first: their new cards lead, and once nothing is due and no new card is left, their cards
        due before the interview are reviewed early. Reviews stay ordinary FSRS reviews."""
        day = load_settings(self.store).interview_date
        now = self.clock()
        today = now.astimezone().date()
        if not day or not 0 <= (date.fromisoformat(day) - today).days <= FINAL_DAYS:
            return
        refs = self.questions.ordered
        if plan is None:
            plan = interview_plan(self.store, self.questions.decks(), now=now)
        if plan is None or not plan.focus:
            return
        weak = set(plan.focus)
        self._focus.decks = plan.focus
        self.questions = QuestionSet(
            by_id=self.questions.by_id,
            ordered=tuple(r for r in refs if r.deck_id in weak)
            + tuple(r for r in refs if r.deck_id not in weak),
        )
        self._focus.until = now + timedelta(days=max(plan.days_left, 0) + 1)

    def _next_item(self) -> QueueItem | None:
        if self._draw.pushback:
            return self._draw.pushback.pop()
        if self._draw.items is not None:
            done = self._draw.broken | (self._tally.solved if self.until_solved else set())
            if self.until_solved and all(r.question_id in done for r in self.questions.ordered):
                return None  # checked first: a drill's queue never runs out
            for item in self._draw.items:
                if item.question.question_id not in done:
                    return item
            return None
        pool, now = self._pool(), self.clock()
        if self._focus.until is not None:  # the last days: due cards, then weak decks' reviews, then new
            found = next_card(self.store, pool, now=now, rng=self.rng, new_per_day=0)
            return found or self._weak_ahead(pool, now) or self._next_new_or_due(pool, now)
        return self._next_new_or_due(pool, now)

    def _next_new_or_due(self, pool: QuestionSet, now: datetime) -> QueueItem | None:
        return next_card(self.store, pool, now=now, rng=self.rng, new_per_day=self.new_per_day)

    def _weak_ahead(self, pool: QuestionSet, now: datetime) -> QueueItem | None:
        """A card of a weak deck due before the interview, reviewed early; each at most once a session
        (answered, the interview date brings it back before the day, so it would be due again at once)."""
        assert self._focus.until is not None
        asked = {qid for qid, n in self._tally.attempts.items() if n}
        weak = [
            r.question_id
            for r in pool.ordered
            if r.deck_id in self._focus.decks and r.question_id not in asked
        ]
        if not weak:
            return None
        return next_card(
            self.store,
            pool.select(question_ids=weak),
            now=now,
            rng=self.rng,
            new_per_day=0,
            learn_ahead=self._focus.until - now,
        )

    def _pool(self) -> QuestionSet:
        skip = self._draw.broken | buried_on(self.store, day_start(self.clock()).date())
        if not skip:
            return self.questions
        keep = [qid for qid in self.questions.by_id if qid not in skip]
        return self.questions.select(question_ids=keep)


def _interview_plan(
    store: Store, questions: QuestionSet, now: datetime, plan_questions: Mapping[str, PlanQuestion]
) -> Plan | None:
    """The interview plan over `questions` (None without a date), priced and ordered by `plan_questions`."""
    return interview_plan(store, questions.decks(), now=now, questions=plan_questions)


def _planned_new_per_day(
    store: Store,
    questions: QuestionSet,
    now: datetime,
    plan_questions: Mapping[str, PlanQuestion] | None,
    plan: Plan | None = None,
) -> int | None:
    """With an interview date ahead, today's new-card limit (limits.new_cards_per_day, as home counts)."""
    if not load_settings(store).interview_date:
        return None
    taken = not_new_ids(store)
    unseen = sum(1 for qid in questions.by_id if qid not in taken)
    return new_cards_per_day(
        store, questions.decks(), unseen=unseen, now=now, questions=plan_questions, plan=plan
    )
