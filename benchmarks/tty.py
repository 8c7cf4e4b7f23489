"""Provides the benchmark of speed as a user feels it: the real `quizapp` in a pseudo-terminal.

Run: python benchmarks/tty.py [--cards N] [--pages N] [--launches N] [--read S] [--only bundled|scale]
Short: python benchmarks/tty.py --cards 20 --launches 2 --repeats 2 --interview 5 --pages 20

The app is started as the `quizapp` command would be (`python -m quizapp`, this tree first on PYTHONPATH)
in a 100x32 pty with TERM=xterm-256color and a throwaway QUIZAPP_HOME, and each key is timed until its
text reaches the terminal (benchmarks/tty_session.py). Two profiles (benchmarks/scale_profile.py):
bundled (a fresh home, new cards per day raised so study runs long enough) and scale (100,000 cards,
1,000,000 reviews, a 10,000-question deck in the bundled bank's mix of kinds; built once into /tmp).
After each feedback the learner reads for --read seconds (default 1 s, a realistic minimum), so the
collections the app runs while feedback is read land there, not on the next key.

Measured, with the targets of issue 25 (on a quiet machine; this one is shared, so trust the ratios):
- study: Enter to feedback (typed answers) and Enter to next card, median and p95 over --cards cards
  (Ctrl+O on choice and code questions; Space then 1 on flashcards, reported apart; an explanation of
  about 400 characters typed on explain questions, Ctrl+S to its reading and Enter to its saved rating);
- GC pauses and the longest event-loop stall in the study loop, and of those, the ones a key waited
  for (they overlapped the span from a key to its text; the rest ran while the learner read);
- RSS growth per review (VmRSS of the child, after a 10-card warm-up);
- the longest event-loop stall in study, stats and a mock interview at scale;
- at scale: cram, stats, home with an interview date and the card browser (its first page, and Down to
  the next card's history): time to content and the longest stall; the mock interview's set-up (i to its
  count of matching questions), then --interview questions skipped through to the report;
- decks visible after launch, against a bare Textual app to its first screen in the same pty.
Yardsticks from the same run: the bare app's launch, its key-to-repaint (Enter relabels a Static), its
page turns (n mounts six new stock widgets, --pages times) and its pages updated in place (u updates six
stock widgets mounted once, with the app's GC policy from quizapp's collector; benchmarks/tty_bare_app.py),
measured as the study loop is: what Textual alone costs a card here. Each key row gives its median over
each yardstick's ("2.0x key; 1.1x in place; 0.6x remount").
GC pauses and stalls come from a probe (a sitecustomize on the child's PYTHONPATH): the app is unchanged.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path[:0] = [str(HERE), str(REPO)]

from scale_profile import copy_profile, scale_profile  # noqa: E402
from tty_session import Hit, MarkerTimeout, ProbeLog, TtySession, read_probe, write_probe  # noqa: E402
from tty_timeline import PROBE as TIMELINE_PROBE  # noqa: E402
from tty_timeline import Step, frame_lines, longest, medians, read_steps  # noqa: E402
from tty_timeline import table as timeline_table  # noqa: E402

COLS, ROWS = 100, 32
READY, PRESSED, PAGE, UPDATED = "bare app ready", "pressed {n} times", "page {n} shown", "update {n} shown"
"""What benchmarks/tty_bare_app.py draws (kept in step by hand: that app is run apart, see Runner.bare)."""
KEY_TIMEOUT = 20.0
"""Seconds to wait for a key's text before giving up (the message names the text that never came)."""
LAUNCH_TIMEOUT = 60.0

# What the terminal shows when each moment has come (regular expressions over the text, escapes stripped).
DECKS = r"Reading attention code|Scaled dot-product attention, by hand"
"""Two bundled deck titles: the deck table is drawn."""
CARD_KIND = re.compile(r"[★☆*\-]{3}\s+(number|tensor entry|shape|choice|flashcard|explain|code)\b")
FEEDBACK = r"(Correct|Not quite|key points)\s+rated \w+|Your call:"
"""The verdict line at the top of the feedback panel."""
UNREADABLE = r"Could not read the answer"
NEXT = re.compile(r"card (\d+)(?=\D)|Session complete")
"""The session bar of the next card (its number), or the end of the session."""
STATS = r"reviews in the last \d+ days"
CRAM_CARD = r"[★☆]{3}"
PLAN = r"Interview (today|in|\d+ days? left)|expected recall|[Rr]eadiness"
SETUP = r"questions? match"
REPORT = r"Score:"
TYPED = {"number": "1", "tensor entry": "1", "shape": "(1, 2)"}
"""An answer to type for each kind that takes one (wrong on purpose: the diagnosis path runs too)."""
EXPLAINED = (
    "The variance of the dot product grows with the head dimension, so large scores saturate the softmax "
    "towards one-hot and its gradients vanish; dividing by the square root keeps the variance near one. "
    "Each head has its own projections, the KV cache grows with layers, heads, tokens and bytes, and the "
    "output projection mixes what the heads found. It does not make the softmax sum to one."
)
"""An explanation typed for every explain question (about 400 characters), read point by point on Ctrl+S."""
READ = r"read point by point"
"""The reading of an explanation is drawn (its key points, statuses and evidence)."""
REVEALED = r"How well did you know it"
"""The line under a flashcard's back once it is shown."""

