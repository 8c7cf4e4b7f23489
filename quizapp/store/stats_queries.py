"""Provides the queries behind stats and the home screen: counts per day, per deck and per mistake.

Every figure is one indexed SQL query (covering indexes from the migrations), so a history of a million
reviews is summarised in milliseconds. Days are the user's days: `now`'s own time zone decides where
midnight falls. quizapp.reports shapes these rows for people; this module is where they come from.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta

from quizapp.store.database import Store
from quizapp.store.migrations import QUARTER_US
from quizapp.store.reviews import DISAGREEMENT_GLOB, MAX_POINTS
from quizapp.store.times import US_PER_DAY, day_start, offset_us, to_us
from quizapp.terminal_text import terminal_text

CALENDAR_DAYS = 365
FORECAST_DAYS = 30
MASTERY_STABILITY_DAYS = 21.0
TOP_DIAGNOSES = 10
TOP_POINT_DISAGREEMENTS = 5
_DAYS_PER_QUERY = 300
_IN_DAY = "FROM reviews WHERE reviewed_us >= lo AND reviewed_us < hi"
_IN_QUARTERS = "FROM review_tally WHERE quarter >= lo AND quarter < hi"
"""Days of the calendar per query: three bound values each, under SQLite's old limit of 999."""
_EPOCH_ORDINAL = date(1970, 1, 1).toordinal()


@dataclass(frozen=True)
class DayCount:
    """Reviews answered on one day, and the time they took."""

    day: date
    reviews: int
    seconds: float


@dataclass(frozen=True)
class DeckRetention:
    """True retention: of the scheduled reviews of cards already in review state, the share passed
    (rating above Again). Drill, cram and learning-step answers do not count."""

    deck_id: str
    passed: int
    total: int

    @property
    def retention(self) -> float | None:
        return self.passed / self.total if self.total else None


@dataclass(frozen=True)
class DeckMastery:
    """Cards of a deck in review state, and how many of those are mastered (stability >= 21 days)."""

    deck_id: str
    cards: int
    in_review: int
    mastered: int

    @property
    def share(self) -> float | None:
        """The share of the deck's cards in review state that are mastered."""
        return self.mastered / self.in_review if self.in_review else None

    def share_of(self, questions: int) -> float:
        """Mastered cards as a share of all `questions` of the deck (seen or not): the home screen's bar."""
        return self.mastered / questions if questions > 0 else 0.0


@dataclass(frozen=True)
class DueDay:
    """Cards falling due on one day; the first day also counts everything already overdue."""

    day: date
    due: int


@dataclass(frozen=True)
class DiagnosisCount:
    """One of the user's personal misconceptions: how often it was diagnosed and on which questions."""

    diagnosis_id: str
    label: str
    count: int
    question_ids: tuple[str, ...]


def review_totals(store: Store) -> tuple[int, float]:
    """How many reviews there are, and the seconds they took."""
    n, ms = store.conn.execute(
        "SELECT coalesce(sum(reviews), 0), coalesce(sum(ms), 0) FROM review_tally"  # kept by triggers
    ).fetchone()
    return int(n), int(ms) / 1000


def _index_of(day: date) -> int:
    return day.toordinal() - _EPOCH_ORDINAL


