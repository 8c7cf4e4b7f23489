"""Provides TtySession: a program in a pseudo-terminal, keys sent to it, and the time until text appears.

The parent reads everything the child writes. Escape sequences (cursor moves, colours, mode switches) are
stripped, so a word the app writes in one segment can be searched for in the plain text. A key's time is
from just before its bytes are written to the pty until the read that completes the expected text.

The probe (a sitecustomize module put first on the child's PYTHONPATH, so the app itself is unchanged)
logs each garbage collection of 1 ms or more, and each time the asyncio event loop woke late from a 5 ms
sleep (a stall of the UI thread), with wall-clock stamps the parent can put in its own time windows.
"""

from __future__ import annotations

import codecs
import contextlib
import fcntl
import os
import re
import select
import signal
import struct
import termios
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

ANSI = re.compile(
    r"\x1b\[[0-?]*[ -/]*[@-~]"  # CSI: cursor moves, colours, modes
    r"|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)"  # OSC: title, clipboard
    r"|\x1bP[^\x1b]*\x1b\\"  # DCS
    r"|\x1b[()][0-9A-Za-z]"  # charset
    r"|\x1b[@-Z\\-_=>78]"  # other two-byte escapes
)
KEYS = {
    "enter": b"\r",
    "escape": b"\x1b",
    "space": b" ",
    "tab": b"\t",
    "ctrl+o": b"\x0f",
    "ctrl+z": b"\x1a",
    "ctrl+s": b"\x13",
    "down": b"\x1b[B",
    "up": b"\x1b[A",
}


class MarkerTimeout(RuntimeError):
    """The expected text never reached the terminal in time; `transcript` is all the child wrote."""

    def __init__(self, message: str, transcript: str = "") -> None:
        super().__init__(message)
        self.transcript = transcript


def strip(text: str) -> str:
    return ANSI.sub("", text)


@dataclass(frozen=True)
class Hit:
    seconds: float
    """From the key (or the launch) to the read that completed the marker."""
    match: re.Match[str]
    text: str
    """Everything written (escape sequences stripped) from the key up to and including that read."""


