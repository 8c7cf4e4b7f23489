"""Provides how many new cards a day may bring: the home screen's counts need only this, not the scheduler
or the queues, so it stays a module of its own that imports neither."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from datetime import date, datetime, timedelta
from typing import TYPE_CHECKING

from quizapp.store.database import Store
from quizapp.store.settings import load_settings
from quizapp.store.stats_queries import introduced_between
from quizapp.store.times import day_start

if TYPE_CHECKING:
    from quizapp.content.deck import DeckRef
    from quizapp.study.plan import Plan, PlanQuestion


def daily_new_limit(settings_limit: int, interview: str, *, unseen: int, today: date) -> int:
    """New cards allowed a day: the user's setting, or with an interview date ahead, enough to meet
    every unseen question before the day (whichever is more; the setting stays the floor)."""
    if not interview:
        return settings_limit
    days_left = (date.fromisoformat(interview) - today).days
    if days_left <= 0:
        return settings_limit
    return max(settings_limit, math.ceil(unseen / days_left))


def new_left_today(store: Store, *, now: datetime, new_per_day: int | None = None) -> tuple[int, int]:
    """(new cards still allowed today, new cards already introduced today); the day is `now`'s local day."""
    limit = load_settings(store).new_per_day if new_per_day is None else new_per_day
    start = day_start(now)
    introduced = introduced_between(store, start, start + timedelta(days=1))
    return max(0, limit - introduced), introduced


def planned_new_limit(store: Store, *, unseen: int, now: datetime) -> int:
    """Today's new-card limit for `unseen` questions never seen: the setting, raised by an interview date.
    The unseen count is taken as it was at the start of the day (new cards introduced today added
    back), so the limit stays the same all day, in home and in a study session alike."""
    settings = load_settings(store)
    start = day_start(now)
    introduced = introduced_between(store, start, start + timedelta(days=1))
    return daily_new_limit(
        settings.new_per_day, settings.interview_date, unseen=unseen + introduced, today=start.date()
    )


def new_cards_per_day(
    store: Store,
    decks: Sequence[DeckRef],
    *,
    unseen: int,
    now: datetime,
    questions: Mapping[str, PlanQuestion] | None = None,
    plan: Plan | None = None,
) -> int:
    """Today's new-card limit over `decks`, the one number home, study and stats use. With an interview
    date ahead and a daily budget (`daily_minutes`), it is the plan's new cards a day: what fits the
    budget (the plan prices questions by `questions`, id -> type and difficulty, so without them the
    budget cannot be priced and the rule below applies). Otherwise planned_new_limit: the setting,
    raised by an interview date to meet every unseen question before it. `plan`: that plan, computed
    already by the caller (Workspace.plan, priced as `questions` would price it)."""
    from quizapp.study.stored_plan import interview_plan

    settings = load_settings(store)
    if (questions is not None or plan is not None) and settings.interview_date and settings.daily_minutes:
        if plan is None:
            plan = interview_plan(store, decks, now=now, questions=questions)
        if plan is not None and plan.days_left > 0:
            return plan.new_per_day
    return planned_new_limit(store, unseen=unseen, now=now)
