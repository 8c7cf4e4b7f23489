"""Provides interview_plan: the interview plan for the cards as stored, read from the store in one place.

quizapp.study.plan computes a plan from plain inputs; this module gathers them (the interview date and the
FSRS weights from the settings, every card's memory state) for the home screen, `quizapp plan` and the
study session's focus on weak decks alike. quizapp.workspace caches what it returns.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date, datetime
from typing import TYPE_CHECKING

from quizapp.store.database import Store
from quizapp.store.settings import load_settings

if TYPE_CHECKING:
    from quizapp.study.plan import Plan

DeckHeaders = Sequence[tuple[str, str, Sequence[str]]]
"""(deck id, title, question ids) of each deck the plan covers, as Catalog.deck_headers gives them."""


def interview_plan(store: Store, decks: DeckHeaders, *, now: datetime) -> Plan | None:
    """The plan for `decks` at `now` (the user's day is `now`'s local date), or None without an interview
    date. FSRS fuzzing stays off, so the same cards always give the same plan."""
    day = load_settings(store).interview_date
    if not day:
        return None  # before the imports: starting without a date needs neither the scheduler nor fsrs
    from quizapp.store.fsrs_inputs import card_memories
    from quizapp.study.plan import make_plan
    from quizapp.study.scheduler import scheduler_for

    return make_plan(
        decks,
        card_memories(store),
        interview=date.fromisoformat(day),
        today=now.astimezone().date(),
        now=now,
        scheduler=scheduler_for(store, fuzzing=False),
    )