# Targets (issue 25)
KEY_TARGETS = {"enter_feedback": (0.030, 0.060), "enter_next": (0.030, 0.060)}
"""Seconds: median, p95."""
GC_MS = 20.0
RSS_PER_REVIEW = 0.02
"""MiB."""
STALL_MS = 16.0
CONTENT_S = 0.200
LAUNCH_RATIO = {"bundled": 1.6, "scale": 2.0}
"""Decks visible, against the bare app's first screen."""


def p95(values: Sequence[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]


# -- launching ------------------------------------------------------------------------------------------


@dataclass
class Runner:
    """Starts the app or the bare app in the pty with the probe, each run logging to its own file."""

    work: Path
    probing: bool = True
    """False: no probe (no GC or stall rows), to see what the probe itself costs the key times."""
    stacks: bool = False
    """True: the probe also logs the event loop's stack during each stall (the sampling slows the app)."""
    timeline: bool = False
    """True: the probe also logs Textual's frame steps, to cut each key's time into phases (--breakdown)."""
    runs: int = 0

    def __post_init__(self) -> None:
        self.probe = write_probe(self.work / "probe", TIMELINE_PROBE if self.timeline else "")

    def env(self, home: Path | None, log: Path) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "COLUMNS", "LINES", "TEXTUAL")}
        env.update(
            TERM="xterm-256color",
            LANG="C.UTF-8",
            LC_ALL="C.UTF-8",
            PYTHONPATH=os.pathsep.join([str(self.probe), str(REPO)] if self.probing else [str(REPO)]),
            QUIZAPP_BENCH_PROBE=str(log),
        )
        if self.stacks:
            env["QUIZAPP_BENCH_STACKS"] = "1"
        if self.timeline:
            env["QUIZAPP_BENCH_TIMELINE"] = "1"
        if home is not None:
            env["QUIZAPP_HOME"] = str(home)
            env.pop("QUIZAPP_CONFIG", None)
        return env

    def _log(self) -> Path:
        self.runs += 1
        return self.work / f"probe-{self.runs}.log"

    @contextmanager
    def quizapp(self, home: Path, *args: str) -> Iterator[tuple[TtySession, Path]]:
        log = self._log()
        argv = [sys.executable, "-m", "quizapp", *args]
        with TtySession(argv, self.env(home, log), cols=COLS, rows=ROWS, cwd=str(self.work)) as tty:
            yield tty, log

    @contextmanager
    def bare(self) -> Iterator[tuple[TtySession, Path]]:
        log = self._log()
        # -P: the script's folder is not put on sys.path, or this file would shadow the stdlib's `tty`
        argv = [sys.executable, "-P", str(HERE / "tty_bare_app.py")]
        with TtySession(argv, self.env(None, log), cols=COLS, rows=ROWS, cwd=str(self.work)) as tty:
            yield tty, log

    def cli(self, home: Path, *args: str) -> None:
        """Runs a `quizapp` subcommand in `home` (set-up, not timed)."""
        env = self.env(home, self.work / "cli.log")
        done = subprocess.run(
            [sys.executable, "-m", "quizapp", *args], env=env, capture_output=True, text=True, timeout=300
        )
        if done.returncode != 0:
            raise SystemExit(f"quizapp {' '.join(args)} failed ({done.returncode}): {done.stderr.strip()}")


def reading(tty: TtySession, seconds: float) -> None:
    """A learner reading what the last key showed for `seconds` (what the app draws meanwhile is read
    too): the app's collections run in this time, as they would while a real learner reads."""
    tty.settle(quiet=seconds, limit=seconds)


def launch_time(tty: TtySession, marker: str, what: str) -> float:
    return tty.wait_for(marker, LAUNCH_TIMEOUT, what, since=tty.started).seconds


def launches(runner: Runner, homes: dict[str, Path], n: int) -> dict[str, list[float]]:
    """Launch to first screen (bare) and to decks visible (each profile), interleaved round by round."""
    times: dict[str, list[float]] = {"bare": [], **{name: [] for name in homes}}
    for name, home in homes.items():  # a first run builds the catalog cache and the database: not timed
        with runner.quizapp(home) as (tty, _):
            launch_time(tty, DECKS, f"warm-up launch ({name})")
    for _ in range(n):
        with runner.bare() as (tty, _):
            times["bare"].append(launch_time(tty, READY, "bare app launch"))
        for name, home in homes.items():
            with runner.quizapp(home) as (tty, _):
                times[name].append(launch_time(tty, DECKS, f"launch to decks visible ({name})"))
    return times


