"""Provides the standby pool behind run_solution: a child process of the same interpreter, started ahead
of time with NumPy already imported, that waits on its stdin for one job, runs it under the limits and
exits. Each job still gets a process of its own that runs nothing else, so a submission never sees state
left by another; the pool only moves the interpreter's start and NumPy's import out of the learner's wait.

```python
POOL.warm()                       # when a code question appears: start a standby in the background
done = POOL.run(source, "softmax", lambda: pickle.dumps(cases), time_limit=5.0, memory_limit=1 << 30)
done.report, done.arrays          # the child's JSON report, and each case's output as raw bytes
```

The job goes down the child's stdin: first the source, which the child compiles and runs at once, then
the inputs, pickled by the parent, which draws them meanwhile. The answer comes up its stdout: a JSON
report (with each output's dtype and shape) and the outputs' raw bytes (never a pickle), ended by a
trailer, so the parent stops reading at the report's end and the child's exit is reaped in the
background.

The standby exits when its stdin closes (so it never outlives the parent, however the parent ends),
`close()` (also run at exit) kills it, and a standby that died or is not there is replaced by one
started on demand: slower, never wrong. Safe to use from any thread.
"""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import secrets
import selectors
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

try:
    import fcntl
except ImportError:  # not on Windows: the pipes keep the system's size (see _widen)
    fcntl = None  # type: ignore[assignment]

from quizapp.runner import confine
from quizapp.runner.standby_child import CHILD

OUTPUT_LIMIT = 2000
"""Characters of the learner's printed output kept for the verdict."""
STDOUT_KEPT = 48 << 20
"""Bytes of the child's stdout kept (its tail): the report and its arrays (at most SENT_LIMIT) end it."""
STDERR_KEPT = 4096
"""Bytes of the child's stderr read back (its tail), for a crash's last line."""

_READY, _RUNNING = b"quizapp-standby-ready ", b"quizapp-standby-running\n"
"""The ready line goes on with "confined", or "limits " and why not, and a newline."""
_END = b"\nquizapp-standby-end "
_TOKEN_CHARS = 16
_TRAILER = len(_END) + _TOKEN_CHARS + 1 + 17
"""The report's trailer: the marker, the job's token, then the report's length in 16 digits and a newline.
The token, new for each job, keeps a trailer the learner's code writes to stdout from passing for ours."""
ARRAY_LIMIT = 4 << 20
"""Bytes of one output sent back: an answer is far smaller; a larger array is reported by its shape."""
HEAD_LIMIT = 4 << 20
"""Bytes of the learner's process's JSON report the trusted side reads at most (errors, printed text)."""
ERROR_LIMIT = 8000
"""Characters of one case's error kept (the learner's frames, and the exception's text)."""
SENT_LIMIT = 32 << 20
"""Bytes of all the outputs of one run sent back; the cases past it are reported as too large."""
_POSIX = sys.platform != "win32"
PIPE_BYTES = 1 << 20
"""The pipes' size, where Linux lets it be set (its default cap): a job's inputs, often 100 to 300 KB, go
in one write instead of a wake-up of each side for every 64 KiB."""
SPIN_S = 0.003
"""How long the parent polls for the child's answer before it sleeps on it: most jobs end within it,
and a poll answers sooner than a wake-up from sleep (which on an idle core also finds it slowed down)."""
HOUSEKEEPING_DELAY_S = 0.05
"""After a job, the pause before its child is reaped and the next standby started, so the parent's own
work (comparing, drawing the verdict) goes first."""


@dataclass
class Finished:
    """How one job ended: the child's report and its arrays (each an output's raw bytes, empty for a
    case that failed), or, when no report came, why (stderr's tail, the exit code, the time limit)."""

    report: dict[str, Any] | None
    arrays: list[bytes]
    stderr: str
    returncode: int | None
    timed_out: bool
    started: bool
    """The child took the job (it said so before running any of the learner's code)."""
    confined: bool = False
    """The run was confined (namespaces), not only limited; `why` says why not."""
    why: str = ""
    malformed: bool = False
    """The learner's process answered with something that is not a report (a forgery, or bytes)."""


