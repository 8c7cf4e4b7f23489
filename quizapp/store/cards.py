"""Provides cards: one FSRS scheduling state per question id, with a card id derived stably from that id.

A card is keyed by the question's id, never by its text, so editing a question keeps its history; a
question removed from the content keeps its row (and reviews) and simply stops being offered.
"""

from __future__ import annotations

import contextlib
import hashlib
import math
import sqlite3
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any, Protocol

from fsrs import Card, State

from quizapp.errors import QuizappError
from quizapp.records.questions import QuestionRef
from quizapp.store.database import Store
from quizapp.store.times import from_us, to_us, utc

_CARD_ID_MASK = (1 << 63) - 1


@dataclass(frozen=True)
class CardRecord:
    """One card as stored. `due` is None while the card is new (never scheduled by FSRS)."""

    question_id: str
    card_id: int
    deck_id: str
    state: State = State.Learning
    step: int | None = 0
    stability: float | None = None
    difficulty: float | None = None
    due: datetime | None = None
    last_review: datetime | None = None
    introduced: datetime | None = None
    reps: int = 0
    lapses: int = 0
    suspended: bool = False
    flagged: bool = False
    repaired: str | None = field(default=None, compare=False)
    """Set when the stored row was impossible for FSRS (a tampered or damaged file) and this record is
    that card started again as new: what was wrong, in words. Never stored."""

    @property
    def is_new(self) -> bool:
        return self.due is None

    def to_fsrs(self, now: datetime) -> Card:
        """The fsrs Card for this record (a new card is due `now`); the card id is always passed."""
        return Card(
            card_id=self.card_id,
            state=self.state,
            step=self.step,
            stability=self.stability,
            difficulty=self.difficulty,
            due=utc(self.due) if self.due is not None else utc(now),
            last_review=self.last_review,
        )


def card_id_for(question_id: str) -> int:
    """The first 8 bytes of sha256(question id) as a positive 63-bit integer: stable across machines."""
    digest = hashlib.sha256(question_id.encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "big") & _CARD_ID_MASK


def card_id_collisions(
    question_ids: Iterable[str], card_id: Callable[[str], int] = card_id_for
) -> tuple[tuple[str, str, int], ...]:
    """Every pair of distinct question ids sharing a card id, as (first, second, card id)."""
    seen: dict[int, str] = {}
    found = []
    for qid in question_ids:
        cid = card_id(qid)
        other = seen.setdefault(cid, qid)
        if other != qid:
            found.append((other, qid, cid))
    return tuple(found)


def check_card_ids(question_ids: Iterable[str], card_id: Callable[[str], int] = card_id_for) -> None:
    """Raises QuizappError naming both ids if two questions would share a card (never silently merged)."""
    collisions = card_id_collisions(question_ids, card_id)
    if collisions:
        a, b, cid = collisions[0]
        raise QuizappError(
            f"Questions {a!r} and {b!r} would share card id {cid}; rename one of them "
            f"({len(collisions)} collision(s) in all)."
        )


_COLUMNS = (
    "question_id, card_id, deck_id, state, step, stability, difficulty, due_us, last_review_us,"
    " introduced_us, reps, lapses, suspended, flagged"
)


def _opt_us(when: datetime | None) -> int | None:
    return None if when is None else to_us(when)


MAX_STABILITY_DAYS = 1e6
"""Far beyond any interval FSRS gives (its maximum interval is 36,500 days); larger is a damaged value."""


def _opt_dt(us: object) -> datetime | None:
    if us is None:
        return None
    if not isinstance(us, int):
        raise ValueError(f"time {us!r} is not a whole number of microseconds")
    try:
        return from_us(us)
    except OverflowError as exc:
        raise ValueError(f"time {us} is outside the calendar") from exc


def _whole(value: object, name: str) -> int:
    if not isinstance(value, int):
        raise ValueError(f"{name} {value!r} is not a whole number")
    return value


