"""Provides tests of the engine's head-parallel path: any split of the heads gives the serial answer."""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import benchmarks.fast as fast
import benchmarks.fast.threads as threads
import engine
from benchmarks.fast.groups import head_groups
from quizapp.explore.transforms import drop_output_projection, tie_heads

EXAMPLES = settings(max_examples=60, deadline=None)


@contextmanager
def split_into(parts: int) -> Iterator[None]:
    """Makes every call, however small, cut its work into `parts` groups (1: the serial path)."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(fast, "PARALLEL_MIN_WORK", 0)
        mp.setattr(fast, "parallel_parts", lambda: parts)
        yield


@st.composite
def problems(draw: st.DrawFn) -> dict[str, object]:
    """A random attention call: batch, GQA shape, bias, mask kind, cross-attention, the two experiments
    (Explore's weight changes: tied heads, no W_O)."""
    n_kv, g, d_head = draw(st.integers(1, 3)), draw(st.integers(1, 4)), draw(st.integers(1, 4))
    b, t, s = draw(st.integers(1, 3)), draw(st.integers(1, 7)), draw(st.integers(1, 7))
    h, seed = n_kv * g, draw(st.integers(0, 2**16))
    rng = np.random.default_rng(seed)
    p = engine.init_attention(h * d_head, h, n_kv_heads=n_kv, seed=seed, bias=draw(st.booleans()))
    p = tie_heads(p) if draw(st.booleans()) else p
    p = drop_output_projection(p) if draw(st.booleans()) else p
    cross = draw(st.booleans())
    kv = rng.normal(size=(b, s, h * d_head)) if cross else None
    s = s if cross else t
    mask_kind = draw(st.sampled_from([None, "causal", "bool", "additive"]))
    allowed = rng.random((b, h, t, s)) < 0.7
    mask: object = {
        None: None,
        "causal": "causal",
        "bool": allowed,
        "additive": np.where(allowed, 0.0, -np.inf) + rng.normal(size=(b, h, t, s)),
    }[mask_kind]
    return {
        "x": rng.normal(size=(b, t, h * d_head)).astype(np.float32),
        "p": p,
        "kv": kv,
        "mask": mask,
    }


@EXAMPLES
@given(problems(), st.integers(2, 4))
def test_heads_split_over_threads_give_the_serial_answer(problem: dict[str, object], parts: int) -> None:
    with split_into(1):
        serial = fast.fast_multi_head_attention(**problem)  # type: ignore[arg-type]
    with split_into(parts):
        split = fast.fast_multi_head_attention(**problem)  # type: ignore[arg-type]
    for name in ("weights", "scores", "heads", "output"):
        np.testing.assert_allclose(getattr(split, name), getattr(serial, name), rtol=1e-5, atol=1e-6)


@settings(max_examples=60, deadline=None)
@given(
    st.integers(1, 3), st.integers(1, 3), st.integers(1, 4), st.integers(1, 2), st.integers(1, 9),
    st.sampled_from(["none", "causal", "bool", "additive", "cross"]), st.booleans(), st.booleans(),
    st.booleans(), st.integers(0, 2**16),
)  # fmt: skip
def test_the_fast_path_computes_what_the_reference_computes(
    n_kv: int,
    g: int,
    d_head: int,
    batch: int,
    t: int,
    mask: str,
    bias: bool,
    tie: bool,
    drop: bool,
    seed: int,
) -> None:
    h = n_kv * g
    p = engine.init_attention(h * d_head, h, n_kv_heads=n_kv, seed=seed, bias=bias, dtype=np.float64)
    p = tie_heads(p) if tie else p
    p = drop_output_projection(p) if drop else p
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(batch, t, h * d_head))  # (B, T, d) float64, so only the layout differs
    kv = rng.normal(size=(batch, t + 2, h * d_head)) if mask == "cross" else None  # (B, S, d)
    s = t + 2 if kv is not None else t
    masks = {"none": None, "cross": None, "causal": "causal", "bool": rng.random((batch, h, t, s)) < 0.7,
             "additive": np.where(rng.random((t, s)) < 0.7, 0.0, -np.inf)}  # fmt: skip
    args = {"mask": masks[mask], "kv": kv}
    with split_into(2):
        fast_result = fast.fast_multi_head_attention(x, p, **args)  # type: ignore[arg-type]
    reference = engine.multi_head_attention(x, p, **args)  # type: ignore[arg-type]
    for name in ("output", "weights", "heads", "scores"):
        np.testing.assert_allclose(
            getattr(fast_result, name), getattr(reference, name), rtol=1e-9, atol=1e-12
        )