def bare_pages(runner: Runner, n: int, read: float, key: str = "n", marker: str = PAGE) -> StudyResult:
    """The bare app's `n` page turns, timed, probed and measured as the study loop is, each page read for
    `read` seconds: the floor Textual itself sets under the loop's stalls, collections and memory. `n`
    mounts six new stock widgets each time; `u` (marker UPDATED) updates six in place, with the app's
    collector (benchmarks/tty_bare_app.py)."""
    result = StudyResult()
    with runner.bare() as (tty, log):
        launch_time(tty, READY, "bare app launch")
        tty.settle(quiet=0.5)
        result.window = (time.time(), 0.0)
        for i in range(1, n + 1):
            t = tty.key(key)
            result.add("page", tty.wait_for(marker.format(n=i), KEY_TIMEOUT, f"bare app {key} {i}", since=t),
                       tty.wall(t))  # fmt: skip
            reading(tty, read)
            rss = tty.rss_mib()
            if rss is not None:
                result.rss.append(rss)
        result.window = (result.window[0], time.time())
        tty.settle(quiet=0.2)
    result.read_log(runner, log)
    return result


def bare_keys(runner: Runner, n: int, think: float) -> list[float]:
    """The bare app's Enter to repaint, in the same pty: the key-latency yardstick."""
    found = []
    with runner.bare() as (tty, _):
        launch_time(tty, READY, "bare app launch")
        tty.settle()
        for i in range(1, n + 1):
            t = tty.key("enter")
            found.append(tty.wait_for(PRESSED.format(n=i), KEY_TIMEOUT, f"bare app key {i}", since=t).seconds)
            tty.settle(quiet=think)
    return found


# -- study ----------------------------------------------------------------------------------------------


@dataclass
class StudyResult:
    keys: dict[str, list[float]] = field(default_factory=dict)
    rss: list[float] = field(default_factory=list)
    """VmRSS (MiB) after each card."""
    window: tuple[float, float] = (0.0, 0.0)
    """Wall-clock start and end of the loop, for the probe's log."""
    probe: ProbeLog | None = None
    kinds: dict[str, int] = field(default_factory=dict)
    stopped: str = ""
    waits: list[tuple[float, float]] = field(default_factory=list)
    """Wall-clock spans from each timed key to its text on screen."""
    spans: dict[str, list[tuple[float, float]]] = field(default_factory=dict)
    """The same spans, by key."""
    steps: list[Step] = field(default_factory=list)
    """Textual's frame steps in the loop (--breakdown)."""

    def add(self, key: str, hit: Hit, sent: float) -> None:
        """A key sent at wall-clock time `sent` whose text completed `hit`."""
        self.keys.setdefault(key, []).append(hit.seconds)
        self.waits.append((sent, sent + hit.seconds))
        self.spans.setdefault(key, []).append(self.waits[-1])

    def read_log(self, runner: Runner, log: Path) -> None:
        """What the probe logged in the run, once it is over."""
        self.probe = read_probe(log) if runner.probing else None
        self.steps = read_steps(log) if runner.timeline else []


