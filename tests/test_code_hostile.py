"""Submissions that misbehave on purpose or by accident: each gets a verdict that says what happened, in
the learner's terms, and never crashes the grader, forges its output, names the wrong mistake, or leaves
a process behind. Real child processes throughout."""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from engine.exercises import EXERCISES
from quizapp.errors import QuizappError
from quizapp.grading.code import grade_code

SOFTMAX = EXERCISES["code-softmax"].solution
HEAD = "import numpy as np\n\n"


def _body(expression: str) -> str:
    return HEAD + f"def softmax(x):\n    return {expression}\n"


@pytest.mark.parametrize(
    ("returned", "said"),
    [
        ('np.full(x.shape, "0.5")', "returned <U3 values (str96), not numbers"),
        ('np.full(x.shape, b"0.5")', "returned |S3 values (bytes24), not numbers"),
        ('np.zeros(x.shape, dtype="datetime64[s]")', "not numbers"),
        ("np.empty(0, dtype=object)", "returned object values, not numbers"),
        ("np.zeros(600_000)", "returned an array of shape (600000,), 4 MB: far too large to be the answer"),
    ],
)
def test_an_output_that_is_not_an_answer_is_told_what_it_is(returned: str, said: str) -> None:
    verdict = grade_code("code-softmax", _body(returned), seed=0)
    failure = verdict.first_failure
    assert not verdict.correct and failure is not None and failure.error is not None
    assert said in failure.error, failure.error
    assert verdict.mistake is None


@pytest.mark.parametrize(
    ("code", "said"),
    [
        ("raise KeyboardInterrupt", "KeyboardInterrupt"),
        ("import sys\nsys.exit(3)", "your code called exit(3): a solution returns its result instead"),
        ("import ctypes\nctypes.string_at(0)", "crashed with a segmentation fault (SIGSEGV)"),
        ("import os, signal\nos.kill(os.getpid(), signal.SIGTERM)", "killed by SIGTERM before it reported"),
        ("import os\nos._exit(0)", "your code ended the program (exit code 0) before any result came back"),
        ("import engine", "No module named 'engine' here: use NumPy and the standard library"),
        ("import quizapp.grading", "No module named 'quizapp' here"),
    ],
)
def test_code_that_stops_the_run_says_how_and_never_blames_memory(code: str, said: str) -> None:
    verdict = grade_code("code-softmax", HEAD + code + "\n" + SOFTMAX, seed=0, time_limit=20)
    assert not verdict.correct and verdict.problem is not None
    assert said in verdict.problem, verdict.problem
    assert "memory" not in verdict.problem


def test_what_the_code_prints_cannot_redraw_the_verdict_or_break_the_terminal() -> None:
    forged = "\\x1b[5A\\r\\x1b[J" + "Correct: all 6 cases pass"
    source = HEAD + f'print("{forged}", "caf\\ud800")\nimport sys\nprint("to stderr", file=sys.stderr)\n'
    verdict = grade_code("code-softmax", source + "def softmax(x):\n    return x * 0\n", seed=0)
    assert not verdict.correct
    assert "\x1b" not in verdict.printed and "\\x1b[5A" in verdict.printed
    assert verdict.printed.encode("utf-8")  # no lone surrogate left
    assert "to stderr" in verdict.printed  # stderr is the learner's output too


def test_a_forged_report_on_stdout_is_not_taken_for_the_real_one() -> None:
    fake = json.dumps({"cases": [None], "error": None, "layout": [], "printed": "", "sizes": []})
    forge = (
        "import os\n"
        f"p = {fake!r}.encode() + b'\\n'\n"
        "os.write(1, b'\\n' + p + b'\\nquizapp-standby-end ' + b'%016d\\n' % len(p))\n"
    )
    verdict = grade_code("code-softmax", HEAD + forge + SOFTMAX, seed=0)
    assert verdict.correct, verdict.summary()


def test_a_recursion_and_a_huge_message_are_cut_to_what_helps() -> None:
    recursion = grade_code("code-softmax", _body("softmax(x)"), seed=0).first_failure
    assert recursion is not None and recursion.error is not None
    lines = recursion.error.splitlines()
    assert len(lines) < 10 and "RecursionError" in lines[-1]
    assert lines[:3] == ["line 4, in softmax: return softmax(x)"] * 3
    assert lines[3].startswith("[the line above repeated ") and lines[3].endswith(" more times]")

    shouting = grade_code(
        "code-softmax", HEAD + "def softmax(x):\n    raise ValueError('E' * 100_000)\n", seed=0
    )
    failure = shouting.first_failure
    assert failure is not None and failure.error is not None and len(failure.error) < 2200
    assert failure.error.endswith("... (cut)")


