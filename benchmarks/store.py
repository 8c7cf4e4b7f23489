"""Provides the store benchmark: a synthetic 100,000-card, 1,000,000-review database, then the medians of
the next-card query, recording a review (with its durable commit), overriding its rating and undoing it
(each one transaction, issue 14: at most 5 ms), the interview plan (home's plan line and `quizapp plan`:
at most 1 s here, and at most 5 ms for a profile the size of the bundled bank, 500 cards and 5,000
reviews, built beside it), computing all stats, and opening.

Each measure is reported against its target and against a bare SQLite reference timed in the same run
(machines here are noisy: trust the ratios more than single times).

    python benchmarks/store.py                  # builds in a temp folder, ~1 min
    python benchmarks/store.py --db big.db      # keeps (and reuses) the database
    python benchmarks/store.py --cards 10000 --reviews 100000   # a quick run
"""

from __future__ import annotations

import argparse
import random
import sqlite3
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from quizapp.content.deck import DeckRef
from quizapp.reports.overview import build_overview
from quizapp.reports.stats import compute_stats
from quizapp.store import QuestionRef, Store, card_id_for, open_store
from quizapp.store.cards import cards_among, not_new_ids
from quizapp.store.fsrs_inputs import card_memories
from quizapp.store.times import US_PER_DAY, to_us
from quizapp.study import QuestionSet, cram_queue, make_scheduler, next_card, record_review
from quizapp.study.plan import make_plan
from quizapp.study.scheduler import rerate_review, scheduler_for, undo_review
from quizapp.study.session import StudySession

NOW = datetime(2025, 6, 1, 12, 0, tzinfo=UTC)
DECKS = 20
DIAGNOSES = 30
BANK_CARDS = 500
"""A profile the size of the bundled bank (457 questions), for the plan's 5 ms target."""


def build(path: Path, n_cards: int, n_reviews: int, seed: int = 0) -> None:
    """Fills a fresh database with executemany in one transaction (the same schema the app uses)."""
    rng = random.Random(seed)
    now_us = to_us(NOW)
    with open_store(path, now=NOW) as store, store.transaction() as conn:
        t0 = time.perf_counter()
        cards = []
        for i in range(n_cards):
            qid = f"deck{i % DECKS}-q{i}"
            kind = rng.random()
            if kind < 0.2:  # new: seen in a drill only
                cards.append(
                    (qid, card_id_for(qid), f"deck{i % DECKS}", 1, 0, None, None, None, None, None, 0, 0)
                )
                continue
            state = 2 if kind < 0.85 else rng.choice((1, 3))
            stability = rng.lognormvariate(2.5, 1.2)
            due = now_us + int(rng.uniform(-10, 60) * US_PER_DAY)
            last = due - int(stability * US_PER_DAY)
            step = None if state == 2 else 0
            deck, difficulty, intro = f"deck{i % DECKS}", rng.uniform(1, 10), last - 30 * US_PER_DAY
            row = (qid, card_id_for(qid), deck, state, step, stability, difficulty, due, last, intro)
            cards.append((*row, rng.randint(1, 30), rng.randint(0, 5)))
        conn.executemany(
            "INSERT INTO cards (question_id, card_id, deck_id, state, step, stability, difficulty, due_us,"
            " last_review_us, introduced_us, reps, lapses) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            cards,
        )
        print(f"  {n_cards:,} cards in {time.perf_counter() - t0:.1f} s", flush=True)
        chunk = 100_000
        for start in range(0, n_reviews, chunk):
            rows = []
            for j in range(start, min(n_reviews, start + chunk)):
                i = rng.randrange(n_cards)
                rating = rng.choices((1, 2, 3, 4), (10, 15, 60, 15))[0]
                diagnosed = rating == 1 and rng.random() < 0.5
                mode = rng.choices(("study", "drill", "cram", "interview"), (85, 8, 4, 3))[0]
                rows.append(
                    (f"deck{i % DECKS}-q{i}", f"deck{i % DECKS}", now_us - rng.randrange(730 * US_PER_DAY), j,
                     "2*80*8*128 B", int(rating > 1), rating, rng.randint(2000, 90_000),
                     "Forgot the factor 2 for K and V" if diagnosed else None,
                     f"misconception-{rng.randrange(DIAGNOSES)}" if diagnosed else None,
                     mode, rng.choice((None, 1, 2, 2, 2, 3)), int(mode == "study"))
                )  # fmt: skip
            conn.executemany(
                "INSERT INTO reviews (question_id, deck_id, reviewed_us, seed, answer, correct, rating,"
                " duration_ms, diagnosis, diagnosis_id, mode, state_before, scheduled)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                rows,
            )
            done = min(n_reviews, start + chunk)
            print(f"  {done:,} reviews after {time.perf_counter() - t0:.1f} s", flush=True)
    print(f"  built {path} ({path.stat().st_size / 1e6:.0f} MB)", flush=True)


