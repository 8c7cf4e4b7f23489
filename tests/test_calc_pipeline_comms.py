"""The pipeline and alpha-beta calculators, checked against independent computations: a 1F1B schedule
simulated op by op, a ring all-reduce carried out chunk by chunk on NumPy arrays, and the formulas' limits."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import calculate


def _v(name: str, **args: Any) -> float:
    """A calculator's value as a number (these calculators never give a shape)."""
    value = calculate(name, **args).value
    assert not isinstance(value, tuple)
    return value


def _simulate_1f1b(p: int, m: int, t_f: float, t_b: float) -> tuple[float, list[float], list[int]]:
    """Runs the 1F1B (PipeDream-Flush) schedule op by op: each stage does min(p - s - 1, m) warm-up
    forwards, then one forward and one backward in turn, then the remaining backwards. A forward waits for
    the stage before it, a backward for the stage after it. Returns the makespan, each stage's busy time
    and each stage's most micro-batches stashed at once (forwards done, backwards not yet)."""
    orders: list[list[tuple[str, int]]] = []
    for s in range(p):
        warm = min(p - s - 1, m)
        order = [("F", j) for j in range(warm)]
        for i in range(m - warm):
            order += [("F", warm + i), ("B", i)]
        order += [("B", j) for j in range(m - warm, m)]
        orders.append(order)
    done: dict[tuple[str, int, int], float] = {}
    free = [0.0] * p
    nxt = [0] * p
    stashed = [0] * p
    most = [0] * p
    while any(nxt[s] < len(orders[s]) for s in range(p)):
        progressed = False
        for s in range(p):
            if nxt[s] == len(orders[s]):
                continue
            kind, j = orders[s][nxt[s]]
            if kind == "F":
                dep = done.get(("F", s - 1, j)) if s > 0 else 0.0
            else:
                dep = done.get(("B", s + 1, j)) if s < p - 1 else done.get(("F", s, j))
            if dep is None:
                continue
            start = max(free[s], dep)
            free[s] = start + (t_f if kind == "F" else t_b)
            done[(kind, s, j)] = free[s]
            stashed[s] += 1 if kind == "F" else -1
            most[s] = max(most[s], stashed[s])
            nxt[s] += 1
            progressed = True
        assert progressed, "the schedule deadlocked"
    busy = [m * (t_f + t_b)] * p
    return max(free), busy, most


@settings(max_examples=60, deadline=None)
@given(st.integers(2, 9), st.integers(1, 24), st.sampled_from([(1.0, 2.0), (1.0, 1.0), (2.0, 3.0)]))
def test_a_simulated_1f1b_step_has_the_bubble_the_calculator_gives(
    p: int, m: int, times: tuple[float, float]
) -> None:
    t_f, t_b = times
    makespan, busy, _ = _simulate_1f1b(p, m, t_f, t_b)
    step = _v("pipeline_step_ms", stage_ms=t_f + t_b, p=p, m=m)
    assert makespan == pytest.approx(step)
    idle_share = 1 - busy[0] / makespan
    assert idle_share == pytest.approx(_v("pipeline_bubble_fraction", p=p, m=m))
    over_ideal = (makespan - busy[0]) / busy[0]
    assert over_ideal == pytest.approx(_v("pipeline_bubble_fraction", p=p, m=m, relative_to="ideal"))


@settings(max_examples=40, deadline=None)
@given(st.integers(2, 8), st.integers(1, 20))
def test_the_simulated_first_stage_stashes_as_many_micro_batches_as_the_calculator_counts(
    p: int, m: int
) -> None:
    _, _, most = _simulate_1f1b(p, m, 1.0, 2.0)
    n_layers, per_layer = 2 * p, 1.0
    for stage in range(1, p + 1):
        d = _v(
            "pipeline_activation_bytes",
            act_bytes_per_layer=per_layer,
            n_layers=n_layers,
            p=p,
            m=m,
            stage=stage,
        )
        assert d == most[stage - 1] * 2 * per_layer
    gpipe = _v(
        "pipeline_activation_bytes",
        act_bytes_per_layer=per_layer,
        n_layers=n_layers,
        p=p,
        m=m,
        schedule="gpipe",
    )
    assert gpipe == m * 2 * per_layer


