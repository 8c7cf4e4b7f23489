"""The serving and numerics calculators agree with independent computations: arrays whose bytes are
counted, allocations simulated token by token, NumPy's own float types, and published anchors."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import calculate
from engine.attention import softmax

# ---------------------------------------------------------------------------- FLOPs


def test_gpt3_training_compute_matches_the_paper() -> None:
    # Brown et al. 2020 (arXiv:2005.14165), Table D.1: GPT-3 175B, 300B tokens, 3.14e23 training FLOPs
    d = calculate("model_flops", n_params=174.6e9, tokens=300e9, mode="training")
    assert d.value == pytest.approx(3.14e23, rel=0.01)


def test_forward_flops_of_a_linear_layer_are_two_per_weight_per_token() -> None:
    rng = np.random.default_rng(0)
    x = rng.standard_normal((5, 7))  # (D, d_in)
    w = rng.standard_normal((7, 3))  # (d_in, d_out)
    # every output element is a dot product of length d_in: d_in multiplies and d_in adds (counting the
    # add into an accumulator that starts at 0)
    counted = (x @ w).size * 2 * x.shape[1]
    assert calculate("model_flops", n_params=float(w.size), tokens=5.0).value == counted
    assert calculate("model_flops", n_params=float(w.size), tokens=5.0, mode="training").value == 3 * counted


def _causal_attention_flops_per_token(n_layers: int, t: int, d: int) -> float:
    """QK^T and AV for every (query, key) pair a causal mask allows, 2 FLOPs per dimension each."""
    pairs = int(np.tril(np.ones((t, t), dtype=bool)).sum())  # T (T + 1) / 2
    return 2 * 2 * n_layers * pairs * d / t


@pytest.mark.parametrize(
    ("n_params", "n_layers", "d", "t"), [(6.7e9, 32, 4096, 2048), (1.3e8, 12, 768, 1024)]
)
def test_attention_share_matches_a_count_over_the_causal_mask(
    n_params: float, n_layers: int, d: int, t: int
) -> None:
    attn = _causal_attention_flops_per_token(n_layers, t, d)
    expected = attn / (2 * n_params + attn)
    got = calculate("attention_flop_share", n_params=n_params, n_layers=n_layers, d_model=d, context=t).value
    assert got == pytest.approx(expected, rel=2 / t)  # T (T + 1) / 2 pairs against Kaplan's T^2 / 2


@given(st.floats(1e8, 1e12), st.integers(2, 120), st.sampled_from([512, 1024, 4096, 8192]))
def test_at_the_crossover_context_attention_takes_half(n_params: float, n_layers: int, d: int) -> None:
    t = calculate("attention_crossover_context", n_params=n_params, n_layers=n_layers, d_model=d).value
    assert isinstance(t, float)
    if t >= 1:
        share = calculate(
            "attention_flop_share", n_params=n_params, n_layers=n_layers, d_model=d, context=round(t)
        ).value
        assert share == pytest.approx(0.5, abs=0.5 / t + 1e-9)


# ---------------------------------------------------------------------------- decode and memory


def _step_bytes(n_params: int, wdt: Any, n_layers: int, g: int, dh: int, kvdt: Any, t: int, b: int) -> int:
    """Bytes a decode step reads, counted from real arrays: the weights and every sequence's K and V."""
    weights = np.zeros(n_params, dtype=wdt)  # (N,)
    cache = np.zeros((2, n_layers, b, g, t, dh), dtype=kvdt)  # (K/V, L, B, n_kv, T, d_head)
    return int(weights.nbytes + cache.nbytes)


@pytest.mark.parametrize("which", ["per_sequence", "total"])
@pytest.mark.parametrize("batch", [1, 3])
def test_decode_speed_is_bandwidth_over_the_bytes_of_real_arrays(which: str, batch: int) -> None:
    n, layers, g, dh, t, bw = 1_000_000, 4, 2, 16, 100, 50.0
    step = _step_bytes(n, np.float16, layers, g, dh, np.int8, t, batch)
    per_seq = bw * 1e9 / step
    d = calculate(
        "decode_tokens_per_second",
        n_params=float(n),
        bytes_per_param=2,
        n_layers=layers,
        n_kv_heads=g,
        d_head=dh,
        kv_bytes_per_element=1,
        context=t,
        batch=batch,
        bandwidth_gb_s=bw,
        which=which,
    )
    assert d.value == pytest.approx(per_seq if which == "per_sequence" else per_seq * batch, rel=1e-12)
    assert d.misconception("forgot-kv-cache").value > d.value
    if batch > 1:
        wrong = "batch-for-per-sequence" if which == "per_sequence" else "per-sequence-for-batch"
        assert d.misconception(wrong).value == pytest.approx(
            per_seq * batch if which == "per_sequence" else per_seq
        )


