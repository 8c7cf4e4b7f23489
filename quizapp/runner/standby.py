"""Provides the standby pool behind run_solution: a child process of the same interpreter, started ahead
of time with NumPy already imported, that waits on its stdin for one job, runs it under the limits and
exits. Each job still gets a process of its own that runs nothing else, so a submission never sees state
left by another; the pool only moves the interpreter's start and NumPy's import out of the learner's wait.

```python
POOL.warm()                       # when a code question appears: start a standby in the background
done = POOL.run(source, "softmax", lambda: pickle.dumps(cases), time_limit=5.0, memory_limit=1 << 30)
done.report, done.arrays          # the child's JSON report, and each case's output as raw bytes
```

The job goes down the child's stdin and its report comes up its stdout (quizapp.runner.standby_process:
one standby, and the protocol), so the parent stops reading at the report's end and the child's exit is
reaped in the background.

The standby exits when its stdin closes (so it never outlives the parent, however the parent ends),
`close()` (also run at exit) kills it, and a standby that died or is not there is replaced by one
started on demand: slower, never wrong. Safe to use from any thread.
"""

from __future__ import annotations

import atexit
import contextlib
import threading
import time
from collections.abc import Callable

from quizapp.runner import confine
from quizapp.runner.standby_process import Finished, Standby, child_program

OUTPUT_LIMIT = 2000
"""Characters of the learner's printed output kept for the verdict."""
HOUSEKEEPING_DELAY_S = 0.05
"""After a job, the pause before its child is reaped and the next standby started, so the parent's own
work (comparing, drawing the verdict) goes first."""