def _number(value: object, name: str) -> float | None:
    if value is not None and not isinstance(value, (int, float)):
        raise ValueError(f"{name} {value!r} is not a number")
    return None if value is None else float(value)


class CardState(Protocol):
    """What unsound() reads of a card: a CardRecord, or a progress file's card (its entry, or its row)."""

    @property
    def state(self) -> int: ...
    @property
    def step(self) -> int | None: ...
    @property
    def stability(self) -> float | None: ...
    @property
    def difficulty(self) -> float | None: ...
    @property
    def last_review(self) -> object: ...  # only whether it is set is read: a datetime, or microseconds
    @property
    def reps(self) -> int: ...
    @property
    def lapses(self) -> int: ...


def unsound(card: CardState) -> str | None:
    """Why FSRS could not schedule this card (a number out of range, or a review card without its
    memory), or None. Import refuses such cards; reading one from the database starts it again."""
    for name, value, low, high in (
        ("stability", card.stability, 1e-3, MAX_STABILITY_DAYS),
        ("difficulty", card.difficulty, 1.0, 10.0),
    ):
        if value is not None and not (math.isfinite(value) and low <= value <= high):
            return f"{name} {value!r} is not a number from {low:g} to {high:g}"
    for name, count in (("step", card.step), ("reps", card.reps), ("lapses", card.lapses)):
        if count is not None and not 0 <= count < 2**63:
            return f"{name} {count} is not a whole number >= 0"
    if card.state != State.Learning and None in (card.stability, card.difficulty, card.last_review):
        return "a card in review has no stability, difficulty or last review"
    if card.state != State.Review and card.step is None:
        return "a learning card has no learning step"
    return None


def _record(row: Any) -> CardRecord:
    """The card of a row; a row FSRS could never schedule (a state, number or time out of range, or a
    review card without its memory) becomes the card started again as new, with `repaired` saying why,
    so the question can always be answered and the next save writes a sound row."""
    (qid, cid, deck, state, step, stab, diff, due, last, intro, reps, lapses, susp, flag) = tuple(row)
    card = CardRecord(
        question_id=str(qid),
        card_id=int(cid),
        deck_id=str(deck),
        suspended=bool(susp),
        flagged=bool(flag),
    )
    with contextlib.suppress(ValueError):  # only a statistic: the card stays answerable without it
        card = replace(card, introduced=_opt_dt(intro))
    try:
        if state not in (1, 2, 3):
            raise ValueError(f"state {state!r} is not learning (1), review (2) or relearning (3)")
        sound = replace(
            card,
            state=State(state),
            step=None if step is None else _whole(step, "step"),
            stability=_number(stab, "stability"),
            difficulty=_number(diff, "difficulty"),
            due=_opt_dt(due),
            last_review=_opt_dt(last),
            reps=_whole(reps, "reps"),
            lapses=_whole(lapses, "lapses"),
        )
        problem = unsound(sound)
        if problem:
            raise ValueError(problem)
        return sound
    except ValueError as exc:
        return replace(card, repaired=str(exc))


def _row(card: CardRecord) -> tuple[object, ...]:
    return (
        card.question_id,
        card.card_id,
        card.deck_id,
        int(card.state),
        card.step,
        card.stability,
        card.difficulty,
        _opt_us(card.due),
        _opt_us(card.last_review),
        _opt_us(card.introduced),
        card.reps,
        card.lapses,
        int(card.suspended),
        int(card.flagged),
    )


def read_card(conn: sqlite3.Connection, question_id: str) -> CardRecord | None:
    row = conn.execute(f"SELECT {_COLUMNS} FROM cards WHERE question_id = ?", (question_id,)).fetchone()
    return None if row is None else _record(row)


def get_card(store: Store, question_id: str) -> CardRecord | None:
    """The stored card of a question, or None if it was never seen."""
    return read_card(store.conn, question_id)


