"""Provides the startup benchmark: process start to the home screen ready, against a minimal Textual app.

Run: python benchmarks/startup.py [--repeats N] [--imports]

Each measurement is a fresh headless process. The child notes the wall-clock time when the screen is
ready and the parent subtracts the time it launched the process, so interpreter start-up and every import
count. Ready means after the first layout (the app's Ready event, sent once the first screen has sizes):
on_mount comes before the first frame is drawn, so exiting there would be too early. Variants,
interleaved round by round:

- minimal:      a bare Textual App with one Static (the reference; 0.21 s on these machines);
- home:         the real `quizapp` command (quizapp.cli.main, run headless) to its first frame, the
                decks still loading in their worker;
- home + decks: the same, until the catalog and store are loaded and the deck table is drawn with its
                counts.

The table gives medians and the ratio to the minimal app (targets: home <= 1.3x, home + decks <= 1.6x).
`--imports` lists the modules the home screen imports that the minimal app does not, slowest first
(python -X importtime).

`--first` times the first start after install against the second (home + decks): each first start gets a
fresh QUIZAPP_HOME and a fresh bytecode folder (PYTHONPYCACHEPREFIX), as after `pip install`, and is then
split into its parts: the same start with only the catalog cache taken from a warm home (what the catalog
check costs), with only the bytecode compiled (what Python's own .pyc compilation costs), and
`compileall` of quizapp and engine alone (the yardstick: the floor no app change can remove).
All runs share one fresh QUIZAPP_HOME, warmed once so the catalog cache exists (a first run parses YAML).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

TARGETS = {"home": 1.3, "home+decks": 1.6}
"""Ratio to the bare Textual app: first frame, and the deck table drawn."""
VARIANTS = ("minimal", "home", "home+decks")


# -- the child side -------------------------------------------------------------------------------------


def child(variant: str) -> None:
    """Runs one app headless and writes the wall-clock time it became ready to stderr."""
    from textual.app import App, ComposeResult

    def done(app: App[None]) -> None:
        sys.stderr.write(f"READY {time.time():.6f} {type(app.screen).__name__}\n")
        app.exit()

    if variant == "minimal":
        from textual.widgets import Static

        class Minimal(App[None]):
            def compose(self) -> ComposeResult:
                yield Static("hello")

            def on_ready(self) -> None:
                self.call_after_refresh(done, self)

        Minimal().run(headless=True)
        return

    # The real command: `quizapp` with no arguments (quizapp.cli.main), headless, leaving once the moment
    # measured has been painted.
    from quizapp import cli
    from quizapp.tui.app import QuizApp
    from quizapp.tui.messages import OverviewLoaded
    from quizapp.tui.screens.home import HomeScreen

    real_run = QuizApp.run

    def run_headless(self: QuizApp, **kwargs: Any) -> Any:
        return real_run(self, headless=True)

    def on_ready(self: QuizApp) -> None:
        if variant == "home":
            self.call_after_refresh(done, self)

    real_overview_loaded = HomeScreen.on_overview_loaded

    async def overview_loaded(self: HomeScreen, message: OverviewLoaded) -> None:
        """The deck table is filled here; done once a frame has drawn it."""
        await real_overview_loaded(self, message)
        if variant == "home+decks":
            self.call_after_refresh(done, self.app)

    cli.missing_terminal = lambda: None  # headless: no terminal is needed (its streams are pipes here)
    QuizApp.run = run_headless  # type: ignore[method-assign]
    QuizApp.on_ready = on_ready  # type: ignore[attr-defined]
    HomeScreen.on_overview_loaded = overview_loaded  # type: ignore[method-assign]
    cli.main([])


# -- the parent side ------------------------------------------------------------------------------------


def measure(variant: str, env: dict[str, str], extra: tuple[str, ...] = ()) -> tuple[float, str]:
    """Seconds from launching the child to its ready moment, and the child's stderr."""
    start = time.time()
    proc = subprocess.run(
        [sys.executable, *extra, __file__, "--child", variant],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    ready = [line for line in proc.stderr.splitlines() if line.startswith("READY ")]
    if proc.returncode != 0 or not ready:
        raise SystemExit(f"{variant} failed (exit {proc.returncode}):\n{proc.stderr[-2000:]}")
    return float(ready[-1].split()[1]) - start, proc.stderr


def imports(stderr: str) -> dict[str, tuple[int, int]]:
    """module -> (self us, cumulative us) from -X importtime output."""
    found = {}
    for line in stderr.splitlines():
        if not line.startswith("import time:") or "cumulative" in line:
            continue
        own, cumulative, name = line.removeprefix("import time:").split("|")
        found[name.strip()] = (int(own), int(cumulative))
    return found


def import_report(env: dict[str, str], top: int = 25) -> None:
    _, minimal = measure("minimal", env, ("-X", "importtime"))
    _, home = measure("home", env, ("-X", "importtime"))
    base, ours = imports(minimal), imports(home)
    extra = {name: t for name, t in ours.items() if name not in base}
    own_total = sum(own for own, _ in extra.values()) / 1000
    print(
        f"\nModules imported by the home screen and not by the minimal app: {len(extra)}, {own_total:.0f} ms"
    )
    print("(the load worker's imports - catalog, pydantic, store - run in a thread and show at top level)")
    print(f"{'cumulative ms':>14}  {'self ms':>8}  module")
    for name, (own, cumulative) in sorted(extra.items(), key=lambda kv: -kv[1][1])[:top]:
        print(f"{cumulative / 1000:14.1f}  {own / 1000:8.1f}  {name}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=9, help="measurements per variant (default 9)")
    parser.add_argument("--imports", action="store_true", help="also list what the home screen imports")
    parser.add_argument("--first", action="store_true", help="time the first start after install")
    parser.add_argument("--child", choices=VARIANTS, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child)
        return
    if args.first:
        first_start(args.repeats)
        return

    with tempfile.TemporaryDirectory() as home:
        env = {**os.environ, "QUIZAPP_HOME": home, "PYTHONDONTWRITEBYTECODE": "0"}
        env.pop("NO_COLOR", None)
        measure("home+decks", env)  # warm-up: builds the catalog cache and the database, not timed
        times: dict[str, list[float]] = {v: [] for v in VARIANTS}
        for _ in range(args.repeats):
            for variant in VARIANTS:
                times[variant].append(measure(variant, env)[0])
        base = statistics.median(times["minimal"])
        python = sys.version.split()[0]
        print(f"Startup, headless, process start to ready; median of {args.repeats} (Python {python})")
        print(f"{'variant':<12} {'median ms':>10} {'min ms':>8} {'ratio':>7}  target")
        for variant in VARIANTS:
            median = statistics.median(times[variant])
            limit = TARGETS.get(variant)
            target = f"<= {limit}x" if limit else ""
            flag = ""
            if limit:
                flag = "  ok" if median / base <= limit else "  OVER"
            print(
                f"{variant:<12} {median * 1000:10.0f} {min(times[variant]) * 1000:8.0f} "
                f"{median / base:6.2f}x  {target}{flag}"
            )
        if args.imports:
            import_report(env)


def first_start(repeats: int) -> None:
    """First start vs second (home + decks), the first split into what it does extra (see the docstring)."""
    import shutil

    repo = Path(__file__).resolve().parents[1]
    times: dict[str, list[float]] = {k: [] for k in ("first", "cache", "bytecode", "second", "compile")}
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        warm = {**os.environ, "QUIZAPP_HOME": str(root / "warm"), "PYTHONPYCACHEPREFIX": str(root / "pyc")}
        warm.pop("NO_COLOR", None)
        measure("home+decks", warm)  # the warm home (catalog cache, database) and bytecode
        for n in range(repeats):
            fresh = root / f"run{n}"

            def env(home: str, pyc: str, fresh: Path = fresh) -> dict[str, str]:
                return {**warm, "QUIZAPP_HOME": str(fresh / home), "PYTHONPYCACHEPREFIX": pyc}

            times["first"].append(measure("home+decks", env("first", str(fresh / "pyc-first")))[0])
            (fresh / "cache").mkdir(parents=True)
            shutil.copytree(root / "warm" / "cache", fresh / "cache" / "cache")
            times["cache"].append(measure("home+decks", env("cache", str(fresh / "pyc-cache")))[0])
            times["bytecode"].append(measure("home+decks", env("bytecode", str(root / "pyc")))[0])
            times["second"].append(measure("home+decks", warm)[0])
            start = time.perf_counter()
            subprocess.run(
                [sys.executable, "-m", "compileall", "-q", "quizapp", "engine"],
                cwd=repo,
                env={**warm, "PYTHONPYCACHEPREFIX": str(fresh / "pyc-compile")},
                check=True,
            )
            times["compile"].append(time.perf_counter() - start)
    second = statistics.median(times["second"])
    names = {
        "first": "first start (no catalog cache, no database, no bytecode)",
        "cache": "  the same with the catalog cache only (no database, no bytecode)",
        "bytecode": "  the same with the bytecode only (no catalog cache, no database)",
        "second": "second start",
        "compile": "yardstick: compileall quizapp engine (a fresh bytecode folder)",
    }
    print(f"First start after install, headless, to the deck table drawn; median of {repeats}")
    for key, name in names.items():
        median = statistics.median(times[key])
        print(f"{name:<68} {median * 1000:7.0f} ms  {median / second:5.2f}x second")


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    main()
