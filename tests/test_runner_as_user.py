"""The attacks again with the app run by an ordinary user (nobody, uid 65534) instead of root, on every
path: the seccomp allowlist refuses the calls aimed at a process of that same user (which the kernel
alone would allow), a signal-0 scan learns nothing, a planted link or FIFO is never followed, the
confined run keeps the user's own uid and namespaces of its own, and a killed app leaves no folder."""

from __future__ import annotations

import errno
import json
import os

import pytest
from runner_attacks import AS_NOBODY_POSSIBLE, NOBODY, alive, as_nobody, bystander, raw_calls
from test_runner_seccomp import ALLOWED_CALLS, SCAN, refused_calls

pytestmark = pytest.mark.skipif(not AS_NOBODY_POSSIBLE, reason="needs root to become nobody (Linux)")

_SUITE = r"""
import json, os, signal, subprocess, sys, time
from quizapp.grading.code import grade_code
from quizapp.runner import confine
from quizapp.runner.standby import POOL

STUB = "\ndef softmax(x):\n    return x\n"
attacks, out = json.loads(sys.argv[4]), {}
for path, force in (("confined", ""), ("landlock", "limits"), ("limits", "plain")):
    os.environ[confine.FORCE_ENV] = force
    found = {}
    for name, body in attacks.items():
        os.environ[confine.TEST_WITHOUT_ENV] = "seccomp" if name == "plant" else ""
        POOL.close()
        verdict = grade_code("code-softmax", body + STUB, seed=0, time_limit=5)
        found[name] = {"printed": verdict.printed, "problem": verdict.problem, "confined": verdict.confined}
    out[path] = found
POOL.close()
print("RESULT " + json.dumps(out))
print("FOLDERS " + json.dumps([n for n in os.listdir(os.environ["TMPDIR"]) if n.startswith("quizapp-code-")]))
"""

PLANT = """
import os
for name in ("stderr.txt", "stdout.txt"):
    os.symlink("/etc/passwd", name) if name == "stderr.txt" else os.mkfifo(name)
os.write(2, b"the real stderr\\n")
os._exit(3)
"""
IDENTITY = """
import os
print("WHO", os.getuid(), os.getgid())
for k in ("user", "net", "ipc", "pid", "mnt"):
    print("NS", k, os.readlink("/proc/self/ns/" + k))
"""
THREADS = """
import _thread, threading, time
threading.stack_size(32768)
made = 0
try:
    for _ in range(3000):
        _thread.start_new_thread(time.sleep, (20,))
        made += 1
except RuntimeError:
    pass
print("THREADS made", made, flush=True)
"""


def _lines(printed: str, prefix: str) -> dict[str, str]:
    """The lines `prefix name value` as {name: value}."""
    return {
        line.split()[1]: line.split()[2] for line in printed.splitlines() if line.startswith(prefix + " ")
    }


def test_as_an_ordinary_user_every_attack_fails_on_every_path() -> None:
    with bystander(user=NOBODY) as target:  # the same user as the app: the kernel alone would allow it
        calls = refused_calls(target)
        attacks = {
            "calls": raw_calls(calls) + raw_calls(ALLOWED_CALLS),
            "scan": SCAN,
            "plant": PLANT,
            "identity": IDENTITY,
            "threads": THREADS,
        }
        done = as_nobody(f"import sys\nsys.argv[4:] = [{json.dumps(attacks)!r}]\n" + _SUITE)
        assert done.returncode == 0, done.stderr[-3000:]
        assert alive(target)
    result = json.loads(next(x for x in done.stdout.splitlines() if x.startswith("RESULT "))[7:])
    folders = json.loads(next(x for x in done.stdout.splitlines() if x.startswith("FOLDERS "))[8:])
    assert folders == [], folders
    ours = {k: os.readlink(f"/proc/self/ns/{k}") for k in ("user", "net", "ipc", "pid", "mnt")}
    for path, found in result.items():
        got = _lines(found["calls"]["printed"], "CALL")
        for name in ALLOWED_CALLS:
            assert got.pop(name, None) == "0", (path, name, found["calls"])
        wrong = {n: v for n, v in got.items() if v != str(errno.EPERM)}
        assert not wrong and got, (path, wrong, found["calls"])
        assert f"SCAN [{errno.EPERM}] True" in found["scan"]["printed"], (path, found["scan"])
        problem = found["plant"]["problem"] or ""
        assert problem.endswith("(the real stderr)"), (path, problem)  # not the file the link names
        # The red team's repro made 24,353 threads on the paths without namespaces: now a cap holds.
        made = int(_lines(found["threads"]["printed"], "THREADS").get("made", "-1"))
        assert 0 < made < 1000, (path, found["threads"])
        identity = found["identity"]["printed"]
        assert f"WHO {NOBODY} {NOBODY}" in identity, (path, identity)
        namespaces = _lines(identity, "NS")
        if path == "confined":
            assert found["identity"]["confined"], (path, found["identity"])
            assert all(namespaces[k] != ours[k] for k in ours), (namespaces, ours)
