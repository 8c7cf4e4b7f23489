"""Provides the queues that decide what to ask next: study (due, then new), drill (endless), cram.

Queues draw only from the QuestionSet they are given, so a question removed from the content silently
leaves every queue while its card and reviews stay in the store.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Literal

from quizapp.content.deck import DeckRef
from quizapp.errors import QuizappError
from quizapp.records.questions import QuestionRef
from quizapp.store.cards import (
    due_page,
    due_rows,
    not_new_ids,
    schedule_counts,
)
from quizapp.store.database import Store
from quizapp.store.times import from_us
from quizapp.study.interleave import Placed, interleave
from quizapp.study.limits import new_left_today

if TYPE_CHECKING:
    from quizapp.content.catalog import Catalog
    from quizapp.content.instance import Instance
    from quizapp.study.views import InstanceSource

SEED_LIMIT = 2**31 - 1
QueueReason = Literal["due", "new", "drill", "cram"]


def fresh_seed(rng: random.Random) -> int:
    """A seed for a new instance; the caller's rng keeps sessions reproducible."""
    return rng.randrange(SEED_LIMIT)


REDRAWS = 8
"""Further seeds tried when a draw cannot be built. Deck checks try 50 seeds (`validate`, 500), so a rare
combination of parameters can still fail at study time; the learner then gets the question with other
numbers instead of losing it."""


def drawable_instance(source: InstanceSource, question_id: str, seed: int) -> Instance:
    """The question at `seed`, or at the next seeds derived from it when that draw cannot be built (the
    instance records the seed it was built with, so the review can be replayed). Raises the first error
    when none of them can be built: then the question itself is broken."""
    first: Exception | None = None
    for k in range(REDRAWS + 1):
        candidate = seed if k == 0 else (seed * 0x9E3779B1 + k) % SEED_LIMIT
        try:
            return source.instance(question_id, candidate)
        except Exception as exc:
            first = first or exc
    assert first is not None
    raise first


@dataclass(frozen=True, eq=False)
class QuestionSet:
    """The questions on offer, indexed once (building a dict of 100k refs per query would cost ~10 ms).

    `ordered` is the new-card order: decks in the order they first appear, then difficulty, then the order
    given.
    """

    by_id: Mapping[str, QuestionRef]
    ordered: tuple[QuestionRef, ...]

    @classmethod
    def of(cls, refs: Iterable[QuestionRef]) -> QuestionSet:
        by_id: dict[str, QuestionRef] = {}
        for ref in refs:
            if ref.question_id in by_id:
                raise QuizappError(f"Question id {ref.question_id!r} appears twice.")
            by_id[ref.question_id] = ref
        deck_rank: dict[str, int] = {}
        for ref in by_id.values():
            deck_rank.setdefault(ref.deck_id, len(deck_rank))
        order = {qid: i for i, qid in enumerate(by_id)}
        ordered = sorted(
            by_id.values(), key=lambda r: (deck_rank[r.deck_id], r.difficulty, order[r.question_id])
        )
        return cls(by_id=by_id, ordered=tuple(ordered))

    @classmethod
    def from_catalog(cls, catalog: Catalog, *, seed: int = 0) -> QuestionSet:
        """Every question of the catalog, new cards interleaved across decks (quizapp.study.interleave),
        read from the deck headers: not one question model is built."""
        outlines = catalog.question_outlines()
        refs = {o.question_id: QuestionRef(o.question_id, o.deck_id, o.difficulty, o.tags) for o in outlines}
        placed = [Placed(o.question_id, o.deck_id, o.difficulty) for o in outlines]
        order = interleave(placed, {o.deck_id: o.deck_after for o in outlines}, seed=seed)
        return cls(by_id=refs, ordered=tuple(refs[p.question_id] for p in order))

    def __len__(self) -> int:
        return len(self.by_id)

    def decks(self) -> tuple[DeckRef, ...]:
        """These questions grouped by deck (decks in order of first appearance), for the plan and the
        counts; a QuestionSet knows no titles, so each deck is titled by its id."""
        grouped: dict[str, list[str]] = {}
        for ref in self.ordered:  # one pass: scanning every ref per deck was quadratic
            grouped.setdefault(ref.deck_id, []).append(ref.question_id)
        return tuple(DeckRef(d, d, tuple(qids)) for d, qids in grouped.items())

    def led_by(self, question_ids: Iterable[str]) -> QuestionSet:
        """The same questions, new-card order led by `question_ids` (an interview plan's order; ids not
        on offer are skipped), the rest after in their order."""
        first = [self.by_id[q] for q in dict.fromkeys(question_ids) if q in self.by_id]
        if not first:
            return self
        led = {r.question_id for r in first}
        rest = tuple(r for r in self.ordered if r.question_id not in led)
        return QuestionSet(by_id=self.by_id, ordered=(*first, *rest))

    def select(
        self, *, deck_id: str | None = None, tag: str | None = None, question_ids: Iterable[str] | None = None
    ) -> QuestionSet:
        """The subset in one deck, with one tag, and/or among given ids (a diagnosis's drill link)."""
        wanted = None if question_ids is None else set(question_ids)
        kept = [
            r
            for r in self.ordered
            if (deck_id is None or r.deck_id == deck_id)
            and (tag is None or tag in r.tags)
            and (wanted is None or r.question_id in wanted)
        ]
        return QuestionSet(by_id={r.question_id: r for r in kept}, ordered=tuple(kept))


@dataclass(frozen=True)
class QueueItem:
    """One question to ask, with the seed of its fresh instance."""

    question: QuestionRef
    seed: int
    reason: QueueReason
    due: datetime | None = None


