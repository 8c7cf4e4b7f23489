"""Provides the card browser's queries: which cards match a state filter, the stored cards in a sort
order, the last rating and unscheduled answers of a page of cards, and the card edits the browser makes
(reset, study now). The page queries walk an index (the primary key, cards_by_due or reviews_by_card);
a sort reads one column of every stored card once per page."""

from __future__ import annotations

import contextlib
from collections.abc import Iterable, Iterator
from dataclasses import replace
from datetime import datetime
from typing import Literal

from quizapp.records.questions import QuestionRef
from quizapp.store.cards import CardRecord, ensure_card, read_card, write_card
from quizapp.store.database import Store
from quizapp.store.times import to_us, utc


def matching_ids(
    store: Store, *, due_by: datetime | None = None, suspended: bool = False, leeches: bool = False
) -> list[str]:
    """Ids of stored cards that are due by `due_by` (unsuspended, soonest due first), suspended, and/or
    flagged as leeches; in question id order unless due order applies."""
    where, args, order = [], [], "question_id"
    if due_by is not None:
        where.append("due_us <= ? AND suspended = 0")
        args.append(to_us(due_by))
        order = "due_us, question_id"
    if suspended:
        where.append("suspended = 1")
    if leeches:
        where.append("flagged = 1")
    sql = "SELECT question_id FROM cards" + (f" WHERE {' AND '.join(where)}" if where else "")
    return [str(q) for (q,) in store.conn.execute(f"{sql} ORDER BY {order}", args)]


RankedOrder = Literal["due", "lapses", "retention"]
_RANKINGS: dict[str, str] = {
    "due": "SELECT question_id FROM cards WHERE due_us IS NOT NULL ORDER BY due_us, question_id",
    "lapses": "SELECT question_id FROM cards WHERE lapses > 0 ORDER BY lapses DESC, question_id",
    # fsrs's retrievability (1 + F * days / S) ** DECAY falls as whole days since the last review over
    # stability grows, for every card of one scheduler: so the weakest recall first is that ratio largest.
    "retention": "SELECT question_id FROM cards WHERE stability > 0 AND last_review_us IS NOT NULL"
    " ORDER BY max(0, (? - last_review_us) / 86400000000) / stability DESC, question_id",
}


def ranked_ids(store: Store, order: RankedOrder, now: datetime) -> Iterator[str]:
    """Ids of the stored cards that `order` ranks, first first: "due" soonest due (scheduled cards only),
    "lapses" most lapses (cards that lapsed), "retention" least likely recalled at `now` (cards with a
    memory state). Cards it does not rank (new ones, say) are not listed. Streamed: a caller that needs
    only the first page stops early (due order walks cards_by_due, so that page costs what it reads)."""
    sql = _RANKINGS.get(order)
    if sql is None:
        raise ValueError(f"Unknown card order {order!r}; expected one of {', '.join(_RANKINGS)}.")
    args = (to_us(now),) if "?" in sql else ()
    with contextlib.closing(store.conn.execute(sql, args)) as rows:
        for (qid,) in rows:
            yield str(qid)


def unscheduled_counts(store: Store, question_ids: Iterable[str]) -> dict[str, int]:
    """How many answers to each question left its schedule alone (drill, cram, a practice interview):
    one reviews_by_card lookup per id; ids never answered that way are absent."""
    sql = "SELECT count(*) FROM reviews WHERE question_id = ? AND scheduled = 0"
    out: dict[str, int] = {}
    for qid in question_ids:
        (count,) = store.conn.execute(sql, (qid,)).fetchone()
        if count:
            out[qid] = int(count)
    return out


def last_ratings(store: Store, question_ids: Iterable[str]) -> dict[str, int]:
    """The rating of each question's latest review (one reviews_by_card lookup per id)."""
    sql = "SELECT rating FROM reviews WHERE question_id = ? ORDER BY reviewed_us DESC, id DESC LIMIT 1"
    out: dict[str, int] = {}
    for qid in question_ids:
        row = store.conn.execute(sql, (qid,)).fetchone()
        if row is not None:
            out[qid] = int(row[0])
    return out


def reset_card(store: Store, question: QuestionRef) -> CardRecord:
    """Starts a card again as new (FSRS forgets it; suspension and leech flag cleared); its review history
    is kept. The row stays, because reviews refer to it."""
    with store.transaction() as conn:
        card = ensure_card(conn, question)
        fresh = CardRecord(question_id=card.question_id, card_id=card.card_id, deck_id=card.deck_id)
        write_card(conn, fresh)
    return fresh


def make_due(store: Store, question: QuestionRef, now: datetime) -> CardRecord:
    """Makes a card due at `now` ("study now"): a scheduled card keeps its memory state, a new one is
    scheduled as fsrs's new card due now. A suspended card is brought back."""
    with store.transaction() as conn:
        card = ensure_card(conn, question)
        due = replace(card, due=utc(now), suspended=False)
        write_card(conn, due)
    after = read_card(store.conn, question.question_id)
    assert after is not None
    return after
