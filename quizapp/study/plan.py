"""Provides the interview plan: how many new cards a day, how many reviews, and the recall to expect.

A user with an interview on a known day needs every question seen at least twice before it, and needs
to know where they stand. The plan spreads the unseen questions over the days before the interview
(the day itself stays free for reviews; a new card's learning steps bring it back at least once), and
predicts each deck's recall on the day with FSRS's own forgetting curve:

    R(t) = (1 + FACTOR * t / S) ** DECAY

where t is the days from the card's last review to the interview and S its stability. Unseen questions
count as not known (R = 0), and the prediction assumes no further study, so it is the floor the plan
lifts. In the last days, the plan names the weakest decks so the queues can lean on them.

Each day is priced in minutes from the learner's answer times per question type (quizapp.study.budget);
with a daily budget, what does not fit is left out, least needed first, each with its reason. Pure: the
caller brings the cards' memory state, the question types, the answer times and the dates.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from typing import TYPE_CHECKING, cast

from fsrs import Card, Rating, Scheduler

from quizapp.store.fsrs_inputs import CardMemories
from quizapp.study.budget import AnswerTime, LeftOut, WorkColumns, answer_times, seconds_for, triage_columns
from quizapp.study.priority import Candidate, introduction_order, keep_rank
from quizapp.study.readiness import (
    Readiness,
    deck_index,
    forgetting_decay,
    readiness_days,
    readiness_of,
    recall_table,
)

if TYPE_CHECKING:
    from quizapp.content.deck import DeckRef

FINAL_DAYS = 2
"""In the last this-many days before the interview, the plan focuses on its weakest decks."""
US_PER_DAY = 86_400 * 1_000_000


@dataclass(frozen=True)
class Plan:
    """What to do each day until the interview, and how ready the user will be."""

    interview: date
    today: date
    days_left: int
    """Whole days from today to the interview day (0 on the day itself, negative after it)."""
    questions: int
    unseen: int
    new_per_day: int
    reviews_per_day: int
    readiness: Readiness
    """Each deck's expected recall on the interview day (READINESS_DAYS ahead once it has passed), from
    the recall table the plan computes: home, stats and `quizapp plan` read it here."""
    focus: tuple[str, ...]
    """The weakest decks' ids when the interview is at most FINAL_DAYS away, else ()."""
    minutes_per_day: float = 0.0
    """What a day of the plan (what is kept) takes, from the learner's answer times; within the budget."""
    minutes_needed: float = 0.0
    """What a day would take with nothing left out."""
    budget_minutes: float | None = None
    left_out: Sequence[LeftOut] = ()
    """What the budget leaves out, and why (budget.triage_columns; each question's LeftOut is made when
    read, so counting them costs nothing)."""
    answer_times: tuple[AnswerTime, ...] = ()
    """The seconds per question type the minutes come from."""
    order: tuple[str, ...] = ()
    """The unseen questions the plan keeps, in the order study introduces them (quizapp.study.priority):
    today's new cards are the first new_per_day of it."""

    @property
    def passed(self) -> bool:
        return self.days_left < 0

    @property
    def recall(self) -> float:
        """The recall to expect on the day over every question (unseen ones count 0), 0..1."""
        return self.readiness.recall

    def summary(self) -> str:
        """One line for home: "9 days left: 26 new + ~40 reviews a day; recall on 3 Dec if you stopped now:
        61%" (what studying adds to it is the plan's point, so the line must not read as its outcome)."""
        day = f"{self.interview.day} {self.interview:%b}"
        if self.passed:
            return f"Your interview was on {day}. Set a new date in Settings or with `quizapp plan --date`."
        left = "today" if self.days_left == 0 else f"{self.days_left} day{'s' * (self.days_left != 1)} left"
        return (
            f"Interview {left}: {self.new_per_day} new + ~{self.reviews_per_day} reviews a day; "
            f"recall on {day} if you stopped now: {self.recall:.0%}"
        )