@dataclass(frozen=True)
class StudyQueue:
    """Today's study session: due cards (most overdue first), then the new cards the daily limit allows."""

    items: tuple[QueueItem, ...]
    due_count: int
    new_count: int
    new_introduced_today: int

    def __len__(self) -> int:
        return len(self.items)


def _due(
    store: Store, questions: QuestionSet, now: datetime, limit: int | None
) -> list[tuple[QuestionRef, int]]:
    found: list[tuple[QuestionRef, int]] = []
    for qid, due_us in due_rows(store, now):
        ref = questions.by_id.get(qid)
        if ref is not None:
            found.append((ref, due_us))
            if limit is not None and len(found) >= limit:
                break
    return found


def due_questions(store: Store, questions: QuestionSet, until: datetime) -> list[str]:
    """The ids of `questions` due by `until`, most overdue first: the order study asks them in."""
    return [ref.question_id for ref, _ in _due(store, questions, until, None)]


def new_questions(store: Store, questions: QuestionSet, limit: int) -> list[str]:
    """The ids of the first `limit` new questions, in the order study introduces them."""
    return [ref.question_id for ref in _new(store, questions, limit)] if limit > 0 else []


def _new(store: Store, questions: QuestionSet, limit: int) -> list[QuestionRef]:
    """The first `limit` questions in new-card order that were never scheduled and are not suspended."""
    taken = not_new_ids(store)  # one covered scan of ids: no card record is built
    found: list[QuestionRef] = []
    for ref in questions.ordered:
        if ref.question_id not in taken:
            found.append(ref)
            if len(found) >= limit:
                break
    return found


def study_queue(
    store: Store,
    questions: QuestionSet,
    *,
    now: datetime,
    rng: random.Random,
    new_per_day: int | None = None,
    due_limit: int | None = None,
) -> StudyQueue:
    """Due cards first, most overdue first; then new cards in deck and difficulty order, up to the daily
    limit (from settings unless given) minus the new cards already introduced today."""
    due = _due(store, questions, now, due_limit)
    new_left, introduced = new_left_today(store, now=now, new_per_day=new_per_day)
    new = _new(store, questions, new_left) if new_left else []
    items = [QueueItem(ref, fresh_seed(rng), "due", from_us(due_us)) for ref, due_us in due]
    items += [QueueItem(ref, fresh_seed(rng), "new") for ref in new]
    return StudyQueue(
        items=tuple(items), due_count=len(due), new_count=len(new), new_introduced_today=introduced
    )


def next_card(
    store: Store,
    questions: QuestionSet,
    *,
    now: datetime,
    rng: random.Random,
    new_per_day: int | None = None,
    learn_ahead: timedelta = timedelta(0),
) -> QueueItem | None:
    """The single next question of a study session, asked again after every answer: the most overdue
    card, else the next new one, else (with `learn_ahead`, Anki uses 20 minutes) a card due within that
    time, so a card failed a minute ago comes back before the session ends."""
    due = _due(store, questions, now, 1)
    if not due:
        new_left, _ = new_left_today(store, now=now, new_per_day=new_per_day)
        new = _new(store, questions, 1) if new_left else []
        if new:
            return QueueItem(new[0], fresh_seed(rng), "new")
        if learn_ahead > timedelta(0):
            due = _due(store, questions, now + learn_ahead, 1)
    if not due:
        return None
    ref, due_us = due[0]
    return QueueItem(ref, fresh_seed(rng), "due", from_us(due_us))


def drill_queue(questions: QuestionSet, *, rng: random.Random) -> Iterator[QueueItem]:
    """Endless fresh instances of the given questions (select a deck or tag first), shuffled in rounds.

    Drill answers are logged with mode "drill" and never change the schedule.
    """
    if not len(questions):
        raise QuizappError("Nothing to drill: no question matches that deck or tag.")
    pool = list(questions.ordered)
    last: QuestionRef | None = None
    while True:
        rng.shuffle(pool)
        if len(pool) > 1 and pool[0] == last:
            pool[0], pool[-1] = pool[-1], pool[0]
        for ref in pool:
            yield QueueItem(ref, fresh_seed(rng), "drill")
        last = pool[-1]


class CramQueue:
    """Every unsuspended question, due or not: scheduled cards soonest due first, then the new ones in
    order. Scheduled cards are read a page at a time as the session takes them (keyset paging), and the
    new ones only once those run out, so a cram over 100k cards starts in milliseconds; its length (for
    the progress bar) comes from two counts."""

    PAGE = 200

    def __init__(self, store: Store, questions: QuestionSet, rng: random.Random) -> None:
        self.store, self.questions, self.rng = store, questions, rng
        scheduled, taken = schedule_counts(store)
        self._length = min(len(questions), scheduled) + max(0, len(questions) - taken)

    def __len__(self) -> int:
        return self._length

    def __iter__(self) -> Iterator[QueueItem]:
        by_id, after = self.questions.by_id, None
        while page := due_page(self.store, after, self.PAGE):
            for qid, due_us in page:
                if qid in by_id:
                    yield QueueItem(by_id[qid], fresh_seed(self.rng), "cram", from_us(due_us))
            after = (page[-1][1], page[-1][0])
        taken = not_new_ids(self.store)
        for ref in self.questions.ordered:
            if ref.question_id not in taken:
                yield QueueItem(ref, fresh_seed(self.rng), "cram")


def cram_queue(store: Store, questions: QuestionSet, *, rng: random.Random) -> CramQueue:
    """The cram queue over `questions`. Cram answers are logged with mode "cram" and never change the
    schedule."""
    return CramQueue(store, questions, rng)