def study_loop(runner: Runner, home: Path, cards: int, think: float, read: float, label: str) -> StudyResult:
    """`s` from home, then `cards` cards: answer (or reveal), read the feedback for `read` seconds, then
    Enter to the next card."""
    result = StudyResult()
    with runner.quizapp(home) as (tty, log):
        launch_time(tty, DECKS, f"{label}: launch")
        tty.settle()
        t = tty.key("s")
        hit = tty.wait_for(r"card 1\b", KEY_TIMEOUT, f"{label}: s (study) to the first card", since=t)
        tty.settle()
        text = tty.text()[hit.match.start() :]  # everything since the key, from the bar on
        result.window = (time.time(), 0.0)
        number = 1
        reached: float | None = None
        """The time of the key that brought this card (Enter, or a flashcard's rating), if timed."""
        for _ in range(cards):
            # the last card header drawn since the bar showed this card (the old card can repaint first)
            kinds = CARD_KIND.findall(text)
            kind = kinds[-1] if kinds else "unknown"
            result.kinds[kind] = result.kinds.get(kind, 0) + 1
            if reached is not None and kind == "code":  # entering a code question, apart from the rest
                result.keys.setdefault("next_code", []).append(reached)
            what = f"{label}: card {number} ({kind})"
            if kind in TYPED:
                tty.type(TYPED[kind])
                t = tty.key("enter")
                hit = tty.wait_for(f"{FEEDBACK}|{UNREADABLE}", KEY_TIMEOUT, f"{what}: Enter to feedback", t)
                if re.search(UNREADABLE, hit.text):
                    t = tty.key("ctrl+o")
                    hit = tty.wait_for(FEEDBACK, KEY_TIMEOUT, f"{what}: Ctrl+O to feedback", t)
                    result.add("ctrl+o_feedback", hit, tty.wall(t))
                else:
                    result.add("enter_feedback", hit, tty.wall(t))
            elif kind == "flashcard":
                t = tty.key("space")
                hit = tty.wait_for(REVEALED, KEY_TIMEOUT, f"{what}: space to the back", t)
                result.add("reveal", hit, tty.wall(t))
                reading(tty, read)
                t = tty.key("1")
                hit = tty.wait_for(NEXT, KEY_TIMEOUT, f"{what}: 1 (Again) to next card", t, after(number))
                if hit.match.group(1) is None:
                    result.stopped = f"the session ran out after {number} cards"
                    break
                result.add("rate_next", hit, tty.wall(t))
                reached = hit.seconds
                number = int(hit.match.group(1))
                text = _after_card(tty, hit, result)
                continue
            elif kind == "explain":  # typed, read point by point, then saved as read
                tty.type(EXPLAINED)
                t = tty.key("ctrl+s")
                hit = tty.wait_for(READ, KEY_TIMEOUT, f"{what}: Ctrl+S to the reading", t)
                result.add("explain_read", hit, tty.wall(t))
                reading(tty, read)
                t = tty.key("enter")
                hit = tty.wait_for(FEEDBACK, KEY_TIMEOUT, f"{what}: Enter to the saved rating", t)
                result.add("explain_saved", hit, tty.wall(t))
            else:  # choice, code: "Don't know" shows the answer
                t = tty.key("ctrl+o")
                hit = tty.wait_for(FEEDBACK, KEY_TIMEOUT, f"{what}: Ctrl+O to feedback", t)
                result.add("ctrl+o_feedback", hit, tty.wall(t))
            reading(tty, read)
            t = tty.key("enter")
            hit = tty.wait_for(NEXT, KEY_TIMEOUT, f"{what}: Enter to next card", t, after(number))
            if hit.match.group(1) is None:
                result.stopped = f"the session ran out after {number} cards"
                break
            result.add("enter_next", hit, tty.wall(t))
            reached = hit.seconds
            number = int(hit.match.group(1))
            text = _after_card(tty, hit, result)
        result.window = (result.window[0], time.time())
        tty.settle(quiet=0.2)
    result.read_log(runner, log)
    return result


def after(number: int) -> Callable[[re.Match[str]], bool]:
    """Accepts a NEXT match past card `number` (a skipped question can make the count jump), or the end."""
    return lambda m: m.group(1) is None or int(m.group(1)) > number


def _after_card(tty: TtySession, hit: Hit, result: StudyResult) -> str:
    """Lets the new card settle (a reader's pause) and notes the child's memory; the text written from
    the new card's session bar on."""
    tty.settle()
    rss = tty.rss_mib()
    if rss is not None:
        result.rss.append(rss)
    return tty.text()[hit.match.start() :]  # everything since the key, from the bar on


# -- screens at scale -----------------------------------------------------------------------------------


@dataclass
class Timed:
    times: list[float] = field(default_factory=list)
    stalls: list[float] = field(default_factory=list)
    setup: list[float] = field(default_factory=list)
    """The interview's: i to its set-up's count of matching questions."""
    frames: list[tuple[float, float, float, float]] = field(default_factory=list)
    """Each try's longest frame: ms, of which layout, render and collections (--breakdown)."""
    waits: list[tuple[float, float]] = field(default_factory=list)
    """Wall-clock spans from each key to its content."""
    waited: list[float] = field(default_factory=list)
    """Each try's longest stall that a key waited on (it overlapped a key's wait for its content)."""

    def took(self, tty: TtySession, sent: float, seconds: float, into: list[float] | None = None) -> None:
        """A key sent at `sent` (perf_counter) whose content came `seconds` later (into `times`)."""
        (self.times if into is None else into).append(seconds)
        self.waits.append((tty.wall(sent), tty.wall(sent) + seconds))

    def probed(self, log: Path, start: float) -> None:
        """The longest stall since `start`, and of those the longest a key waited on (with --breakdown,
        the longest frame too), if the probe ran."""
        if not log.exists():
            return
        end = time.time()
        probe = read_probe(log)
        self.stalls.append(probe.max_lag(start, end))
        _, stalls = probe.during([w for w in self.waits if w[0] >= start])
        self.waited.append(max(stalls, default=0.0))
        frame = longest(read_steps(log), start, end, probe.gcs)
        if frame is not None:
            self.frames.append(frame)


