"""Provides what a plan keeps and the order it introduces it in: where the interview is, first.

A learner with four days and an hour a day cannot meet 600 questions. Leaving out every difficulty-3
question (the case studies among them) and gating FlashAttention behind the scaled dot-product deck wasted
those days on the basics of a few decks. Instead the questions are ranked by what they yield in an
interview:

1. the basics of every deck: its COVER_PER_DECK easiest questions, so every topic is met;
2. a case study a day (while the case studies take at most CASE_STUDY_SHARE of the budget);
3. then the rest, deck by deck in weighted turns of time: a deck of weight 3 (INTERVIEW_WEIGHTS: serving,
   the KV cache, FlashAttention, the case studies) gets three minutes for one of any other deck; within a
   deck, easier questions first.

The budget's triage (quizapp.study.budget) leaves out from the bottom of that ranking. The kept questions
are introduced in ranking order, with the prerequisite gates (`after:`) open when the runway is at most
SHORT_RUNWAY_DAYS (on a long runway the usual interleave keeps them), case studies spread one a day, and
near-duplicate templates (same deck, type and first tag: the MHA and GQA variants of one calculation) at
least SPREAD questions apart. Pure functions; the plan brings the questions.
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TypeVar

from quizapp.study.interleave import Placed, interleave, uniform

INTERVIEW_WEIGHTS: Mapping[str, float] = {
    "serving": 3.0,
    "kv-cache": 3.0,
    "flash-attention": 3.0,
    "case-studies": 3.0,
}
"""The decks an interviewer weighs most (deck id -> weight; any other deck weighs 1)."""
COVER_PER_DECK = 1
"""Each deck's easiest questions kept first, so a short plan still meets every topic."""
CASE_STUDY_KIND = "scenario"
CASE_STUDY_SHARE = 0.5
"""The case studies kept one a day take at most this share of the budget (each is ~12 minutes a go)."""
SLACK_SECONDS = 60.0
"""Half the budget give or take a minute a day: a case study estimated at 30 min and a few seconds still
fits an hour a day (the estimate's seconds of reading are not a reason to drop one)."""
SHORT_RUNWAY_DAYS = 7
"""At most this many days to the interview, the prerequisite gates open and the ranking orders the day."""
SPREAD = 6
"""Near-duplicate templates are introduced at least this many questions apart."""

T = TypeVar("T")


@dataclass(frozen=True)
class Candidate:
    """A question the plan may introduce, with what ranking it needs."""

    question_id: str
    deck_id: str
    difficulty: int
    kind: str = ""
    family: str = ""
    """Near-duplicate templates share it (family_key); "" has no near-duplicates."""


def family_key(deck_id: str, kind: str, tags: Sequence[str]) -> str:
    """The near-duplicate family of a question: same deck, same type, same first (topic) tag."""
    return f"{deck_id}/{kind}/{tags[0]}" if tags else ""


def keep_rank(
    candidates: Sequence[Candidate],
    *,
    seed: int,
    days: int,
    costs: Sequence[float] | None = None,
    budget_seconds: float | None = None,
    weights: Mapping[str, float] = INTERVIEW_WEIGHTS,
) -> list[int]:
    """The positions of `candidates`, the one to keep longest first (see the module docstring).

    `costs` (seconds until the interview, per candidate) and `budget_seconds` (the whole runway's budget)
    decide how many case studies the budget allows: at most one a day, within CASE_STUDY_SHARE of it."""
    by_deck: dict[str, list[int]] = {}
    for i, c in enumerate(candidates):
        by_deck.setdefault(c.deck_id, []).append(i)
    for members in by_deck.values():
        members.sort(
            key=lambda i: (
                candidates[i].difficulty,
                uniform(seed, "card", candidates[i].question_id),
                candidates[i].question_id,
            )
        )
    turn = _turns(candidates, by_deck, seed, weights, costs)
    cases = [i for members in by_deck.values() for i in members if candidates[i].kind == CASE_STUDY_KIND]
    cases.sort(key=lambda i: (turn[i], i))
    allowed = set(_affordable(cases, max(days, 1), costs, budget_seconds))
    keys: list[tuple[int, float, str]] = [(0, 0.0, "")] * len(candidates)
    for members in by_deck.values():
        basics = 0
        for i in members:
            c = candidates[i]
            if c.kind == CASE_STUDY_KIND:
                tier = 0 if i in allowed else 1
            else:
                tier = 0 if basics < COVER_PER_DECK else 1
                basics += 1
            keys[i] = (tier, turn[i], c.question_id)
    return sorted(range(len(candidates)), key=keys.__getitem__)