def reviews_per_day(store: Store, *, now: datetime, days: int = CALENDAR_DAYS) -> tuple[DayCount, ...]:
    """Review counts per local day for the last `days` days, today last, from one query.

    Midnights come from `now`'s tzinfo, so a zone with daylight saving gets its 23- and 25-hour days
    right: the day bounds are computed here and handed to SQL as a JSON table of ranges. Every zone's
    midnight falls on a quarter hour, so each day sums a range of the review tally's quarter hours (a
    few hundred rows, where the reviews themselves are a million); a zone whose midnight does not (a
    historical local mean time) counts the reviews in each range on the (reviewed_us, ...) index.
    """
    today = day_start(now).date()
    first = today - timedelta(days=days - 1)
    bounds = [
        to_us(datetime.combine(first + timedelta(days=i), time.min, tzinfo=now.tzinfo))
        for i in range(days + 1)
    ]
    if all(b % QUARTER_US == 0 for b in bounds):
        bounds = [b // QUARTER_US for b in bounds]
        counted = (
            f"(SELECT coalesce(sum(reviews), 0) {_IN_QUARTERS}), (SELECT coalesce(sum(ms), 0) {_IN_QUARTERS})"
        )
    else:
        counted = f"(SELECT count(*) {_IN_DAY}), (SELECT coalesce(sum(duration_ms), 0) {_IN_DAY})"
    days_json = json.dumps([[bounds[i], bounds[i + 1]] for i in range(days)])
    rows = store.conn.execute(
        "WITH day(i, lo, hi) AS"
        " (SELECT key, json_extract(value, '$[0]'), json_extract(value, '$[1]') FROM json_each(?))"
        f" SELECT i, {counted} FROM day",
        (days_json,),
    )
    found = {int(i): (int(n), int(ms)) for i, n, ms in rows}
    return tuple(
        DayCount(
            day=first + timedelta(days=i),
            reviews=found.get(i, (0, 0))[0],
            seconds=found.get(i, (0, 0))[1] / 1000,
        )
        for i in range(days)
    )


def retention_by_deck(store: Store) -> tuple[DeckRetention, ...]:
    """True retention per deck over all scheduled reviews of review-state cards (the retention tally)."""
    rows = store.conn.execute(  # kept by triggers on reviews
        "SELECT deck_id, passed, total FROM retention_tally WHERE total > 0 ORDER BY deck_id"
    )
    return tuple(DeckRetention(deck_id=terminal_text(d), passed=int(p), total=int(t)) for d, p, t in rows)


def mastery_by_deck(store: Store) -> tuple[DeckMastery, ...]:
    """Per deck: stored cards, cards in review state, and those with stability >= 21 days (cards_by_deck)."""
    rows = store.conn.execute(
        "SELECT deck_id, count(*), sum(state = 2), sum(state = 2 AND stability >= ?) FROM cards"
        " GROUP BY deck_id ORDER BY deck_id",
        (MASTERY_STABILITY_DAYS,),
    )
    return tuple(
        DeckMastery(deck_id=terminal_text(d), cards=int(c), in_review=int(r), mastered=int(m))
        for d, c, r, m in rows
    )


def due_forecast(store: Store, *, now: datetime, days: int = FORECAST_DAYS) -> tuple[tuple[DueDay, ...], int]:
    """Unsuspended cards due on each of the next `days` days (today includes the overdue), and the
    overdue count on its own (cards_by_due)."""
    off = offset_us(now)
    today = day_start(now).date()
    today_index = _index_of(today)
    end_us = (today_index + days) * US_PER_DAY - off
    rows = store.conn.execute(
        "SELECT max((due_us + ?) / ?, ?) AS d, count(*) FROM cards"
        " WHERE due_us IS NOT NULL AND due_us < ? AND suspended = 0 GROUP BY d",
        (off, US_PER_DAY, today_index, end_us),
    )
    counts = {int(d): int(n) for d, n in rows}
    overdue = store.conn.execute(
        "SELECT count(*) FROM cards WHERE due_us IS NOT NULL AND due_us < ? AND suspended = 0", (to_us(now),)
    ).fetchone()[0]
    forecast = tuple(
        DueDay(day=today + timedelta(days=i), due=counts.get(today_index + i, 0)) for i in range(days)
    )
    return forecast, int(overdue)


QUESTION_BOUND_DIAGNOSES = ("choice-",)
"""Diagnosis id prefixes whose wording belongs to one question (the feedback of one option): such a
diagnosis is counted per question and wording, never across questions under one label."""


def top_diagnoses(store: Store, *, limit: int = TOP_DIAGNOSES) -> tuple[DiagnosisCount, ...]:
    """The most frequent diagnoses, each with its latest wording and the questions it showed up on.

    A misconception the engine names ("forgot the x2 for K and V") is one mistake across questions; a
    wrong choice option is a mistake of one question, so those are grouped by question and option."""
    conn = store.conn
    bound = " OR ".join("diagnosis_id GLOB ?" for _ in QUESTION_BOUND_DIAGNOSES)
    globs = tuple(f"{p}*" for p in QUESTION_BOUND_DIAGNOSES)
    shared = conn.execute(
        "SELECT diagnosis_id, count(*) AS n, max(id) FROM reviews WHERE diagnosis_id IS NOT NULL"
        f" AND NOT ({bound}) GROUP BY diagnosis_id ORDER BY n DESC, diagnosis_id LIMIT ?",
        (*globs, limit),
    ).fetchall()
    own = conn.execute(
        "SELECT diagnosis_id, question_id, diagnosis, count(*) AS n FROM reviews"
        f" WHERE ({bound}) GROUP BY diagnosis_id, question_id, diagnosis"
        " ORDER BY n DESC, diagnosis_id, question_id LIMIT ?",
        (*globs, limit),
    ).fetchall()
    out = []
    for diagnosis_id, n, latest in shared:
        label = conn.execute("SELECT diagnosis FROM reviews WHERE id = ?", (latest,)).fetchone()[0]
        qids = conn.execute(
            "SELECT DISTINCT question_id FROM reviews WHERE diagnosis_id = ? ORDER BY question_id",
            (diagnosis_id,),
        )
        out.append(
            DiagnosisCount(  # text passed through terminal_text: a `--db` may be someone else's file
                diagnosis_id=terminal_text(str(diagnosis_id)),
                label=terminal_text(str(label or diagnosis_id)),
                count=int(n),
                question_ids=tuple(terminal_text(str(q[0])) for q in qids),
            )
        )
    for diagnosis_id, qid, label, n in own:
        out.append(
            DiagnosisCount(
                diagnosis_id=terminal_text(str(diagnosis_id)),
                label=terminal_text(str(label or diagnosis_id)),
                count=int(n),
                question_ids=(terminal_text(str(qid)),),
            )
        )
    out.sort(key=lambda d: (-d.count, d.diagnosis_id, d.question_ids))
    return tuple(out[:limit])


@dataclass(frozen=True)
class PointDisagreement:
    """One key point of one explain question, and how often the learner's final tick overruled the grader's
    reading of it (quizapp.store.reviews.POINT_CODES)."""

    question_id: str
    point: int
    """The key point's number, from 1, as the feedback numbers it."""
    missed: int
    """Reviews where the learner ticked it though the grader found it missing or contradicted."""
    over_credited: int
    """Reviews where the grader found it covered and the learner unticked it."""

    @property
    def total(self) -> int:
        return self.missed + self.over_credited


def point_disagreements(
    store: Store, *, limit: int = TOP_POINT_DISAGREEMENTS
) -> tuple[PointDisagreement, ...]:
    """The key points the learner and the grader disagree on most often, per (question, point): the
    most disagreements first, then the most missed. Reads only the reviews with a disagreement (the
    partial covering index reviews_point_disagreements), a letter of `points` per key point."""
    rows = store.conn.execute(
        "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?),"
        f" r AS (SELECT question_id, points FROM reviews WHERE points GLOB '{DISAGREEMENT_GLOB}')"
        " SELECT question_id, i, sum(substr(points, i, 1) IN ('M', 'X')) AS missed,"
        " sum(substr(points, i, 1) = 'c') AS over FROM r JOIN n ON i <= length(points)"
        " GROUP BY question_id, i HAVING missed + over > 0"
        " ORDER BY missed + over DESC, missed DESC, question_id, i LIMIT ?",
        (MAX_POINTS, limit),
    )
    return tuple(
        PointDisagreement(terminal_text(str(qid)), int(i), int(missed), int(over))
        for qid, i, missed, over in rows
    )


@dataclass(frozen=True)
class DeckCounts:
    """One deck's cards as the home screen counts them."""

    scheduled: int
    """Cards FSRS has scheduled (no longer new)."""
    due: int
    """Of those, unsuspended and due by now."""
    mastered: int
    """In review state with stability >= MASTERY_STABILITY_DAYS."""


def deck_counts(store: Store, deck_ids: Iterable[str], *, now: datetime) -> dict[str, DeckCounts]:
    """Each deck's counts from index range counts: scheduled and due cards on cards_overview (deck_id,
    due_us, ...), mastered ones on cards_by_deck (deck_id, state, stability). Plain count(*) over a
    range is several times faster than one GROUP BY evaluating expressions on every card.

    Counted per deck, so a card whose question has left the bank counts until its deck is edited; the
    overview clamps what that could push below zero."""
    conn, now_us = store.conn, to_us(now)
    out: dict[str, DeckCounts] = {}
    for deck in deck_ids:
        (scheduled,) = conn.execute(
            "SELECT count(*) FROM cards WHERE deck_id = ? AND due_us IS NOT NULL", (deck,)
        ).fetchone()
        (due,) = conn.execute(
            "SELECT count(*) FROM cards WHERE deck_id = ? AND due_us <= ? AND suspended = 0", (deck, now_us)
        ).fetchone()
        (mastered,) = conn.execute(
            "SELECT count(*) FROM cards WHERE deck_id = ? AND state = 2 AND stability >= ?",
            (deck, MASTERY_STABILITY_DAYS),
        ).fetchone()
        out[deck] = DeckCounts(int(scheduled), int(due), int(mastered))
    return out


def has_reviews(store: Store) -> bool:
    """Whether any answer was ever logged (the home screen's first-run hint), without counting a million."""
    return bool(store.conn.execute("SELECT EXISTS (SELECT 1 FROM reviews)").fetchone()[0])


def reviews_on(store: Store, day: datetime) -> int:
    """Reviews logged on the local day that starts at `day`."""
    sql = "SELECT count(*) FROM reviews WHERE reviewed_us >= ? AND reviewed_us < ?"
    return int(store.conn.execute(sql, (to_us(day), to_us(day + timedelta(days=1)))).fetchone()[0])


def streak_days(store: Store, *, now: datetime, limit: int = 400) -> int:
    """Days in a row with a review, ending today (or yesterday while today is still empty): one EXISTS
    per day on the reviews_by_time index, which stops at the first review it finds."""
    sql = "SELECT EXISTS (SELECT 1 FROM reviews WHERE reviewed_us >= ? AND reviewed_us < ?)"
    end = day_start(now) + timedelta(days=1)
    run = 0
    for back in range(limit):
        start = end - timedelta(days=1)
        if store.conn.execute(sql, (to_us(start), to_us(end))).fetchone()[0]:
            run += 1
        elif back > 0:
            break
        end = start
    return run


def introduced_between(store: Store, start: datetime, end: datetime) -> int:
    """How many cards had their first scheduled review in [start, end) (the daily new-card budget)."""
    row = store.conn.execute(
        "SELECT count(*) FROM cards WHERE introduced_us >= ? AND introduced_us < ?",
        (to_us(start), to_us(end)),
    ).fetchone()
    return int(row[0])


ANSWER_TIME_SAMPLE = 2000
"""How many of the most recent answers the plan's time estimate reads."""


def recent_answer_times(store: Store, limit: int = ANSWER_TIME_SAMPLE) -> tuple[tuple[str, int], ...]:
    """(question id, duration in ms) of the `limit` most recent answers, newest first: the learner's own
    pace for the plan. Walks the reviews_by_time index backwards, so it costs the same at 1M reviews."""
    sql = "SELECT question_id, duration_ms FROM reviews ORDER BY reviewed_us DESC LIMIT ?"
    return tuple((str(q), int(ms)) for q, ms in store.conn.execute(sql, (limit,)))


@dataclass(frozen=True)
class StateCounts:
    """One deck's cards by what study would do with them now (quizapp.study.counts adds bury and limits)."""

    taken: int
    """Cards no longer new: scheduled by FSRS, or suspended."""
    learning: int
    """Unsuspended cards in learning or relearning, due by now."""
    review: int
    """Unsuspended cards in review state, due by now."""


def state_counts(store: Store, deck_ids: Iterable[str], *, now: datetime) -> dict[str, StateCounts]:
    """Each deck's StateCounts from index range counts on cards_overview (deck_id, due_us, suspended,
    state, ...): a few milliseconds at 100k cards."""
    conn, now_us = store.conn, to_us(now)
    out: dict[str, StateCounts] = {}
    for deck in deck_ids:
        (taken,) = conn.execute(
            "SELECT count(*) FROM cards WHERE deck_id = ? AND (due_us IS NOT NULL OR suspended = 1)", (deck,)
        ).fetchone()
        by_state = dict(
            conn.execute(
                "SELECT state, count(*) FROM cards WHERE deck_id = ? AND due_us <= ? AND suspended = 0"
                " GROUP BY state",
                (deck, now_us),
            ).fetchall()
        )
        review = int(by_state.pop(2, 0))
        out[deck] = StateCounts(int(taken), int(sum(by_state.values())), review)
    return out


@dataclass(frozen=True)
class AnswerRecord:
    """How a question went so far: answers given, whether one was right, and when it was last answered."""

    attempts: int
    solved: bool
    last_us: int | None


def answer_records(store: Store, question_ids: Iterable[str]) -> dict[str, AnswerRecord]:
    """Each question's AnswerRecord from its reviews (reviews_by_card), every mode included."""
    sql = "SELECT count(*), coalesce(max(correct), 0), max(reviewed_us) FROM reviews WHERE question_id = ?"
    out: dict[str, AnswerRecord] = {}
    for qid in question_ids:
        n, solved, last = store.conn.execute(sql, (qid,)).fetchone()
        out[qid] = AnswerRecord(int(n), bool(solved), None if last is None else int(last))
    return out