def _timed(
    tty: TtySession, log: Path, key: str, marker: str, what: str, into: Timed, linger: float = 1.0
) -> None:
    """One key to its content, then `linger` seconds more: the longest stall in that window."""
    start = time.time()
    t = tty.key(key)
    into.took(tty, t, tty.wait_for(marker, KEY_TIMEOUT, what, since=t).seconds)
    tty.settle(quiet=linger, limit=linger + 5)
    into.probed(log, start)


def scale_screens(runner: Runner, home: Path, repeats: int, interview: int) -> dict[str, Timed]:
    """Cram, stats and home with an interview date (set first with `quizapp plan --date`); then a mock
    interview of `interview` questions, skipped one by one."""
    found = {
        name: Timed()
        for name in ("cram", "stats", "home_date", "launch_date", "browser", "browser_down", "interview")
    }
    runner.cli(home, "plan", "--date", (date.today() + timedelta(days=5)).isoformat())
    _save(home, "interview_questions", interview)  # the mock interview's length, as Settings sets it
    with runner.quizapp(home) as (tty, log):
        found["launch_date"].times.append(launch_time(tty, DECKS, "scale: launch with a date"))
        tty.settle(quiet=1.0, limit=10)
        for i in range(repeats):
            _timed(tty, log, "c", CRAM_CARD, f"scale: c (cram) to its first card, try {i + 1}", found["cram"])
            tty.key("escape")
            tty.settle(quiet=1.0, limit=10)
            _timed(tty, log, "t", STATS, f"scale: t (stats) to its content, try {i + 1}", found["stats"])
            _timed(tty, log, "escape", PLAN, f"scale: Escape from stats to home's plan line, try {i + 1}",
                   found["home_date"])  # fmt: skip
        browser_run(tty, log, repeats, found["browser"], found["browser_down"])
        interview_run(tty, log, found["interview"])
    return found


BROWSER_PAGE = r"Cards 1-\d+ of [\d,]+"
DETAIL = re.compile(r"([\w.-]+)  \([\w.-]+\)  ")
"""The highlighted card's line under the browser's list: its id, then its deck in brackets."""


def other(card: str) -> Callable[[re.Match[str]], bool]:
    """Accepts a DETAIL line of another card than `card`."""
    return lambda m: m.group(1) != card


def browser_run(tty: TtySession, log: Path, repeats: int, page: Timed, down: Timed, keys: int = 10) -> None:
    """b (the card browser) to its first page, then Down `keys` times, each to the next card's history
    line; Escape home; `repeats` times."""
    for i in range(repeats):
        _timed(tty, log, "b", BROWSER_PAGE, f"scale: b (browser) to its first page, try {i + 1}", page)
        shown = DETAIL.findall(tty.text())
        previous = shown[-1] if shown else ""
        start = time.time()
        for n in range(keys):
            t = tty.key("down")
            hit = tty.wait_for(DETAIL, KEY_TIMEOUT, f"scale: Down {n + 1} in the browser", t, other(previous))
            down.took(tty, t, hit.seconds)
            previous = hit.match.group(1)
            tty.settle(quiet=0.3, limit=3)
        down.probed(log, start)
        tty.key("escape")
        tty.settle(quiet=1.0, limit=10)


def interview_run(tty: TtySession, log: Path, into: Timed) -> None:
    """i, Ctrl+S to start (the form opens at --interview questions, the user's setting set before), Ctrl+N
    (skip) through every question to the report: each key's time and the longest stall. The number of
    questions is read once, from question 1's own line (the app may allow fewer than asked), so the run
    ends at the report at any scale."""
    start = time.time()
    t = tty.key("i")
    into.took(
        tty,
        t,
        tty.wait_for(SETUP, KEY_TIMEOUT, "scale: i to the interview set-up", since=t).seconds,
        into.setup,
    )
    tty.settle(quiet=0.5, limit=10)
    t = tty.key("ctrl+s")
    hit = tty.wait_for(r"Question 1 of (\d+)", KEY_TIMEOUT, "scale: Ctrl+S to question 1", t)
    into.took(tty, t, hit.seconds)
    total = int(hit.match.group(1))
    for number in range(1, total + 1):
        tty.settle(quiet=0.2)
        last = number == total
        t = tty.key("\x0e")  # Ctrl+N: skip
        marker = REPORT if last else rf"Question {number + 1} of"
        into.took(tty, t, tty.wait_for(marker, KEY_TIMEOUT, f"scale: Ctrl+N on question {number}", t).seconds)
    tty.settle(quiet=1.0, limit=10)
    into.probed(log, start)


# -- the table ------------------------------------------------------------------------------------------


