"""Provides run_solution: a learner's code run in a child process of the same interpreter, NumPy only,
under a wall-clock and a memory limit, on the inputs an exercise draws for a seed.

The child gets the inputs as a pickle the parent wrote, and answers with plain `.npy` files (never a
pickle: the parent does not unpickle what the learner's code produced) and one JSON line: per case, ok or
the error with only the frames of the learner's own code. A runaway loop is killed at the time limit; a
memory hog meets the address-space limit and fails with MemoryError.
"""

from __future__ import annotations

import json
import os
import pickle
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

TIME_LIMIT_S = 5.0
MEMORY_LIMIT_BYTES = 1 << 30
"""Address space of the child: NumPy and its BLAS threads reserve some; a hog fails well before the box."""
OUTPUT_LIMIT = 2000
"""Characters of the learner's printed output kept for the verdict."""

_CHILD = r"""
import contextlib, io, json, linecache, pickle, sys, traceback
import numpy as np

source_file, inputs_file, out_dir, name = sys.argv[1:5]
source = open(source_file, encoding="utf-8").read()
linecache.cache["<solution>"] = (len(source), None, source.splitlines(True), "<solution>")
printed = io.StringIO()
report = {"cases": [], "error": None}


def own_frames(exc):
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if f.filename == "<solution>"]
    lines = [f"line {f.lineno}, in {f.name}: {(f.line or '').strip()}" for f in frames]
    return "\n".join(lines + [f"{type(exc).__name__}: {exc}"])


try:
    namespace = {"__name__": "solution"}
    with contextlib.redirect_stdout(printed):
        exec(compile(source, "<solution>", "exec"), namespace)
    func = namespace.get(name)
    if not callable(func):
        raise NameError(f"your code does not define a function named {name!r}")
    with open(inputs_file, "rb") as fh:
        cases = pickle.load(fh)
    for i, case in enumerate(cases):
        try:
            with contextlib.redirect_stdout(printed):
                out = np.asarray(func(**case))
            if out.dtype == object:
                raise TypeError(f"returned {type(out.flat[0]).__name__} values, not numbers")
            np.save(f"{out_dir}/{i}.npy", out, allow_pickle=False)
            report["cases"].append(None)
        except Exception as exc:
            report["cases"].append(own_frames(exc))
except SyntaxError as exc:
    report["error"] = f"line {exc.lineno}: {exc.msg}"
except Exception as exc:
    report["error"] = own_frames(exc)
sys.__stdout__.write("\n" + json.dumps({**report, "printed": printed.getvalue()[:LIMIT]}) + "\n")
""".replace("LIMIT", str(OUTPUT_LIMIT + 1))


@dataclass(frozen=True)
class RunOutput:
    """What the child reported: per case an output array or an error; or one problem for the whole run."""

    outputs: tuple[np.ndarray | None, ...]
    errors: tuple[str | None, ...]
    problem: str | None
    """The code could not run at all: a syntax error, no such function, the time or memory limit."""
    printed: str


def run_solution(
    source: str,
    function: str,
    cases: list[dict[str, Any]],
    *,
    time_limit: float = TIME_LIMIT_S,
    memory_limit: int = MEMORY_LIMIT_BYTES,
) -> RunOutput:
    """Runs `function` from `source` on every case in one child process."""
    with tempfile.TemporaryDirectory(prefix="quizapp-code-") as tmp:
        folder = Path(tmp)
        (folder / "solution.py").write_text(source, encoding="utf-8")
        with (folder / "inputs.pickle").open("wb") as fh:
            pickle.dump(cases, fh)
        files = [str(folder / "solution.py"), str(folder / "inputs.pickle"), str(folder)]
        args = [sys.executable, "-I", "-c", _CHILD, *files, function]
        env = {"PATH": os.environ.get("PATH", ""), "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"}
        try:
            done = subprocess.run(
                args, capture_output=True, text=True, timeout=time_limit, env=env, cwd=tmp,
                preexec_fn=_limits(memory_limit, time_limit), check=False,
            )  # fmt: skip
        except subprocess.TimeoutExpired:
            return _failed(f"stopped after {time_limit:g} s: an endless loop, or far too much work", cases)
        report = _report(done.stdout)
        if report is None:
            tail = (done.stderr or "").strip().splitlines()[-1:] or [f"exit code {done.returncode}"]
            if done.returncode < 0 or "MemoryError" in tail[0]:
                return _failed(f"stopped: it used more than {memory_limit >> 20} MB of memory", cases)
            return _failed(f"the run ended without a result ({tail[0]})", cases)
        outputs = tuple(
            np.load(folder / f"{i}.npy", allow_pickle=False) if (folder / f"{i}.npy").exists() else None
            for i in range(len(cases))
        )
    errors = tuple(report.get("cases") or [report.get("error")] * len(cases))
    printed = str(report.get("printed", ""))
    if len(printed) > OUTPUT_LIMIT:
        printed = printed[:OUTPUT_LIMIT] + "\n... (output cut)"
    problem = report.get("error")
    return RunOutput(outputs, errors[: len(cases)], str(problem) if problem else None, printed)


def _limits(memory: int, seconds: float) -> Any:
    def apply() -> None:  # in the child, before exec: only the learner's process is limited
        import resource

        resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
        cpu = int(seconds) + 2
        resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu))

    return apply if sys.platform != "win32" else None


def _report(stdout: str) -> dict[str, Any] | None:
    """The child's JSON line (the last line of its stdout), or None if it never wrote one."""
    lines = stdout.rstrip("\n").splitlines()
    if not lines:
        return None
    try:
        report = json.loads(lines[-1])
    except json.JSONDecodeError:
        return None
    return report if isinstance(report, dict) else None


def _failed(problem: str, cases: list[dict[str, Any]]) -> RunOutput:
    return RunOutput((None,) * len(cases), (problem,) * len(cases), problem, "")
