"""Provides the plan's time side: how long the learner takes per question type, what a day of the plan
costs in minutes, and the triage that fits it into a daily budget.

Times come from the learner's own answers (the median of their recent answer times per question type, once
there are MIN_ANSWERS of a type), else DEFAULT_SECONDS. The triage leaves out first what the interview
needs least, in this order, until the day fits:

1. every card of a deck the learner marked low priority;
2. reviews of difficulty 1-2 questions already known (KNOWN_RECALL or more expected on the day without
   the review), easiest first;
3. new questions: from the bottom of the plan's ranking when it gives one (quizapp.study.priority: each
   deck's basics, a case study a day and the decks interviewers weigh most are kept longest), else the
   most advanced (difficulty 3) first, and within one difficulty those of the learner's strongest decks;
4. the remaining reviews, the best remembered first.

Pure functions over frozen dataclasses; the command and the TUI bring the data.
"""

from __future__ import annotations

import statistics
from collections import defaultdict
from collections.abc import Collection, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal, overload

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

DEFAULT_SECONDS: Mapping[str, float] = {
    "numeric": 60.0,
    "tensor": 90.0,
    "shape": 45.0,
    "choice": 30.0,
    "flashcard": 15.0,
    "explain": 120.0,
    "code": 300.0,
    "scenario": 600.0,
}
"""A first guess per question type, before the learner has answered MIN_ANSWERS of that type."""
READING_SECONDS: Mapping[str, float] = {
    "numeric": 20.0,
    "tensor": 20.0,
    "shape": 10.0,
    "choice": 15.0,
    "flashcard": 5.0,
    "explain": 30.0,
    "code": 60.0,
    "scenario": 120.0,
}
"""Time spent on the feedback after an answer (the verdict, the worked steps, a model answer), which the
stored answer times do not include: without it a learner who answers fast, or presses Ctrl+O, was planned
far more cards than an hour holds."""
FALLBACK_SECONDS = 60.0
MIN_ANSWERS = 3
LONGEST_ANSWER_SECONDS = 900.0
"""A longer answer time is the learner walking away; it counts as this long."""
KNOWN_RECALL = 0.8
"""A review whose card is expected at this recall or more on the day anyway is "already known"."""


@dataclass(frozen=True)
class AnswerTime:
    """How long one question type takes this learner, and whether that comes from their own answers."""

    kind: str
    seconds: float
    answers: int
    """How many of the learner's answers the estimate is the median of (0: the default guess)."""

    @property
    def own(self) -> bool:
        return self.answers >= MIN_ANSWERS


def answer_times(samples: Iterable[tuple[str, float]]) -> dict[str, AnswerTime]:
    """Per question type: the median of the learner's answer times (seconds) from `samples` (kind,
    seconds), or the default guess when there are fewer than MIN_ANSWERS of that type."""
    by_kind: dict[str, list[float]] = defaultdict(list)
    for kind, seconds in samples:
        by_kind[kind].append(min(max(0.0, seconds), LONGEST_ANSWER_SECONDS))
    times = {kind: AnswerTime(kind, seconds, 0) for kind, seconds in DEFAULT_SECONDS.items()}
    for kind, values in by_kind.items():
        if len(values) >= MIN_ANSWERS:
            times[kind] = AnswerTime(kind, float(statistics.median(values)), len(values))
    return times


def seconds_for(times: Mapping[str, AnswerTime], kind: str) -> float:
    """The time one question of `kind` takes: answering it, then reading its feedback."""
    known = times.get(kind)
    answering = known.seconds if known is not None else DEFAULT_SECONDS.get(kind, FALLBACK_SECONDS)
    return answering + READING_SECONDS.get(kind, READING_SECONDS["numeric"])


@dataclass(frozen=True)
class Work:
    """One question's share of the plan: answering it until the interview costs `seconds` in all."""

    question_id: str
    deck_id: str
    difficulty: int
    new: bool
    """An unseen question to introduce (else a review of a card due before the interview)."""
    seconds: float
    recall: float
    """Its expected recall on the day without further study (0 for an unseen question)."""


@dataclass(frozen=True)
class LeftOut:
    """Something the plan leaves out to fit the budget: a whole deck or one question, and why."""

    kind: Literal["deck", "question"]
    id: str
    deck_id: str
    reason: str