@dataclass(frozen=True)
class PlanQuestion:
    """What the plan's time estimate needs of a question: its type and difficulty."""

    kind: str
    difficulty: int = 1
    family: str = ""
    """Near-duplicate templates share it (priority.family_key): the plan introduces them apart."""
    after: tuple[str, ...] = ()
    """Its deck's prerequisites (`after:`), which gate it on a long runway."""


_UNKNOWN = PlanQuestion("")
"""A question the caller gave no type for: priced at the fallback, difficulty 1."""


def make_plan(
    decks: Sequence[DeckRef],
    memories: CardMemories,
    *,
    interview: date,
    today: date,
    now: datetime,
    scheduler: Scheduler,
    questions: Mapping[str, PlanQuestion] | None = None,
    times: Mapping[str, AnswerTime] | None = None,
    budget_minutes: float | None = None,
    low_priority: Collection[str] = (),
    seed: int = 0,
) -> Plan:
    """The plan for `decks`, given the cards' state at `now`, with their readiness on the day.

    `today` is the user's local date (the caller knows their time zone); `now` is the same moment, used
    for the interview's instant (local midnight is approximated by `now` + the whole days left).
    `questions` (id -> type and difficulty) and `times` (seconds per type, see budget.answer_times) price
    each day in minutes; with `budget_minutes`, what does not fit is left out (budget.triage) and the
    daily counts are those of what is kept. The kept unseen questions are ranked and ordered by
    quizapp.study.priority (`seed` fixes the order within a deck, as QuestionSet.from_catalog's does).
    """
    import numpy as np  # here: importing the plan's types must not load NumPy

    days_left = (interview - today).days
    ahead, on_interview = readiness_days(interview, today)  # a day passed: readiness's horizon instead
    at = now + timedelta(days=ahead)
    at_us = int(at.astimezone(UTC).timestamp() * 1_000_000)
    ids, deck_of = deck_index(decks)
    table = recall_table(memories, ids, at, forgetting_decay(scheduler.parameters))
    offered = ~table.suspended  # (n,)
    new = offered & ~table.seen  # (n,) unseen questions to introduce
    due = table.seen & offered & (table.due_us < at_us)  # (n,) seen cards due before the interview
    unseen = int(new.sum())
    ready = readiness_of(decks, deck_of, table, on=today + timedelta(days=ahead), interview=on_interview)
    outlooks = ready.decks
    intro_days = max(days_left, 1)
    new_per_day = math.ceil(unseen / intro_days) if unseen else 0
    from_new = _reviews_of_new(unseen, new_per_day, days_left, scheduler, now)
    known = questions or {}
    price = answer_times(()) if times is None else times
    answers_per_new = 1 + (from_new / unseen if unseen else 0.0)
    asked = np.flatnonzero(new | due)  # (k,) positions of the questions answered before the day
    asked_ids = [ids[i] for i in asked.tolist()]
    asked_new = new[asked]  # (k,)
    asked_questions = [known.get(qid, _UNKNOWN) for qid in asked_ids]
    kinds = [q.kind for q in asked_questions]
    per_kind = {kind: seconds_for(price, kind) for kind in set(kinds)}
    seconds = np.array([per_kind[kind] for kind in kinds], dtype=np.float64)  # (k,)
    cost = seconds * np.where(asked_new, answers_per_new, 1.0)  # (k,)
    needed = float(cost.sum()) / max(days_left, 1) / 60 if days_left >= 0 else 0.0
    kept_minutes, left_out = needed, cast("Sequence[LeftOut]", ())
    reviews_due = int(due.sum())
    deck_ids = [deck.id for deck in decks]
    asked_decks = [deck_ids[d] for d in deck_of[asked].tolist()]
    new_at = np.flatnonzero(asked_new)  # (u,) positions in `asked` of the unseen questions
    candidates = [
        Candidate(asked_ids[i], asked_decks[i], q.difficulty, q.kind, q.family)
        for i in new_at.tolist()
        for q in (asked_questions[i],)
    ]
    runway_budget = None if budget_minutes is None else budget_minutes * 60 * intro_days
    ranking = keep_rank(
        candidates, seed=seed, days=intro_days, costs=cost[new_at].tolist(), budget_seconds=runway_budget
    )
    new_rank = np.zeros(len(asked_ids), dtype=np.int64)  # (k,) place in the ranking; 0 for reviews
    new_rank[new_at[ranking]] = np.arange(len(ranking), dtype=np.int64)
    kept = np.ones(len(asked_ids), dtype=np.bool_)  # (k,)
    if budget_minutes is not None and days_left >= 0 and needed > budget_minutes:
        columns = WorkColumns(
            question_ids=asked_ids,
            deck_ids=asked_decks,
            difficulty=np.array([q.difficulty for q in asked_questions], dtype=np.int64),  # (k,)
            new=asked_new,
            seconds=cost,
            recall=table.recall[asked],  # (k,)
        )
        kept, left_out = triage_columns(
            columns,
            days=days_left,
            budget_minutes=budget_minutes,
            low_priority=low_priority,
            deck_recall={o.deck_id: o.recall for o in outlooks},
            new_rank=new_rank,
        )
        kept_minutes = sum(cost[kept].tolist()) / max(days_left, 1) / 60
        unseen_kept = int((kept & asked_new).sum())
        new_per_day = math.ceil(unseen_kept / intro_days) if unseen_kept else 0
        from_new = _reviews_of_new(unseen_kept, new_per_day, days_left, scheduler, now)
        reviews_due = int((kept & ~asked_new).sum())
    reviews = reviews_due + from_new
    after = {c.deck_id: known.get(c.question_id, _UNKNOWN).after for c in candidates}
    kept_new = kept[new_at].tolist()
    order = (
        introduction_order(
            [candidates[j] for j in ranking if kept_new[j]], days=intro_days, seed=seed, after=after
        )
        if days_left >= 0
        else ()
    )
    focus: tuple[str, ...] = ()
    if 0 <= days_left <= FINAL_DAYS and outlooks:
        ranked = sorted((o for o in outlooks if o.questions), key=lambda o: (o.recall, o.deck_id))
        focus = tuple(o.deck_id for o in ranked[: max(1, len(ranked) // 3)])
    return Plan(
        interview=interview,
        today=today,
        days_left=days_left,
        questions=len(ids),
        unseen=unseen,
        new_per_day=new_per_day,
        reviews_per_day=math.ceil(reviews / max(days_left, 1)),
        readiness=ready,
        focus=focus,
        minutes_per_day=kept_minutes,
        minutes_needed=needed,
        budget_minutes=budget_minutes,
        left_out=left_out,
        answer_times=tuple(price.values()),
        order=order,
    )


def _reviews_of_new(unseen: int, per_day: int, days_left: int, scheduler: Scheduler, now: datetime) -> int:
    """Reviews the new cards bring before the interview, if each is answered Good every time."""
    if unseen == 0 or days_left <= 0:
        return 0
    offsets = _review_days(scheduler, now, horizon=days_left)
    total, left, day = 0, unseen, 0
    while left > 0:
        batch = min(per_day, left)
        total += batch * sum(1 for t in offsets if day + t < days_left)
        left -= batch
        day += 1
    return total


def _review_days(scheduler: Scheduler, now: datetime, *, horizon: int) -> list[float]:
    """Days after its first answer at which a card answered Good each time comes back, within `horizon`."""
    card = Card(card_id=1, due=now)
    card, _ = scheduler.review_card(card, Rating.Good, now)
    days: list[float] = []
    while card.due is not None and (card.due - now).total_seconds() / 86_400 < horizon and len(days) < 64:
        days.append((card.due - now).total_seconds() / 86_400)
        card, _ = scheduler.review_card(card, Rating.Good, card.due)
    return days