@dataclass
class Table:
    rows: list[tuple[str, str, str, str, str, str]] = field(default_factory=list)

    def add(
        self, measure: str, median: str, high: str, target: str, ok: bool | None, ratio: str = ""
    ) -> None:
        verdict = "" if ok is None else ("ok" if ok else "OVER")
        self.rows.append((measure, median, high, target, verdict, ratio))

    def print(self) -> None:
        head = ("measure", "median", "p95/max", "target", "", "yardstick")
        widths = [max(len(r[i]) for r in [head, *self.rows]) for i in range(6)]
        for row in [head, *self.rows]:
            print(
                "  ".join(
                    cell.ljust(w) if i == 0 else cell.rjust(w)
                    for i, (cell, w) in enumerate(zip(row, widths, strict=True))
                )
            )


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.0f} ms"


@dataclass(frozen=True)
class Yardsticks:
    """Medians (seconds) of the bare app's keys in the same run: Enter relabelling a Static, n mounting a
    page of six new stock widgets, u updating six in place with the app's GC policy."""

    key: float
    page: float
    in_place: float

    def ratios(self, seconds: float) -> str:
        parts = [(self.key, "key"), (self.in_place, "in place"), (self.page, "remount")]
        return "; ".join(f"{seconds / yard:.1f}x {name}" for yard, name in parts if yard > 0)


KEY_LABELS = {
    "enter_feedback": "Enter to feedback",
    "enter_next": "Enter to next card",
    "ctrl+o_feedback": "Ctrl+O to feedback",
    "rate_next": "1 (flashcard) to next card",
    "next_code": "  of those, to a code question",
    "reveal": "space to a flashcard's back",
    "explain_read": "Ctrl+S to an explanation read point by point",
    "explain_saved": "Enter to the explanation's saved rating",
}


def key_rows(table: Table, label: str, res: StudyResult, yards: Yardsticks) -> None:
    for key, name in KEY_LABELS.items():
        values = res.keys.get(key, [])
        if not values:
            continue
        med, high = statistics.median(values), p95(values)
        limit = KEY_TARGETS.get(key)
        ok = None if limit is None else med <= limit[0] and high <= limit[1]
        target = "" if limit is None else f"<= {ms(limit[0])}, p95 {ms(limit[1])}"
        table.add(f"{label}: {name} (n={len(values)})", ms(med), ms(high), target, ok, yards.ratios(med))
    loop_rows(table, label, res, "review")