def minutes_a_day(work: Iterable[Work], days: int) -> float:
    """The minutes a day that `work` costs, spread over `days` days (at least one)."""
    return sum(w.seconds for w in work) / max(days, 1) / 60


def triage(
    work: Sequence[Work],
    *,
    days: int,
    budget_minutes: float | None,
    low_priority: Collection[str] = (),
    deck_recall: Mapping[str, float] | None = None,
) -> tuple[tuple[Work, ...], tuple[LeftOut, ...]]:
    """(what is kept, what is left out and why) so that the kept work fits `budget_minutes` a day.

    With no budget, or when everything fits, nothing is left out. See the module docstring for the order.
    """
    import numpy as np

    if budget_minutes is None or minutes_a_day(work, days) <= budget_minutes:
        return tuple(work), ()
    kept, left = triage_columns(
        WorkColumns(
            question_ids=[w.question_id for w in work],
            deck_ids=[w.deck_id for w in work],
            difficulty=np.array([w.difficulty for w in work], dtype=np.int64),  # (k,)
            new=np.array([w.new for w in work], dtype=np.bool_),  # (k,)
            seconds=np.array([w.seconds for w in work], dtype=np.float64),  # (k,)
            recall=np.array([w.recall for w in work], dtype=np.float64),  # (k,)
        ),
        days=days,
        budget_minutes=budget_minutes,
        low_priority=low_priority,
        deck_recall=deck_recall,
    )
    return tuple(w for w, keep in zip(work, kept.tolist(), strict=True) if keep), tuple(left)


@dataclass(frozen=True)
class WorkColumns:
    """The plan's work as columns (one entry per question, as Work has them): the plan triages 10k
    questions without building a Work per question."""

    question_ids: Sequence[str]
    deck_ids: Sequence[str]
    difficulty: NDArray[np.int64]
    new: NDArray[np.bool_]
    seconds: NDArray[np.float64]
    recall: NDArray[np.float64]


def triage_columns(
    work: WorkColumns,
    *,
    days: int,
    budget_minutes: float,
    low_priority: Collection[str] = (),
    deck_recall: Mapping[str, float] | None = None,
    new_rank: NDArray[np.int64] | None = None,
) -> tuple[NDArray[np.bool_], Sequence[LeftOut]]:
    """triage over columns: ((k,) which questions are kept, what is left out and why, in the order it was
    left out; the questions' LeftOut are made only when read, see LeftOutItems). The running total is
    subtracted in the same order as one by one, so the same work fits. With `new_rank` ((k,) each
    question's place in the plan's ranking, quizapp.study.priority: 0 kept longest), new questions are
    left out from the bottom of that ranking instead of the most advanced first."""
    import numpy as np

    ids, decks, seconds = work.question_ids, work.deck_ids, work.seconds
    kept = np.ones(len(ids), dtype=np.bool_)  # (k,)
    recall_of = deck_recall or {}
    budget = f"{budget_minutes:g} min a day"
    left: list[LeftOut] = []
    total = sum(seconds.tolist())
    limit = budget_minutes * 60 * max(days, 1)
    names = list(dict.fromkeys(decks))  # each deck once
    code_of = {deck: i for i, deck in enumerate(names)}
    deck_code = np.fromiter(map(code_of.__getitem__, decks), dtype=np.int64, count=len(decks))  # (k,)
    for deck in sorted(d for d in names if d in low_priority):
        share = deck_code == code_of[deck]  # (k,)
        total -= sum(seconds[share].tolist())
        kept &= ~share
        left.append(
            LeftOut("deck", deck, deck, f"low priority: marked so, and not everything fits in {budget}")
        )
        if total <= limit + 1e-9:
            return kept, LeftOutItems(tuple(left), work, np.empty(0, dtype=np.int64), kept, budget)
    rank = np.empty(len(ids), dtype=np.int64)  # (k,) each question id's place in sorted order
    rank[sorted(range(len(ids)), key=ids.__getitem__)] = np.arange(len(ids))
    known = ~work.new & (work.difficulty <= 2) & (work.recall >= KNOWN_RECALL)  # (k,)
    by_deck = np.array([recall_of.get(d, 0.0) for d in names], dtype=np.float64)[deck_code]  # (k,)
    stage1 = np.flatnonzero(known)
    stage1 = stage1[np.lexsort((rank[stage1], -work.recall[stage1], work.difficulty[stage1]))]
    stage2 = np.flatnonzero(work.new)
    if new_rank is not None:
        stage2 = stage2[np.argsort(-new_rank[stage2], kind="stable")]
    else:
        stage2 = stage2[np.lexsort((rank[stage2], -by_deck[stage2], -work.difficulty[stage2]))]
    stage3 = np.flatnonzero(~work.new & ~known)  # the known reviews are in stage 1 already
    stage3 = stage3[np.lexsort((rank[stage3], -work.recall[stage3]))]
    order = np.concatenate([stage1, stage2, stage3])  # (m,) the order questions are left out in
    order = order[kept[order]]  # a low-priority deck's questions are gone already
    running = np.subtract.accumulate(np.concatenate([[total], seconds[order]]))  # (m + 1,)
    fits = running <= limit + 1e-9  # (m + 1,)
    dropped = order[: int(np.argmax(fits)) if fits.any() else len(order)]
    kept[dropped] = False
    return kept, LeftOutItems(tuple(left), work, dropped, known, budget, ranked=new_rank is not None)


