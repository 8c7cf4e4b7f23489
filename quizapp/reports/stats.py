"""Provides the numbers behind the stats screen and `quizapp stats`, as frozen dataclasses.

The figures come from quizapp.store.stats_queries (one indexed query each); this module puts them together and
adds what is arithmetic on them (the streak). The terminal rendering lives in quizapp.reports.text.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date, datetime
from typing import TYPE_CHECKING

from quizapp.store.database import Store
from quizapp.store.fsrs_inputs import card_memories
from quizapp.store.settings import load_settings
from quizapp.store.stats_queries import (
    CALENDAR_DAYS,
    FORECAST_DAYS,
    MASTERY_STABILITY_DAYS,
    DayCount,
    DeckMastery,
    DeckRetention,
    DiagnosisCount,
    DueDay,
    PointDisagreement,
    due_forecast,
    mastery_by_deck,
    point_disagreements,
    retention_by_deck,
    review_totals,
    reviews_per_day,
    top_diagnoses,
)
from quizapp.store.times import day_start
from quizapp.study.counts import DueCounts, due_counts
from quizapp.study.readiness import Readiness, forgetting_decay, readiness

if TYPE_CHECKING:
    from quizapp.content.catalog import Catalog
    from quizapp.content.deck import DeckRef
    from quizapp.study.plan import Plan, PlanQuestion


@dataclass(frozen=True)
class KeyPointMiss:
    """A key point the grader's reading and the learner's tick disagree on most, with its text."""

    question_id: str
    point: int
    """From 1, as the feedback numbers the points."""
    text: str | None
    """The point as its deck words it now (None: the question or the point is no longer in the decks)."""
    missed: int
    """Ticked by the learner, though the grader found it missing or contradicted."""
    over_credited: int
    """Credited by the grader, unticked by the learner."""


@dataclass(frozen=True)
class Stats:
    """Everything the stats screen shows."""

    today: date
    calendar: tuple[DayCount, ...]
    """The last CALENDAR_DAYS days, oldest first, ending today (days without reviews included)."""
    retention: tuple[DeckRetention, ...]
    mastery: tuple[DeckMastery, ...]
    forecast: tuple[DueDay, ...]
    overdue: int
    diagnoses: tuple[DiagnosisCount, ...]
    total_reviews: int
    total_seconds: float
    streak_days: int
    readiness: Readiness | None = None
    """Each deck's expected recall on the interview day (or in 7 days), when the decks were given."""
    counts: DueCounts | None = None
    """New, Learning and Review waiting now (study.counts, as home and study count), when decks were given."""
    point_misses: tuple[KeyPointMiss, ...] = ()
    """The key points of explain answers the learner's ticks overruled the grader on most (empty: none)."""

    @property
    def overall_retention(self) -> float | None:
        total = sum(r.total for r in self.retention)
        return sum(r.passed for r in self.retention) / total if total else None

    @property
    def reviews_today(self) -> int:
        return self.calendar[-1].reviews if self.calendar else 0


def compute_stats(
    store: Store,
    *,
    now: datetime,
    decks: Sequence[DeckRef] | None = None,
    questions: Mapping[str, PlanQuestion] | None = None,
    catalog: Catalog | None = None,
    plan: Plan | None = None,
) -> Stats:
    """All stats as of `now` (whose time zone defines the user's days); with `decks` (id, title, question
    ids), each deck's readiness too, with `questions` (Workspace.plan_questions) the new-card count a
    daily budget's plan allows, as home and study count it, and with `catalog` the text of the key points
    the grader misses most. `plan` (Workspace.plan, over `decks`) gives both without computing it again."""
    today = day_start(now).date()
    calendar = reviews_per_day(store, now=now)
    total_reviews, total_seconds = review_totals(store)
    forecast, overdue = due_forecast(store, now=now)
    return Stats(
        today=today,
        calendar=calendar,
        retention=retention_by_deck(store),
        mastery=mastery_by_deck(store),
        forecast=forecast,
        overdue=overdue,
        diagnoses=top_diagnoses(store),
        total_reviews=total_reviews,
        total_seconds=total_seconds,
        streak_days=streak(calendar),
        readiness=None if decks is None else readiness_for(store, decks, now=now, plan=plan),
        counts=None if decks is None else due_counts(store, decks, now=now, questions=questions, plan=plan),
        point_misses=key_point_misses(point_disagreements(store), catalog),
    )


def key_point_misses(found: Sequence[PointDisagreement], catalog: Catalog | None) -> tuple[KeyPointMiss, ...]:
    """The disagreements with each key point's text looked up in `catalog` (one question model each)."""
    return tuple(
        KeyPointMiss(
            question_id=d.question_id,
            point=d.point,
            text=key_point_text(catalog, d.question_id, d.point),
            missed=d.missed,
            over_credited=d.over_credited,
        )
        for d in found
    )


def key_point_text(catalog: Catalog | None, question_id: str, point: int) -> str | None:
    """Key point `point` (from 1) of an explain question as its deck words it, or None when there is no
    such question or point (a deck edited or removed since the answer)."""
    from quizapp.content.questions import ExplainQuestion

    if catalog is None or question_id not in catalog.questions:
        return None
    question = catalog.questions[question_id]
    if not isinstance(question, ExplainQuestion) or not 1 <= point <= len(question.key_points):
        return None
    return question.point_texts[point - 1]


def readiness_for(
    store: Store, decks: Sequence[DeckRef], *, now: datetime, plan: Plan | None = None
) -> Readiness:
    """Readiness of `decks` from the store's cards, the interview date and FSRS weights in settings; the
    interview `plan` over `decks` (Workspace.plan) carries it already, so with one nothing is computed."""
    if plan is not None:
        return plan.readiness

    settings = load_settings(store)
    return readiness(
        decks,
        card_memories(store, (qid for deck in decks for qid in deck.question_ids)),
        today=day_start(now).date(),
        now=now,
        interview=date.fromisoformat(settings.interview_date) if settings.interview_date else None,
        decay=forgetting_decay(settings.fsrs_parameters),
    )


def streak(calendar: tuple[DayCount, ...]) -> int:
    """Days in a row with at least one review, ending today (or yesterday, if today is still empty)."""
    days = list(calendar)
    if days and days[-1].reviews == 0:
        days.pop()
    n = 0
    for day in reversed(days):
        if day.reviews == 0:
            break
        n += 1
    return n


__all__ = [
    "CALENDAR_DAYS",
    "FORECAST_DAYS",
    "MASTERY_STABILITY_DAYS",
    "DayCount",
    "DeckMastery",
    "DeckRetention",
    "DiagnosisCount",
    "DueDay",
    "KeyPointMiss",
    "Stats",
    "compute_stats",
    "mastery_by_deck",
    "readiness_for",
    "reviews_per_day",
    "streak",
]
