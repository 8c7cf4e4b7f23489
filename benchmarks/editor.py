"""Provides the code-editor benchmark: a keystroke in a 200-line solution to the editor repainted, on the
real study screen (target: median <= 30 ms), against a one-line Static updated and repainted.

Run: python benchmarks/editor.py [--repeats N]

A headless Pilot drills the MHA coding exercise, loads a 200-line solution into the editor (Python
highlighting and line numbers on), puts the cursor in the middle, and types characters one at a time;
each time is from the key press to the editor's first paint after it (render_lines, wrapped as in
benchmarks/feedback.py). The reference is a Static updated and repainted, measured the same way.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

TARGET_SECONDS = 0.030
NOW = datetime(2025, 6, 1, 12, 0, tzinfo=UTC)
SIZE = (100, 40)


def long_solution(lines: int = 200) -> str:
    """The model MHA solution padded with commented helper code to `lines` lines."""
    from engine.exercises import EXERCISES

    body = EXERCISES["code-mha-forward"].solution.splitlines()
    filler = [f"# step {i}: x_{i} = np.tanh(x_{i - 1} @ w_{i}) * scale_{i}  (notes)" for i in range(lines)]
    return "\n".join(filler[: max(0, lines - len(body))] + body) + "\n"


async def run(repeats: int) -> dict[str, list[float]]:
    from textual.widgets import TextArea

    from quizapp.content.catalog import load_catalog
    from quizapp.tui.app import make_app
    from quizapp.tui.screens.study import StudyScreen
    from quizapp.tui.widgets.code_editor import CodeArea

    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from feedback import Painted, reference_timer, wait_painted  # the same paint watcher and reference

    painted = Painted()
    painted.wrap(TextArea, "editor")
    reference_paints = reference_timer(painted)
    results: dict[str, list[float]] = {"keystroke": [], "reference": []}
    catalog = load_catalog()
    with tempfile.TemporaryDirectory() as home:
        app = make_app(Path(home) / "bench.db", now=NOW, rng_seed=7, catalog=catalog, cursor_blink=False)
        async with app.run_test(size=SIZE) as pilot:
            await app.workers.wait_for_complete()
            await pilot.pause()
            app.start_session("drill", question_ids=("code-mha-forward",))
            await pilot.pause()
            screen = app.screen
            assert isinstance(screen, StudyScreen)
            area = screen.query_one(CodeArea).query_one(TextArea)
            area.load_text(long_solution())
            area.move_cursor((100, 0))
            area.focus()
            await pilot.pause()
            for _ in range(repeats + 2):
                start = time.perf_counter()
                await pilot.press("x")
                results["keystroke"].append(await wait_painted(pilot, painted, ("editor",), start))
            await app.workers.wait_for_complete()
            results["reference"] = await reference_paints(app, pilot, repeats + 2)
    return {name: values[2:] for name, values in results.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=30, help="keystrokes to time (default 30)")
    args = parser.parse_args()
    results = asyncio.run(run(args.repeats))
    reference = statistics.median(results["reference"])
    print(f"200-line solution in the editor, terminal {SIZE[0]}x{SIZE[1]}; median of {args.repeats} "
          f"(Python {sys.version.split()[0]})")  # fmt: skip
    print(f"{'measure':<34} {'median ms':>10} {'p90 ms':>8} {'/ target':>9} {'/ reference':>12}")
    rows = (("keystroke -> editor painted", "keystroke"), ("reference: Static painted", "reference"))
    for label, name in rows:
        values = results[name]
        median = statistics.median(values)
        p90 = sorted(values)[int(0.9 * (len(values) - 1))]
        print(f"{label:<34} {median * 1000:10.1f} {p90 * 1000:8.1f} {median / TARGET_SECONDS:8.2f}x "
              f"{median / reference:11.1f}x")  # fmt: skip
    keystroke = statistics.median(results["keystroke"])
    print(
        f"Target: median <= {TARGET_SECONDS * 1000:.0f} ms: {'ok' if keystroke <= TARGET_SECONDS else 'OVER'}"
    )


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    main()
