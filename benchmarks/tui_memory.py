"""Provides the TUI memory benchmark: does memory grow as a learner answers card after card?

A headless Pilot drills the bundled bank on the real study screen: type the engine's answer, Enter for
the feedback, Enter for the next card. Python's traced memory is read after each review once the app is
idle; the first WARMUP reviews fill caches and are left out. The table gives the growth per review over
the rest (target: under 0.05 MiB per review), beside the reference: the same number of Enter presses on
a screen that only updates one Static, measured the same way.

Run: python benchmarks/tui_memory.py [--reviews N]
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import statistics
import tempfile
import tracemalloc
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

NOW = datetime(2025, 6, 1, 12, 0, tzinfo=UTC)
WARMUP = 10
TARGET_MIB = 0.05


async def _settle(pilot: Any) -> None:
    await pilot.pause()
    await pilot.pause()


def _traced() -> float:
    gc.collect()
    return tracemalloc.get_traced_memory()[0] / 2**20


def _slope(samples: list[float]) -> float:
    """MiB per review: the least-squares slope of memory against review number."""
    xs = list(range(len(samples)))
    return statistics.linear_regression(xs, samples).slope


async def study_screen(reviews: int) -> list[float]:
    from textual.widgets import Input

    from quizapp.content.catalog import load_catalog
    from quizapp.tui.app import make_app
    from quizapp.tui.screens.study import StudyScreen

    catalog = load_catalog()
    ids = tuple(q for q in catalog.questions if catalog.questions[q].type in ("numeric", "tensor"))
    samples: list[float] = []
    with tempfile.TemporaryDirectory() as home:
        app = make_app(Path(home) / "bench.db", now=NOW, rng_seed=3, catalog=catalog, cursor_blink=False)
        async with app.run_test(size=(100, 40)) as pilot:
            await app.workers.wait_for_complete()
            await _settle(pilot)
            app.start_session("drill", question_ids=ids)
            await _settle(pilot)
            screen = app.screen
            assert isinstance(screen, StudyScreen)
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
                    samples.append(_traced())
    return samples


async def reference(reviews: int) -> list[float]:
    from textual.app import App, ComposeResult
    from textual.widgets import Static

    class One(App[None]):
        def compose(self) -> ComposeResult:
            yield Static("0", id="line")

    samples: list[float] = []
    app = One()
    async with app.run_test(size=(100, 40)) as pilot:
        for i in range(WARMUP + reviews):
            app.query_one("#line", Static).update(str(i))
            await pilot.press("enter")
            await _settle(pilot)
            await pilot.press("enter")
            await _settle(pilot)
            if i >= WARMUP:
                samples.append(_traced())
    return samples


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--reviews", type=int, default=100)
    args = parser.parse_args()
    tracemalloc.start()
    study = asyncio.run(study_screen(args.reviews))
    ref = asyncio.run(reference(args.reviews))
    rows = [("study screen", _slope(study), study), ("reference (one Static)", _slope(ref), ref)]
    print(f"{'case':<24} {'MiB/review':>11} {'start MiB':>10} {'end MiB':>9}")
    for name, slope, samples in rows:
        print(f"{name:<24} {slope:>11.4f} {samples[0]:>10.1f} {samples[-1]:>9.1f}")
    verdict = "met" if rows[0][1] < TARGET_MIB else "NOT met"
    print(
        f"growth per review after {WARMUP} reviews: {rows[0][1]:.4f} MiB (target < {TARGET_MIB}: {verdict})"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