def test_decode_speed_of_llama2_7b_is_memory_bound_by_its_weights() -> None:
    # a 13.5 GB fp16 model on a 2,000 GB/s device: at most about 148 steps a second with an empty cache
    d = calculate(
        "decode_tokens_per_second",
        n_params=6.74e9,
        bytes_per_param=2,
        n_layers=32,
        n_kv_heads=32,
        d_head=128,
        kv_bytes_per_element=2,
        context=1,
        batch=1,
        bandwidth_gb_s=2000.0,
    )
    assert d.value == pytest.approx(2000e9 / (6.74e9 * 2 + 2 * 32 * 32 * 128 * 2))


@given(
    st.integers(1, 50).map(lambda k: k * 1_000_000),
    st.sampled_from([1, 2]),
    st.integers(1, 8),
    st.sampled_from([1, 2, 4]),
    st.integers(1, 400),
    st.integers(1, 4),
)
@settings(max_examples=60, deadline=None)
def test_sequences_that_fit_is_the_largest_batch_a_loop_can_add(
    n: int, nbytes: int, layers: int, g: int, t: int, mem_mib: int
) -> None:
    memory_gib = mem_mib * 64 / 1024  # 64 MiB steps
    budget = memory_gib * 2**30
    if n * nbytes > budget:
        with pytest.raises(ValueError, match="memory_gib"):
            calculate(
                "sequences_that_fit",
                n_params=float(n),
                bytes_per_param=nbytes,
                n_layers=layers,
                n_kv_heads=g,
                d_head=8,
                kv_bytes_per_element=2,
                seq_len=t,
                memory_gib=memory_gib,
            )
        return
    per_seq = np.zeros((2, layers, g, t, 8), dtype=np.float16).nbytes  # (K/V, L, n_kv, T, d_head)
    fits = 0
    while n * nbytes + (fits + 1) * per_seq <= budget:
        fits += 1
    d = calculate(
        "sequences_that_fit",
        n_params=float(n),
        bytes_per_param=nbytes,
        n_layers=layers,
        n_kv_heads=g,
        d_head=8,
        kv_bytes_per_element=2,
        seq_len=t,
        memory_gib=memory_gib,
    )
    assert d.value == fits


@pytest.mark.parametrize(
    ("tokens", "dtype"), [(1, np.float16), (64, np.float16), (512, np.int8), (8, np.float32)]
)
def test_arithmetic_intensity_is_flops_of_a_matmul_over_the_weight_bytes(tokens: int, dtype: Any) -> None:
    d_in, d_out = 32, 16
    w = np.ones((d_in, d_out), dtype=dtype)  # (d_in, d_out)
    x = np.ones((tokens, d_in))  # (T, d_in)
    flops = 2 * (x @ w.astype(np.float64)).size * d_in  # one multiply-add per weight per token
    got = calculate("arithmetic_intensity", tokens=tokens, bytes_per_param=w.itemsize).value
    assert got == pytest.approx(flops / w.nbytes)


# ---------------------------------------------------------------------------- paged KV cache


def _simulate_paging(seq_len: int, block: int) -> tuple[int, int]:
    """Allocates a new block whenever the current one is full, one token at a time."""
    blocks, free = 0, 0
    for _ in range(seq_len):
        if free == 0:
            blocks, free = blocks + 1, block
        free -= 1
    return blocks, free


@given(st.integers(1, 3000), st.sampled_from([1, 4, 8, 16, 32]), st.integers(1, 5))
def test_paged_blocks_and_waste_match_a_token_by_token_allocation(t: int, block: int, batch: int) -> None:
    blocks, free = _simulate_paging(t, block)
    args = {"seq_len": t, "block_size": block, "batch": batch}
    assert calculate("paged_kv_blocks", **args).value == blocks * batch
    assert calculate("paged_kv_blocks", which="wasted_slots", **args).value == free * batch


@pytest.mark.parametrize("block", [2, 8, 16, 32])
def test_expected_waste_is_the_mean_over_every_length(block: int) -> None:
    lengths = range(1, 10 * block + 1)  # every remainder equally often
    mean_free = np.mean([_simulate_paging(t, block)[1] for t in lengths])  # scalar
    per_token = np.zeros((2, 3, 2, 1, 16), dtype=np.float16).nbytes  # (K/V, L, n_kv, 1 token, d_head)
    d = calculate(
        "paged_kv_expected_waste",
        block_size=block,
        n_layers=3,
        n_kv_heads=2,
        d_head=16,
        kv_bytes_per_element=2,
        batch=5,
    )
    assert d.value == pytest.approx(mean_free * per_token * 5)


