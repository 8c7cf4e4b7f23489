"""Provides the engine-vs-torch benchmark: NumPy attention against torch.nn.MultiheadAttention.

Two NumPy sides are timed: benchmarks.fast (the optimised forward, target <= 1.0x torch at the median) and
engine.attention (the reference the app uses, reported for comparison; its target is against plain NumPy
at the app's sizes, in benchmarks/engine_reference.py).

Both sides compute the same thing with the same weights, on the CPU, in float32, in one process, and
both return the per-head attention weights (torch: need_weights=True, average_attn_weights=False).

Each library is timed in its own block of calls, never alternating single calls: a library's thread
pool keeps spinning for a while after a call and would slow the other one down.
For the same reason the benchmark pauses (--settle, 0.3 s) before each block, so that the other
library's idle threads have parked: without the pause, torch measured up to 2x slower right after a
NumPy block (and NumPy slower after torch), which flattered whichever side was disturbed more.
The blocks are interleaved (numpy block, torch block, torch block, numpy block, ...) and repeated, and
the median per-call time is reported, so drift on a noisy machine hits both sides alike.

Run: python benchmarks/engine_vs_torch.py [--quick] [--rounds N] [--T 128 512] [--d 64]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
import tracemalloc
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # benchmarks.fast, run as a script

import engine
from benchmarks.fast import fast_multi_head_attention

N_HEADS = 8
FULL_T = (6, 128, 512, 2048)
FULL_D = (64, 512, 1024)
QUICK_T = (6, 128, 512)
QUICK_D = (64, 512)
MIN_BLOCK_SECONDS = 0.03
"""Each block repeats the call until it lasts at least this long, so tiny calls are timed fairly."""


@dataclass(frozen=True)
class Point:
    """One benchmark point: the medians of both libraries and their ratio."""

    T: int
    d: int
    causal: bool
    engine_ms: float
    torch_ms: float
    ratio: float
    """Median over rounds of (engine block time / torch block time): below 1 the engine is faster."""
    best_ratio: float
    """Fastest engine block / fastest torch block: other processes only ever add time, so on a busy
    machine this is the steadier estimate."""
    reference_ms: float
    reference_ratio: float
    """Median over rounds of (reference block time / torch block time)."""


def _calls_per_block(fn: Callable[[], object]) -> int:
    """Finds how many calls fill MIN_BLOCK_SECONDS, after one warm-up call."""
    fn()
    start = time.perf_counter()
    fn()
    once = max(time.perf_counter() - start, 1e-7)
    return max(1, round(MIN_BLOCK_SECONDS / once))


SETTLE_SECONDS = 0.3
"""Pause before each timed block, long enough for the other library's spinning threads to park."""


WARMUP_SECONDS = 0.05
"""Untimed calls after the pause, before the block, so that both libraries are timed in their steady
state: after an idle pause Linux takes tens of milliseconds to spread a library's threads over both
cores again. (benchmarks.fast can pin its threads apart while they work, benchmarks/fast/threads.py,
which removed its own ramp: before that, its calls at T=128, d_model=64 took 0.62 ms for 60 ms after a
pause, then 0.40 ms.)"""


def _time_block(fn: Callable[[], object], n: int, settle: float) -> float:
    """Seconds per call over one block of n back-to-back calls, after the settle pause and a warm-up."""
    time.sleep(settle)
    warm_until = time.perf_counter() + (WARMUP_SECONDS if settle else 0.0)
    while time.perf_counter() < warm_until:
        fn()
    start = time.perf_counter()
    for _ in range(n):
        fn()
    return (time.perf_counter() - start) / n


def _interleaved(fns: list[Callable[[], object]], rounds: int, settle: float) -> list[list[float]]:
    """Seconds per call of each function in each round.

    Each round times one block of every function back to back, in an order that rotates between rounds,
    so load that drifts between rounds hits every side of a round alike.
    """
    sizes = [_calls_per_block(fn) for fn in fns]
    times: list[list[float]] = [[] for _ in fns]
    for i in range(rounds):
        order = list(range(len(fns)))
        order = order[i % len(order) :] + order[: i % len(order)]
        for k in order:
            times[k].append(_time_block(fns[k], sizes[k], settle))
    return times


