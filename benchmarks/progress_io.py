"""Provides the progress backup benchmark: `quizapp export progress` and `quizapp import progress` through the
real command (a subprocess each), against yardsticks timed in the same run on the same rows:

- export vs. a plain JSON-lines dump: every row of cards, reviews, interviews and settings read with one
  SELECT and written with one json.dumps per row (target: export at most 1.5x);
- import vs. a plain executemany: the same rows inserted into a fresh SQLite file with the app's schema
  in one transaction, its indexes dropped before the rows and built after them in that transaction
  (target: import at most 1.3x, issue 35). The yardstick's rows are in memory before its clock starts,
  so the file's reading is timed apart (json.load, in process): executemany plus that reading is the
  floor under any import of the file, and the import is also given as a ratio to it.

The database (100,000 cards and 1,000,000 reviews by default) is generated directly with SQL into the
schema the store module creates, in seconds.

    python benchmarks/progress_io.py                          # 100k cards, 1M reviews, 3 runs
    python benchmarks/progress_io.py --cards 10000 --reviews 100000 --runs 5   # a quick run
    python benchmarks/progress_io.py --folder /tmp/pio --reuse    # keeps the database for the next run
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

from quizapp.store import card_id_for, open_store
from quizapp.store.times import US_PER_DAY, to_us

NOW = datetime(2026, 6, 1, 12, 0, tzinfo=UTC)
DECKS = 20
TABLES = ("cards", "reviews", "interviews", "interview_answers", "settings")


def generate(path: Path, n_cards: int, n_reviews: int, seed: int = 0) -> None:
    """A database with the app's schema (opened once by the store), filled by executemany."""
    open_store(path, now=NOW).close()
    rng = random.Random(seed)
    now_us = to_us(NOW)
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("BEGIN")
    cards: list[tuple[object, ...]] = []
    for i in range(n_cards):
        qid, deck = f"deck{i % DECKS}-q{i}", f"deck{i % DECKS}"
        if rng.random() < 0.2:  # seen only in drills: still new
            cards.append((qid, card_id_for(qid), deck, 1, 0, None, None, None, None, None, 0, 0, 0, 0))
            continue
        state = rng.choice((2, 2, 2, 2, 1, 3))
        stability = rng.lognormvariate(2.5, 1.2)
        due = now_us + int(rng.uniform(-10, 60) * US_PER_DAY)
        last = due - int(stability * US_PER_DAY)
        cards.append(
            (qid, card_id_for(qid), deck, state, None if state == 2 else 0, stability, rng.uniform(1, 10),
             due, last, last - 30 * US_PER_DAY, rng.randint(1, 30), rng.randint(0, 5),
             int(rng.random() < 0.01), int(rng.random() < 0.02))
        )  # fmt: skip
    conn.executemany(f"INSERT INTO cards VALUES ({', '.join('?' * 14)})", cards)
    for start in range(0, n_reviews, 100_000):
        rows = []
        for j in range(start, min(n_reviews, start + 100_000)):
            i = rng.randrange(n_cards)
            rating = rng.choices((1, 2, 3, 4), (10, 15, 60, 15))[0]
            diagnosed = rating == 1 and rng.random() < 0.5
            mode = rng.choices(("study", "drill", "cram", "interview"), (85, 8, 4, 3))[0]
            rows.append(
                (j + 1, f"deck{i % DECKS}-q{i}", f"deck{i % DECKS}", now_us - rng.randrange(730 * US_PER_DAY),
                 rng.randrange(2**31), "2*80*8*128 B", int(rating > 1), rating, rng.randint(2000, 90_000),
                 "Forgot the factor 2 for K and V" if diagnosed else None,
                 f"misconception-{rng.randrange(30)}" if diagnosed else None,
                 mode, rng.choice((None, 1, 2, 2, 2, 3)), int(mode == "study"), None)
            )  # fmt: skip
        conn.executemany(f"INSERT INTO reviews VALUES ({', '.join('?' * 15)})", rows)
    for k in range(1, 21):
        conn.execute(
            "INSERT INTO interviews VALUES (?, ?, ?, ?)",
            (k, now_us - k * US_PER_DAY, now_us - k * US_PER_DAY + 3_600_000_000, '{"minutes": 30}'),
        )
        for pos in range(10):
            conn.execute(
                f"INSERT INTO interview_answers VALUES ({', '.join('?' * 14)})",
                (k, pos, f"deck0-q{pos * 20}", "deck0", pos, "How many bytes?", "1024", 1, "1024 B", None,
                 None, 42.5, 0, 0),
            )  # fmt: skip
    conn.execute("INSERT INTO settings VALUES ('new_per_day', '20')")
    conn.execute("COMMIT")
    conn.close()


def json_lines_dump(db: Path, target: Path) -> None:
    """The export yardstick: every row of every table, one json.dumps per row, one line each."""
    conn = sqlite3.connect(db)
    with target.open("w", encoding="utf-8") as fh:
        for table in TABLES:
            for row in conn.execute(f"SELECT * FROM {table}"):
                fh.write(json.dumps(row) + "\n")
    conn.close()