class _Standby:
    """One child process, started, maybe still importing; used for one job at most."""

    def __init__(self, child_source: str) -> None:
        self.folder = confine.new_folder()
        env = {"PATH": os.environ.get("PATH", ""), "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"}
        # The child's stderr is a file with no name (not in its folder, where the child could put a link
        # or a pipe in its place): this side reads it through the descriptor it opened, never by name.
        self._err = tempfile.TemporaryFile()  # noqa: SIM115 (kept open as long as the child: closed in discard)
        try:
            self.proc = subprocess.Popen(
                [sys.executable, "-I", "-S", "-c", child_source, str(self.folder), confine.child_conf()],
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._err, cwd=self.folder, env=env,
                start_new_session=_POSIX,
            )  # fmt: skip
        except BaseException:
            self._err.close()
            confine.remove_folder(self.folder)
            raise
        for pipe in (self.proc.stdin, self.proc.stdout):
            if pipe is not None:
                _widen(pipe.fileno())
        self._seen = b""
        """What wait_ready read of the ready line so far."""
        self.confined = False
        self.why = ""
        self.killed = False
        """This side killed it (a time limit, a close): any other SIGKILL came from outside."""

    @property
    def pid(self) -> int:
        return self.proc.pid

    @property
    def ready(self) -> bool:
        return self._seen.startswith(_READY) and self._seen.endswith(b"\n")

    def alive(self) -> bool:
        return self.proc.poll() is None

    def wait_ready(self, timeout: float) -> bool:
        """Reads the child's ready line (nothing else comes before a job is sent)."""
        assert self.proc.stdout is not None
        fd, end = self.proc.stdout.fileno(), time.monotonic() + timeout
        with selectors.DefaultSelector() as sel:
            sel.register(fd, selectors.EVENT_READ)
            while not self._seen.endswith(b"\n") and len(self._seen) < 1024:
                if not sel.select(max(end - time.monotonic(), 0.0)):
                    return False
                chunk = os.read(fd, 1024)  # the child writes nothing more before it has a job
                if not chunk:
                    return False
                self._seen += chunk
        state = self._seen.removeprefix(_READY).decode("utf-8", "replace").strip()
        self.confined, self.why = state == "confined", state.removeprefix("limits").strip()
        return self.ready

    def run(
        self,
        source: str,
        function: str,
        inputs: Callable[[], bytes],
        memory: int,
        time_limit: float,
        meanwhile: Callable[[], object] | None = None,
    ) -> Finished:
        """Sends the code; draws the `inputs` and sends them while the child compiles it; runs `meanwhile`
        here while the child works; then reads the child's stdout until its report ends, it closes, or the
        time limit passes (then the child is killed)."""
        assert self.proc.stdin is not None and self.proc.stdout is not None
        token = secrets.token_hex(_TOKEN_CHARS // 2).encode()
        head = {"function": function, "source": source, "memory": memory, "seconds": time_limit}
        head["token"] = token.decode()
        if not self.ready:
            self.wait_ready(10.0)  # a cold start: its ready line says whether it is confined
        if self.ready and not self.confined:
            confine.shield_app()  # nothing else hides the app's /proc entries from the learner's code
        out, payload, timed_out = bytearray(), None, False
        stdin, stdout = self.proc.stdin.fileno(), self.proc.stdout.fileno()
        os.set_blocking(stdin, False)
        job = self._send(memoryview(json.dumps(head).encode() + b"\n"))
        data = inputs()
        deadline = time.monotonic() + time_limit
        job = self._send(memoryview(bytes(job) + b"%d\n" % len(data) + data))
        if not job:
            self.proc.stdin.close()  # the job is all there: the child sees the pipe's end after it
        if meanwhile is not None:
            meanwhile()
            deadline = max(deadline, time.monotonic() + 0.1)  # the parent's own work is not the child's
        spin_until = time.monotonic() + SPIN_S
        with selectors.DefaultSelector() as sel:
            sel.register(stdout, selectors.EVENT_READ)
            if job:
                sel.register(stdin, selectors.EVENT_WRITE)
            while payload is None:
                now = time.monotonic()
                left = deadline - now
                events = sel.select(0 if now < spin_until else left) if left > 0 else []
                if not events and now < spin_until:
                    continue
                if not events:
                    timed_out = True
                    break
                for key, _ in events:
                    if key.fd == stdin:
                        job = self._send(job)
                        if not job:
                            sel.unregister(stdin)
                            self.proc.stdin.close()
                        continue
                    chunk = os.read(stdout, 1 << 16)
                    if not chunk:
                        payload = b""
                        break
                    out += chunk
                    if len(out) > 2 * STDOUT_KEPT:
                        del out[: len(out) - STDOUT_KEPT]
                    payload = _payload(out, token)
        if timed_out or not payload:  # no report: let it end (or end it) to read how
            self.kill(wait=max(deadline - time.monotonic(), 0.0) if not timed_out else 0.0)
        report, arrays = _parse(payload or b"")
        started = _RUNNING in out or report is not None
        returncode, malformed = self.proc.returncode, False
        if report is not None and "ended" in report:  # the learner's process ended without a report
            ended = report["ended"]
            returncode = ended if type(ended) is int else None
            malformed, report = report.get("malformed") is True, None
            self.kill(wait=1.0)
        elif report is None and self.proc.returncode == -signal.SIGKILL and not self.killed:
            # Killed from outside (the learner's code cannot signal it) as it took the job: the job is
            # run again, in a new process, as if this one had never taken it.
            started = False
        stderr = "" if report is not None else self._stderr()
        done = Finished(report, arrays, stderr, returncode, timed_out, started, self.confined, self.why)
        done.malformed = malformed
        return done

    def _send(self, job: memoryview) -> memoryview:
        """Writes what the pipe takes of the job; returns what is left."""
        assert self.proc.stdin is not None
        try:
            return job[os.write(self.proc.stdin.fileno(), job) :]
        except BlockingIOError:
            return job
        except OSError:  # it died: the caller sees that it never took the job
            return job[len(job) :]

    def _stderr(self) -> str:
        """The tail of the child's stderr, read from this side's own descriptor (never by name)."""
        try:
            fd = self._err.fileno()
            size = os.fstat(fd).st_size
            return os.pread(fd, STDERR_KEPT, max(size - STDERR_KEPT, 0)).decode("utf-8", "replace")
        except (OSError, ValueError):
            return ""

    def kill(self, wait: float = 0.0) -> None:
        """Gives it `wait` seconds to end, then kills it (and what it started in its session); reaps it."""
        if wait > 0:
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.proc.wait(wait)
        if self.proc.poll() is None:
            self.killed = True
            with contextlib.suppress(OSError):
                if _POSIX:
                    os.killpg(self.proc.pid, signal.SIGKILL)
                else:  # pragma: no cover
                    self.proc.kill()
        self.proc.wait()
        with contextlib.suppress(OSError):
            if _POSIX:
                os.killpg(self.proc.pid, signal.SIGKILL)  # what is left of its group, if anything
        confine.kill_strays(self.proc.pid)

    def discard(self) -> None:
        """Kills it, closes the pipes and its stderr, and removes its folder."""
        self.kill()
        for pipe in (self.proc.stdin, self.proc.stdout, self._err):
            if pipe is not None:
                with contextlib.suppress(OSError):
                    pipe.close()
        confine.remove_folder(self.folder)


def _widen(fd: int) -> None:
    """Sets the pipe's size to PIPE_BYTES where the system allows (Linux); elsewhere it stays as it is."""
    if fcntl is None:
        return
    with contextlib.suppress(AttributeError, OSError):
        fcntl.fcntl(fd, fcntl.F_SETPIPE_SZ, PIPE_BYTES)


def _payload(out: bytearray, token: bytes) -> bytes | None:
    """The report and arrays, once the child's stdout ends with their trailer (with this job's token)."""
    if len(out) < _TRAILER or not out.endswith(b"\n") or out[-_TRAILER:-17] != _END + token + b" ":
        return None
    digits = bytes(out[-17:-1])
    if not digits.isdigit() or int(digits) > len(out) - _TRAILER:
        return None
    size = int(digits)
    return bytes(out[len(out) - _TRAILER - size : len(out) - _TRAILER])


def _parse(payload: bytes) -> tuple[dict[str, Any] | None, list[bytes]]:
    head, _, rest = payload.partition(b"\n")
    try:
        report = json.loads(head)
        sizes = [int(n) for n in report.pop("sizes")]
    except (ValueError, TypeError, KeyError, AttributeError, RecursionError, MemoryError):
        return None, []
    if not isinstance(report, dict) or sum(sizes) != len(rest):
        return None, []
    arrays, at = [], 0
    for n in sizes:
        arrays.append(rest[at : at + n])
        at += n
    return report, arrays


class StandbyPool:
    """At most one standby waiting; each job takes it (or starts a process on demand). Shortly after a
    job, a housekeeping thread reaps the child that ran it and, while the pool is kept warm, starts a new
    standby for the next job: neither lands on the learner's wait."""

    def __init__(self, output_limit: int = OUTPUT_LIMIT) -> None:
        confine.become_subreaper()
        self._child = (
            CHILD.replace("__OUTPUT_LIMIT__", str(output_limit + 1))
            .replace("__ERROR_LIMIT__", str(ERROR_LIMIT))
            .replace("__HEAD_LIMIT__", str(HEAD_LIMIT))
            .replace("__FILE_LIMIT__", str(confine.FILE_LIMIT_BYTES))
            .replace("__ARRAY_LIMIT__", str(ARRAY_LIMIT))
            .replace("__SENT_LIMIT__", str(SENT_LIMIT))
            .replace("__READY__", repr(_READY))
            .replace("__RUNNING__", repr(_RUNNING))
            .replace("__END__", repr(_END))
        )
        self._lock = threading.Lock()
        self._standby: _Standby | None = None
        self._keep_warm = False
        self._running: set[_Standby] = set()
        self._ending: list[_Standby] = []
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
        standby: _Standby | None,
        source: str,
        function: str,
        inputs: Callable[[], bytes],
        memory: int,
        seconds: float,
        meanwhile: Callable[[], object],
    ) -> tuple[_Standby, Finished]:
        if standby is not None and not standby.alive():
            self._end(standby)
            standby = None
        if standby is None:
            standby = _Standby(self._child)
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

    def _end(self, standby: _Standby) -> None:
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
            self._standby = _Standby(self._child)
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