# ---------------------------------------------------------------------------- float formats


@pytest.mark.parametrize(("fmt", "dtype"), [("fp16", np.float16), ("fp32", np.float32)])
def test_float_limits_agree_with_numpy_finfo(fmt: str, dtype: Any) -> None:
    info = np.finfo(dtype)
    assert calculate("float_limit", fmt=fmt, which="max").value == float(info.max)
    assert calculate("float_limit", fmt=fmt, which="smallest_normal").value == float(info.smallest_normal)
    assert calculate("float_limit", fmt=fmt, which="epsilon").value == float(info.eps)


def test_fp16_max_is_65504_and_the_int_range_is_a_named_mistake() -> None:
    # IEEE 754-2008 binary16: largest finite value 65504
    d = calculate("float_limit", fmt="fp16", which="max")
    assert d.value == 65504.0
    assert d.misconception("int-range").value == 65535.0
    assert d.misconception("fp32-for-fp16").value == float(np.finfo(np.float32).max)


def test_bf16_limits_are_fp32_with_the_low_16_bits_dropped() -> None:
    def from_bits(bits16: int) -> float:
        return float(np.array([bits16 << 16], dtype=np.uint32).view(np.float32)[0])  # (1,) -> scalar

    assert calculate("float_limit", fmt="bf16", which="max").value == from_bits(0x7F7F)
    assert calculate("float_limit", fmt="bf16", which="smallest_normal").value == from_bits(0x0080)
    assert calculate("float_limit", fmt="bf16", which="epsilon").value == from_bits(0x3F81) - 1.0


def test_fp8_e5m2_max_is_57344() -> None:
    # OCP 8-bit Floating Point Specification (OFP8) v1.0, Table 1: E5M2 max normal 57,344
    assert calculate("float_limit", fmt="fp8-e5m2", which="max").value == 57344.0


@pytest.mark.parametrize(("fmt", "dtype"), [("fp16", np.float16), ("fp32", np.float32)])
@pytest.mark.parametrize("d_k", [1, 64, 128])
def test_exp_overflows_just_above_the_limit_in_numpy(fmt: str, dtype: Any, d_k: int) -> None:
    limit = calculate("exp_overflow_score", fmt=fmt, d_k=d_k).value
    assert isinstance(limit, float)
    root = np.sqrt(d_k)
    with np.errstate(over="ignore"):
        below = np.exp(dtype(limit * 0.995 / root))  # scalar in dtype
        above = np.exp(dtype(limit * 1.005 / root))  # scalar in dtype
    assert np.isfinite(below) and np.isinf(above)


# ---------------------------------------------------------------------------- softmax, capping, masks


@given(
    st.lists(st.integers(-20, 40), min_size=2, max_size=6),
    st.data(),
)
def test_stable_softmax_weight_matches_the_engine_and_shift_invariance(
    row: list[int], data: st.DataObject
) -> None:
    col = data.draw(st.integers(0, len(row) - 1))
    got = calculate("stable_softmax_entry", scores=[row], row=0, col=col).value
    assert got == pytest.approx(float(softmax(np.array(row, dtype=np.float64))[col]), rel=1e-12)
    shifted = calculate("stable_softmax_entry", scores=[[x + 7 for x in row]], row=0, col=col).value
    assert shifted == pytest.approx(got, rel=1e-12)
    e = calculate("stable_softmax_entry", scores=[row], row=0, col=col, which="shifted_exp").value
    assert 0 < e <= 1 and (e == 1) == (row[col] == max(row))


def test_a_naive_fp16_softmax_overflows_where_the_shifted_one_does_not() -> None:
    row = np.array([12.0, 10.0, 7.0], dtype=np.float16)  # (3,): exp(12) > 65504
    with np.errstate(over="ignore", invalid="ignore"):
        naive = np.exp(row) / np.exp(row).sum()  # (3,)
    assert np.isnan(naive[0])
    d = calculate("stable_softmax_entry", scores=[[12, 10, 7]], row=0, col=0)
    assert d.value == pytest.approx(1 / (1 + math.exp(-2) + math.exp(-5)))
    assert any("nan" in n for n in d.notes)


