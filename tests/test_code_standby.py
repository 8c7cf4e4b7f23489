"""The standby child behind code grading: a warm one grades as a cold one does, each submission runs in a
process of its own that sees nothing of the one before, the limits still hold, no child outlives close()
or the parent, and a standby that died is replaced on the spot. Real child processes throughout."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from engine.exercises import EXERCISES
from quizapp.grading.code import grade_code
from quizapp.runner.standby import POOL

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX process checks")

SOFTMAX = EXERCISES["code-softmax"].solution

# Prints its own pid and whether a previous submission left a mark in sys.modules, a builtin or a file
# in its working folder, then leaves all three marks.
SPY = """
import builtins, os, sys, types
import numpy as np

print("pid", os.getpid(), "module", "quizapp_leak" in sys.modules, "builtin", hasattr(builtins, "leak"),
      "file", os.path.exists("leak.txt"))
sys.modules["quizapp_leak"] = types.ModuleType("quizapp_leak")
builtins.leak = 1
open("leak.txt", "w").write("x")

def softmax(x):
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)
"""


def _children() -> set[int]:
    """This process's live (not yet reaped) child processes that are standbys."""
    found = set()
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
            cmdline = (stat.parent / "cmdline").read_bytes()
        except OSError:
            continue
        if int(fields[1]) == os.getpid() and b"quizapp-code-" in cmdline:
            found.add(int(stat.parent.name))
    return found


def _gone(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return True
    return state in ("Z", "X")  # exited; its parent reaps it


@pytest.fixture
def pool() -> Iterator[None]:
    POOL.close()
    yield
    POOL.close()
    assert not _children(), "a standby was left behind"


needs_proc = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc")


@pytest.mark.usefixtures("pool")
def test_a_warm_standby_grades_as_a_cold_start_does() -> None:
    cold = grade_code("code-softmax", SOFTMAX, seed=3)
    assert not POOL.last_was_warm
    POOL.warm()
    assert POOL.wait_ready(30)
    standby = POOL.standby_pid
    warm = grade_code("code-softmax", SOFTMAX, seed=3)
    assert POOL.last_was_warm and POOL.last_pid == standby
    assert warm.correct and cold.correct
    assert warm.summary() == cold.summary()
    assert [c.max_abs_diff for c in warm.cases] == [c.max_abs_diff for c in cold.cases]
    wrong = EXERCISES["code-softmax"].mistakes[0]
    from engine.exercises.base import source_as

    assert POOL.wait_ready(30)
    verdict = grade_code("code-softmax", source_as(wrong.compute, "softmax"), seed=3)
    assert POOL.last_was_warm and verdict.mistake is not None and verdict.mistake.id == wrong.id


@pytest.mark.usefixtures("pool")
def test_each_submission_runs_in_a_new_process_that_sees_nothing_of_the_last() -> None:
    POOL.warm()
    seen = []
    for _ in range(3):
        assert POOL.wait_ready(30)
        verdict = grade_code("code-softmax", SPY, seed=0)
        assert verdict.correct and POOL.last_was_warm, verdict.summary()
        words = verdict.printed.split()
        assert words[2:] == ["module", "False", "builtin", "False", "file", "False"], verdict.printed
        seen.append(POOL.last_pid)  # (a confined run is PID 2 of a namespace of its own: ask the pool)
    assert len(set(seen)) == 3 and os.getpid() not in seen


@pytest.mark.usefixtures("pool")
def test_an_endless_loop_in_a_warm_standby_is_stopped_at_the_limit() -> None:
    POOL.warm()
    assert POOL.wait_ready(30)
    pid = POOL.standby_pid
    verdict = grade_code(
        "code-softmax", "def softmax(x):\n    while True:\n        pass\n", seed=0, time_limit=1.0
    )
    assert (
        POOL.last_was_warm and verdict.problem == "stopped after 1 s: an endless loop, or far too much work"
    )
    assert pid is not None
    POOL.close()  # reaps it, if the background had not yet
    assert _gone(pid)


@pytest.mark.usefixtures("pool")
def test_a_memory_hog_in_a_warm_standby_meets_the_limit() -> None:
    POOL.warm()
    assert POOL.wait_ready(30)
    source = "def softmax(x):\n    hog = []\n    while True:\n        hog.append(bytearray(50_000_000))\n"
    verdict = grade_code("code-softmax", source, seed=0, memory_limit=400 << 20)
    assert POOL.last_was_warm and not verdict.correct
    assert "used more than 400 MB of memory" in verdict.summary()
    assert POOL.wait_ready(30)
    assert grade_code("code-softmax", SOFTMAX, seed=0).correct  # the next one has its whole budget


@needs_proc
@pytest.mark.usefixtures("pool")
def test_close_leaves_no_child_and_no_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))  # this test's folders only, not the machine's

    def folders() -> set[Path]:
        return set(tmp_path.glob("quizapp-code-*"))

    before = folders()
    POOL.warm()
    assert POOL.wait_ready(30)
    grade_code("code-softmax", SOFTMAX, seed=0)  # a used child, reaped in the background
    POOL.warm()
    assert POOL.wait_ready(30)  # started and running its own command line (just after fork it has ours)
    pid = POOL.standby_pid
    assert pid is not None and pid in _children()
    assert folders() - before  # the standby's working folder
    POOL.close()
    assert not _children() and _gone(pid)
    assert POOL.standby_pid is None
    assert not folders() - before


