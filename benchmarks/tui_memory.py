"""Provides the TUI memory benchmark: does memory grow as a learner answers card after card, and does the
garbage collector pause the loop?

A headless Pilot drills the bundled bank on the real study screen: type the engine's answer, Enter for
the feedback, Enter for the next card. Memory is read after each review once the app is idle: the
process's resident set (RSS, what the issue's target is about: at most 0.02 MiB per review over 200
reviews), and with --traced Python's traced memory as well (tracemalloc slows everything down). The first
WARMUP reviews fill caches and are left out. The table gives the growth per review over the rest, beside
the reference: the same number of Enter presses on a screen that only updates one Static, measured the
same way. Every garbage collection during the reviews is timed (gc.callbacks): the longest pause is
given per generation (target: none over 20 ms).

Run: python benchmarks/tui_memory.py [--reviews N] [--traced]
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import os
import statistics
import tempfile
import time
import tracemalloc
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

NOW = datetime(2025, 6, 1, 12, 0, tzinfo=UTC)
WARMUP = 10
TARGET_MIB = 0.02
TARGET_GC_MS = 20.0


class GcPauses:
    """The duration of every garbage collection while `on` is set: the collector's own, per generation,
    and apart from them the one the study screen runs while the feedback is read ("scheduled")."""

    def __init__(self) -> None:
        self.on = False
        self.scheduled = False
        self.pauses: dict[int | str, list[float]] = {0: [], 1: [], 2: [], "scheduled": []}
        self._start = 0.0
        gc.callbacks.append(self._callback)

    def _callback(self, phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            self._start = time.perf_counter()
        elif self.on:
            key: int | str = "scheduled" if self.scheduled else info["generation"]
            self.pauses[key].append((time.perf_counter() - self._start) * 1000)

    def watch_scheduled(self) -> None:
        """Marks the study screen's own collection (quizapp.collector, called by its pacing) as scheduled."""
        import quizapp.tui.screens.study_pacing as pacing
        from quizapp.collector import collect_while_reading as collect

        def marked(cards: int) -> None:
            self.scheduled = True
            try:
                collect(cards)
            finally:
                self.scheduled = False

        pacing.collect_while_reading = marked  # type: ignore[attr-defined]  # the name the pacing calls


PAUSES = GcPauses()


async def _settle(pilot: Any) -> None:
    """Until the screen's workers (the save, the next card, the bar's count) are done and drawn."""
    for _ in range(100):
        await pilot.pause()
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()
        if not any(worker.is_running for worker in pilot.app.workers):
            return


def _rss() -> float:
    """The resident set size now, in MiB (Linux: /proc/self/statm)."""
    pages = int(Path("/proc/self/statm").read_text().split()[1])
    return pages * os.sysconf("SC_PAGE_SIZE") / 2**20


def _traced() -> float:
    return tracemalloc.get_traced_memory()[0] / 2**20 if tracemalloc.is_tracing() else 0.0


def _slope(samples: list[float]) -> float:
    """MiB per review: the least-squares slope of memory against review number."""
    xs = list(range(len(samples)))
    return statistics.linear_regression(xs, samples).slope


async def study_screen(reviews: int) -> tuple[list[float], list[float]]:
    from textual.widgets import Input

    from quizapp.content.catalog import load_catalog
    from quizapp.tui.app import make_app
    from quizapp.tui.screens.study import StudyScreen

    catalog = load_catalog()
    ids = tuple(q for q in catalog.questions if catalog.questions[q].type in ("numeric", "tensor"))
    rss: list[float] = []
    traced: list[float] = []
    with tempfile.TemporaryDirectory() as home:
        app = make_app(Path(home) / "bench.db", now=NOW, rng_seed=3, catalog=catalog, cursor_blink=False)
        async with app.run_test(size=(100, 40)) as pilot:
            await app.workers.wait_for_complete()
            await _settle(pilot)
            app.start_session("drill", question_ids=ids)
            await _settle(pilot)
            screen = app.screen
            assert isinstance(screen, StudyScreen)
            PAUSES.on = True
            for i in range(WARMUP + reviews):
                card = screen.session.current
                assert card is not None
                field = screen.query_one("#answer", Input)
                field.value = card.instance.expected_text()
                await pilot.press("enter")
                await _settle(pilot)
                await pilot.press("enter")
                await _settle(pilot)
                if i >= WARMUP:
                    rss.append(_rss())
                    traced.append(_traced())
            PAUSES.on = False
    return rss, traced


async def reference(reviews: int) -> tuple[list[float], list[float]]:
    from textual.app import App, ComposeResult
    from textual.widgets import Static

    class One(App[None]):
        def compose(self) -> ComposeResult:
            yield Static("0", id="line")

    rss: list[float] = []
    traced: list[float] = []
    app = One()
    async with app.run_test(size=(100, 40)) as pilot:
        for i in range(WARMUP + reviews):
            app.query_one("#line", Static).update(str(i))
            await pilot.press("enter")
            await _settle(pilot)
            await pilot.press("enter")
            await _settle(pilot)
            if i >= WARMUP:
                rss.append(_rss())
                traced.append(_traced())
    return rss, traced


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--reviews", type=int, default=200)
    parser.add_argument("--traced", action="store_true", help="also trace Python's allocations (slow)")
    args = parser.parse_args()
    if args.traced:
        tracemalloc.start()
    PAUSES.watch_scheduled()
    study_rss, study_traced = asyncio.run(study_screen(args.reviews))
    pauses = {g: list(p) for g, p in PAUSES.pauses.items()}
    ref_rss, ref_traced = asyncio.run(reference(args.reviews))
    rows = [("study screen", study_rss, study_traced), ("reference (one Static)", ref_rss, ref_traced)]
    print(f"{'case':<24} {'RSS MiB/review':>15} {'start MiB':>10} {'end MiB':>9} {'traced MiB/review':>18}")
    for name, rss, traced in rows:
        traced_slope = f"{_slope(traced):.4f}" if args.traced else "-"
        print(f"{name:<24} {_slope(rss):>15.4f} {rss[0]:>10.1f} {rss[-1]:>9.1f} {traced_slope:>18}")
    growth = _slope(study_rss)
    verdict = "met" if growth <= TARGET_MIB else "NOT met"
    print(f"RSS growth per review after {WARMUP} reviews: {growth:.4f} MiB", end=" ")
    print(f"(target <= {TARGET_MIB}: {verdict})")
    longest = 0.0
    for generation, times in pauses.items():
        if times:
            if generation != "scheduled":
                longest = max(longest, max(times))
            median = statistics.median(times)
            print(
                f"gc {generation}: {len(times)} collections, median {median:.2f} ms, "
                f"longest {max(times):.2f} ms"
            )
    verdict = "met" if longest <= TARGET_GC_MS else "NOT met"
    print(f"longest collector pause in the study loop: {longest:.1f} ms", end=" ")
    print(f"(target <= {TARGET_GC_MS:.0f}: {verdict}; the scheduled one runs while the feedback is read)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
