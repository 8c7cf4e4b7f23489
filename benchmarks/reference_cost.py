"""Provides the check that a code exercise's cost estimate errs long: for a few cases near the bounds, the
time the reference and its named mistakes take here against what the estimate (at the bound's rate) says.

Run: python benchmarks/reference_cost.py [--repeats N]

The estimate is what lets `validate` refuse inputs whose reference would take over a second, before it
runs; it should be at least the real time (ratio <= 1; over 1 on a busy machine is noise to look into).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine.exercises import EXERCISES
from engine.exercises.base import rng_for

RATE = 200_000_000
"""Units of estimated work per second: the rate the bounds assume."""
CASES = [
    ("code-attention", {"T": 300, "S": 300, "d_k": 32}),
    ("code-sliding-window", {"t": 1500, "window": 3}),
    ("code-flash-forward", {"T": 100, "S": 200, "block": 2}),
]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    print(f"{'exercise':22} {'estimate':>10} {'median':>10} {'p95/max':>10} {'ratio':>7}")
    for exercise, edge in CASES:
        ex = EXERCISES[exercise]
        cases = ex.cases(0, ex.spec(edge=(edge,)))
        times = []
        for _ in range(args.repeats):
            started = time.perf_counter()
            for case in cases:
                np.asarray(ex.reference(**case))
                for mistake in ex.mistakes:
                    np.asarray(mistake.compute(**case))
            times.append(time.perf_counter() - started)
        work, _ = ex._made(rng_for(ex.id, 0), edge, "float64")
        estimate = max(work * (1 + len(ex.mistakes)) / RATE, 0.05)
        med, high = statistics.median(times), max(times)
        print(f"{exercise:22} {estimate:9.3f}s {med:9.3f}s {high:9.3f}s {med / estimate:7.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
