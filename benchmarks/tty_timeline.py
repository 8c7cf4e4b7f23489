"""Provides where a key's milliseconds go, in the app and the bare app alike (tty.py --breakdown).

With --breakdown the probe (a sitecustomize, benchmarks/tty_session.py) also logs, from Textual's own
methods, each moment a screen asks for a frame (its update timer resumed), each layout, each render of
the screen's changed regions and each write to the terminal. The key's span, from the moment it was sent
to the moment its text was read from the terminal, is then cut at those moments:

- work: everything before the screen asks for the frame that carries the text (the key's handlers, and
  in the app the save worker: grading and the commit), less the frames drawn meanwhile;
- other frames: frames drawn between the key and that request (an intermediate state);
- tick: the wait for Textual's frame timer (a 60 fps grid: up to 16.7 ms, about half that on average;
  where the timer was running already when the key came, no request is logged and its wait counts as work);
- layout: arranging the widgets (the layout's time less the render it calls);
- render: the compositor turning the changed regions into strips and segments (less the write);
- write: the escape sequences written to the terminal;
- terminal: from the write to the harness reading the text (the pty, and the harness's polling).

The same cut is made for the yardstick's update in place, so a row of the app can be read against it
phase by phase. The probe imports Textual at start-up to patch it, so launch times taken with
--breakdown are not comparable with those taken without it.
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

PROBE = '''
if os.environ.get("QUIZAPP_BENCH_TIMELINE") and _path:

    def _timeline():
        """Patches Textual's frame steps to log their start and end (wall clock)."""
        import textual.app as _app, textual.screen as _screen, textual.timer as _timer

        def timed(owner, name, label):
            original = getattr(owner, name)

            def wrapper(*args, **kwargs):
                start = time.time()
                try:
                    return original(*args, **kwargs)
                finally:
                    _out.write(f"frame {label} {start:.6f} {time.time():.6f}\\n")

            setattr(owner, name, wrapper)

        timed(_screen.Screen, "_refresh_layout", "layout")
        timed(_screen.Screen, "_compositor_refresh", "render")
        timed(_app.App, "_display", "write")
        resume = _timer.Timer.resume

        def resumed(self):
            if self.name == "screen_update" and not self._active.is_set():
                now = time.time()
                _out.write(f"frame ask {now:.6f} {now:.6f}\\n")
            resume(self)

        _timer.Timer.resume = resumed

    _timeline()