def executemany_load(source: Path, target: Path) -> None:
    """The import yardstick: the same rows (read back beforehand, not timed) inserted with executemany
    into a fresh file with the app's schema, in one transaction."""
    rows = _rows(source)
    open_store(target, now=NOW).close()
    with sqlite3.connect(target) as schema:  # rows only: no running totals kept per row (the import counts
        for (name,) in schema.execute("SELECT name FROM sqlite_master WHERE type = 'trigger'").fetchall():
            schema.execute(f'DROP TRIGGER "{name}"')  # them once at the end, and the yardstick not at all)
    t = time.perf_counter()
    conn = sqlite3.connect(target, isolation_level=None)
    conn.execute("BEGIN")
    indexes = conn.execute(
        "SELECT name, sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL"
    ).fetchall()
    for name, _ in indexes:  # built after the rows, in the same transaction: one sort each
        conn.execute(f'DROP INDEX "{name}"')
    for table in TABLES:
        if rows[table]:
            marks = ", ".join("?" * len(rows[table][0]))
            conn.executemany(f"INSERT INTO {table} VALUES ({marks})", rows[table])
    for _, sql in indexes:
        conn.execute(sql)
    conn.execute("COMMIT")
    conn.close()
    _ROW_TIME.append(time.perf_counter() - t)


_ROW_TIME: list[float] = []
_ROWS: dict[Path, dict[str, list[tuple[object, ...]]]] = {}


def read_json(path: Path) -> None:
    """What any import must do besides the yardstick's inserts: read the file (stdlib json, in process:
    no interpreter start counted)."""
    with path.open(encoding="utf-8") as fh:
        json.load(fh)


def _rows(db: Path) -> dict[str, list[tuple[object, ...]]]:
    if db not in _ROWS:
        conn = sqlite3.connect(db)
        _ROWS[db] = {t: conn.execute(f"SELECT * FROM {t}").fetchall() for t in TABLES}
        conn.close()
    return _ROWS[db]


def quizapp(*args: str, home: Path) -> None:
    """Runs the real `quizapp` command (this interpreter, this checkout first on the path)."""
    env = {**os.environ, "QUIZAPP_HOME": str(home)}
    root = str(Path(__file__).resolve().parents[1])
    env["PYTHONPATH"] = root + os.pathsep + env.get("PYTHONPATH", "")
    subprocess.run([sys.executable, "-m", "quizapp", *args], env=env, check=True, stdout=subprocess.DEVNULL)


def timed(fn: Callable[[], object], runs: int) -> list[float]:
    out = []
    for _ in range(runs):
        t = time.perf_counter()
        fn()
        out.append(time.perf_counter() - t)
    return out


def summary(times: list[float]) -> str:
    text = f"median {statistics.median(times):7.2f} s"
    if len(times) >= 5:
        text += f"  p95 {sorted(times)[max(0, round(0.95 * len(times)) - 1)]:7.2f} s"
    return text + f"  ({len(times)} runs)"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cards", type=int, default=100_000)
    parser.add_argument("--reviews", type=int, default=1_000_000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--folder", type=Path, help="work here (default: a temporary folder)")
    parser.add_argument("--reuse", action="store_true", help="keep the folder's source.db if it has one")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="quizapp-progress-io-") as tmp:
        folder = args.folder or Path(tmp)
        folder.mkdir(parents=True, exist_ok=True)
        home, db = folder / "home", folder / "source.db"
        home.mkdir(exist_ok=True)
        if not (args.reuse and db.exists()):
            for stale in folder.glob("*.db*"):
                stale.unlink()
            t = time.perf_counter()
            generate(db, args.cards, args.reviews)
            print(
                f"generated {args.cards:,} cards, {args.reviews:,} reviews in {time.perf_counter() - t:.1f} s"
            )
        print(f"database {db.stat().st_size / 1e6:.0f} MB", flush=True)
        backup, dump = folder / "progress.json", folder / "dump.jsonl"

        def export() -> None:
            quizapp("--db", str(db), "export", "progress", str(backup), "--force", home=home)

        def fresh_import() -> None:
            target = folder / "imported.db"
            for old in folder.glob("imported.db*"):
                old.unlink()
            quizapp("--db", str(target), "import", "progress", str(backup), home=home)

        def yardstick() -> None:
            target = folder / "yardstick.db"
            for old in folder.glob("yardstick.db*"):
                old.unlink()
            executemany_load(db, target)

        _rows(db)
        times: dict[str, list[float]] = {"export": [], "dump": [], "import": [], "parse": []}
        for run in range(args.runs):  # interleaved, so a busy spell on a shared machine hits both sides
            times["export"] += timed(export, 1)
            times["dump"] += timed(lambda: json_lines_dump(db, dump), 1)
            times["import"] += timed(fresh_import, 1)
            times["parse"] += timed(lambda: read_json(backup), 1)
            yardstick()
            last = {name: f"{values[-1]:.2f} s" for name, values in times.items()}
            print(f"run {run + 1}: {last}, executemany {_ROW_TIME[-1]:.2f} s", flush=True)
        sizes = backup.stat().st_size / 1e6, dump.stat().st_size / 1e6
        print(f"progress file {sizes[0]:.0f} MB; JSON lines {sizes[1]:.0f} MB")
        print()
        export_s, dump_s = statistics.median(times["export"]), statistics.median(times["dump"])
        import_s, many_s = statistics.median(times["import"]), statistics.median(_ROW_TIME)
        print(f"export progress (quizapp)   {summary(times['export'])}")
        print(f"JSON-lines dump (yardstick) {summary(times['dump'])}")
        print(f"  ratio {export_s / dump_s:.2f}x (target <= 1.5x)")
        print(f"import progress (quizapp)   {summary(times['import'])}")
        print(f"executemany (yardstick)     {summary(_ROW_TIME)}")
        print(f"  ratio {import_s / many_s:.2f}x (target <= 1.3x)")
        parse_s = statistics.median(times["parse"])
        print(f"json.load of the file       {summary(times['parse'])}")
        print(
            f"  the floor of any import (executemany + reading the file): {(many_s + parse_s) / many_s:.2f}x"
            f" the yardstick; import is {import_s / (many_s + parse_s):.2f}x that floor"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