def _turns(
    candidates: Sequence[Candidate],
    by_deck: Mapping[str, list[int]],
    seed: int,
    weights: Mapping[str, float],
    costs: Sequence[float] | None,
) -> list[float]:
    """Where each question comes in weighted turns of time: a deck's question starts at the time its
    earlier questions take (plus a share u of its own, fixed per deck) over the deck's weight, so a deck
    of weight 3 gets three times the minutes, and a deck of quick cards more cards for them."""
    turn = [0.0] * len(candidates)
    for deck_id, members in by_deck.items():
        u, weight = uniform(seed, "deck", deck_id), max(weights.get(deck_id, 1.0), 1e-9)
        spent = 0.0
        for i in members:
            cost = costs[i] if costs is not None else 1.0
            turn[i] = (spent + u * cost) / weight
            spent += cost
    return turn


def _affordable(
    cases: Sequence[int], days: int, costs: Sequence[float] | None, budget_seconds: float | None
) -> list[int]:
    """The first case studies, one a day, that fit CASE_STUDY_SHARE of the budget (all of them without
    one); one that would not fit is passed over for a shorter one after it, so a long case study early in
    the ranking does not leave a day without any."""
    chosen: list[int] = []
    spent = 0.0
    for i in cases:
        if len(chosen) == days:
            break
        cost = costs[i] if costs is not None else 0.0
        if (
            budget_seconds is not None
            and spent + cost > CASE_STUDY_SHARE * budget_seconds + SLACK_SECONDS * days
        ):
            continue
        spent += cost
        chosen.append(i)
    return chosen


def introduction_order(
    ranked: Sequence[Candidate],
    *,
    days: int,
    seed: int,
    after: Mapping[str, Iterable[str]],
) -> tuple[str, ...]:
    """The kept questions (`ranked`: best first) in the order to introduce them, day after day.

    A short runway takes them in ranking order with one case study in each day's share; a long one keeps
    the usual interleave (every deck spread evenly, prerequisites first). Near-duplicates are spread
    either way."""
    days = max(days, 1)
    if days > SHORT_RUNWAY_DAYS:
        placed = [Placed(c.question_id, c.deck_id, c.difficulty) for c in ranked]
        order = {c.question_id: c for c in ranked}
        mixed = [order[p.question_id] for p in interleave(placed, after, seed=seed)]
        return tuple(c.question_id for c in spread(mixed, _family, SPREAD))
    cases = [c for c in ranked if c.kind == CASE_STUDY_KIND]
    others = spread([c for c in ranked if c.kind != CASE_STUDY_KIND], _family, SPREAD)
    per_day = math.ceil(len(ranked) / days)
    out: list[str] = []
    taken = 0
    for day in range(days):
        todays = [c for j, c in enumerate(cases) if j % days == day]
        share = others[taken : taken + max(0, per_day - len(todays))]
        taken += len(share)
        day_ids = [c.question_id for c in share]
        for k, case in enumerate(todays):  # evenly inside the day, never first: a warm-up comes before
            at = (k + 1) * len(share) // (len(todays) + 1) + k
            day_ids.insert(max(at, min(1, len(day_ids))), case.question_id)
        out += day_ids
    out += [c.question_id for c in others[taken:]]
    return tuple(out)


def _family(c: Candidate) -> str:
    return c.family


def spread(items: Sequence[T], family: Callable[[T], str], gap: int) -> list[T]:
    """`items` in their order, except that an item whose family is among the last `gap` taken waits
    until it is not (or nothing else is left)."""
    out: list[T] = []
    recent: deque[str] = deque(maxlen=gap)
    pending: list[T] = []
    stream = iter(items)

    def free(item: T) -> bool:
        key = family(item)
        return not key or key not in recent

    while len(out) < len(items):
        pick = next((k for k, p in enumerate(pending) if free(p)), None)
        item: T | None = pending.pop(pick) if pick is not None else None
        if item is None:
            for x in stream:
                if free(x):
                    item = x
                    break
                pending.append(x)
        if item is None:
            item = pending.pop(0)
        out.append(item)
        recent.append(family(item))
    return out