@given(st.floats(-500, 500), st.sampled_from([30.0, 50.0, 15.0]))
def test_soft_cap_is_bounded_odd_and_equals_the_exp_form_of_tanh(x: float, cap: float) -> None:
    v = calculate("soft_cap", x=x, cap=cap).value
    assert isinstance(v, float)
    assert -cap <= v <= cap
    assert calculate("soft_cap", x=-x, cap=cap).value == pytest.approx(-v)
    u = x / cap
    assert v == pytest.approx(
        cap * math.expm1(2 * u) / (math.exp(2 * u) + 1) if abs(u) < 300 else math.copysign(cap, u)
    )
    assert abs(v) <= abs(x) + 1e-12


def test_gemma2_caps_leave_small_logits_almost_unchanged() -> None:
    # Gemma Team 2024, Gemma 2 (arXiv:2408.00118): attention logits capped at 50, final logits at 30
    assert calculate("soft_cap", x=1.0, cap=50.0).value == pytest.approx(1.0, rel=1e-3)
    assert calculate("soft_cap", x=1000.0, cap=30.0).value == pytest.approx(30.0)


@pytest.mark.parametrize("s", [2, 3, 5])
def test_a_fully_masked_fp16_row_is_uniform_with_finfo_min_and_nan_with_minus_1e9(s: int) -> None:
    row = [list(range(s))]
    uniform = calculate("masked_softmax_weight", scores=row, n_masked=s, col=0, fill="finfo_min").value
    assert uniform == pytest.approx(1 / s, rel=1e-3)  # fp16 rounding of 1/S
    with np.errstate(over="ignore"):
        assert np.isinf(np.float16(-1e9))
    nan = calculate("masked_softmax_weight", scores=row, n_masked=s, col=0, fill="neg_1e9").value
    assert math.isnan(nan)
    fp32 = calculate(
        "masked_softmax_weight", scores=row, n_masked=s, col=0, fill="neg_1e9", dtype="fp32"
    ).value
    assert fp32 == pytest.approx(1 / s, rel=1e-6)


@pytest.mark.parametrize("fill", ["finfo_min", "neg_inf", "neg_1e9"])
def test_a_partly_masked_row_is_the_softmax_over_the_unmasked_keys(fill: str) -> None:
    row = [2.0, -1.0, 3.0, 0.5, 1.0]
    kept = softmax(np.array(row[:3]))  # (3,): the last two keys are masked
    for col in range(5):
        got = calculate(
            "masked_softmax_weight", scores=[row], n_masked=2, col=col, fill=fill, dtype="fp32"
        ).value
        assert got == pytest.approx(float(kept[col]) if col < 3 else 0.0, rel=1e-6, abs=1e-30)


# ---------------------------------------------------------------------------- bad arguments


@pytest.mark.parametrize(
    ("name", "args", "words"),
    [
        ("model_flops", {"n_params": -1.0, "tokens": 1.0}, ["n_params=-1"]),
        ("model_flops", {"n_params": 1.0, "tokens": 1.0, "mode": "serving"}, ["mode", "serving"]),
        (
            "attention_flop_share",
            {"n_params": 1e9, "n_layers": 0, "d_model": 64, "context": 8},
            ["n_layers=0"],
        ),
        (
            "sequences_that_fit",
            {
                "n_params": 70e9,
                "bytes_per_param": 2,
                "n_layers": 80,
                "n_kv_heads": 8,
                "d_head": 128,
                "kv_bytes_per_element": 2,
                "seq_len": 4096,
                "memory_gib": 80.0,
            },
            ["memory_gib=80"],
        ),
        ("paged_kv_blocks", {"seq_len": 0, "block_size": 16}, ["seq_len=0"]),
        (
            "paged_kv_expected_waste",
            {"block_size": 1, "n_layers": 1, "n_kv_heads": 1, "d_head": 8, "kv_bytes_per_element": 2},
            ["block_size=1"],
        ),
        ("float_limit", {"fmt": "fp64", "which": "max"}, ["fmt", "fp64"]),
        ("exp_overflow_score", {"fmt": "fp16", "d_k": 0}, ["d_k=0"]),
        ("soft_cap", {"x": 1.0, "cap": 0.0}, ["cap=0"]),
        ("stable_softmax_entry", {"scores": [[1, 2]], "row": 0, "col": 2}, ["col=2"]),
        ("masked_softmax_weight", {"scores": [[1, 2]], "n_masked": 3, "col": 0}, ["n_masked=3"]),
        ("masked_softmax_weight", {"scores": [[1, 2], [3, 4]], "n_masked": 1, "col": 0}, ["(2, 2)"]),
    ],
)
def test_bad_arguments_are_refused_by_name(name: str, args: dict[str, Any], words: list[str]) -> None:
    with pytest.raises(ValueError) as info:
        calculate(name, **args)
    for w in words:
        assert w in str(info.value)