def loop_rows(table: Table, label: str, res: StudyResult, unit: str, judged: bool = True) -> None:
    """GC pauses, stalls and RSS growth over a loop of keys (each `unit`: a review, or a bare page).
    `judged` False: a yardstick, its targets shown in brackets without a verdict."""

    def target(text: str, ok: bool) -> tuple[str, bool | None]:
        return (text, ok) if judged else (f"({text})", None)

    probe = res.probe
    if probe is not None:
        pauses = [g[1] for g in probe.gcs_between(*res.window)]
        worst = max(pauses, default=0.0)
        big = sum(p > GC_MS for p in pauses)
        typical = f"{statistics.median(pauses):.1f} ms" if pauses else "-"
        table.add(
            f"{label}: GC pauses >= 1 ms in the loop (n={len(pauses)}, {big} over 20 ms)",
            typical, f"{worst:.0f} ms", *target("none > 20 ms", worst <= GC_MS),
        )  # fmt: skip
        full = [g[1] for g in probe.gcs_between(*res.window) if g[2] == 2]
        if full:
            every = (res.window[1] - res.window[0]) / len(full)
            table.add(
                f"{label}:   of which full (gen 2) collections (n={len(full)}, one every {every:.0f} s)",
                f"{statistics.median(full):.0f} ms", f"{max(full):.0f} ms", "", None,
            )  # fmt: skip
        stall = probe.max_lag(*res.window)
        table.add(
            f"{label}: longest UI stall in the loop",
            "",
            f"{stall:.0f} ms",
            *target("<= 16 ms", stall <= STALL_MS),
        )
        # What a key waited for: the collections and stalls that overlapped a key's wait for its text (the
        # rows above also count those that ran while the learner read, between keys)
        waited, stalls = probe.during(res.waits)
        gcs = [ms for ms, _ in waited]
        over = sorted(f"gen {gen}" for ms, gen in waited if ms > GC_MS)
        table.add(
            f"{label}:   GC pauses while a key waited (n={len(gcs)}; over 20 ms: {', '.join(over) or '-'})",
            f"{statistics.median(gcs):.1f} ms" if gcs else "-", f"{max(gcs, default=0):.0f} ms",
            *target("none > 20 ms", max(gcs, default=0) <= GC_MS),
        )  # fmt: skip
        table.add(
            f"{label}:   longest UI stall while a key waited", "", f"{max(stalls, default=0):.0f} ms",
            *target("<= 16 ms", max(stalls, default=0) <= STALL_MS),
        )  # fmt: skip
    warm = 10
    if len(res.rss) > warm + 10:
        reviews = len(res.rss) - 1 - warm
        per = (res.rss[-1] - res.rss[warm]) / reviews
        table.add(
            f"{label}: RSS growth per {unit} ({res.rss[warm]:.0f}->{res.rss[-1]:.0f} MiB, {reviews} {unit}s)",
            f"{per:.3f} MiB", "", *target("<= 0.02 MiB", per <= RSS_PER_REVIEW),
        )  # fmt: skip
        half = warm + reviews // 2  # Textual's and Rich's bounded caches fill early: is it levelling off?
        late = (res.rss[-1] - res.rss[half]) / (len(res.rss) - 1 - half)
        table.add(
            f"{label}:   of which over the last {len(res.rss) - 1 - half} {unit}s",
            f"{late:.3f} MiB", "", "", None,
        )  # fmt: skip


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cards", type=int, default=210, help="cards in each study loop (default 210)")
    parser.add_argument("--launches", type=int, default=5, help="launches per variant (default 5)")
    parser.add_argument("--repeats", type=int, default=3, help="tries of cram, stats, home (default 3)")
    parser.add_argument("--interview", type=int, default=10, help="questions in the mock interview")
    parser.add_argument("--pages", type=int, default=200, help="the bare app's page turns (default 200)")
    parser.add_argument("--think", type=float, default=0.15, help="quiet seconds before the next key")
    parser.add_argument(
        "--read", type=float, default=1.0, help="seconds a learner reads each feedback or page (default 1)"
    )
    parser.add_argument("--only", choices=("bundled", "scale"), help="run one profile")
    parser.add_argument("--keep", action="store_true", help="keep the work folder (logs, homes)")
    parser.add_argument("--no-probe", action="store_true", help="no GC/stall probe in the child")
    parser.add_argument("--stacks", action="store_true", help="log the stack of each stall (with --keep)")
    parser.add_argument(
        "--breakdown", action="store_true", help="cut each key's time into phases (tty_timeline.py)"
    )
    args = parser.parse_args(argv)
    profiles = ("bundled", "scale") if args.only is None else (args.only,)

    work = Path(tempfile.mkdtemp(prefix="quizapp-tty-"))
    runner = Runner(work, probing=not args.no_probe, stacks=args.stacks, timeline=args.breakdown)
    table = Table()
    phases: list[tuple[str, dict[str, float], int]] = []
    frames: list[tuple[str, list[tuple[float, float, float, float]]]] = []
    try:
        homes: dict[str, Path] = {}
        if "bundled" in profiles:
            homes["bundled"] = work / "bundled"
            homes["bundled"].mkdir()
        if "scale" in profiles:
            homes["scale"] = copy_profile(scale_profile(), work / "scale")
        print(f"work folder {work}; launches ...", file=sys.stderr, flush=True)
        launch = launches(runner, homes, args.launches)
        if "bundled" in homes:  # enough new cards for the loop
            _set_new_per_day(homes["bundled"])
        print("bare app keys ...", file=sys.stderr, flush=True)
        bare = bare_keys(runner, max(20, min(args.cards, 60)), args.think)
        bare_med = statistics.median(launch["bare"])
        table.add(
            "bare Textual app: launch to first screen",
            ms(bare_med),
            ms(p95(launch["bare"])),
            "",
            None,
            "1.0x",
        )
        table.add(
            "bare Textual app: Enter to repaint", ms(statistics.median(bare)), ms(p95(bare)), "", None, "1.0x"
        )
        print(f"bare app: {args.pages} page turns ...", file=sys.stderr, flush=True)
        pages = bare_pages(runner, args.pages, args.read)
        table.add(
            f"bare Textual app: n to a new page of 6 stock widgets (n={len(pages.keys['page'])})",
            ms(statistics.median(pages.keys["page"])), ms(p95(pages.keys["page"])), "", None, "yardstick",
        )  # fmt: skip
        loop_rows(table, "bare Textual app, page turns", pages, "page", judged=False)
        print(f"bare app: {args.pages} pages updated in place ...", file=sys.stderr, flush=True)
        updates = bare_pages(runner, args.pages, args.read, key="u", marker=UPDATED)
        table.add(
            f"bare Textual app: u to 6 stock widgets updated in place (n={len(updates.keys['page'])})",
            ms(statistics.median(updates.keys["page"])), ms(p95(updates.keys["page"])), "", None,
            "yardstick",
        )  # fmt: skip
        loop_rows(table, "bare Textual app, in place, app's GC policy", updates, "page", judged=False)
        in_place = medians(updates.steps, updates.spans["page"])
        phases.append(("bare app: u, six widgets updated in place", *in_place))
        gcs = updates.probe.gcs if updates.probe is not None else ()
        bare_frames = [longest(updates.steps, sent, seen, gcs) for sent, seen in updates.spans["page"]]
        yards = Yardsticks(
            key=statistics.median(bare),
            page=statistics.median(pages.keys["page"]),
            in_place=statistics.median(updates.keys["page"]),
        )
        for name in homes:
            med = statistics.median(launch[name])
            limit = LAUNCH_RATIO[name]
            table.add(f"{name}: launch to decks visible", ms(med), ms(p95(launch[name])), f"<= {limit}x bare",
                      med / bare_med <= limit, f"{med / bare_med:.2f}x bare")  # fmt: skip
        for name, home in homes.items():
            print(f"{name}: study loop of {args.cards} cards ...", file=sys.stderr, flush=True)
            res = study_loop(runner, home, args.cards, args.think, args.read, name)
            print(f"  kinds: {res.kinds} {res.stopped}", file=sys.stderr, flush=True)
            key_rows(table, f"{name} study", res, yards)
            for key, spans in res.spans.items():
                phases.append((f"{name} study: {KEY_LABELS.get(key, key)}", *medians(res.steps, spans)))
        if "scale" in homes:
            print("scale: cram, stats, home with a date, interview ...", file=sys.stderr, flush=True)
            screens = scale_screens(runner, homes["scale"], args.repeats, args.interview)
            screen_rows(table, screens, bare_med, yards)
            frames = [(f"scale: {name}", timed.frames) for name, timed in screens.items()]
    except MarkerTimeout as exc:
        table.print()
        print(f"\nFAILED: {exc}", file=sys.stderr)
        if exc.transcript:
            kept = Path(tempfile.mkdtemp(prefix="quizapp-tty-failed-"))
            (kept / "transcript.raw").write_text(exc.transcript)
            print(f"(the whole terminal output is in {kept}/transcript.raw)", file=sys.stderr)
        return 1
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    python = sys.version.split()[0]
    print(f"\nquizapp in a {COLS}x{ROWS} pty, Python {python}; targets from issue 25 (on a quiet machine)")
    table.print()
    if args.breakdown:
        print("\n" + timeline_table(phases))
        found = [f for f in bare_frames if f is not None]
        print("\n" + frame_lines([("bare app: u, six widgets updated in place", found), *frames]))
    return 0