@pytest.mark.parametrize(("p", "m"), [(2, 1), (4, 8), (8, 64), (16, 3)])
def test_interleaving_divides_the_bubble_over_the_ideal_time_by_v(p: int, m: int) -> None:
    plain = _v("pipeline_bubble_fraction", p=p, m=m, relative_to="ideal")
    for v in (1, 2, 3, 4):
        ideal = _v("pipeline_bubble_fraction", p=p, m=m, v=v, relative_to="ideal")
        share = _v("pipeline_bubble_fraction", p=p, m=m, v=v)
        assert ideal == pytest.approx(plain / v)
        assert share == pytest.approx(ideal / (1 + ideal))  # bubble / (ideal + bubble)
        step = _v("pipeline_step_ms", stage_ms=1.0, p=p, m=m, v=v)
        assert 1 - m / step == pytest.approx(share)


def test_more_micro_batches_shrink_the_bubble_towards_zero() -> None:
    shares = [_v("pipeline_bubble_fraction", p=8, m=m) for m in (1, 2, 8, 64, 4096)]
    assert shares == sorted(shares, reverse=True)
    assert shares[0] == pytest.approx(7 / 8) and shares[-1] < 2e-3


@pytest.mark.parametrize("p", [2, 4, 8, 17, 64])
@pytest.mark.parametrize("target", [0.01, 0.05, 0.1, 0.25, 0.5])
@pytest.mark.parametrize("v", [1, 2, 4])
def test_the_fewest_micro_batches_meet_the_target_and_one_fewer_does_not(
    p: int, target: float, v: int
) -> None:
    m = _v("pipeline_microbatches_for_bubble", p=p, target=target, v=v)
    assert isinstance(m, int)
    assert _v("pipeline_bubble_fraction", p=p, m=m, v=v) <= target + 1e-12
    if m > 1:
        assert _v("pipeline_bubble_fraction", p=p, m=m - 1, v=v) > target


def _ring_allreduce(data: list[np.ndarray]) -> tuple[list[np.ndarray], int, float]:
    """A ring all-reduce done chunk by chunk: p - 1 reduce-scatter steps, then p - 1 all-gather steps, each
    rank sending one chunk to the next rank per step. Returns the buffers, the steps and the elements one
    rank sent."""
    p = len(data)
    bufs = [np.array_split(d.astype(np.float64), p) for d in data]  # p x [p chunks]
    steps = 0
    sent = 0.0
    for k in range(p - 1):  # reduce-scatter: rank r sends chunk (r - k) mod p
        msgs = [(r, (r - k) % p, bufs[r][(r - k) % p].copy()) for r in range(p)]
        for r, c, chunk in msgs:
            bufs[(r + 1) % p][c] = bufs[(r + 1) % p][c] + chunk
        steps += 1
        sent += msgs[0][2].size
    for k in range(p - 1):  # all-gather: rank r sends its finished chunk (r + 1 - k) mod p
        msgs = [(r, (r + 1 - k) % p, bufs[r][(r + 1 - k) % p].copy()) for r in range(p)]
        for r, c, chunk in msgs:
            bufs[(r + 1) % p][c] = chunk
        steps += 1
        sent += msgs[0][2].size
    return [np.concatenate(b) for b in bufs], steps, sent


@pytest.mark.parametrize("p", [2, 3, 4, 8, 16])
def test_a_ring_all_reduce_done_chunk_by_chunk_costs_what_the_calculator_says(p: int) -> None:
    rng = np.random.default_rng(p)
    n_elems, elem_bytes = 48 * p, 2
    data = [rng.integers(-5, 5, n_elems) for _ in range(p)]
    out, steps, sent = _ring_allreduce(data)
    for o in out:
        assert np.array_equal(o, np.sum(data, axis=0))
    alpha_us, bw = 7.0, 150.0
    n_bytes = n_elems * elem_bytes
    expected = steps * alpha_us / 1000 + sent * elem_bytes / (bw * 1e6)
    got = _v("allreduce_time", n_bytes=n_bytes, p=p, alpha_us=alpha_us, bandwidth_gb_s=bw)
    assert got == pytest.approx(expected)
    assert steps == 2 * (p - 1) and sent * elem_bytes == pytest.approx(2 * (p - 1) / p * n_bytes)


