"""Provides the feedback benchmark: from submitting an answer to the feedback panel rendered, with its
worked derivation and attention heatmap, on the real study screen, and from Enter to the next question
drawn (targets: median <= 30 ms each).

Run: python benchmarks/feedback.py [--repeats N]

A headless Pilot drills one tensor question whose feedback draws a heatmap (an attention_entry question
from the bundled bank). Each round types the engine's answer and presses Enter, then records when the
heatmap and the derivation were first drawn into a frame (render_lines, called by the compositor for
what is on screen) in the place where they stay, the panel scrolled to the top; the time is the later of
the two minus the moment Enter was pressed, so it covers the key, grading, saving the review (a durable
SQLite commit, in the save worker), revealing the panel, layout and painting. (A paint before a later
scroll moves the widgets does not count.) The study screen builds the panel hidden with each question and
renders its derivation, heatmap and explanation right after the question is first drawn; the pauses before
Enter, far shorter than anyone's thinking time, let that happen, and its cost shows in the "next card" row:
Enter again, to the new question card drawn. The reference, timed in the same run and the same way, is
a one-line Static updated and repainted: what any change on screen costs here. The table gives medians,
the ratio to the 30 ms target and to the reference; also how much of the total was grading plus saving
(StudySession.submit), and what one more layout-and-paint of the same study screen costs. The terminal
is 100x40 so that the derivation and the heatmap are both on screen once the panel is scrolled to the
top (at 80x24 the heatmap is below the fold and is only painted when scrolled to).
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

TARGET_SECONDS = 0.030
NOW = datetime(2025, 6, 1, 12, 0, tzinfo=UTC)
SIZE = (100, 40)


class Painted:
    """Every paint per widget class, with where on screen it was drawn, recorded by wrapping render_lines():
    the compositor calls it for each widget it draws into a frame, and only for widgets on screen. (Not
    render(): Textual also calls it to measure a widget during layout, and a widget may keep its render.)"""

    def __init__(self) -> None:
        self.paints: dict[str, list[tuple[float, Any]]] = {}
        self.region: dict[str, Any] = {}

    def wrap(self, cls: type, name: str) -> None:
        original: Callable[..., Any] = cls.render_lines  # type: ignore[attr-defined]

        def render_lines(widget: Any, crop: Any) -> Any:
            result = original(widget, crop)
            self.paints.setdefault(name, []).append((time.perf_counter(), widget.region))
            self.region[name] = widget.region
            return result

        cls.render_lines = render_lines  # type: ignore[attr-defined]

    def first_in_place(self, name: str, since: float) -> float | None:
        """When `name` was first painted after `since` where it now is (a paint elsewhere, before a
        scroll moved it, does not count as the feedback being shown)."""
        final = self.region.get(name)
        return next((t for t, r in self.paints.get(name, []) if t > since and r == final), None)


def heatmap_question(catalog: Any) -> str:
    """The first tensor question whose instance draws attention weights."""
    for qid in sorted(catalog.questions):
        if catalog.questions[qid].type == "tensor" and catalog.instance(qid, 1).heatmap is not None:
            return qid
    raise SystemExit("no tensor question with a heatmap in the bundled bank")


async def wait_painted(pilot: Any, painted: Painted, names: tuple[str, ...], since: float) -> float:
    """Seconds from `since` until every widget in `names` was painted, in its final place, after it.

    Waits until the app is idle (every frame the change causes drawn), then takes the first paint of
    each widget where it finally is, and the latest of those."""
    for _ in range(500):
        await pilot.pause()
        if all(any(t > since for t, _ in painted.paints.get(n, [])) for n in names):
            await pilot.pause()  # let any follow-up frame (a scroll, a re-layout) happen
            firsts = [painted.first_in_place(n, since) for n in names]
            if all(t is not None for t in firsts):
                return max(t for t in firsts if t is not None) - since
    raise SystemExit(f"{names} were never painted")


def reference_timer(painted: Painted) -> Callable[[Any, Any, int], Any]:
    """The reference measure: a one-line Static updated and repainted `n` times, on a screen of its own
    (what any change on screen costs here); returns the coroutine function that takes the times."""
    from textual.screen import Screen
    from textual.widgets import Static

    class Reference(Static):
        """The reference widget: one line of text."""

    class ReferenceScreen(Screen[None]):
        def compose(self) -> Any:
            yield Reference("reference", id="reference")

    painted.wrap(Reference, "reference")

    async def paints(app: Any, pilot: Any, n: int) -> list[float]:
        await app.push_screen(ReferenceScreen())
        await pilot.pause()
        reference = app.screen.query_one("#reference", Static)
        times = []
        for i in range(n):
            start = time.perf_counter()
            reference.update(f"reference {i}")
            times.append(await wait_painted(pilot, painted, ("reference",), start))
        return times

    return paints


async def run(repeats: int) -> dict[str, list[float]]:
    from textual.widgets import Input

    from quizapp.content.catalog import load_catalog
    from quizapp.study.session import StudySession
    from quizapp.tui.app import make_app
    from quizapp.tui.screens.study import StudyScreen
    from quizapp.tui.widgets.derivation import DerivationView
    from quizapp.tui.widgets.heatmap import HeatmapView
    from quizapp.tui.widgets.question_card import PromptView

    painted = Painted()
    painted.wrap(HeatmapView, "heatmap")
    painted.wrap(DerivationView, "derivation")
    painted.wrap(PromptView, "card")
    reference_paints = reference_timer(painted)
    submit_times: list[float] = []
    original_submit = StudySession.submit

    def timed_submit(session: StudySession, text: str) -> Any:
        start = time.perf_counter()
        try:
            return original_submit(session, text)
        finally:
            submit_times.append(time.perf_counter() - start)

    StudySession.submit = timed_submit  # type: ignore[method-assign]

    catalog = load_catalog()
    qid = heatmap_question(catalog)
    results: dict[str, list[float]] = {"feedback": [], "reference": [], "relayout": [], "next": []}
    with tempfile.TemporaryDirectory() as home:
        app = make_app(Path(home) / "bench.db", now=NOW, rng_seed=7, catalog=catalog, cursor_blink=False)
        async with app.run_test(size=SIZE) as pilot:
            await app.workers.wait_for_complete()
            await pilot.pause()
            app.start_session("drill", question_ids=(qid,))  # started in a worker
            for _ in range(500):
                await pilot.pause(0.01)
                if isinstance(app.screen, StudyScreen):
                    break
            await pilot.pause()
            screen = app.screen
            assert isinstance(screen, StudyScreen)
            for _ in range(repeats + 2):  # the first two warm caches and are dropped
                card = screen.session.current
                assert card is not None
                screen.query_one("#answer", Input).value = card.instance.expected_text()
                await pilot.pause()
                start = time.perf_counter()
                await pilot.press("enter")
                results["feedback"].append(
                    await wait_painted(pilot, painted, ("heatmap", "derivation"), start)
                )
                await pilot.pause()
                start = time.perf_counter()
                # one more frame of the same screen (the feedback's heatmap: the card has one of its own,
                # hidden unless a question draws its heatmap in the prompt)
                screen.query_one("#feedback").query_one(HeatmapView).refresh(layout=True)
                results["relayout"].append(await wait_painted(pilot, painted, ("heatmap",), start))
                start = time.perf_counter()
                await pilot.press("enter")  # next card: the same question with fresh numbers
                results["next"].append(await wait_painted(pilot, painted, ("card",), start))
                await pilot.pause()

            results["reference"] = await reference_paints(app, pilot, repeats + 2)
    results["feedback"] = results["feedback"][2:]
    results["reference"] = results["reference"][2:]
    results["relayout"] = results["relayout"][2:]
    results["next"] = results["next"][2:]
    results["submit"] = submit_times[2:]
    print(f"Question: {qid} (tensor, with heatmap and derivation); terminal {SIZE[0]}x{SIZE[1]}")
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=30, help="answers to time (default 30)")
    args = parser.parse_args()
    results = asyncio.run(run(args.repeats))
    feedback = statistics.median(results["feedback"])
    reference = statistics.median(results["reference"])
    submit = statistics.median(results["submit"])
    print(f"Median of {args.repeats} (Python {sys.version.split()[0]})")
    print(f"{'measure':<34} {'median ms':>10} {'p90 ms':>8} {'/ target':>9} {'/ reference':>12}")
    relayout = statistics.median(results["relayout"])
    rows = (
        ("submit -> feedback painted", results["feedback"], feedback),
        ("  of which grade + save (submit)", results["submit"], submit),
        ("study screen: one relayout painted", results["relayout"], relayout),
        ("next card: Enter -> question drawn", results["next"], statistics.median(results["next"])),
        ("reference: Static update painted", results["reference"], reference),
    )
    for label, values, median in rows:
        p90 = sorted(values)[int(0.9 * (len(values) - 1))]
        print(
            f"{label:<34} {median * 1000:10.1f} {p90 * 1000:8.1f} {median / TARGET_SECONDS:8.2f}x "
            f"{median / reference:11.1f}x"
        )
    for label, median in (("feedback", feedback), ("next card", statistics.median(results["next"]))):
        verdict = "ok" if median <= TARGET_SECONDS else "OVER"
        print(f"Target for {label}: median <= {TARGET_SECONDS * 1000:.0f} ms: {verdict}")


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    main()