class LeftOutItems(Sequence[LeftOut]):
    """What triage_columns left out, in the order it was left out: the decks as LeftOut, then the
    questions kept as columns and made into LeftOut (with their reason) only when read. At 100k cards a
    tight budget leaves out ~10k questions; home only counts them, and `quizapp plan` reads them all."""

    __slots__ = ("_budget", "_decks", "_dropped", "_known", "_ranked", "_work")

    def __init__(
        self,
        decks: tuple[LeftOut, ...],
        work: WorkColumns,
        dropped: NDArray[np.int64],
        known: NDArray[np.bool_],
        budget: str,
        *,
        ranked: bool = False,
    ) -> None:
        self._decks, self._work, self._dropped = decks, work, dropped
        self._known, self._budget, self._ranked = known, budget, ranked

    def __len__(self) -> int:
        return len(self._decks) + len(self._dropped)

    @overload
    def __getitem__(self, index: int) -> LeftOut: ...
    @overload
    def __getitem__(self, index: slice) -> tuple[LeftOut, ...]: ...
    def __getitem__(self, index: int | slice) -> LeftOut | tuple[LeftOut, ...]:
        if isinstance(index, slice):
            return tuple(self[i] for i in range(*index.indices(len(self))))
        if index < 0:
            index += len(self)
        if not 0 <= index < len(self):
            raise IndexError(index)
        if index < len(self._decks):
            return self._decks[index]
        return self._question(int(self._dropped[index - len(self._decks)]))

    def __iter__(self) -> Iterator[LeftOut]:
        yield from self._decks
        for i in self._dropped.tolist():
            yield self._question(i)

    def _question(self, i: int) -> LeftOut:
        work, budget = self._work, self._budget
        recall, difficulty = float(work.recall[i]), int(work.difficulty[i])
        if work.new[i] and self._ranked:
            why = (
                f"new, difficulty {difficulty}: no time for it in {budget}; what is kept yields more in an "
                "interview (every deck's basics, a case study a day, then serving, KV cache and "
                "FlashAttention first)"
            )
        elif work.new[i]:
            why = f"new, difficulty {difficulty}: no time for it in {budget}"
        elif self._known[i]:
            why = f"already known: {recall:.0%} on the day without a review (difficulty {difficulty})"
        else:
            why = f"review: no time for it in {budget} ({recall:.0%} on the day without it)"
        return LeftOut("question", work.question_ids[i], work.deck_ids[i], why)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Sequence) or isinstance(other, str):
            return NotImplemented
        return len(self) == len(other) and all(a == b for a, b in zip(self, other, strict=True))

    def __hash__(self) -> int:
        return hash(tuple(self))

    def __repr__(self) -> str:
        return f"LeftOutItems({len(self._decks)} decks, {len(self._dropped)} questions)"

    def __deepcopy__(self, memo: dict[int, object]) -> LeftOutItems:
        return self  # never changed after it is made (dataclasses.asdict deep-copies what it does not know)