def _torch_module(p: engine.AttentionParams) -> Any:
    """Builds torch.nn.MultiheadAttention holding the engine's weights (torch computes x @ W.T)."""
    import torch as t

    mha = t.nn.MultiheadAttention(p.d_model, p.n_heads, bias=False, batch_first=True)
    with t.no_grad():
        w_in = np.concatenate([p.w_q, p.w_k, p.w_v], axis=1).T  # (3d, d)
        mha.in_proj_weight.copy_(t.from_numpy(np.ascontiguousarray(w_in)))
        mha.out_proj.weight.copy_(t.from_numpy(np.ascontiguousarray(p.w_o.T)))
    return mha.eval()


def bench_point(T: int, d: int, causal: bool, rounds: int, settle: float) -> Point:
    """Times one (T, d_model, mask) point and checks that both sides agree first."""
    import torch

    p = engine.init_attention(d, N_HEADS, seed=0)
    x = np.random.default_rng(1).standard_normal((1, T, d)).astype(np.float32)  # (B, T, d)
    mha = _torch_module(p)
    tx = torch.from_numpy(x)
    t_mask = None
    if causal:  # torch's fastest causal form here: a precomputed additive float mask
        t_mask = torch.zeros(T, T).masked_fill_(torch.ones(T, T, dtype=torch.bool).triu(1), float("-inf"))
    e_mask = "causal" if causal else None

    def run_engine() -> object:
        return fast_multi_head_attention(x, p, mask=e_mask)

    def run_reference() -> object:
        return engine.multi_head_attention(x, p, mask=e_mask)

    def run_torch() -> object:
        with torch.inference_mode():
            return mha(tx, tx, tx, need_weights=True, average_attn_weights=False, attn_mask=t_mask)

    with torch.inference_mode():
        out_t, w_t = mha(tx, tx, tx, need_weights=True, average_attn_weights=False, attn_mask=t_mask)
    for r in (fast_multi_head_attention(x, p, mask=e_mask), engine.multi_head_attention(x, p, mask=e_mask)):
        err = max(float(np.abs(r.output - out_t.numpy()).max()), float(np.abs(r.weights - w_t.numpy()).max()))
        if err > 1e-4:
            raise SystemExit(f"engine and torch disagree at T={T} d={d} causal={causal}: max error {err:.2e}")
    e_s, r_s, t_s = _interleaved([run_engine, run_reference, run_torch], rounds, settle)
    ratio = statistics.median(e / t for e, t in zip(e_s, t_s, strict=True))
    ref_ratio = statistics.median(r / t for r, t in zip(r_s, t_s, strict=True))
    median_e, median_t = statistics.median(e_s) * 1e3, statistics.median(t_s) * 1e3
    return Point(
        T, d, causal, median_e, median_t, ratio, min(e_s) / min(t_s), statistics.median(r_s) * 1e3, ref_ratio
    )


def peak_bytes(fn: Callable[[], object]) -> int:
    """Peak bytes allocated (tracemalloc sees NumPy's buffers) while fn runs, above what existed before."""
    tracemalloc.start()
    tracemalloc.reset_peak()
    base = tracemalloc.get_traced_memory()[0]
    result = fn()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    del result
    return peak - base