'''
"""Appended to the probe; it writes to the probe's log (`_out`), so one file holds GC, stalls and frames."""

PHASES = ("work", "other frames", "tick", "layout", "render", "write", "terminal")


@dataclass(frozen=True)
class Step:
    kind: str
    """"ask", "layout", "render" or "write"."""
    start: float
    end: float

    @property
    def ms(self) -> float:
        return (self.end - self.start) * 1000

    def holds(self, other: Step) -> bool:
        return self.start <= other.start and other.end <= self.end and self is not other


def read_steps(path: Path) -> list[Step]:
    steps = []
    if path.exists():
        for line in path.read_text().splitlines():
            parts = line.split()
            if parts[:1] == ["frame"] and len(parts) == 4:
                steps.append(Step(parts[1], float(parts[2]), float(parts[3])))
    return sorted(steps, key=lambda s: s.start)


def frames(steps: Sequence[Step]) -> list[tuple[float, float]]:
    """Each frame's (start, end): the outermost layouts and renders, with the ones that follow within a
    millisecond and no request for a frame between (a second render can follow a layout's in one tick)."""
    drawn = [s for s in steps if s.kind in ("layout", "render")]
    outer = [s for s in drawn if not any(o.holds(s) for o in drawn)]
    asks = [s.start for s in steps if s.kind == "ask"]
    spans: list[tuple[float, float]] = []
    for step in outer:
        if (
            spans
            and step.start - spans[-1][1] < 0.001
            and not any(spans[-1][1] <= a <= step.start for a in asks)
        ):
            spans[-1] = (spans[-1][0], max(spans[-1][1], step.end))
        else:
            spans.append((step.start, step.end))
    return spans


def parts(frame: Sequence[Step]) -> tuple[float, float, float]:
    """A frame's layout (less the renders it calls), render (less the writes it calls) and write, in ms."""

    def total(kind: str, less: str = "") -> float:
        outer = [s for s in frame if s.kind == kind]
        held = [s for s in frame if s.kind == less and any(o.holds(s) for o in outer)]
        return sum(s.ms for s in outer) - sum(s.ms for s in held)

    return total("layout", "render"), total("render", "write"), total("write")


def cut(steps: Sequence[Step], sent: float, seen: float) -> dict[str, float] | None:
    """One key's span (wall clock) cut into PHASES, in ms; None if no write lies in it. The text came
    with the last write before it was seen, in that write's frame."""
    writes = [s for s in steps if s.kind == "write" and sent <= s.start and s.end <= seen]
    if not writes:
        return None
    write = writes[-1]
    spans = [f for f in frames(steps) if f[1] >= sent and f[0] <= seen]
    start, end = next((f for f in spans if f[0] <= write.start <= f[1]), (write.start, write.end))
    asks = [s.start for s in steps if s.kind == "ask" and sent <= s.start <= start]
    ask = asks[-1] if asks else start  # the timer ran already: its wait is not known, and counts as work
    frame = [s for s in steps if s.kind != "ask" and start <= s.start <= end]
    other = sum(min(f[1], ask) - max(f[0], sent) for f in spans if f[0] < ask)
    layout, render, written = parts(frame)
    return {
        "work": (ask - sent - other) * 1000,
        "other frames": other * 1000,
        "tick": (start - ask) * 1000,
        "layout": layout,
        "render": render,
        "write": written,
        "terminal": (seen - write.end) * 1000,
    }


def longest(
    steps: Sequence[Step], start: float, end: float, gcs: Sequence[tuple[float, float, int]] = ()
) -> tuple[float, float, float, float] | None:
    """The longest frame that began between `start` and `end` (wall clock): its ms, and of those the
    layout's (less its render), the renders' (less their writes) and the collector's (`gcs`: the probe's
    collections, each logged as it ends: wall time, ms, generation); None if none began."""
    spans = [f for f in frames(steps) if start <= f[0] <= end]
    if not spans:
        return None
    first, last = max(spans, key=lambda f: f[1] - f[0])
    layout, render, _ = parts([s for s in steps if first <= s.start <= last])
    collected = sum(ms for ended, ms, _ in gcs if first <= ended - ms / 1000 and ended <= last)
    return (last - first) * 1000, layout, render, collected


def medians(steps: Sequence[Step], spans: Sequence[tuple[float, float]]) -> tuple[dict[str, float], int]:
    """The median of each phase over the spans that could be cut, and how many could."""
    cuts = [c for c in (cut(steps, sent, seen) for sent, seen in spans) if c is not None]
    if not cuts:
        return {}, 0
    return {phase: statistics.median(c[phase] for c in cuts) for phase in PHASES}, len(cuts)


def frame_lines(rows: Sequence[tuple[str, Sequence[tuple[float, float, float, float]]]]) -> str:
    """Rows of (label, the longest frame of each try) as text: the longest try's frame and its parts."""
    lines = [
        f"{'longest frame after a key (ms)':<52}"
        + "".join(f"{h:>13}" for h in ("frame", "layout", "render", "of which GC"))
    ]
    for label, found in rows:
        if found:
            cells = "".join(f"{v:>13.1f}" for v in max(found))
            lines.append(f"{f'{label} (n={len(found)})':<52}{cells}")
    return "\n".join(lines)


def table(rows: Sequence[tuple[str, dict[str, float], int]]) -> str:
    """Rows of (label, medians, n) as text, each phase in ms."""
    head = f"{'where a key goes (median ms)':<52}" + "".join(f"{p:>13}" for p in PHASES) + f"{'sum':>8}"
    lines = [head]
    for label, phases, n in rows:
        if not phases:
            lines.append(f"{label + ' (no frame found)':<52}")
            continue
        cells = "".join(f"{phases[p]:>13.1f}" for p in PHASES)
        lines.append(f"{f'{label} (n={n})':<52}{cells}{sum(phases.values()):>8.1f}")
    return "\n".join(lines)