@pytest.mark.parametrize("p", [2, 3, 8, 64, 1000])
def test_the_terms_add_up_and_the_tree_only_saves_hops(p: int) -> None:
    base = {"n_bytes": 2e6, "p": p, "alpha_us": 5.0, "bandwidth_gb_s": 100.0}
    for algo in ("ring", "tree"):
        terms = [_v("allreduce_time", **base, algorithm=algo, term=t) for t in ("latency", "bandwidth")]
        assert _v("allreduce_time", **base, algorithm=algo) == pytest.approx(sum(terms))
    ring_lat = _v("allreduce_time", **base, term="latency")
    tree_lat = _v("allreduce_time", **base, algorithm="tree", term="latency")
    assert tree_lat == pytest.approx(2 * math.ceil(math.log2(p)) * 5e-3)
    assert tree_lat <= ring_lat and (tree_lat == ring_lat) == (p <= 3)  # 2 ceil(log2 3) = 2 (3 - 1)
    ring_bw = _v("allreduce_time", **base, term="bandwidth")
    assert ring_bw == _v("allreduce_time", **base, algorithm="tree", term="bandwidth")


@pytest.mark.parametrize("algo", ["ring", "tree"])
@pytest.mark.parametrize("p", [2, 8, 72, 512])
def test_at_the_latency_bound_size_the_two_terms_are_equal(algo: str, p: int) -> None:
    link = {"alpha_us": 4.5, "bandwidth_gb_s": 225.0}
    n = _v("allreduce_latency_bound_bytes", p=p, algorithm=algo, **link)
    lat, bw = (
        _v("allreduce_time", n_bytes=n, p=p, algorithm=algo, term=t, **link) for t in ("latency", "bandwidth")
    )
    assert lat == pytest.approx(bw)
    smaller = _v("allreduce_time", n_bytes=n / 4, p=p, algorithm=algo, term="bandwidth", **link)
    assert smaller < lat  # a smaller message is latency-bound


def test_alpha_beta_has_the_latency_and_the_bandwidth_as_its_limits() -> None:
    tiny = _v("alpha_beta_time", n_bytes=1e-6, alpha_us=3.0, bandwidth_gb_s=100.0)
    assert tiny == pytest.approx(3e-3)
    huge = _v("alpha_beta_time", n_bytes=1e12, alpha_us=3.0, bandwidth_gb_s=100.0)
    assert huge == pytest.approx(1e12 / 100e9 * 1000, rel=1e-6)
    one = _v("alpha_beta_time", n_bytes=5e5, alpha_us=3.0, bandwidth_gb_s=100.0)
    assert _v(
        "alpha_beta_time", n_bytes=5e5, alpha_us=3.0, bandwidth_gb_s=100.0, messages=7
    ) == pytest.approx(7 * one)


def test_training_all_reduces_twice_as_often_as_a_forward_pass() -> None:
    shape = {"d_model": 5120, "bytes_per_element": 2, "n_layers": 40, "tokens": 2048}
    fwd = _v("tp_allreduce_volume", **shape)
    assert _v("tp_allreduce_volume", **shape, passes="training") == 2 * fwd
    assert fwd == 2 * 40 * _v("tp_allreduce_volume", **{**shape, "n_layers": 1}) // 2
    per_stage = [_v("tp_allreduce_count", n_layers=40, p=p, m=6) for p in (1 + 1, 4, 8)]
    assert [c * p for c, p in zip(per_stage, (2, 4, 8), strict=True)] == [4 * 40 * 6] * 3
    assert _v("tp_allreduce_count", n_layers=40, p=4, m=6, passes="forward") * 2 == per_stage[1]
