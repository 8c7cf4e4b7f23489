"""Provides the benchmark of issue 26: the interview plan and the card browser's first page at 100,000
cards and 1,000,000 reviews, each computed off the UI thread (target: at most 50 ms each).

Run: python benchmarks/plan_and_cards.py [--runs N] [--card-page MODULE:FUNCTION]

Each function runs in a worker thread (as a screen's worker would) while the main thread runs an asyncio
loop with a 5 ms watchdog, so the table gives both the time to the result and the longest stall the
worker's GIL time causes on that loop (issue 25: at most 16 ms). The profile is the cached scale profile
of benchmarks/scale_profile.py (a 10,000-question deck, an interview date five days out).

- plan: what home shows (`Backend.plan_line`: settings, card memories, `make_plan`), and its parts;
- card page: the first page (50 cards) of the card browser. No browser exists yet: the function is
  named by --card-page (called as `function(store, limit=50)` and expected to return the rows), and the
  row is skipped, saying so, while it is missing. `quizapp cards --json` (every card) is timed too when
  that command exists.
Yardsticks from the same run: a bare SQLite read of the columns the plan needs, and of one page by due.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import importlib
import io
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parent)]

from scale_profile import scale_profile  # noqa: E402

TARGET_MS = 50.0
STALL_MS = 16.0
PAGE = 50
DEFAULT_CARD_PAGE = "plan_and_cards:catalog_card_page"
"""Where the card browser's first-page query is expected; --card-page names another."""


class Missing(Exception):
    """The function to time does not exist in this tree (yet)."""


def resolve(name: str) -> Callable[..., Any]:
    """`module:function` (or `module:Class.method`), or Missing saying what was not found."""
    module_name, _, attr = name.partition(":")
    try:
        found: Any = importlib.import_module(module_name)
    except ImportError as exc:
        raise Missing(f"{module_name} cannot be imported ({exc})") from None
    for part in attr.split("."):
        if not hasattr(found, part):
            raise Missing(f"{name} does not exist") from None
        found = getattr(found, part)
    return found  # type: ignore[no-any-return]


async def _timed_in_worker(fn: Callable[[], object], runs: int) -> tuple[list[float], float]:
    """Runs `fn` `runs` times in a worker thread; (seconds each, longest loop stall in ms)."""
    loop = asyncio.get_running_loop()
    worst = 0.0
    stop = False

    async def watch() -> None:
        nonlocal worst
        while not stop:
            t = time.perf_counter()
            await asyncio.sleep(0.005)
            worst = max(worst, (time.perf_counter() - t - 0.005) * 1000)

    watcher = asyncio.create_task(watch())
    await asyncio.sleep(0.05)
    await loop.run_in_executor(None, fn)  # warm-up: imports, caches
    await asyncio.sleep(0.05)
    worst = 0.0
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        await loop.run_in_executor(None, fn)
        times.append(time.perf_counter() - t)
        await asyncio.sleep(0.02)
    stop = True
    await watcher
    return times, worst


def timed(fn: Callable[[], object], runs: int) -> tuple[list[float], float]:
    return asyncio.run(_timed_in_worker(fn, runs))