def ensure_card(conn: sqlite3.Connection, question: QuestionRef) -> CardRecord:
    """The question's card, created new if absent; its deck follows the question if it moved decks.

    Call inside a write transaction. A card id already held by another question id raises QuizappError.
    """
    card = read_card(conn, question.question_id)
    if card is not None:
        if card.deck_id != question.deck_id:
            conn.execute(
                "UPDATE cards SET deck_id = ? WHERE question_id = ?", (question.deck_id, question.question_id)
            )
            card = replace(card, deck_id=question.deck_id)
        return card
    cid = card_id_for(question.question_id)
    holder = conn.execute("SELECT question_id FROM cards WHERE card_id = ?", (cid,)).fetchone()
    if holder is not None:
        raise QuizappError(
            f"Question {question.question_id!r} has the same card id ({cid}) as {holder[0]!r} "
            "already in your progress; rename the new question so its history stays separate."
        )
    card = CardRecord(question_id=question.question_id, card_id=cid, deck_id=question.deck_id)
    write_card(conn, card)
    return card


def write_card(conn: sqlite3.Connection, card: CardRecord) -> None:
    """Inserts or replaces a card row (inside the caller's transaction)."""
    conn.execute(f"INSERT OR REPLACE INTO cards ({_COLUMNS}) VALUES ({', '.join('?' * 14)})", _row(card))


def card_unchanged(conn: sqlite3.Connection, question_id: str, card: CardRecord | None) -> bool:
    """Whether the stored row is `card` as written (None: there is no row), compared as stored: another
    instance of the app answering the same card in between makes it differ."""
    now = read_card(conn, question_id)
    if now is None or card is None:
        return now is None and card is None
    return _row(now) == _row(card)


def restore_card(conn: sqlite3.Connection, question_id: str, before: CardRecord | None) -> None:
    """Puts a card back as it was (inside the caller's transaction): its old row, or no row at all if the
    question had none (undo of a first review)."""
    if before is None:
        conn.execute("DELETE FROM cards WHERE question_id = ?", (question_id,))
    else:
        write_card(conn, before)


def iter_cards(conn: sqlite3.Connection) -> Iterator[CardRecord]:
    """Every card, in question id order (export, tests)."""
    for row in conn.execute(f"SELECT {_COLUMNS} FROM cards ORDER BY question_id"):
        yield _record(row)


_US_RANGE = (-62_135_596_800 * 10**6, 253_402_300_799 * 10**6 + 999_999)
"""The microsecond times a datetime can hold (years 1 to 9999)."""


def card_rows(store: Store) -> Iterator[tuple[Any, ...]]:
    """Every card as a row (the columns of the cards table, in order), in question id order, exactly as
    iter_cards reads it: a row FSRS could not use comes back as the card started again. Building a record
    per card costs ten times the row, so only a row that fails a plain check of its values is built."""
    for row in store.conn.execute(f"SELECT {_COLUMNS} FROM cards ORDER BY question_id"):
        if _plainly_sound(row):
            yield row
        else:
            yield _row(_record(row))


def _plainly_sound(row: tuple[Any, ...]) -> bool:
    """True when _record would read the row back unchanged: every value of its type and range."""
    _, _, _, state, step, stab, diff, due, last, intro, reps, lapses, _, _ = row
    if type(state) is not int or not 1 <= state <= 3:
        return False
    low, high = _US_RANGE
    for us in (due, last, intro):
        if us is not None and (type(us) is not int or not low <= us <= high):
            return False
    for count in (step, reps, lapses):
        if count is not None and (type(count) is not int or not 0 <= count < 2**63):
            return False
    if reps is None or lapses is None:
        return False
    if stab is not None and (type(stab) is not float or not 1e-3 <= stab <= MAX_STABILITY_DAYS):
        return False
    if diff is not None and (type(diff) is not float or not 1.0 <= diff <= 10.0):
        return False
    if state != State.Learning and (stab is None or diff is None or last is None):
        return False
    return not (state != State.Review and step is None)