@needs_proc
def test_the_standby_ends_when_its_parent_dies_without_closing() -> None:
    code = (
        "import os, sys\n"
        "from quizapp.runner.standby import POOL\n"
        "POOL.warm()\n"
        "assert POOL.wait_ready(30)\n"
        "print(POOL.standby_pid, flush=True)\n"
        "os._exit(0)\n"  # no atexit, no close(): only the closed pipe tells the standby
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True
    )
    pid = int(done.stdout.split()[0])
    deadline = time.monotonic() + 60  # only bounds a hang
    while not _gone(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _gone(pid), "the standby outlived its parent"


@pytest.mark.usefixtures("pool")
def test_a_standby_killed_from_outside_is_replaced_and_the_grade_still_comes() -> None:
    for pause in (0.0, 0.3):
        POOL.warm()
        assert POOL.wait_ready(30)
        pid = POOL.standby_pid
        assert pid is not None
        os.kill(pid, signal.SIGKILL)
        time.sleep(pause)
        verdict = grade_code("code-softmax", SOFTMAX, seed=1)
        assert verdict.correct, verdict.summary()
        if pause:  # (at once, the confined standby's inner process may still take the job and answer it)
            assert not POOL.last_was_warm and POOL.last_pid != pid


@pytest.mark.usefixtures("pool")
def test_grading_from_several_threads_gives_each_its_own_process() -> None:
    POOL.warm()
    assert POOL.wait_ready(30)
    results: list[tuple[bool, str]] = []

    def grade(seed: int) -> None:
        verdict = grade_code("code-softmax", SPY, seed=seed)
        results.append((verdict.correct, verdict.printed))

    threads = [threading.Thread(target=grade, args=(seed,)) for seed in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert len(results) == 3 and all(ok for ok, _ in results), results
    assert all("module False builtin False file False" in printed for _, printed in results)


@pytest.mark.usefixtures("pool")
@pytest.mark.parametrize("warm", [True, False])
def test_code_that_reads_stdin_finds_it_empty_and_the_inputs_still_arrive(warm: bool) -> None:
    # The source goes to the child before the inputs, and its top level runs while they are drawn: what
    # it reads from stdin must not be the inputs (it would hang or eat them).
    if warm:
        POOL.warm()
        assert POOL.wait_ready(30)
    reads = "import sys\nprint('read', repr(sys.stdin.read()))\n" + SOFTMAX
    verdict = grade_code("code-softmax", reads, seed=4, time_limit=10)
    assert verdict.correct, verdict.summary()
    assert POOL.last_was_warm == warm
    assert "read ''" in verdict.printed

    asks = "answer = input('n? ')\n" + SOFTMAX
    verdict = grade_code("code-softmax", asks, seed=4, time_limit=10)
    assert not verdict.correct and verdict.problem is not None
    assert "line 1, in <module>: answer = input('n? ')" in verdict.problem
    assert verdict.problem.endswith("EOFError: EOF when reading a line")


@pytest.mark.usefixtures("pool")
def test_inputs_larger_than_a_pipe_still_arrive_whole() -> None:
    # Drawn while the child compiles, and far over the 64 KiB a default pipe holds.
    big = EXERCISES["code-softmax"].spec(edge=({"rows": 300, "cols": 200},))
    POOL.warm()
    assert POOL.wait_ready(30)
    verdict = grade_code("code-softmax", SOFTMAX, seed=1, inputs=big, time_limit=10)
    assert verdict.correct, verdict.summary()
    assert verdict.cases[0].inputs == {"x": "(300, 200)"}