class TtySession:
    """One child in a pty of `cols` x `rows`; always `close()` it (it kills the child's process group)."""

    def __init__(
        self,
        argv: Sequence[str],
        env: dict[str, str],
        *,
        cols: int = 100,
        rows: int = 32,
        cwd: str | None = None,
    ) -> None:
        self.argv = list(argv)
        self.started = time.perf_counter()
        self.started_wall = time.time()
        pid, fd = os.forkpty()
        if pid == 0:  # the child: becomes the program
            try:
                fcntl.ioctl(0, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
                if cwd:
                    os.chdir(cwd)
                os.execvpe(self.argv[0], self.argv, env)
            finally:
                os._exit(127)
        self.pid, self.fd = pid, fd
        fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self._raw = ""
        """Raw text since the last key, escapes included (stripped when searched)."""
        self.transcript: list[str] = []
        """Raw text of the whole session (for a failure's message)."""
        self.exit_status: int | None = None

    # -- reading ----------------------------------------------------------------------------------------

    def _read(self, timeout: float) -> bool:
        """Reads what is there within `timeout` seconds; False if nothing came (or the child is gone)."""
        ready, _, _ = select.select([self.fd], [], [], max(0.0, timeout))
        if not ready:
            return False
        try:
            data = os.read(self.fd, 1 << 16)
        except OSError:  # EIO: the child closed the terminal
            self._reap()
            return False
        if not data:
            self._reap()
            return False
        text = self._decoder.decode(data)
        self._raw += text
        self.transcript.append(text)
        return True

    def _reap(self) -> None:
        if self.exit_status is None:
            try:
                pid, status = os.waitpid(self.pid, os.WNOHANG)
            except ChildProcessError:
                self.exit_status = -1
                return
            if pid:
                self.exit_status = os.waitstatus_to_exitcode(status)

    @property
    def alive(self) -> bool:
        self._reap()
        return self.exit_status is None

    def text(self) -> str:
        """What was written since the last key, escape sequences stripped."""
        return strip(self._raw)

    def wait_for(
        self,
        pattern: str | re.Pattern[str],
        timeout: float,
        what: str,
        since: float,
        accept: Callable[[re.Match[str]], bool] | None = None,
    ) -> Hit:
        """Reads until `pattern` (a regex; with `accept`, a match it accepts) is in the text written since
        the last key; its time is from `since` (perf_counter). Raises MarkerTimeout naming `what` and the
        pattern if it never appears."""
        regex = re.compile(pattern) if isinstance(pattern, str) else pattern
        deadline = time.perf_counter() + timeout
        while True:
            plain = self.text()
            found = next((m for m in regex.finditer(plain) if accept is None or accept(m)), None)
            if found:
                return Hit(time.perf_counter() - since, found, plain)
            left = deadline - time.perf_counter()
            if left <= 0 or (not self._read(left) and not self.alive):
                if not self.alive:
                    raise MarkerTimeout(
                        f"{what}: the program exited (status {self.exit_status}) before {regex.pattern!r} "
                        f"appeared; its last output:\n{self.tail()}",
                        "".join(self.transcript),
                    )
                if time.perf_counter() >= deadline:
                    raise MarkerTimeout(
                        f"{what}: {regex.pattern!r} never appeared within {timeout:.0f} s; the last text "
                        f"written was:\n{self.tail()}",
                        "".join(self.transcript),
                    )

    def settle(self, quiet: float = 0.08, limit: float = 2.0) -> None:
        """Reads until nothing has been written for `quiet` seconds (at most `limit` seconds)."""
        end = time.perf_counter() + limit
        while time.perf_counter() < end and self._read(min(quiet, end - time.perf_counter())):
            pass

    def tail(self, chars: int = 1500) -> str:
        return strip("".join(self.transcript))[-chars:]

    # -- writing ----------------------------------------------------------------------------------------

    def wall(self, perf: float) -> float:
        """A perf_counter reading as wall-clock time (the probe's clock)."""
        return self.started_wall + (perf - self.started)

    def key(self, key: str) -> float:
        """Sends one key (a name in KEYS, or literal text); returns the perf_counter just before it."""
        self._raw = ""
        data = KEYS.get(key, key.encode())
        t = time.perf_counter()
        os.write(self.fd, data)
        return t

    def type(self, text: str) -> None:
        """Types text one character at a time, letting each echo arrive (not timed)."""
        for ch in text:
            self.key(ch)
            self.settle(quiet=0.02, limit=0.5)

    # -- the child --------------------------------------------------------------------------------------

    def rss_mib(self) -> float | None:
        """The child's resident memory (VmRSS of /proc/<pid>/status), in MiB."""
        try:
            for line in Path(f"/proc/{self.pid}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
        except OSError:
            return None
        return None

    def close(self) -> None:
        """Kills the child (its whole process group: workers, the code standby) and closes the pty."""
        if self.alive:
            for sig in (signal.SIGTERM, signal.SIGKILL):
                try:
                    os.killpg(self.pid, sig)
                except ProcessLookupError:
                    break
                end = time.perf_counter() + 2
                while time.perf_counter() < end and self.alive:
                    self._read(0.05)
                if not self.alive:
                    break
        with contextlib.suppress(OSError):
            os.close(self.fd)

    def __enter__(self) -> TtySession:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


# -- the probe ----------------------------------------------------------------------------------------------

PROBE = '''"""Benchmark probe (benchmarks/tty_session.py): logs GC pauses and event-loop stalls."""
import gc, os, time

_path = os.environ.get("QUIZAPP_BENCH_PROBE")
if _path:
    _out = open(_path, "a", buffering=1)
    _start = [0.0]

    def _gc(phase, info):
        if phase == "start":
            _start[0] = time.perf_counter()
            return
        took = time.perf_counter() - _start[0]
        if took >= 0.001:
            gen = info.get("generation")
            _out.write(f"gc {time.time():.6f} {took * 1000:.3f} {gen}\\n")

    gc.callbacks.append(_gc)

    import asyncio.base_events as _base

    _run_forever = _base.BaseEventLoop.run_forever

    def run_forever(self):
        if not getattr(self, "_bench_watch", False):
            self._bench_watch = True

            async def watch():
                import asyncio
                while True:
                    t = time.perf_counter()
                    await asyncio.sleep(0.005)
                    late = time.perf_counter() - t - 0.005
                    if late >= 0.004:
                        _out.write(f"lag {time.time():.6f} {late * 1000:.3f}\\n")

            self.call_soon(lambda: self.create_task(watch()))
            if os.environ.get("QUIZAPP_BENCH_STACKS"):
                _sample_stalls()
        return _run_forever(self)

    def _sample_stalls():
        """With --stacks: a thread that looks at the event loop's stack every 5 ms while the loop has not
        ticked for 20 ms, so a stall's log names the code it sat in."""
        import sys, threading, traceback

        loop_thread = threading.get_ident()
        beat = [time.perf_counter()]

        def tick():
            beat[0] = time.perf_counter()
            import asyncio
            asyncio.get_event_loop().call_later(0.002, tick)

        import asyncio
        asyncio.get_event_loop().call_soon(tick)

        def sample():
            while True:
                time.sleep(0.005)
                stale = time.perf_counter() - beat[0]
                if stale < 0.02:
                    continue
                frame = sys._current_frames().get(loop_thread)
                if frame is None:
                    continue
                stack = traceback.extract_stack(frame)[-40:]
                names = [f"{f.filename.rsplit('/', 2)[-1]}:{f.lineno}:{f.name}" for f in reversed(stack)]
                where = " < ".join(names)
                _out.write(f"stack {time.time():.6f} {stale * 1000:.0f} {where}\\n")

        threading.Thread(target=sample, daemon=True).start()

    _base.BaseEventLoop.run_forever = run_forever
'''


def write_probe(folder: Path, extra: str = "") -> Path:
    """Writes the probe as `sitecustomize.py` in `folder` (put that folder first on PYTHONPATH), with
    `extra` (more of the probe, such as benchmarks/tty_timeline.py's) after it."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "sitecustomize.py").write_text(PROBE + extra)
    return folder


@dataclass(frozen=True)
class ProbeLog:
    gcs: tuple[tuple[float, float, int], ...]
    """(wall time, ms, generation) of each collection of 1 ms or more."""
    lags: tuple[tuple[float, float], ...]
    """(wall time, ms late) of each wake-up at least 4 ms late."""

    def max_gc(self, start: float, end: float) -> float:
        return max((ms for t, ms, _ in self.gcs if start <= t <= end), default=0.0)

    def gcs_between(self, start: float, end: float) -> list[tuple[float, float, int]]:
        return [g for g in self.gcs if start <= g[0] <= end]

    def during(self, waits: Sequence[tuple[float, float]]) -> tuple[list[tuple[float, int]], list[float]]:
        """The collections and stalls (ms) that overlapped one of `waits` (wall-clock spans from a key
        to its text on screen): what a key actually waited for, collections as (ms, generation). Both
        are logged when they end."""

        def overlaps(end: float, ms: float) -> bool:
            start = end - ms / 1000
            return any(start < w_end and end > w_start for w_start, w_end in waits)

        return (
            [(ms, gen) for t, ms, gen in self.gcs if overlaps(t, ms)],
            [ms for t, ms in self.lags if overlaps(t, ms + 5)],  # a stall is counted from the tick it missed
        )

    def max_lag(self, start: float, end: float) -> float:
        """The longest stall in the window; a stall is logged when it ends, so one that began before
        `start` and ended inside counts too."""
        return max((ms for t, ms in self.lags if start <= t <= end), default=0.0)


def read_probe(path: Path) -> ProbeLog:
    gcs, lags = [], []
    if path.exists():
        for line in path.read_text().splitlines():
            parts = line.split()
            if parts[:1] == ["gc"] and len(parts) >= 4:
                gcs.append((float(parts[1]), float(parts[2]), int(parts[3])))
            elif parts[:1] == ["lag"] and len(parts) >= 3:
                lags.append((float(parts[1]), float(parts[2])))
    return ProbeLog(tuple(gcs), tuple(lags))
