"""Provides the content-load benchmark: the bundled bank warm, and a 10,000-question deck cold and warm.

Targets (issue 3): bundled bank warm <= 30 ms; 10,000 questions cold <= 1 s; warm <= 150 ms.

The 10,000-question deck is generated in a temporary folder from the bundled bank's own questions (or the
test fixture deck when the bank is empty), repeated with fresh ids and a different sentence in every
prompt, so the type mix, the params and the prompt sizes are those of real content. Templates that share
a parametrisation share one 50-seed check (quizapp.content.checks.static memoises it), as they would in a
real bank.

- "cold": no cache on disk and nothing remembered in the process (seed-check memo and template cache
  cleared too), so the 50-seed check runs for every distinct template;
- "cold, templates proven before": only the on-disk list of templates that passed the seed checks is
  kept (an edited deck, or a new deck reusing known parametrisations, on a machine that ran the app);
- "warm": the on-disk cache is filled but the in-process memo is cleared, as in a new process.

A cold load hands its cache write to a background thread and returns (quizapp.content.load): a "cold" row is
the time until the catalog is there, and every run starts once the writes of the one before are done
(waited for untimed). The "cold, until the cache is written" row counts the write too. While a big file
is parsed, a second thread checks the templates at its head (quizapp.content.checks.during_parse): with the
other core busy,
the cold rows come out some 80 ms higher.

Imports are done before timing. Every row also shows a reference measured in the same run, since this
machine is noisy and ratios are more trustworthy than single times:
- bundled warm vs yaml_rs.loads of the same files (what any loader without a cache must at least pay);
- 10k cold vs yaml_rs.loads of the 10k file;
- 10k warm vs json.loads of the whole validated deck as JSON (what a plain JSON cache would pay).

Run: python benchmarks/content_load.py [--quick]
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
N_QUESTIONS = 10_000


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--quick", action="store_true", help="fewer repetitions")
    args = parser.parse_args(argv)
    reps_cold, reps_warm = (2, 5) if args.quick else (3, 11)

    with tempfile.TemporaryDirectory(prefix="quizapp-bench-") as tmp:
        os.environ["QUIZAPP_HOME"] = str(Path(tmp) / "home")
        import yaml_rs

        import engine  # noqa: F401  (imported before timing, as an app would have it)
        from quizapp import paths
        from quizapp.content import deck_cache, template
        from quizapp.content import load as loader
        from quizapp.content.catalog import load_catalog
        from quizapp.content.schema import Deck

        def median(fn: Callable[[], object], reps: int) -> float:
            return _median(fn, reps, settle=deck_cache.finish_cache_writes)

        def clear_process() -> None:
            loader.reset_memos()

        def clear_all(keep_proven_templates: bool = False) -> None:
            clear_process()
            loader.reset_memos()
            template.parse_template.cache_clear()
            shutil.rmtree(paths.cache_dir() / "decks", ignore_errors=True)
            if not keep_proven_templates:
                shutil.rmtree(paths.cache_dir(), ignore_errors=True)

        bundled_files = sorted(paths.bundled_content_dir().glob("*.yaml"))
        bundled = load_catalog()
        if bundled.problems:
            print(f"note: {len(bundled.problems)} problems in the bundled bank (those decks are skipped)")
        big = Path(tmp) / "bench.yaml"
        count = _write_big_deck(big, bundled, yaml_rs)
        big_text = big.read_text(encoding="utf-8")

        rows: list[tuple[str, float, float, str, float]] = []

        def bundled_warm() -> None:
            clear_process()
            load_catalog()

        load_catalog()  # fills the cache
        texts = [p.read_text(encoding="utf-8") for p in bundled_files]
        rows.append(
            (
                f"bundled bank warm ({len(bundled.questions)} questions)",
                median(bundled_warm, reps_warm),
                30.0,
                "yaml_rs.loads of the bundled files",
                median(lambda: [yaml_rs.loads(t) for t in texts], reps_warm),
            )
        )

        def big_cold() -> None:
            clear_all()
            catalog = load_catalog([big], include_default=False)
            assert len(catalog.questions) == count, [str(p) for p in catalog.problems[:3]]

        rows.append(
            (
                f"{count:,} questions cold",
                median(big_cold, reps_cold),
                1000.0,
                "yaml_rs.loads of the 10k file",
                median(lambda: yaml_rs.loads(big_text), reps_cold),
            )
        )

        def big_cold_written() -> None:
            big_cold()
            deck_cache.finish_cache_writes()

        rows.append(
            (
                f"{count:,} cold, until the cache is written",
                median(big_cold_written, reps_cold),
                float("nan"),
                "yaml_rs.loads of the 10k file",
                rows[-1][4],
            )
        )

        def big_cold_proven() -> None:
            clear_all(keep_proven_templates=True)
            load_catalog([big], include_default=False)

        big_cold()  # remembers the templates it proved
        deck_cache.finish_cache_writes()
        rows.append(
            (
                f"{count:,} cold, templates proven before",
                median(big_cold_proven, reps_cold),
                1000.0,
                "yaml_rs.loads of the 10k file",
                rows[-1][4],
            )
        )

        def big_warm() -> None:
            clear_process()
            load_catalog([big], include_default=False)

        as_json = load_catalog([big], include_default=False).decks["bench"].model_dump_json().encode()
        deck_cache.finish_cache_writes()
        rows.append(
            (
                f"{count:,} questions warm",
                median(big_warm, reps_warm),
                150.0,
                "json.loads of the validated deck",
                median(lambda: json.loads(as_json), reps_warm),
            )
        )

        def big_warm_all() -> None:
            clear_process()
            catalog = load_catalog([big], include_default=False)
            for qid in catalog.questions:
                catalog.questions[qid]

        rows.append(
            (
                f"{count:,} warm + build every question",
                median(big_warm_all, reps_cold),
                float("nan"),
                "Deck.model_validate_json of it",
                median(lambda: Deck.model_validate_json(as_json), reps_cold),
            )
        )
        _print(rows)
    return 0


def _write_big_deck(path: Path, bundled: Any, yaml_rs: Any) -> int:
    """A 10,000-question deck made of the bank's questions with fresh ids and reworded prompts."""
    sources: list[dict[str, Any]] = []
    for deck_file in sorted(bundled.files.values()):
        sources.extend(yaml_rs.loads(deck_file.read_text(encoding="utf-8"))["questions"])
    if not sources:
        fixture = ROOT / "tests" / "fixtures" / "decks" / "sample.yaml"
        sources = yaml_rs.loads(fixture.read_text(encoding="utf-8"))["questions"]
    questions = []
    for i in range(N_QUESTIONS):
        q = dict(sources[i % len(sources)])
        q["id"] = f"bench-{i:05d}-{q['id']}"[:120]
        key = "front" if q.get("type") == "flashcard" else "prompt"
        q[key] = f"{q[key].rstrip()}\n(Variant {i}: the numbers and wording differ from run to run.)\n"
        questions.append(q)
    deck = {
        "id": "bench",
        "title": "Benchmark deck",
        "topic": "benchmark",
        "description": "Generated by benchmarks/content_load.py.",
        "questions": questions,
    }
    import yaml

    dumper = getattr(yaml, "CSafeDumper", yaml.SafeDumper)
    path.write_text(yaml.dump(deck, Dumper=dumper, sort_keys=False, allow_unicode=True), encoding="utf-8")
    return len(questions)


def _median(fn: Callable[[], object], reps: int, settle: Callable[[], object] = lambda: None) -> float:
    """Median wall time in ms; `settle` (untimed: background work of the run before) is waited for and
    the cyclic GC is collected before each run so runs start alike."""
    times = []
    for _ in range(reps):
        settle()
        gc.collect()
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def _print(rows: list[tuple[str, float, float, str, float]]) -> None:
    header = ("case", "median ms", "target ms", "x target", "reference", "ref ms", "x ref")
    table = [header]
    for name, ms, target, ref_name, ref_ms in rows:
        has_target = target == target  # not NaN
        table.append(
            (
                name,
                f"{ms:.1f}",
                f"{target:.0f}" if has_target else "-",
                f"{ms / target:.2f}" if has_target else "-",
                ref_name,
                f"{ref_ms:.1f}",
                f"{ms / ref_ms:.2f}",
            )
        )
    widths = [max(len(r[i]) for r in table) for i in range(len(header))]
    for row in table:
        print(
            "  ".join(
                c.ljust(w) if i in (0, 4) else c.rjust(w)
                for i, (c, w) in enumerate(zip(row, widths, strict=True))
            )
        )
    sys.stdout.flush()


if __name__ == "__main__":
    sys.exit(main())