def median_s(fn: Callable[[], object], runs: int, warmup: int = 3) -> float:
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def _bare_commit_reference(store: Store, runs: int) -> float:
    """One one-row INSERT OR REPLACE + durable COMMIT in the same file (a settings row, removed after)."""
    conn = store.conn

    def write() -> None:
        conn.execute("BEGIN IMMEDIATE")
        conn.execute("INSERT OR REPLACE INTO settings (key, value) VALUES ('benchmark', '1')")
        conn.execute("COMMIT")

    try:
        return median_s(write, runs)
    finally:
        conn.execute("DELETE FROM settings WHERE key = 'benchmark'")


def measure(path: Path, n_cards: int, runs: int) -> list[tuple[str, float, float, str, float]]:
    """(name, median s, target s, reference name, reference median s) for each measure."""
    rng = random.Random(1)
    refs = QuestionSet.of(QuestionRef(f"deck{i % DECKS}-q{i}", f"deck{i % DECKS}") for i in range(n_cards))
    scheduler = make_scheduler()  # fuzzing on, as in the app
    results = []
    with open_store(path, now=NOW) as store:
        select_one = median_s(lambda: store.conn.execute("SELECT 1").fetchone(), runs * 10)
        results.append(
            ("next card", median_s(lambda: next_card(store, refs, now=NOW, rng=rng), runs * 10), 0.001,
             "SELECT 1", select_one)
        )  # fmt: skip
        clock = iter(range(10**9))

        def review() -> None:
            ref = refs.ordered[rng.randrange(n_cards)]
            when = NOW + timedelta(seconds=next(clock))
            record_review(
                store, ref, seed=1, answer="42", correct=True, rating=3, duration_ms=1000, now=when,
                scheduler=scheduler,
            )  # fmt: skip

        commit_ref = _bare_commit_reference(store, runs * 2)
        results.append(
            ("record review + commit", median_s(review, runs * 2), 0.005, "1-row write+COMMIT", commit_ref)
        )
        results += _override_and_undo(store, refs, scheduler, runs * 2, commit_ref)
        count = median_s(
            lambda: store.conn.execute("SELECT count(*) FROM reviews").fetchone(), max(5, runs // 4)
        )
        results += _home_and_queues(store, refs, max(5, runs // 10))
        results.append(_plan_row(f"plan ({n_cards // 1000}k cards)", store, refs, 5, 1.0))
        results.append(_plan_row(f"plan, 60 min budget ({n_cards // 1000}k)", store, refs, 5, 1.0, budget=60))
        results += _browser(store, refs, runs, select_one)
    small = path.parent / "bank-sized.db"
    if not small.exists():
        build(small, BANK_CARDS, BANK_CARDS * 10, seed=3)
    bank = QuestionSet.of(QuestionRef(f"deck{i % DECKS}-q{i}", f"deck{i % DECKS}") for i in range(BANK_CARDS))
    with open_store(small, now=NOW) as store:
        results.append(_plan_row(f"plan ({BANK_CARDS} cards)", store, bank, runs, 0.005))
        results.append(
            ("all stats", median_s(lambda: compute_stats(store, now=NOW), max(5, runs // 4), warmup=1), 1.0,
             "count(*) reviews", count)
        )  # fmt: skip

    def reopen() -> None:
        s: Store = open_store(path, now=NOW)
        s.close()

    def bare_open() -> None:
        c = sqlite3.connect(path)
        c.execute("PRAGMA user_version").fetchone()
        c.close()

    results.append(
        ("open + migrate", median_s(reopen, runs), 0.020, "connect+read+close", median_s(bare_open, runs))
    )
    fresh = iter(range(10**9))

    def create() -> None:
        open_store(path.parent / f"fresh-{next(fresh)}.db", now=NOW).close()

    def bare_create() -> None:
        c = sqlite3.connect(path.parent / f"bare-{next(fresh)}.db")
        c.execute("CREATE TABLE t (x)")
        c.close()

    created = median_s(create, 30)
    results.append(("create + migrate (new)", created, 0.020, "connect+1 table", median_s(bare_create, 30)))
    for extra in path.parent.glob("*.db*"):
        if extra.name.startswith(("fresh-", "bare-")):
            extra.unlink()
    return results


def _override_and_undo(
    store: Store, refs: QuestionSet, scheduler: Any, runs: int, commit_ref: float
) -> list[tuple[str, float, float, str, float]]:
    """The user's own rating replacing the suggested one, and Ctrl+Z: each one transaction, committed."""
    rng = random.Random(2)
    clock = iter(range(10**9, 2 * 10**9))

    def recorded() -> tuple[QuestionRef, Any]:
        ref = refs.ordered[rng.randrange(len(refs))]
        when = NOW + timedelta(seconds=next(clock))
        return ref, record_review(
            store, ref, seed=1, answer="42", correct=True, rating=3, duration_ms=1000, now=when,
            scheduler=scheduler,
        )  # fmt: skip

    override, undo = [], []
    for i in range(runs + 3):
        ref, outcome = recorded()
        t = time.perf_counter()
        outcome = rerate_review(store, ref, outcome, 1 + i % 4, scheduler=scheduler)
        override.append(time.perf_counter() - t)
        t = time.perf_counter()
        undo_review(store, outcome)
        undo.append(time.perf_counter() - t)
    return [
        ("override rating + commit", statistics.median(override[3:]), 0.005, "1-row write+COMMIT",
         commit_ref),
        ("undo answer + commit", statistics.median(undo[3:]), 0.005, "1-row write+COMMIT", commit_ref),
    ]  # fmt: skip


def _browser(
    store: Store, refs: QuestionSet, runs: int, select_one: float
) -> list[tuple[str, float, float, str, float]]:
    """The card browser's first page (50 cards), all cards and due cards only: at most 50 ms each."""
    from quizapp.study.browser import CardFilter, list_cards

    ordered = refs.ordered
    first = median_s(lambda: list_cards(store, ordered, now=NOW, limit=50), runs)
    due = median_s(
        lambda: list_cards(store, ordered, CardFilter(due=True), now=NOW, limit=50), max(5, runs // 4)
    )
    return [
        ("card browser, first page", first, 0.05, "SELECT 1", select_one),
        ("card browser, due, first page", due, 0.05, "SELECT 1", select_one),
    ]


def _plan_row(
    name: str, store: Store, refs: QuestionSet, runs: int, target: float, budget: float | None = None
) -> tuple[str, float, float, str, float]:
    """The interview plan as home computes it: every card's memory read, then the plan made from it
    (with `budget`, priced in minutes from the recent answer times and triaged to fit)."""
    from quizapp.store.stats_queries import recent_answer_times
    from quizapp.study.budget import answer_times
    from quizapp.study.plan import PlanQuestion

    kinds = ("numeric", "choice", "flashcard", "explain", "shape")
    questions = {r.question_id: PlanQuestion(kinds[i % 5], 1 + i % 3) for i, r in enumerate(refs.ordered)}
    decks = [
        DeckRef(
            f"deck{d}", f"Deck {d}", tuple(r.question_id for r in refs.ordered if r.deck_id == f"deck{d}")
        )
        for d in range(DECKS)
    ]
    scheduler = scheduler_for(store, fuzzing=False)

    def plan() -> None:
        if budget is None:
            make_plan(
                decks, card_memories(store), interview=(NOW + timedelta(days=9)).date(), today=NOW.date(),
                now=NOW, scheduler=scheduler,
            )  # fmt: skip
            return
        samples = ((questions[q].kind, ms / 1000) for q, ms in recent_answer_times(store) if q in questions)
        make_plan(
            decks, card_memories(store), interview=(NOW + timedelta(days=9)).date(), today=NOW.date(),
            now=NOW, scheduler=scheduler, questions=questions, times=answer_times(samples),
            budget_minutes=budget,
        )  # fmt: skip

    every_card = median_s(lambda: cards_among(store.conn, refs.by_id), max(3, runs // 10), warmup=1)
    return (name, median_s(plan, runs, warmup=1), target, "load every card", every_card)


def _home_and_queues(
    store: Store, refs: QuestionSet, runs: int
) -> list[tuple[str, float, float, str, float]]:
    """The work that runs at 100k cards when home opens and between cards, each against loading every
    card as a record (what these paths did before), timed in the same run."""
    decks = [
        DeckRef(
            f"deck{d}", f"Deck {d}", tuple(r.question_id for r in refs.ordered if r.deck_id == f"deck{d}")
        )
        for d in range(DECKS)
    ]
    every_card = median_s(lambda: cards_among(store.conn, refs.by_id), 3, warmup=1)
    ref_name = "load every card"
    quiet = NOW - timedelta(days=11)  # before the earliest due date: nothing is due
    scheduled = not_new_ids(store)
    seen = QuestionSet.of(r for r in refs.ordered if r.question_id in scheduled)
    rng = random.Random(2)
    session = StudySession.start(
        StubSource(), store, seen, mode="study", clock=lambda: quiet, rng=rng, fuzzing=False
    )
    out = [
        ("home overview", median_s(lambda: build_overview(store, decks, now=NOW), runs), 0.050),
        ("next card, nothing due", median_s(lambda: next_card(store, seen, now=quiet, rng=rng), runs), 0.050),
        ("cram queue", median_s(lambda: cram_queue(store, refs, rng=rng), runs), 0.050),
        ("progress bar count", median_s(session.progress, runs), 0.050),
    ]
    return [(name, value, target, ref_name, every_card) for name, value, target in out]


class StubSource:
    """No card is ever shown in these measures; the session only needs something to ask."""

    def instance(self, question_id: str, seed: int) -> Any:
        raise KeyError(question_id)


def report(results: list[tuple[str, float, float, str, float]]) -> str:
    lines = [
        f"{'measure':<24}{'median':>11}{'target':>10}{'/target':>9}   "
        f"{'reference':<20}{'median':>11}{'ratio':>8}",
        "-" * 95,
    ]
    for name, value, target, ref_name, ref in results:
        lines.append(
            f"{name:<24}{value * 1e3:>9.3f}ms{target * 1e3:>8.0f}ms{value / target:>9.2f}   "
            f"{ref_name:<20}{ref * 1e3:>9.3f}ms{value / ref:>8.1f}"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--db", type=Path, help="database to build (or reuse if it exists)")
    parser.add_argument("--cards", type=int, default=100_000)
    parser.add_argument("--reviews", type=int, default=1_000_000)
    parser.add_argument("--runs", type=int, default=200, help="timed runs per measure (stats use a quarter)")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="quizapp-bench-") as tmp:
        path = args.db or Path(tmp) / "progress.db"
        if not path.exists():
            print(f"Building {args.cards:,} cards and {args.reviews:,} reviews ...", flush=True)
            build(path, args.cards, args.reviews)
        else:
            print(f"Reusing {path}", flush=True)
        print(report(measure(path, args.cards, args.runs)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