def _set_new_per_day(home: Path) -> None:
    """Raises the new-card limit through the store (as Settings does), so study has cards enough."""
    _save(home, "new_per_day", 9999)


def _save(home: Path, key: str, value: int) -> None:
    """Saves one of the user's settings through the store, as the Settings screen does."""
    from quizapp.paths import DB_FILENAME
    from quizapp.store import open_store
    from quizapp.store.settings import save_setting

    with open_store(home / DB_FILENAME, now=datetime.now(UTC)) as store:
        save_setting(store, key, value)


def screen_rows(table: Table, screens: dict[str, Timed], bare_launch: float, yards: Yardsticks) -> None:
    names = {
        "cram": "scale: c (cram) to its first card",
        "stats": "scale: t (stats) to its content",
        "home_date": "scale: Escape to home with a date (plan line)",
        "browser": "scale: b (card browser) to its first page",
        "browser_down": "scale: Down in the browser to the next card's history",
    }
    for key, name in names.items():
        got = screens[key]
        if not got.times:
            continue
        med, high = statistics.median(got.times), p95(got.times)
        table.add(f"{name} (n={len(got.times)})", ms(med), ms(high), "<= 200 ms", high <= CONTENT_S,
                  yards.ratios(med))  # fmt: skip
        stall_rows(table, name, got)
    launch = screens["launch_date"].times[0]
    ratio = f"{launch / bare_launch:.2f}x bare"
    table.add("scale: launch to decks visible, with a date", ms(launch), "", "", None, ratio)
    got = screens["interview"]
    if got.setup:
        table.add(
            f"scale: i to the interview set-up's count (n={len(got.setup)})",
            ms(statistics.median(got.setup)), ms(max(got.setup)), "<= 200 ms", max(got.setup) <= CONTENT_S,
            yards.ratios(statistics.median(got.setup)),
        )  # fmt: skip
    if got.times:
        table.add(
            f"scale: interview, Ctrl+S/Ctrl+N to the next question (n={len(got.times)})",
            ms(statistics.median(got.times)), ms(p95(got.times)), "", None,
            yards.ratios(statistics.median(got.times)),
        )  # fmt: skip
    stall_rows(table, "scale: interview", got)


def stall_rows(table: Table, name: str, got: Timed) -> None:
    """The longest stall after the keys (while the content is read too), and of those, while one waited."""
    if got.stalls:
        stall = max(got.stalls)
        table.add(f"{name}: longest UI stall", "", f"{stall:.0f} ms", "<= 16 ms", stall <= STALL_MS)
    if got.waited:
        stall = max(got.waited)
        table.add(f"{name}:   longest stall while a key waited", "", f"{stall:.0f} ms", "<= 16 ms",
                  stall <= STALL_MS)  # fmt: skip


if __name__ == "__main__":
    raise SystemExit(main())