def memory_report(T: int, d: int) -> list[str]:
    """Compares the peak extra memory of GQA and MQA calls with the same call as MHA."""
    x = np.random.default_rng(1).standard_normal((1, T, d)).astype(np.float32)  # (B, T, d)
    d_head = d // N_HEADS
    lines = [
        f"Peak extra memory of one call after the first, T={T}, d_model={d}, {N_HEADS} heads, float32 "
        "(tracemalloc):"
    ]
    mha_peak = 0
    for n_kv in (N_HEADS, 2, 1):
        p = engine.init_attention(d, N_HEADS, n_kv_heads=n_kv, seed=0)
        fast_multi_head_attention(x, p, mask="causal")  # the first call stacks the weights, once per params
        peak = peak_bytes(lambda p=p: fast_multi_head_attention(x, p, mask="causal"))
        if n_kv == N_HEADS:
            mha_peak = peak
        label = "MHA" if n_kv == N_HEADS else ("MQA" if n_kv == 1 else "GQA")
        repeated = 2 * T * N_HEADS * d_head * 4  # K and V repeated to every query head
        lines.append(
            f"  {label} n_kv_heads={n_kv}: {peak / 2**20:8.2f} MiB  "
            f"({(peak - mha_peak) / 2**20:+.2f} MiB vs MHA; "
            f"materialising repeated K/V would add {repeated / 2**20:.2f} MiB)"
        )
    return lines


def main(argv: list[str] | None = None) -> int:
    """Runs the grid and prints the table, the summary and the memory report."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--quick", action="store_true", help="a smaller grid: T in 6,128,512 x d in 64,512")
    parser.add_argument("--rounds", type=int, default=7, help="interleaved blocks per library per point")
    parser.add_argument("--T", type=int, nargs="+", help="sequence lengths to run instead of the grid's")
    parser.add_argument("--d", type=int, nargs="+", help="d_model values to run instead of the grid's")
    parser.add_argument(
        "--settle", type=float, default=SETTLE_SECONDS, help="seconds to pause before each block (0 for none)"
    )
    args = parser.parse_args(argv)
    try:
        import torch
    except ImportError:
        print("torch is not installed; skipping the engine-vs-torch benchmark (pip install torch to run it).")
        return 0

    ts, ds = (QUICK_T, QUICK_D) if args.quick else (FULL_T, FULL_D)
    ts, ds = tuple(args.T or ts), tuple(args.d or ds)
    print(
        f"engine (NumPy {np.__version__}) vs torch {torch.__version__} nn.MultiheadAttention, CPU float32, "
        f"batch 1, {N_HEADS} heads, need_weights=True, torch threads={torch.get_num_threads()}, "
        f"median of {args.rounds} interleaved blocks, {args.settle:g} s pause before each"
    )
    header = (
        f"{'T':>5} {'d_model':>7} {'mask':>6} {'fast ms':>10} {'torch ms':>10} {'ratio':>6} {'best':>6}"
        f" {'ref ms':>10} {'ref/torch':>9}"
    )
    print(header)
    print("-" * len(header))
    points: list[Point] = []
    for T in ts:
        for d in ds:
            for causal in (False, True):
                pt = bench_point(T, d, causal, args.rounds, args.settle)
                points.append(pt)
                mask = "causal" if causal else "none"
                print(
                    f"{T:>5} {d:>7} {mask:>6} {pt.engine_ms:>10.3f} {pt.torch_ms:>10.3f} "
                    f"{pt.ratio:>6.2f} {pt.best_ratio:>6.2f} "
                    f"{pt.reference_ms:>10.3f} {pt.reference_ratio:>9.2f}"
                )
                sys.stdout.flush()
    print("-" * len(header))
    print("ratio: median over rounds of fast/torch block time; best: fastest fast / fastest torch")
    ref_median = statistics.median(pt.reference_ratio for pt in points)
    print(f"  ref: the reference engine, median reference/torch {ref_median:.2f} (no target against torch)")
    for label, key in (("ratio", lambda pt: pt.ratio), ("best", lambda pt: pt.best_ratio)):
        median = statistics.median(key(pt) for pt in points)
        worst = max(points, key=key)
        where = f"T={worst.T} d_model={worst.d} {'causal' if worst.causal else 'no mask'}"
        met_median = "met" if median <= 1.0 else "NOT met"
        met_max = "met" if key(worst) <= 1.3 else "NOT met"
        print(
            f"{label:>5}: overall median {median:.2f} (target <= 1.0: {met_median}); "
            f"max {key(worst):.2f} at {where} (target <= 1.3: {met_max})"
        )
    print()
    print("\n".join(memory_report(512, 512)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
