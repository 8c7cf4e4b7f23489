"""FlashAttention's online softmax and the training-memory calculators, checked against independent
computations: the full softmax, arrays actually built with NumPy, finite differences, the ZeRO anchor."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import calculate

# ---------------------------------------------------------------------------- online softmax


@st.composite
def _rows(draw: st.DrawFn) -> tuple[list[list[int]], list[list[int]], int]:
    block = draw(st.integers(1, 4))
    n_blocks = draw(st.integers(1, 5))
    s = block * n_blocks
    d_v = draw(st.integers(1, 3))
    scores = [draw(st.lists(st.integers(-6, 8), min_size=s, max_size=s))]
    values = draw(st.lists(st.lists(st.integers(-4, 4), min_size=d_v, max_size=d_v), min_size=s, max_size=s))
    return scores, values, block


def _full_softmax_output(scores: Any, values: Any) -> np.ndarray:
    s = np.asarray(scores, dtype=np.float64)[0]  # (S,)
    w = np.exp(s - s.max())  # (S,)
    return (w / w.sum()) @ np.asarray(values, dtype=np.float64)  # (S,) @ (S, d_v) -> (d_v,)


@settings(max_examples=80)
@given(_rows())
def test_the_block_loop_gives_exactly_the_full_softmax_output(row: Any) -> None:
    scores, values, block = row
    want = _full_softmax_output(scores, values)
    for col in range(len(values[0])):
        got = calculate(
            "online_softmax", scores=scores, values=values, block_size=block, which="output", col=col
        )
        assert got.value == pytest.approx(float(want[col]), rel=1e-12, abs=1e-12)
        assert got.steps[-1].value == got.value


@settings(max_examples=60)
@given(_rows(), st.data())
def test_the_state_after_b_blocks_is_the_softmax_of_the_keys_seen_so_far(
    row: Any, data: st.DataObject
) -> None:
    scores, values, block = row
    n_blocks = len(scores[0]) // block
    b = data.draw(st.integers(1, n_blocks))
    seen = np.asarray(scores, dtype=np.float64)[0, : b * block]  # (k,)
    v = np.asarray(values, dtype=np.float64)[: b * block]  # (k, d_v)
    m = seen.max()
    l_sum = np.exp(seen - m).sum()
    acc = np.exp(seen - m) @ v  # (k,) @ (k, d_v) -> (d_v,)
    args = {"scores": scores, "values": values, "block_size": block, "blocks": b}
    assert calculate("online_softmax", which="max", **args).value == m
    assert calculate("online_softmax", which="sum", **args).value == pytest.approx(l_sum, rel=1e-12)
    got = calculate("online_softmax", which="acc", col=0, **args).value
    assert got == pytest.approx(float(acc[0]), rel=1e-12, abs=1e-12)


def test_the_rescale_factor_is_exp_of_the_old_max_minus_the_new_one_and_the_mistakes_differ() -> None:
    args = {"scores": [[1, 2, 6, 0]], "values": [[1], [2], [3], [4]], "block_size": 2, "blocks": 2}
    d = calculate("online_softmax", which="scale", **args)
    assert d.value == pytest.approx(np.exp(2 - 6))
    assert d.misconception("rescaled-wrong-way").value == pytest.approx(np.exp(6 - 2))
    s = calculate("online_softmax", which="sum", **args)
    # Without the rescale the first block's terms stay relative to its own max 2.
    assert s.misconception("no-rescale").value == pytest.approx(np.exp(-1) + 1 + 1 + np.exp(-6))
    assert s.value == pytest.approx(np.exp(1 - 6) + np.exp(2 - 6) + 1 + np.exp(-6))
    mx = calculate(
        "online_softmax", which="max", scores=[[1, 7, 2, 0]], values=[[1]] * 4, block_size=2, blocks=2
    )
    assert mx.value == 7 and mx.misconception("block-max").value == 2


def test_the_unnormalised_output_is_the_accumulator() -> None:
    args = {"scores": [[0, 3, 1, 2]], "values": [[1], [2], [3], [4]], "block_size": 2}
    out = calculate("online_softmax", which="output", **args)
    acc = calculate("online_softmax", which="acc", blocks=2, **args)
    assert out.misconception("unnormalised").value == pytest.approx(acc.value)


@pytest.mark.parametrize(
    ("args", "words"),
    [
        ({"scores": [[1, 2, 3]], "values": [[1], [2], [3]], "block_size": 2}, ["S=3", "block_size=2"]),
        ({"scores": [[1, 2], [3, 4]], "values": [[1], [2]], "block_size": 1}, ["(2, 2)"]),
        ({"scores": [[1, 2]], "values": [[1]], "block_size": 1}, ["values", "(1, 1)"]),
        ({"scores": [[1, 2]], "values": [[1], [2]], "block_size": 1, "blocks": 3}, ["blocks=3"]),
        (
            {"scores": [[1, 2]], "values": [[1], [2]], "block_size": 1, "blocks": 1, "which": "scale"},
            ["blocks=1"],
        ),
        ({"scores": [[1, 2]], "values": [[1], [2]], "block_size": 0}, ["block_size=0"]),
        ({"scores": [[1, 2]], "values": [[1], [2]], "block_size": 1, "which": "acc", "col": 1}, ["col=1"]),
    ],
)
def test_bad_online_softmax_arguments_are_refused_by_name(args: dict[str, Any], words: list[str]) -> None:
    with pytest.raises(ValueError) as err:
        calculate("online_softmax", **args)
    assert all(w in str(err.value) for w in words), str(err.value)


# ---------------------------------------------------------------------------- bytes, from real arrays


@pytest.mark.parametrize(("dtype", "nbytes"), [(np.float16, 2), (np.float32, 4)])
@pytest.mark.parametrize("what", ["memory", "traffic"])
def test_materialised_bytes_are_the_s_and_p_arrays_standard_attention_builds(
    dtype: Any, nbytes: int, what: str
) -> None:
    b, h, t, d = 2, 3, 16, 4
    rng = np.random.default_rng(0)
    q, k = (rng.standard_normal((b, h, t, d)).astype(dtype) for _ in range(2))  # (B, h, T, d)
    s = q @ k.swapaxes(-1, -2)  # (B, h, T, T)
    p = np.exp(s - s.max(-1, keepdims=True))  # (B, h, T, T)
    held = s.nbytes + p.nbytes
    got = calculate(
        "materialised_attention_bytes", batch=b, n_heads=h, seq_len=t, bytes_per_element=nbytes, what=what
    )
    assert got.value == (held if what == "memory" else 2 * held)  # traffic: each written, then read once


def test_saved_attention_activations_are_the_arrays_a_naive_and_a_flash_kernel_keep() -> None:
    b, h, t, layers = 2, 4, 32, 3
    p = np.zeros((b, h, t, t), dtype=np.float16)  # (B, h, T, T): softmax output saved for backward
    s = np.zeros((b, h, t, t), dtype=np.float16)  # (B, h, T, T): scores, kept when unfused
    lse = np.zeros((b, h, t), dtype=np.float32)  # (B, h, T): FlashAttention's logsumexp
    common = {"batch": b, "n_heads": h, "seq_len": t, "n_layers": layers}
    assert calculate("attention_activation_bytes", bytes_per_element=2, **common).value == layers * p.nbytes
    unfused = calculate(
        "attention_activation_bytes", bytes_per_element=2, saved="scores_and_softmax", **common
    )
    assert unfused.value == layers * (p.nbytes + s.nbytes)
    flash = calculate("attention_activation_bytes", bytes_per_element=4, saved="logsumexp", **common)
    assert flash.value == layers * lse.nbytes
    assert flash.misconception("quadratic-lse").value == layers * lse.nbytes * t


def test_selective_recomputation_drops_exactly_the_attention_core_arrays() -> None:
    b, s, hidden, a = 2, 64, 32, 4
    # Korthikanti et al. 2022 (arXiv:2205.05198) section 4.1: softmax output (2 bytes), dropout mask
    # (1 byte) and dropout output (2 bytes), each a x s x s per sequence.
    core = (
        np.zeros((b, a, s, s), np.float16).nbytes
        + np.zeros((b, a, s, s), np.uint8).nbytes
        + np.zeros((b, a, s, s), np.float16).nbytes
    )
    layer_input = np.zeros((s, b, hidden), np.float16).nbytes
    args = {"batch": b, "seq_len": s, "d_model": hidden, "n_heads": a, "n_layers": 5}
    none = calculate("layer_activation_bytes", recompute="none", **args).value
    selective = calculate("layer_activation_bytes", recompute="selective", **args).value
    full = calculate("layer_activation_bytes", recompute="full", **args).value
    assert isinstance(none, int) and isinstance(selective, int)
    assert none - selective == 5 * core
    assert full == 5 * layer_input
    assert selective == 5 * 17 * layer_input  # 34 s b h bytes = 17 layer inputs' worth


# ---------------------------------------------------------------------------- softmax Jacobian


def _softmax(s: np.ndarray) -> np.ndarray:
    e = np.exp(s - s.max())  # (n,)
    return e / e.sum()  # (n,)


@st.composite
def _probs(draw: st.DrawFn) -> list[list[float]]:
    counts = draw(st.lists(st.integers(1, 9), min_size=2, max_size=5))
    return [[c / sum(counts) for c in counts]]


@settings(max_examples=50)
@given(_probs(), st.data())
def test_the_jacobian_entry_matches_a_finite_difference_and_rows_sum_to_zero(
    p: Any, data: st.DataObject
) -> None:
    n = len(p[0])
    i, j = data.draw(st.integers(0, n - 1)), data.draw(st.integers(0, n - 1))
    s = np.log(np.asarray(p[0]))  # (n,): scores whose softmax is p
    eps = 1e-6
    bump = np.eye(n)[j] * eps  # (n,)
    fd = (_softmax(s + bump)[i] - _softmax(s - bump)[i]) / (2 * eps)
    d = calculate("softmax_jacobian_entry", p=p, row=i, col=j)
    assert d.value == pytest.approx(fd, abs=1e-8)
    row = [calculate("softmax_jacobian_entry", p=p, row=i, col=c).value for c in range(n)]
    assert sum(row) == pytest.approx(0.0, abs=1e-12)


@settings(max_examples=50)
@given(_probs(), st.data())
def test_the_backward_entry_is_the_gradient_of_g_dot_softmax(p: Any, data: st.DataObject) -> None:
    n = len(p[0])
    g = np.asarray(data.draw(st.lists(st.integers(-3, 3), min_size=n, max_size=n)), dtype=np.float64)  # (n,)
    j = data.draw(st.integers(0, n - 1))
    s = np.log(np.asarray(p[0]))  # (n,)
    eps = 1e-6
    bump = np.eye(n)[j] * eps  # (n,)
    fd = (g @ _softmax(s + bump) - g @ _softmax(s - bump)) / (2 * eps)
    d = calculate("softmax_grad_entry", p=p, grad=[g.tolist()], col=j)
    assert d.value == pytest.approx(fd, abs=1e-7)


@pytest.mark.parametrize(
    ("name", "args", "words"),
    [
        ("softmax_jacobian_entry", {"p": [[0.5, 0.6]], "row": 0, "col": 0}, ["sum to 1"]),
        ("softmax_jacobian_entry", {"p": [[1.5, -0.5]], "row": 0, "col": 0}, ["non-negative"]),
        ("softmax_jacobian_entry", {"p": [[0.5, 0.5]], "row": 2, "col": 0}, ["row=2"]),
        ("softmax_grad_entry", {"p": [[0.5, 0.5]], "grad": [[1, 2, 3]], "col": 0}, ["(1, 3)"]),
        (
            "materialised_attention_bytes",
            {"batch": 0, "n_heads": 2, "seq_len": 8, "bytes_per_element": 2},
            ["batch=0"],
        ),
        (
            "attention_activation_bytes",
            {"batch": 1, "n_heads": 2, "seq_len": 8, "bytes_per_element": 2, "n_layers": 0},
            ["n_layers=0"],
        ),
        ("layer_activation_bytes", {"batch": 1, "seq_len": -8, "d_model": 64, "n_heads": 2}, ["seq_len=-8"]),
        ("model_state_bytes", {"n_params": 0}, ["n_params=0"]),
        ("model_state_bytes", {"n_params": 10, "recipe": "lion"}, ["recipe", "lion"]),
    ],
)
def test_bad_arguments_are_refused_by_name(name: str, args: dict[str, Any], words: list[str]) -> None:
    with pytest.raises(ValueError) as err:
        calculate(name, **args)
    assert all(w in str(err.value) for w in words), str(err.value)


# ---------------------------------------------------------------------------- model states


def test_mixed_precision_adam_is_the_zero_paper_s_16_bytes_per_parameter() -> None:
    # Rajbhandari et al. 2019 (ZeRO, arXiv:1910.02054) section 3.1 and Figure 1: (2 + 2 + K) x Psi with
    # K = 12 gives 120 GB for a 7.5B-parameter model.
    d = calculate("model_state_bytes", n_params=7_500_000_000)
    assert d.value == 120 * 10**9
    assert d.misconception("forgot-master-copy").value == 90 * 10**9
    assert calculate("model_state_bytes", n_params=7, recipe="fp32-adam").value == 7 * (4 + 4 + 4 + 4)