def row(name: str, result: tuple[list[float], float] | str, target: bool, yard: float | None = None) -> None:
    if isinstance(result, str):
        print(f"{name:<52} skipped: {result}")
        return
    times, stall = result
    med = statistics.median(times) * 1000
    high = sorted(times)[min(len(times) - 1, round(0.95 * (len(times) - 1)))] * 1000
    verdict = ""
    if target:
        verdict = "ok" if med <= TARGET_MS and stall <= STALL_MS else "OVER"
    ratio = f"{med / yard:7.1f}x" if yard else ""
    goal = f"<= {TARGET_MS:.0f} ms" if target else ""
    print(f"{name:<52} {med:9.1f} {high:9.1f} {stall:9.1f}  {goal:>9} {verdict:>4} {ratio}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15, help="timed runs of each function (default 15)")
    parser.add_argument("--card-page", default=DEFAULT_CARD_PAGE, help="MODULE:FUNCTION(store, limit=50)")
    args = parser.parse_args(argv)

    from quizapp.store import open_store
    from quizapp.store.settings import save_setting

    profile = scale_profile()
    work = Path(tempfile.mkdtemp(prefix="quizapp-plan-"))
    try:
        db = work / "progress.db"
        shutil.copyfile(profile / "progress.db", db)
        now = datetime.now(UTC)
        interview = (date.today() + timedelta(days=5)).isoformat()
        with open_store(db, now=now) as store:
            save_setting(store, "interview_date", interview)
        import os

        os.environ["QUIZAPP_HOME"] = str(profile)  # its decks folder holds the 10,000-question deck
        print(f"{'measure (in a worker thread)':<52} {'median':>9} {'p95':>9} {'stall':>9}  (ms)")

        from quizapp.content.catalog import load_catalog

        t = time.perf_counter()
        catalog = load_catalog()
        store = open_store(db, now=now)
        print(f"  (catalog and store loaded in {time.perf_counter() - t:.1f} s, not timed below)")
        conn = store.conn

        def bare_plan_read() -> object:
            return conn.execute("SELECT question_id, stability, last_review_us, due_us FROM cards").fetchall()

        def bare_page() -> object:
            return conn.execute(
                "SELECT * FROM cards WHERE due_us IS NOT NULL ORDER BY due_us LIMIT ?", (PAGE,)
            ).fetchall()

        plan_yard = timed(bare_plan_read, args.runs)
        page_yard = timed(bare_page, args.runs)
        row("yardstick: SQLite read of every card's memory", plan_yard, False)
        row("yardstick: SQLite page of 50 cards by due", page_yard, False)
        plan_ms = statistics.median(plan_yard[0]) * 1000
        page_ms = statistics.median(page_yard[0]) * 1000

        try:
            backend = make_backend(db, catalog)
        except Missing as exc:
            row("plan: home's plan line (Backend.plan_line)", str(exc), True)
        else:
            row(
                "plan: home's plan line (Backend.plan_line)",
                timed(backend.plan_line, args.runs),
                True,
                plan_ms,
            )
            print(f"  ({backend.plan_line()})")
            uncached = plan_uncached(backend)
            row("plan: the same, uncached (after any save)", timed(uncached, args.runs), True, plan_ms)
            save_setting(backend.store, "daily_minutes", 60)
            row("plan: uncached, with a 60-minute budget", timed(uncached, args.runs), True, plan_ms)
            print(f"  ({backend.plan_line()})")
            save_setting(backend.store, "daily_minutes", 0)
            backend.store.close()
        try:
            parts = plan_parts(store, catalog, interview)
        except Missing as exc:
            row("plan: card memories + make_plan", str(exc), False)
        else:
            for name, fn in parts.items():
                row(name, timed(fn, args.runs), False, plan_ms)

        try:
            page = resolve(args.card_page)
        except Missing as exc:
            row("card browser: first page of 50", f"{exc}; pass --card-page MODULE:FUNCTION", True)
        else:
            got = timed(lambda: page(store, limit=PAGE), args.runs)
            row("card browser: first page of 50", got, True, page_ms)
        try:
            resolve("quizapp.commands.cards:register")
        except Missing:
            row("`quizapp cards --json` (every card, in-process)", "the command does not exist yet", False)
        else:
            row(
                "`quizapp cards --json` (every card, in-process)",
                timed(lambda: cards_json(db), 3),
                False,
                plan_ms,
            )
        store.close()
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


def make_backend(db: Path, catalog: Any) -> Any:
    """The app's Backend on `db` (what home asks for its plan line), sharing the catalog loaded."""
    load_backend = resolve("quizapp.tui.backend:load_backend")
    app_config = resolve("quizapp.tui.backend:AppConfig")
    return load_backend(app_config(db_path=db, catalog=catalog))


def plan_parts(store: Any, catalog: Any, interview: str) -> dict[str, Callable[[], object]]:
    """The plan's two halves as they are called today (Missing once they move)."""
    memories_fn = resolve("quizapp.store.fsrs_inputs:card_memories")
    make_plan = resolve("quizapp.study.plan:make_plan")
    scheduler_for = resolve("quizapp.study.scheduler:scheduler_for")
    ids = [qid for deck in catalog.deck_refs() for qid in deck.question_ids]
    memories = memories_fn(store, ids)
    now = datetime.now(UTC)

    def plan() -> object:
        return make_plan(
            catalog.deck_refs(),
            memories,
            interview=date.fromisoformat(interview),
            today=now.astimezone().date(),
            now=now,
            scheduler=scheduler_for(store, fuzzing=False),
        )

    return {
        "plan: card memories (the SQL read)": lambda: memories_fn(store, ids),
        "plan: make_plan alone": plan,
    }


def plan_uncached(backend: Any) -> Callable[[], object]:
    """What the workspace computes when its cached plan is stale: the whole plan from the store."""
    from quizapp.study.stored_plan import interview_plan

    ws = backend.workspace
    headers = ws.catalog.deck_refs()
    questions = ws.plan_questions

    def plan() -> object:
        return interview_plan(ws.store, headers, now=datetime.now(UTC), questions=questions)

    return plan


_PAGE_REFS: dict[int, Any] = {}


def catalog_card_page(store: Any, limit: int = PAGE) -> Any:
    """The card browser's first page as the screen asks for it: quizapp.study.browser.list_cards over the
    catalog's question refs (built once per catalog, as the screen keeps them)."""
    from quizapp.content.catalog import load_catalog
    from quizapp.store.cards import QuestionRef
    from quizapp.study.browser import list_cards

    refs = _PAGE_REFS.get(0)
    if refs is None:
        catalog = load_catalog()
        refs = [QuestionRef(qid, d.id) for d in catalog.deck_refs() for qid in d.question_ids]
        _PAGE_REFS[0] = refs
    return list_cards(store, refs, now=datetime.now(UTC), limit=limit)


def cards_json(db: Path) -> None:
    from quizapp.cli import main as cli_main

    with contextlib.redirect_stdout(io.StringIO()):
        cli_main(["cards", "--json", "--db", str(db)])


if __name__ == "__main__":
    raise SystemExit(main())