def set_suspended(store: Store, question: QuestionRef, suspended: bool) -> CardRecord:
    """Suspends (or restores) a card: a suspended card leaves the study and cram queues."""
    with store.transaction() as conn:
        ensure_card(conn, question)
        conn.execute(
            "UPDATE cards SET suspended = ? WHERE question_id = ?", (int(suspended), question.question_id)
        )
        card = read_card(conn, question.question_id)
    assert card is not None
    return card


def suspended_ids(store: Store) -> tuple[str, ...]:
    """The questions the user suspended, in id order (to list and bring back)."""
    rows = store.conn.execute("SELECT question_id FROM cards WHERE suspended = 1 ORDER BY question_id")
    return tuple(str(r[0]) for r in rows)


def set_flagged(store: Store, question: QuestionRef, flagged: bool) -> CardRecord:
    """Flags (or unflags) a card; leeches are flagged automatically, the user can flag any card."""
    with store.transaction() as conn:
        ensure_card(conn, question)
        conn.execute(
            "UPDATE cards SET flagged = ? WHERE question_id = ?", (int(flagged), question.question_id)
        )
        card = read_card(conn, question.question_id)
    assert card is not None
    return card


def due_rows(store: Store, until: datetime) -> Iterator[tuple[str, int]]:
    """(question id, due_us) of unsuspended cards due by `until`, most overdue first (uses cards_by_due)."""
    cursor = store.conn.execute(
        "SELECT question_id, due_us FROM cards WHERE due_us <= ? AND suspended = 0 ORDER BY due_us",
        (to_us(until),),
    )
    for qid, due in cursor:
        yield str(qid), int(due)


def cards_among(
    conn: sqlite3.Connection, question_ids: Iterable[str], chunk: int = 500
) -> dict[str, CardRecord]:
    """The stored cards of the given ids (missing ids are simply absent), looked up in chunks."""
    ids = list(question_ids)
    found: dict[str, CardRecord] = {}
    for i in range(0, len(ids), chunk):
        part = ids[i : i + chunk]
        marks = ", ".join("?" * len(part))
        for row in conn.execute(f"SELECT {_COLUMNS} FROM cards WHERE question_id IN ({marks})", part):
            card = _record(row)
            found[card.question_id] = card
    return found


def not_new_ids(store: Store) -> set[str]:
    """Ids of every card that is no longer new: scheduled by FSRS, or suspended (a suspended card is not
    offered as new either). One covered scan of the cards_by_due index; the queues take what is left of
    the catalog as new."""
    rows = store.conn.execute("SELECT question_id FROM cards WHERE due_us IS NOT NULL OR suspended = 1")
    return {str(qid) for (qid,) in rows}


def due_page(store: Store, after: tuple[int, str] | None, limit: int) -> list[tuple[str, int]]:
    """The next `limit` unsuspended scheduled cards, soonest due first, after (due_us, question id)
    `after`: keyset paging along cards_by_due, so a cram over 100k cards reads only what is asked."""
    due_us, qid = after if after is not None else (-(2**63), "")
    rows: list[tuple[str, int]] = store.conn.execute(
        "SELECT question_id, due_us FROM cards WHERE suspended = 0 AND due_us IS NOT NULL"
        " AND (due_us > ? OR (due_us = ? AND question_id > ?)) ORDER BY due_us, question_id LIMIT ?",
        (due_us, due_us, qid, limit),
    ).fetchall()
    return rows


def schedule_counts(store: Store) -> tuple[int, int]:
    """(unsuspended scheduled cards, cards no longer new: scheduled or suspended), by covered counts."""
    (scheduled,) = store.conn.execute(
        "SELECT count(*) FROM cards WHERE due_us IS NOT NULL AND suspended = 0"
    ).fetchone()
    (taken,) = store.conn.execute(
        "SELECT count(*) FROM cards WHERE due_us IS NOT NULL OR suspended = 1"
    ).fetchone()
    return int(scheduled), int(taken)
