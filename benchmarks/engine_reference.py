"""Provides the reference-engine benchmark: engine.attention against a plain 20-line NumPy MHA.

The app calls the engine with at most 12 tokens (Explore, worked examples), so the reference must stay
close to the simplest NumPy code at those sizes: target at most 1.5x. Both run the same float64 weights;
they are timed in alternating blocks, and the table prints medians and their ratio.

Run: python benchmarks/engine_reference.py [--rounds N]
"""

from __future__ import annotations

import argparse
import functools
import statistics
import time
from collections.abc import Callable

import numpy as np

import engine

SIZES = [(t, d, h) for t in (4, 8, 12) for d, h in ((16, 2), (32, 4), (64, 8))]
TARGET = 1.5


def plain_mha(
    x: np.ndarray, w_q: np.ndarray, w_k: np.ndarray, w_v: np.ndarray, w_o: np.ndarray, h: int
) -> np.ndarray:
    """Multi-head attention as anyone would first write it (the reference's yardstick)."""
    T, d = x.shape
    dh = d // h
    q = (x @ w_q).reshape(T, h, dh).transpose(1, 0, 2)  # (h, T, dh)
    k = (x @ w_k).reshape(T, h, dh).transpose(1, 0, 2)  # (h, T, dh)
    v = (x @ w_v).reshape(T, h, dh).transpose(1, 0, 2)  # (h, T, dh)
    s = q @ k.transpose(0, 2, 1) / np.sqrt(dh)  # (h, T, T)
    s = np.where(np.tri(T, dtype=bool), s, -np.inf)  # (h, T, T)
    a = np.exp(s - s.max(-1, keepdims=True))  # (h, T, T)
    a /= a.sum(-1, keepdims=True)  # (h, T, T)
    return (a @ v).transpose(1, 0, 2).reshape(T, d) @ w_o  # (T, d)


def _per_call(fn: Callable[[], object], n: int) -> float:
    start = time.perf_counter()
    for _ in range(n):
        fn()
    return (time.perf_counter() - start) / n


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--rounds", type=int, default=15)
    args = parser.parse_args()
    print(f"{'T':>3} {'d':>4} {'h':>3} {'reference us':>13} {'plain us':>9} {'ratio':>6}")
    ratios = []
    for T, d, h in SIZES:
        p = engine.init_attention(d, h, seed=0, dtype=np.float64)
        x = np.random.default_rng(1).standard_normal((T, d))  # (T, d)
        ref = engine.multi_head_attention(x, p, mask="causal").output
        mine = plain_mha(x, p.w_q, p.w_k, p.w_v, p.w_o, h)
        np.testing.assert_allclose(ref, mine, rtol=1e-10, atol=1e-12)
        a_s: list[float] = []
        b_s: list[float] = []
        blocks = [
            (a_s, functools.partial(engine.multi_head_attention, x, p, mask="causal")),
            (b_s, functools.partial(plain_mha, x, p.w_q, p.w_k, p.w_v, p.w_o, h)),
        ]
        for i in range(args.rounds):
            for out, fn in blocks if i % 2 == 0 else blocks[::-1]:
                out.append(_per_call(fn, 200))
        ratio = statistics.median(a / b for a, b in zip(a_s, b_s, strict=True))
        ratios.append(ratio)
        ref_us, plain_us = statistics.median(a_s) * 1e6, statistics.median(b_s) * 1e6
        print(f"{T:>3} {d:>4} {h:>3} {ref_us:>13.1f} {plain_us:>9.1f} {ratio:>6.2f}")
    worst = max(ratios)
    verdict = "met" if worst <= TARGET else "NOT met"
    print(f"median ratio {statistics.median(ratios):.2f}, max {worst:.2f} (target <= {TARGET}: {verdict})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
