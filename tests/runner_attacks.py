"""Helpers for the attack suites on the code runner (tests/test_runner_*.py): the three paths, a learner's
submission that attacks and prints what it reached, a bystander process to aim at, and raw system calls
by name (the numbers come from quizapp.runner.seccomp's tables, so an attack calls exactly what the
filter decides on)."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import textwrap
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from quizapp.grading.code import CodeVerdict, grade_code
from quizapp.runner import confine, seccomp
from quizapp.runner.standby import POOL

PATHS = ("confined", "landlock", "limits")
STUB = "\ndef softmax(x, axis=-1):\n    return x\n"
LINUX_SECCOMP = sys.platform.startswith("linux") and seccomp.numbers(os.uname().machine) is not None


def on_path(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Makes the next run take path `name` (skips where this kernel does not offer it)."""
    if name == "confined":
        monkeypatch.delenv(confine.FORCE_ENV, raising=False)
    else:
        monkeypatch.setenv(confine.FORCE_ENV, "limits" if name == "landlock" else "plain")
    confine.probe.cache_clear()
    confined, why = confine.probe()
    confine.probe.cache_clear()
    if name == "confined" and not confined:
        pytest.skip(f"namespaces are refused on this machine: {why}")
    if name == "landlock" and not why.startswith("landlock"):
        pytest.skip("this kernel has no Landlock")
    POOL.close()  # the next run starts a child with this path's setting


@pytest.fixture(params=PATHS)
def path(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    on_path(request.param, monkeypatch)
    yield request.param
    POOL.close()
    confine.probe.cache_clear()


def attack(body: str, **kw: object) -> CodeVerdict:
    """Grades `body` (dedented) followed by a softmax stub: the verdict's printed text is what it reached."""
    return grade_code("code-softmax", textwrap.dedent(body) + STUB, seed=0, **kw)  # type: ignore[arg-type]


def printed_lines(verdict: CodeVerdict, prefix: str) -> dict[str, str]:
    """The lines `prefix name value` the attack printed, as {name: value}."""
    found = {}
    for line in verdict.printed.splitlines():
        if line.startswith(prefix + " "):
            name, _, value = line.removeprefix(prefix + " ").partition(" ")
            found[name] = value
    return found


def raw_calls(calls: dict[str, str]) -> str:
    """Learner code that makes each raw system call `name: "args as Python"` and prints `CALL name errno`
    (0: it succeeded). The arguments may use `buf` (a zeroed 4 KiB buffer) and `ct` (ctypes)."""
    table = seccomp.numbers(os.uname().machine) or {}
    lines = [
        "import ctypes as ct, os",
        "libc = ct.CDLL(None, use_errno=True)",
        "libc.syscall.restype = ct.c_long",
        "buf = ct.create_string_buffer(4096)",
        "def call(name, nr, *args):",
        "    ct.set_errno(0)",
        "    result = libc.syscall(ct.c_long(nr), *args)",
        "    print('CALL', name, ct.get_errno() if result == -1 else 0, flush=True)",
    ]
    for name, args in calls.items():
        key = name.split(":")[0]
        if key in table:
            lines.append(f"call({name!r}, {table[key]}{', ' + args if args else ''})")
    return "\n".join(lines) + "\n"


@contextlib.contextmanager
def bystander(user: int | None = None) -> Iterator[int]:
    """A process that sleeps, to be aimed at (as `user` where given); yields its pid, kills it after."""
    kw: dict[str, object] = {}
    if user is not None:
        kw["user"] = user
    sleep = shutil.which("sleep")
    command = [sleep, "120"] if sleep else [sys.executable, "-c", "import time; time.sleep(120)"]
    proc = subprocess.Popen(command, stdin=subprocess.DEVNULL, **kw)  # type: ignore[call-overload]
    try:
        yield proc.pid
    finally:
        proc.kill()
        proc.wait()


def alive(pid: int) -> bool:
    """Whether the process runs (not a zombie)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat[stat.rfind(")") + 2] not in "ZX"


def wait_until(check: Callable[[], bool], timeout: float = 20.0) -> bool:
    """Polls `check` until true or the timeout (a condition, not a fixed sleep)."""
    end = time.monotonic() + timeout
    event = threading.Event()
    while time.monotonic() < end:
        if check():
            return True
        event.wait(0.02)
    return bool(check())


SIGTERM = int(signal.SIGTERM)


def without(monkeypatch: pytest.MonkeyPatch, *layers: str) -> None:
    """Switches `layers` off for the next runs (confine.TEST_WITHOUT_ENV), so the rest is tested alone."""
    monkeypatch.setenv(confine.TEST_WITHOUT_ENV, ",".join(layers))
    POOL.close()


NOBODY = 65534
AS_NOBODY_POSSIBLE = sys.platform.startswith("linux") and os.geteuid() == 0

_AS_NOBODY = r"""
import ctypes, json, os, sys
libc = ctypes.CDLL(None, use_errno=True)
libc.mount.argtypes = [ctypes.c_char_p] * 3 + [ctypes.c_ulong, ctypes.c_char_p]
assert libc.unshare(0x20000) == 0, "unshare(CLONE_NEWNS)"
assert libc.mount(None, b"/", None, 0x4000 | 0x40000, None) == 0  # MS_REC | MS_PRIVATE
needed, covers = json.loads(sys.argv[1]), {}
for path in needed:  # the highest folder on the way that nobody cannot enter: a tmpfs over it
    parts = path.split("/")
    for i in range(2, len(parts) + 1):
        top = "/".join(parts[:i])
        if not os.stat(top).st_mode & 0o001:
            covers.setdefault(top, []).append(path)
            break
for top, paths in covers.items():
    held = {p: os.open(p, os.O_PATH | os.O_DIRECTORY) for p in paths}
    assert libc.mount(b"tmpfs", top.encode(), b"tmpfs", 0, b"mode=755") == 0, top
    for p, fd in held.items():
        os.makedirs(p, exist_ok=True)
        assert libc.mount(f"/proc/self/fd/{fd}".encode(), p.encode(), None, 0x1000 | 0x4000, None) == 0, p
os.setgroups([])
os.setresgid(65534, 65534, 65534)
os.setresuid(65534, 65534, 65534)
sys.path[:0] = json.loads(sys.argv[2])
exec(compile(sys.argv[3], "<as-nobody>", "exec"))
"""


def as_nobody(code: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """Runs `code` in a Python process that is nobody (uid and gid 65534), as an ordinary user would run
    the app, with a new folder of theirs as HOME, QUIZAPP_HOME and TMPDIR (removed after, whatever the
    code left there). Folders nobody cannot enter on the way to Python, the venv or this checkout are
    covered in that process's own mount namespace only."""
    import numpy

    root = Path(__file__).resolve().parent.parent
    needed = {os.path.realpath(sys.base_prefix), os.path.realpath(sys.prefix), str(root)}
    needed.add(os.path.realpath(Path(numpy.__file__).parent.parent))
    home = tempfile.mkdtemp(prefix="quizapp-nobody-", dir="/tmp")
    try:
        os.chown(home, NOBODY, NOBODY)
        environment = {
            "PATH": os.environ.get("PATH", ""), "HOME": home, "QUIZAPP_HOME": home, "TMPDIR": home,
            **(env or {}),
        }  # fmt: skip
        return subprocess.run(
            [sys.executable, "-c", _AS_NOBODY, json.dumps(sorted(needed)), json.dumps([str(root)]), code],
            capture_output=True, text=True, timeout=300, env=environment, check=False,
        )  # fmt: skip
    finally:
        shutil.rmtree(home, ignore_errors=True)