class StandbyPool:
    """At most one standby waiting; each job takes it (or starts a process on demand). Shortly after a
    job, a housekeeping thread reaps the child that ran it and, while the pool is kept warm, starts a new
    standby for the next job: neither lands on the learner's wait."""

    def __init__(self, output_limit: int = OUTPUT_LIMIT) -> None:
        confine.become_subreaper()
        self._child = child_program(output_limit)
        self._lock = threading.Lock()
        self._standby: Standby | None = None
        self._keep_warm = False
        self._running: set[Standby] = set()
        self._ending: list[Standby] = []
        self._house: threading.Thread | None = None
        self._house_lock = threading.Lock()
        """Held by housekeeping while it works, and by close()."""
        self._wake = threading.Event()
        """Set after a job: housekeeping has work."""
        self._idle = threading.Event()
        """Set when housekeeping has done all it was woken for."""
        self._idle.set()
        self._closing = threading.Event()
        self.last_pid: int | None = None
        """The process that ran the last job (for tests and the benchmark)."""
        self.last_was_warm = False
        """Whether the last job went to a standby started ahead of time."""

    def warm(self, *, keep: bool = True) -> None:
        """Starts a standby if none is waiting (returns at once: the child imports on its own). With
        `keep`, a new one is started after every job, for the next."""
        with self._lock:
            self._keep_warm = self._keep_warm or keep
            self._fill_locked()

    def wait_ready(self, timeout: float = 10.0) -> bool:
        """Waits until the standby has imported NumPy and waits for a job (benchmarks, tests)."""
        end = time.monotonic() + timeout
        self._idle.wait(timeout)
        with self._lock:
            standby = self._standby
            return standby is not None and standby.wait_ready(max(end - time.monotonic(), 0.0))

    @property
    def standby_pid(self) -> int | None:
        with self._lock:
            return self._standby.pid if self._standby is not None else None

    def run(
        self,
        source: str,
        function: str,
        inputs: Callable[[], bytes],
        *,
        time_limit: float,
        memory_limit: int,
        meanwhile: Callable[[], object] | None = None,
    ) -> Finished:
        """Runs one job in a process of its own (the standby if one waits, else one started now), which
        has ended or is ending when this returns; it is reaped in the background. `meanwhile` runs here
        once, while the child works (the parent's own share: the reference's outputs)."""
        pending = [meanwhile] if meanwhile is not None else []
        drawn: list[bytes] = []

        def once() -> None:
            if pending:
                pending.pop()()

        def data() -> bytes:
            if not drawn:
                drawn.append(inputs())
            return drawn[0]

        with self._lock:
            waiting, self._standby = self._standby, None
        try:
            standby, done = self._run(waiting, source, function, data, memory_limit, time_limit, once)
            if not done.started and not done.timed_out:
                # It died before taking the job (killed from outside, or it could not start): once more,
                # in a process started now; the learner's code has not run.
                self._end(standby)
                standby, done = self._run(None, source, function, data, memory_limit, time_limit, once)
            self.last_pid, self.last_was_warm = standby.pid, standby is waiting
            self._end(standby)
            once()  # however the job went
            return done
        finally:
            self._housekeeping_soon()

    def _run(
        self,
        standby: Standby | None,
        source: str,
        function: str,
        inputs: Callable[[], bytes],
        memory: int,
        seconds: float,
        meanwhile: Callable[[], object],
    ) -> tuple[Standby, Finished]:
        if standby is not None and not standby.alive():
            self._end(standby)
            standby = None
        if standby is None:
            standby = Standby(self._child)
        with self._lock:
            self._running.add(standby)
        try:
            return standby, standby.run(source, function, inputs, memory, seconds, meanwhile)
        except BaseException:
            standby.discard()
            raise
        finally:
            with self._lock:
                self._running.discard(standby)

    def _end(self, standby: Standby) -> None:
        with self._lock:
            self._ending.append(standby)

    def close(self) -> None:
        """Kills the standby and any job still running, and reaps every child: none is left behind. The
        pool can be warmed again."""
        with self._lock:
            self._keep_warm = False
        self._closing.set()  # cuts the housekeeping pause short
        with self._house_lock:  # a refill under way finishes first, so its standby is seen here
            with self._lock:
                standby, self._standby = self._standby, None
                ending, self._ending = self._ending, []
                running = list(self._running)
            for child in running:  # the job's own thread sees its end, then hands it to _ending
                child.kill()
            for child in [*ending, *([standby] if standby is not None else [])]:
                child.discard()
            self._closing.clear()

    def _fill_locked(self) -> None:
        if self._standby is not None and not self._standby.alive():
            self._ending.append(self._standby)
            self._standby = None
        if self._standby is None:
            self._standby = Standby(self._child)
        self._start_house_locked()

    def _start_house_locked(self) -> None:
        """The housekeeping thread lives as long as the app, waiting; starting one per job would put a
        thread's start on the learner's wait."""
        if self._house is None or not self._house.is_alive():
            self._house = threading.Thread(target=self._housekeeping, name="quizapp-standby", daemon=True)
            self._house.start()

    def _housekeeping_soon(self) -> None:
        with self._lock:
            self._idle.clear()
            self._start_house_locked()
        self._wake.set()

    def _housekeeping(self) -> None:
        """After each job and a short pause (the verdict is drawn first): reaps ended children, refills.
        First, once per app: removes the run folders an app that was killed left behind. Nothing a run
        left (a folder too deep, a child that resists) may end this thread: every error is swallowed, and
        the next round tries again."""
        with contextlib.suppress(Exception):
            confine.clean_stale_folders()
        while True:
            try:
                self._housekeeping_round()
            except Exception:  # (the thread must outlive whatever a round met)
                with contextlib.suppress(Exception):
                    self._idle.set()
                time.sleep(HOUSEKEEPING_DELAY_S)

    def _housekeeping_round(self) -> None:
        self._wake.wait()
        self._closing.wait(HOUSEKEEPING_DELAY_S)
        with self._house_lock:
            self._wake.clear()
            with self._lock:
                ending, self._ending = self._ending, []
                if self._keep_warm:
                    with contextlib.suppress(Exception):
                        self._fill_locked()
            for child in ending:
                with contextlib.suppress(Exception):
                    child.discard()
            with self._lock:
                if not self._wake.is_set():
                    self._idle.set()


POOL = StandbyPool()
"""The process-wide pool run_solution uses."""


def warm(*, keep: bool = True) -> None:
    """Starts the shared standby (see StandbyPool.warm); never raises: a failure means a cold start."""
    with contextlib.suppress(OSError):
        POOL.warm(keep=keep)


def warm_soon() -> None:
    """warm(), in a short-lived thread: for a caller that must not wait even for a process to start."""
    threading.Thread(target=warm, name="quizapp-standby-warm", daemon=True).start()


def _close_at_exit() -> None:
    """POOL.close as the app exits: whatever it meets, no traceback on the way out."""
    with contextlib.suppress(Exception):
        POOL.close()


atexit.register(_close_at_exit)
