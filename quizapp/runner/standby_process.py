"""Provides one standby of the pool (quizapp.runner.standby): a child process of the same interpreter,
started ahead of time with NumPy already imported, that waits on its stdin for one job, runs it under the
limits and exits; and the protocol the job and its answer travel by.

The job goes down the child's stdin: first the source, which the child compiles and runs at once, then
the inputs, pickled by the parent, which draws them meanwhile. The answer comes up its stdout: a JSON
report (with each output's dtype and shape) and the outputs' raw bytes (never a pickle), ended by a
trailer, so the parent stops reading at the report's end and the child's exit is reaped in the
background.
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import selectors
import signal
import subprocess
import sys
import tempfile
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


class Standby:
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


def child_program(output_limit: int) -> str:
    """The program a standby runs (quizapp.runner.standby_child.CHILD) with its __NAMES__ filled in: the
    limits (`output_limit` characters of printed output kept) and this protocol's markers."""
    return (
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
