"""Provides run_solution: a learner's code run in a child process of the same interpreter, NumPy only,
under a wall-clock and a memory limit, on the inputs an exercise draws for a seed.

The child gets the inputs as a pickle the parent wrote, and answers with each output's raw bytes, dtype
and shape (never a pickle: the parent does not unpickle what the learner's code produced) and a JSON
report: per case, ok or the error with only the frames of the learner's own code. A runaway loop is
killed at the time limit; a memory hog meets the address-space limit and fails with MemoryError.

The child is taken from quizapp.runner.standby: started ahead of time (NumPy imported) when the app
warms it, else on demand; either way it runs this one submission and exits.
"""

from __future__ import annotations

import pickle
import signal
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from quizapp.runner.standby import OUTPUT_LIMIT, POOL

TIME_LIMIT_S = 5.0
MEMORY_LIMIT_BYTES = 1 << 30
"""Address space of the child: NumPy and its BLAS threads reserve some; a hog fails well before the box."""
LOCK_DOWN_FAILED = 70
"""The learner's process could not lock itself down, so it ran nothing (quizapp.runner.standby_child)."""
MALFORMED = (
    "its answer was not a report the grader writes (bytes, or a forged one): nothing of it is counted; a "
    "solution returns its result and lets the grader report it"
)
__all__ = ["MEMORY_LIMIT_BYTES", "OUTPUT_LIMIT", "TIME_LIMIT_S", "RunOutput", "over_memory", "run_solution"]


@dataclass(frozen=True)
class RunOutput:
    """What the child reported: per case an output array or an error; or one problem for the whole run."""

    outputs: tuple[np.ndarray | None, ...]
    errors: tuple[str | None, ...]
    problem: str | None
    """The code could not run at all: a syntax error, no such function, the time or memory limit."""
    printed: str
    unreadable: bool = False
    """The code does not parse or does not define the function: not yet an attempt at the answer."""
    confined: bool = False
    """The code ran confined (namespaces), not only under limits; `why` says why not."""
    why: str = ""


def run_solution(
    source: str,
    function: str,
    draw: Callable[[], list[dict[str, Any]]],
    *,
    time_limit: float = TIME_LIMIT_S,
    memory_limit: int = MEMORY_LIMIT_BYTES,
    meanwhile: Callable[[], object] | None = None,
) -> RunOutput:
    """Runs `function` from `source` on every case `draw` gives, in one child process used for this run
    only: the standby the pool started ahead of time (NumPy imported), else one started now. `draw` is
    called once, here, while the child compiles the code; `meanwhile` once, while it runs the cases
    (grading computes the reference's outputs then)."""
    cases: list[dict[str, Any]] = []

    def inputs() -> bytes:
        cases.extend(draw())
        return pickle.dumps(cases)

    done = POOL.run(
        source,
        function,
        inputs,
        time_limit=time_limit,
        memory_limit=memory_limit,
        meanwhile=meanwhile,
    )
    how = {"confined": done.confined, "why": done.why}
    if done.timed_out:
        return _failed(f"stopped after {time_limit:g} s: an endless loop, or far too much work", cases, how)
    report = done.report
    if done.malformed:
        return _failed(MALFORMED, cases, how)
    if report is None:
        return _failed(_ended(done.returncode, done.stderr, memory_limit), cases, how)
    layout = report.get("layout")
    layout = layout if isinstance(layout, list) and len(layout) == len(done.arrays) else []
    outputs = tuple(_array(meta, data) for meta, data in zip(layout, done.arrays, strict=True))
    outputs += (None,) * (len(cases) - len(outputs))
    problem = report.get("error")
    errors = report.get("cases") or [problem] * len(cases)
    errors = [e if isinstance(e, str) else None for e in errors] if isinstance(errors, list) else []
    errors += [None] * (len(cases) - len(errors))
    printed = shown(str(report.get("printed", "")))
    if len(printed) > OUTPUT_LIMIT:
        printed = printed[:OUTPUT_LIMIT] + "\n... (output cut)"
    return RunOutput(
        outputs[: len(cases)],
        tuple(shown(e) if e else None for e in errors[: len(cases)]),
        shown(str(problem)) if problem else None,
        printed,
        bool(report.get("unreadable")),
        done.confined,
        done.why,
    )


def _ended(returncode: int | None, stderr: str, memory_limit: int) -> str:
    """Why a run ended without its report, in the learner's words: what the exit code or signal means."""
    tail = (stderr.strip().splitlines() or [""])[-1]
    if "MemoryError" in tail:
        return over_memory(memory_limit)
    if returncode == LOCK_DOWN_FAILED:
        return "not run: the grader could not apply its limits and filters to the process (exit code 70)"
    if returncode == -signal.SIGKILL:
        return "killed (SIGKILL) before it reported: most often, the machine ran out of memory"
    if returncode == -getattr(signal, "SIGXCPU", 24):
        return "stopped: it used up its CPU time (threads count too): an endless loop, or far too much work"
    if returncode == -signal.SIGSEGV:
        return "crashed with a segmentation fault (SIGSEGV), in compiled code your code called"
    if returncode is not None and returncode < 0:
        try:
            name = signal.Signals(-returncode).name
        except ValueError:
            name = f"signal {-returncode}"
        return f"killed by {name} before it reported"
    return (
        f"your code ended the program (exit code {returncode}) before any result came back: a solution "
        "returns its result; it does not exit" + (f" ({shown(tail)})" if tail else "")
    )


def over_memory(memory_limit: int) -> str:
    """What a run stopped by the memory limit is told (a MemoryError in a case, or the whole run)."""
    return f"stopped: it used more than {memory_limit >> 20} MB of memory"


def shown(text: str) -> str:
    """Text from the learner's code as the screen may show it: control characters (a terminal's escape
    codes, which could redraw the verdict) written out as escapes, and no lone surrogates."""
    text = text.encode("utf-8", "backslashreplace").decode("utf-8")
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() or c in "\n\t" else repr(c)[1:-1] for c in text)


def _array(meta: Any, data: bytes) -> np.ndarray | None:
    """One output from its bytes, dtype and shape (a read-only view): plain numbers, never objects."""
    try:
        dtype, shape = np.dtype(str(meta[0])), tuple(int(n) for n in meta[1])
        if dtype.kind not in "biufc" or min(shape, default=0) < 0:
            return None
        return np.frombuffer(data, dtype=dtype).reshape(shape)
    except (TypeError, ValueError, IndexError):
        return None


def _failed(problem: str, cases: list[dict[str, Any]], how: dict[str, Any]) -> RunOutput:
    return RunOutput((None,) * len(cases), (problem,) * len(cases), problem, "", False, **how)
