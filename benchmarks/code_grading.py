"""Provides the coding-exercise benchmark: grading a correct solution, the child process included,
against running the same solution in-process on the same inputs; and how soon a runaway one is stopped.

Run: python benchmarks/code_grading.py [--repeats N]

Targets (issue 16): a correct solution graded in at most 1.5 s, and at most 3x the in-process run of the
same code on the same inputs plus the reference's own comparison; an endless loop stopped within the time
limit plus 1 s. The reference is measured in the same run: exec the solution here and call it on every
case, then compare with the engine's reference (what grading does, minus the child process).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path
from typing import Any

TARGET_SECONDS = 1.5
TARGET_RATIO = 3.0
LOOP_LIMIT = 2.0


def in_process(exercise_id: str, source: str, seed: int) -> float:
    import numpy as np

    from engine.exercises import EXERCISES

    ex = EXERCISES[exercise_id]
    start = time.perf_counter()
    namespace: dict[str, Any] = {}
    exec(compile(source, "<solution>", "exec"), namespace)
    for case in ex.cases(seed):
        np.allclose(np.asarray(namespace[ex.function](**case)), np.asarray(ex.reference(**case)))
    return time.perf_counter() - start


def graded(exercise_id: str, source: str, seed: int) -> float:
    from quizapp.grading.code import grade_code

    start = time.perf_counter()
    verdict = grade_code(exercise_id, source, seed=seed)
    elapsed = time.perf_counter() - start
    assert verdict.correct, verdict.summary()
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=9, help="gradings per exercise (default 9)")
    args = parser.parse_args()
    from engine.exercises import EXERCISES
    from quizapp.grading.code import grade_code

    print(f"Median of {args.repeats} (Python {sys.version.split()[0]})")
    print(
        f"{'exercise':<24} {'graded ms':>10} {'in-process ms':>14} {'ratio':>7}  target <= {TARGET_SECONDS} s"
    )
    worst = 0.0
    for ex in EXERCISES.values():
        source = ex.solution
        in_process(ex.id, source, 0)  # imports and first calls, untimed
        graded_times, local_times = [], []
        for seed in range(args.repeats):
            graded_times.append(graded(ex.id, source, seed))
            local_times.append(in_process(ex.id, source, seed))
        g, local = statistics.median(graded_times), statistics.median(local_times)
        worst = max(worst, g)
        print(f"{ex.id:<24} {g * 1000:10.0f} {local * 1000:14.1f} {g / max(local, 1e-9):6.0f}x")
    print(f"slowest median {worst * 1000:.0f} ms: {'ok' if worst <= TARGET_SECONDS else 'OVER'}")
    start = time.perf_counter()
    verdict = grade_code("code-softmax", "def softmax(x):\n    while True:\n        pass\n", seed=0,
                         time_limit=LOOP_LIMIT)  # fmt: skip
    stopped = time.perf_counter() - start
    print(f"endless loop stopped after {stopped:.2f} s (limit {LOOP_LIMIT} s + 1 s): "
          f"{'ok' if stopped <= LOOP_LIMIT + 1 else 'OVER'} ({verdict.problem})")  # fmt: skip


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    main()