@given(st.integers(1, 4), st.integers(1, 5), st.integers(1, 6), st.integers(1, 4))
def test_head_groups_cover_every_head_once_with_adjacent_query_heads(
    B: int, n_kv: int, g: int, parts: int
) -> None:
    seen = np.zeros((B, n_kv, g), dtype=int)
    for group in head_groups(B, n_kv, g, parts):
        seen[group.index] += 1
        heads = np.arange(n_kv * g).reshape(n_kv, g)[group.kv_heads, group.members].ravel()
        assert np.array_equal(heads, np.arange(heads[0], heads[0] + heads.size))  # adjacent query heads
    assert np.all(seen == 1)


def test_parallel_parts_fall_back_to_one_when_blas_threads_cannot_be_set(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(threads, "openblas_set_local", lambda: None)
    assert threads.parallel_parts() == 1


def test_an_error_in_a_worker_reaches_the_caller_after_every_task_finished() -> None:
    finished: list[str] = []

    def fail() -> None:
        raise ValueError("worker failed")

    with pytest.raises(ValueError, match="worker failed"):
        threads.run_in_parallel([lambda: finished.append("main"), fail, lambda: finished.append("other")])
    assert sorted(finished) == ["main", "other"]


def test_params_keep_their_own_read_only_copy_of_the_weights() -> None:
    p = engine.init_attention(8, 2, seed=1)
    w_q = np.array(p.w_q)
    q = engine.AttentionParams(w_q, p.w_k, p.w_v, p.w_o, 2, 2)
    x = np.random.default_rng(2).normal(size=(3, 8)).astype(np.float32)
    before = fast.fast_multi_head_attention(x, q).output
    w_q *= 10  # the caller changes its array: the params, and what the engine derived from them, do not
    np.testing.assert_array_equal(fast.fast_multi_head_attention(x, q).output, before)
    with pytest.raises(ValueError, match="read-only"):
        q.w_q[0, 0] = 1.0


def test_pinning_is_off_unless_asked_for() -> None:
    before = os.sched_getaffinity(0)
    during: list[set[int]] = []
    threads.run_in_parallel([lambda: during.append(os.sched_getaffinity(0))] * 2)
    assert during == [before, before]


def test_when_asked_the_caller_is_pinned_apart_from_the_workers_only_while_they_work() -> None:
    getcpu = threads._sched_getcpu()
    if getcpu is None or len(os.sched_getaffinity(0)) < 2:
        pytest.skip("needs sched_getcpu and at least two CPUs")
    before = os.sched_getaffinity(0)
    during: dict[str, set[int]] = {}

    def record(who: str) -> Callable[[], None]:
        return lambda: during.__setitem__(who, os.sched_getaffinity(0))

    threads.run_in_parallel([record("caller"), record("worker")], pin=True)
    assert len(during["caller"]) == 1 and len(during["worker"]) == 1
    assert during["caller"].isdisjoint(during["worker"])  # never two of them on one CPU
    assert os.sched_getaffinity(0) == before  # the caller gets its own affinity back


def test_two_engine_calls_at_once_share_the_workers_and_both_get_the_serial_answer() -> None:
    p = engine.init_attention(32, 4, seed=7)
    xs = [np.random.default_rng(k).normal(size=(2, 40, 32)).astype(np.float32) for k in range(2)]
    with split_into(1):
        expected = [fast.fast_multi_head_attention(x, p, mask="causal").output for x in xs]
    results: list[list[np.ndarray]] = [[], []]

    def call_repeatedly(k: int) -> None:
        for _ in range(30):
            results[k].append(fast.fast_multi_head_attention(xs[k], p, mask="causal").output)

    with split_into(2):
        callers = [threading.Thread(target=call_repeatedly, args=(k,)) for k in range(2)]
        for caller in callers:
            caller.start()
        for caller in callers:
            caller.join()
    for k in range(2):
        assert len(results[k]) == 30
        for output in results[k]:
            np.testing.assert_allclose(output, expected[k], rtol=1e-5, atol=1e-6)
