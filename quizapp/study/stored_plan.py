"""Provides interview_plan: the interview plan for the cards as stored, read from the store in one place.

quizapp.study.plan computes a plan from plain inputs; this module gathers them (the interview date and the
FSRS weights from the settings, every card's memory state) for the home screen, `quizapp plan` and the
study session's focus on weak decks alike. quizapp.workspace caches what it returns.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import date, datetime
from typing import TYPE_CHECKING

from quizapp.collector import no_collections
from quizapp.records.settings import Settings
from quizapp.store.database import Store
from quizapp.store.fsrs_inputs import card_memories
from quizapp.store.settings import load_settings
from quizapp.store.stats_queries import recent_answer_times
from quizapp.study.budget import answer_times
from quizapp.study.plan import make_plan
from quizapp.study.scheduler import scheduler_for

if TYPE_CHECKING:
    from quizapp.content.deck import DeckRef
    from quizapp.study.plan import Plan, PlanQuestion


def interview_plan(
    store: Store,
    decks: Sequence[DeckRef],
    *,
    now: datetime,
    questions: Mapping[str, PlanQuestion] | None = None,
) -> Plan | None:
    """The plan for `decks` at `now` (the user's day is `now`'s local date), or None without an interview
    date. FSRS fuzzing stays off, so the same cards always give the same plan. With `questions` (id ->
    type and difficulty) each day is priced in minutes from the learner's own recent answer times, and
    the daily budget and low-priority decks in the settings decide what is left out."""
    settings = load_settings(store)
    if not settings.interview_date:
        return None  # no interview date: no plan
    with no_collections():  # ~100k short-lived objects: a collection midway would walk the heap
        return _plan(store, decks, settings, now=now, questions=questions)


def _plan(
    store: Store,
    decks: Sequence[DeckRef],
    settings: Settings,
    *,
    now: datetime,
    questions: Mapping[str, PlanQuestion] | None,
) -> Plan:
    ids = [qid for deck in decks for qid in deck.question_ids]
    times = None
    if questions is not None:
        samples = ((questions[q].kind, ms / 1000) for q, ms in recent_answer_times(store) if q in questions)
        times = answer_times(samples)
    return make_plan(
        decks,
        card_memories(store, ids),
        interview=date.fromisoformat(settings.interview_date),
        today=now.astimezone().date(),
        now=now,
        scheduler=scheduler_for(store, fuzzing=False),
        questions=questions,
        times=times,
        budget_minutes=(settings.daily_minutes or None) if questions is not None else None,
        low_priority=settings.low_priority_decks,
    )
