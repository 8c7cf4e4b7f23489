"""Provides the card browser (Anki's most used screen after the reviewer), with no UI in it: every
question's card with its state, due date, interval, reps, lapses and last rating, filtered, sorted and
paged; one card's history; and the browser's actions (suspend, unsuspend, bury, reset, study now).

`quizapp cards` prints it; the TUI's browser screen calls the same functions. A page reads only its own
cards from the store, so the first page is as fast at 100k cards as at 100.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal

from quizapp.errors import QuizappError
from quizapp.grading.rating import RATING_NAMES
from quizapp.records.questions import QuestionRef
from quizapp.store.browse import (
    last_ratings,
    make_due,
    matching_ids,
    ranked_ids,
    reset_card,
    unscheduled_counts,
)
from quizapp.store.buried import buried_on, bury
from quizapp.store.cards import CardRecord, cards_among, read_card, set_suspended
from quizapp.store.database import Store
from quizapp.store.reviews import ReviewRecord, reviews_for
from quizapp.store.times import day_start

CardState = Literal["new", "learning", "review", "relearning"]
_STATES: dict[int, CardState] = {1: "learning", 2: "review", 3: "relearning"}
Action = Literal["suspend", "unsuspend", "bury", "reset", "study-now"]
ACTIONS: tuple[Action, ...] = ("suspend", "unsuspend", "bury", "reset", "study-now")
CardOrder = Literal["catalog", "due", "lapses", "retention"]
CARD_ORDERS: tuple[tuple[CardOrder, str], ...] = (
    ("catalog", "catalog order"),
    ("due", "due soonest"),
    ("lapses", "most lapses"),
    ("retention", "weakest recall"),
)
"""Each order the browser can list the cards in, and its name (the browser's `o` steps through them)."""


@dataclass(frozen=True)
class CardFilter:
    """Which cards to list (one deck, only due / suspended / leech cards, text in the id or prompt) and
    in which order: the catalog's, soonest due, most lapses, or weakest recall now (lowest fsrs
    retrievability). A sort ranks the cards it applies to first; the rest (new cards, say) follow in
    the catalog's order."""

    deck_id: str | None = None
    due: bool = False
    suspended: bool = False
    leeches: bool = False
    search: str = ""
    order: CardOrder = "catalog"


def next_order(order: CardOrder) -> CardOrder:
    """The order after `order` in CARD_ORDERS, round again after the last."""
    names = [name for name, _ in CARD_ORDERS]
    return names[(names.index(order) + 1) % len(names)]


def order_name(order: CardOrder) -> str:
    return dict(CARD_ORDERS)[order]


@dataclass(frozen=True)
class CardView:
    """One card as the browser shows it."""

    question_id: str
    deck_id: str
    state: CardState
    due: datetime | None
    """When FSRS next asks it (None: new)."""
    interval_days: float | None
    """Days from its last review to its due date (None: never reviewed)."""
    reps: int
    lapses: int
    suspended: bool
    leech: bool
    buried: bool
    """Buried for the rest of today."""
    last_rating: int | None
    drills: int = 0
    """Answers that left the schedule alone (drill, cram, a practice interview): `reps` counts only the
    scheduled ones, so a card only ever drilled is new with 0 reps and `drills` answers."""

    @property
    def last_rating_name(self) -> str:
        return RATING_NAMES.get(self.last_rating, "") if self.last_rating else ""

    def to_json(self) -> dict[str, Any]:
        """The JSON object of `quizapp cards --json`."""
        return {
            "question_id": self.question_id,
            "deck_id": self.deck_id,
            "state": self.state,
            "due": self.due.isoformat() if self.due is not None else None,
            "interval_days": None if self.interval_days is None else round(self.interval_days, 3),
            "reps": self.reps,
            "lapses": self.lapses,
            "suspended": self.suspended,
            "leech": self.leech,
            "buried": self.buried,
            "last_rating": self.last_rating,
            "drills": self.drills,
        }


@dataclass(frozen=True)
class CardPage:
    """One page of the browser and how many cards match in all."""

    cards: tuple[CardView, ...]
    total: int
    offset: int
    limit: int


@dataclass(frozen=True)
class CardDetail:
    """One card and every answer given to it, oldest first."""

    card: CardView
    history: tuple[ReviewRecord, ...]


def _view(
    ref: QuestionRef, card: CardRecord | None, rating: int | None, buried: bool, drills: int
) -> CardView:
    if card is None or card.due is None:
        return CardView(
            ref.question_id,
            ref.deck_id,
            "new",
            None,
            None,
            card.reps if card else 0,
            card.lapses if card else 0,
            bool(card and card.suspended),
            bool(card and card.flagged),
            buried,
            rating,
            drills,
        )
    interval = None
    if card.last_review is not None:
        interval = (card.due - card.last_review).total_seconds() / 86_400
    return CardView(
        ref.question_id,
        ref.deck_id,
        _STATES.get(int(card.state), "learning"),
        card.due,
        interval,
        card.reps,
        card.lapses,
        card.suspended,
        card.flagged,
        buried,
        rating,
        drills,
    )


def _ordered_page(
    store: Store, refs: Sequence[QuestionRef], order: CardOrder, now: datetime, offset: int, end: int | None
) -> Sequence[QuestionRef]:
    """refs[offset:end] once `refs` are in `order`: the cards the store ranks first, then the rest in the
    catalog's order. The ranking is read only as far as the page needs."""
    if order == "catalog":
        return refs[offset:end]
    by_id = {r.question_id: r for r in refs}
    ranked: list[QuestionRef] = []
    for qid in ranked_ids(store, order, now):
        ref = by_id.get(qid)
        if ref is not None:
            ranked.append(ref)
            if end is not None and len(ranked) >= end:
                return ranked[offset:end]
    first = {r.question_id for r in ranked}
    return (ranked + [r for r in refs if r.question_id not in first])[offset:end]


def list_cards(
    store: Store,
    questions: Sequence[QuestionRef],
    filt: CardFilter = CardFilter(),
    *,
    now: datetime,
    limit: int | None = 50,
    offset: int = 0,
    texts: Mapping[str, str] | None = None,
    last_page: bool = False,
) -> CardPage:
    """The page of `questions` (the catalog's, in its order) that `filt` keeps, in `filt.order`, from
    `offset`.

    State filters come from the store's indexes; `search` matches the question id, deck id or `texts`
    (question id -> prompt, given by the caller when searching), case-insensitively. `limit` None: all.
    `last_page`: an offset past the end gives the last page (the list got shorter since it was paged).
    """
    if (limit is not None and limit < 0) or offset < 0:
        raise QuizappError(f"A page needs a limit and offset of 0 or more, got {limit} and {offset}.")
    refs: Sequence[QuestionRef] = questions
    if filt.deck_id is not None:
        refs = [r for r in refs if r.deck_id == filt.deck_id]
    if filt.search.strip():
        needle = filt.search.strip().lower()
        words = texts or {}
        refs = [
            r
            for r in refs
            if needle in r.question_id.lower()
            or needle in r.deck_id.lower()
            or needle in words.get(r.question_id, "").lower()
        ]
    if filt.due or filt.suspended or filt.leeches:
        kept = set(
            matching_ids(
                store, due_by=now if filt.due else None, suspended=filt.suspended, leeches=filt.leeches
            )
        )
        refs = [r for r in refs if r.question_id in kept]
    if last_page and limit and refs and offset >= len(refs):
        offset = (len(refs) - 1) // limit * limit
    end = None if limit is None else offset + limit
    page = list(_ordered_page(store, refs, filt.order, now, offset, end))
    ids = [r.question_id for r in page]
    cards = cards_among(store.conn, ids)
    ratings = last_ratings(store, ids)
    drills = unscheduled_counts(store, ids)
    buried = buried_on(store, day_start(now).date())
    views = tuple(
        _view(
            r,
            cards.get(r.question_id),
            ratings.get(r.question_id),
            r.question_id in buried,
            drills.get(r.question_id, 0),
        )
        for r in page
    )
    return CardPage(views, len(refs), offset, len(views) if limit is None else limit)


def search_texts(questions: Mapping[str, object]) -> dict[str, str]:
    """Each question's prompt (a flashcard's front) by id, what a search looks in besides the ids: every
    question model is built, so only when a search first asks."""
    return {
        qid: str(getattr(question, "prompt", "") or getattr(question, "front", ""))
        for qid, question in questions.items()
    }


def card_detail(store: Store, question: QuestionRef, *, now: datetime) -> CardDetail:
    """One card with its whole history (for `quizapp cards --id` and the browser's detail pane)."""
    card = read_card(store.conn, question.question_id)
    history = reviews_for(store, question.question_id)
    rating = history[-1].rating if history else None
    buried = question.question_id in buried_on(store, day_start(now).date())
    drills = sum(not r.scheduled for r in history)
    return CardDetail(_view(question, card, rating, buried, drills), history)


def apply_action(store: Store, question: QuestionRef, action: str, *, now: datetime) -> str:
    """Does one browser action to a card and says what it did, in a sentence."""
    qid = question.question_id
    if action == "suspend":
        set_suspended(store, question, True)
        return f"{qid} is suspended: it leaves every queue until you unsuspend it."
    if action == "unsuspend":
        set_suspended(store, question, False)
        return f"{qid} is back in the queues."
    if action == "bury":
        bury(store, qid, day_start(now).date())
        return f"{qid} is buried until tomorrow; its schedule is unchanged."
    if action == "reset":
        reset_card(store, question)
        return f"{qid} starts again as a new card; its history is kept."
    if action == "study-now":
        make_due(store, question, now)
        return f"{qid} is due now: `s` in the app asks it next."
    raise QuizappError(f"Unknown card action {action!r}; use one of {', '.join(ACTIONS)}.")