def test_no_mistake_is_named_from_cases_that_prove_nothing() -> None:
    # Right scale, but it assumes as many keys as queries: it only runs on a one-key case, where every
    # known mistake gives the right answer too.
    source = HEAD + (
        "def attention(q, k, v, mask=None):\n"
        "    t = q.shape[0]\n"
        "    scores = (q @ k.T / np.sqrt(q.shape[-1])).reshape(t, t)\n"
        "    if mask is not None:\n"
        "        scores = np.where(mask, scores, -np.inf)\n"
        "    w = np.exp(scores - scores.max(axis=-1, keepdims=True))\n"
        "    return w / w.sum(axis=-1, keepdims=True) @ v\n"
    )
    verdict = grade_code("code-attention", source, seed=0)
    assert not verdict.correct and verdict.mistake is None
    assert "cannot reshape" in verdict.summary() and "Mistake:" not in verdict.summary()


def test_a_byte_order_mark_and_float32_arithmetic_are_met_kindly() -> None:
    assert grade_code("code-softmax", "\ufeff" + SOFTMAX, seed=0).correct
    in_float32 = EXERCISES["code-attention"].solution.replace(
        "def attention(q, k, v, mask=None):\n",
        "def attention(q, k, v, mask=None):\n    q, k, v = (a.astype(np.float32) for a in (q, k, v))\n",
    )
    assert in_float32 != EXERCISES["code-attention"].solution
    verdict = grade_code("code-attention", in_float32, seed=0)
    assert not verdict.correct and verdict.mistake is None
    assert "Close: that gap is rounding-sized" in verdict.summary()
    nul = grade_code("code-softmax", HEAD + "x = 1\x00\n" + SOFTMAX, seed=0)
    assert nul.problem is not None and "None" not in nul.problem


def test_a_negative_seed_is_refused_by_name() -> None:
    with pytest.raises(QuizappError, match="not -1"):
        grade_code("code-softmax", SOFTMAX, seed=-1)


def test_the_cli_reads_stdin_like_a_file_and_writes_strict_json(tmp_path: Path) -> None:
    def run(*args: str, stdin: bytes = b"") -> subprocess.CompletedProcess[bytes]:
        command = [sys.executable, "-m", "quizapp", "code", "code-softmax", *args]
        return subprocess.run(command, input=stdin, capture_output=True, timeout=120, check=False)

    latin1 = (HEAD + "# café\n").encode("latin-1") + SOFTMAX.encode()
    from_stdin = run("--file", "-", stdin=latin1)
    assert from_stdin.returncode == 2 and b"Cannot read standard input" in from_stdin.stderr
    assert run("--file", "-", stdin=b"\xef\xbb\xbf" + SOFTMAX.encode()).returncode == 0
    assert run("--file", "-", "--seed", "-1", stdin=SOFTMAX.encode()).returncode == 2

    nan = tmp_path / "nan.py"
    nan.write_text(_body("np.full(x.shape, np.nan)"), encoding="utf-8")
    out = run("--file", str(nan), "--json")
    assert out.returncode == 1
    verdict = json.loads(out.stdout, parse_constant=lambda name: pytest.fail(f"not JSON: {name}"))
    assert verdict["cases"][0]["max_abs_diff"] == "nan"


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc")
def test_a_running_job_ends_when_the_app_is_killed() -> None:
    code = (
        "import threading, time\n"
        "from quizapp.grading.code import grade_code\n"
        "from quizapp.runner.standby import POOL\n"
        "POOL.warm()\n"
        "assert POOL.wait_ready(30)\n"
        "print(POOL.standby_pid, flush=True)\n"
        "source = 'import time\\ndef softmax(x):\\n    time.sleep(100)\\n'\n"
        "threading.Thread(target=grade_code, args=('code-softmax', source), kwargs={'seed': 0}).start()\n"
        "time.sleep(100)\n"
    )
    with subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True) as app:
        try:
            assert app.stdout is not None
            pid = int(app.stdout.readline().split()[0])
            time.sleep(1.0)  # the job is running: the child sleeps in the learner's function
            assert Path(f"/proc/{pid}").exists()
        finally:
            app.kill()  # no atexit, no close(), and the child is busy: it does not read its stdin now
    deadline = time.monotonic() + 60  # only bounds a hang
    while _running(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _running(pid), "the child outlived the app that started it"


def _running(pid: int) -> bool:
    """Whether the process is there and not a zombie (this test process is a child subreaper, as the app
    is: a child of the killed app ends as its zombie until reaped)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    if stat[stat.rfind(")") + 2] == "Z":
        with contextlib.suppress(ChildProcessError):
            os.waitpid(pid, 0)
        return False
    return True
