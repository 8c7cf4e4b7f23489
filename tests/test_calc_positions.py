"""RoPE, ALiBi and long-context calculators checked against independent computations: 2x2 rotation
matrices, complex numbers, simulated caches, reachability through stacked banded masks, and FLOPs counted
from the shapes of the matmuls actually performed."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import calculate

# ---------------------------------------------------------------------------- RoPE


def _rot(angle: float) -> np.ndarray:
    return np.array([[math.cos(angle), -math.sin(angle)], [math.sin(angle), math.cos(angle)]])  # (2, 2)


def _rope_matrix(d: int, position: int, base: float) -> np.ndarray:
    """The block-diagonal (d, d) rotation RoPE applies at a position, built block by block."""
    r = np.zeros((d, d))  # (d, d)
    for i in range(d // 2):
        r[2 * i : 2 * i + 2, 2 * i : 2 * i + 2] = _rot(position / base ** (2 * i / d))  # (2, 2) block
    return r


@given(
    position=st.integers(0, 10**6),
    d=st.sampled_from([2, 8, 64, 128]),
    i=st.integers(0, 63),
    base=st.sampled_from([100.0, 10000.0, 500000.0]),
)
def test_rope_angle_is_position_times_the_pair_frequency(position: int, d: int, i: int, base: float) -> None:
    i %= d // 2
    expected = position * math.exp(-2 * i / d * math.log(base))
    assert calculate("rope_angle", position=position, pair=i, d_head=d, base=base).value == pytest.approx(
        expected
    )


def test_rope_pair_zero_turns_one_radian_per_token_and_the_last_pair_almost_not_at_all() -> None:
    assert calculate("rope_angle", position=5, pair=0, d_head=128).value == 5
    last = calculate("rope_angle", position=10000, pair=63, d_head=128).value
    assert 1 < last < 1.2  # 10000 x 10000^(-126/128): close to one radian after ten thousand tokens


@given(
    x0=st.floats(-5, 5),
    x1=st.floats(-5, 5),
    position=st.integers(0, 2000),
    d=st.sampled_from([4, 16, 64]),
    i=st.integers(0, 31),
)
def test_rope_rotate_matches_a_2x2_rotation_matrix(
    x0: float, x1: float, position: int, d: int, i: int
) -> None:
    i %= d // 2
    angle = position * 10000.0 ** (-2 * i / d)
    want = _rot(angle) @ np.array([x0, x1])  # (2, 2) @ (2,) -> (2,)
    args: dict[str, Any] = {"x0": x0, "x1": x1, "position": position, "pair": i, "d_head": d}
    assert calculate("rope_rotate", **args, component="first").value == pytest.approx(want[0], abs=1e-9)
    assert calculate("rope_rotate", **args, component="second").value == pytest.approx(want[1], abs=1e-9)


def test_rotation_keeps_the_length_of_the_pair() -> None:
    args: dict[str, Any] = {"x0": 3.0, "x1": -4.0, "position": 123, "pair": 2, "d_head": 16}
    a = calculate("rope_rotate", **args, component="first").value
    b = calculate("rope_rotate", **args, component="second").value
    assert math.hypot(float(a), float(b)) == pytest.approx(5.0)


@settings(max_examples=60)
@given(
    q=st.lists(st.integers(-3, 3), min_size=4, max_size=4),
    k=st.lists(st.integers(-3, 3), min_size=4, max_size=4),
    m=st.integers(0, 500),
    n=st.integers(0, 500),
    shift=st.integers(0, 10**5),
)
def test_rope_score_is_the_rotated_dot_product_and_depends_on_m_minus_n_only(
    q: list[int], k: list[int], m: int, n: int, shift: int
) -> None:
    base = 100.0
    qv, kv = np.array(q, float), np.array(k, float)  # (4,), (4,)
    want = (_rope_matrix(4, m, base) @ qv) @ (_rope_matrix(4, n, base) @ kv)  # (4,) . (4,)
    got = calculate("rope_score", q=[q], k=[k], query_position=m, key_position=n, base=base).value
    assert got == pytest.approx(want, abs=1e-9)
    moved = calculate("rope_score", q=[q], k=[k], query_position=m + shift, key_position=n + shift, base=base)
    assert moved.value == pytest.approx(got, abs=1e-6)


def test_rope_score_agrees_with_the_complex_number_form() -> None:
    rng = np.random.default_rng(0)
    q, k = rng.integers(-3, 4, (1, 8)), rng.integers(-3, 4, (1, 8))  # (1, 8), (1, 8)
    m, n = 40, 33
    theta = 10000.0 ** (-2 * np.arange(4) / 8)  # (4,)
    qc = (q[0, 0::2] + 1j * q[0, 1::2]) * np.exp(1j * m * theta)  # (4,)
    kc = (k[0, 0::2] + 1j * k[0, 1::2]) * np.exp(1j * n * theta)  # (4,)
    want = float(np.real(np.sum(qc * np.conj(kc))))  # scalar
    got = calculate("rope_score", q=q, k=k, query_position=m, key_position=n).value
    assert got == pytest.approx(want)


def test_rope_score_misconceptions_are_the_named_wrong_rotations() -> None:
    q, k = [[1, 2]], [[2, 1]]
    d = calculate("rope_score", q=q, k=k, query_position=5, key_position=2, base=100.0)
    assert d.misconception("unrotated").value == pytest.approx(float(np.dot(q[0], k[0])))
    assert d.misconception("added-positions").value == pytest.approx(
        calculate("rope_score", q=q, k=k, query_position=0, key_position=7, base=100.0).value
    )
    assert d.misconception("only-query-rotated").value == pytest.approx(
        float(np.array([1, 2]) @ _rot(-5) @ np.array([2, 1]))  # R(5)q . k = q . R(-5) k
    )


def test_wavelength_is_one_full_turn() -> None:
    for i, d, base in [(0, 64, 10000.0), (10, 128, 10000.0), (31, 64, 500000.0)]:
        lam = calculate("rope_wavelength", pair=i, d_head=d, base=base).value
        theta = calculate("rope_angle", position=1, pair=i, d_head=d, base=base).value
        assert float(lam) * float(theta) == pytest.approx(2 * math.pi)
    assert calculate("rope_wavelength", pair=0, d_head=64).value == pytest.approx(2 * math.pi)


def test_decoding_continues_the_positions_of_the_cache() -> None:
    """Prefill T tokens at positions arange(T); the next token's query uses position T."""
    prompt = 37
    positions = np.arange(prompt)  # (T,) positions written with the cached keys
    next_position = int(positions[-1]) + 1
    d = calculate("rope_decode_angle", cached_tokens=prompt, pair=2, d_head=16, base=100.0)
    assert d.value == pytest.approx(
        calculate("rope_angle", position=next_position, pair=2, d_head=16, base=100.0).value
    )
    assert d.misconception("restarted-positions").value == 0.0


def test_position_interpolation_keeps_every_angle_inside_the_trained_range() -> None:
    train, target, i, d = 4096, 16384, 3, 128
    top = calculate(
        "rope_interpolated_angle", position=target - 1, train_len=train, target_len=target, pair=i, d_head=d
    )
    trained_max = calculate("rope_angle", position=train, pair=i, d_head=d).value  # positions 0 .. L_train
    assert float(top.value) < float(trained_max)
    assert top.value == pytest.approx((target - 1) * train / target * 10000.0 ** (-2 * i / d))
    assert top.misconception("no-interpolation").value == pytest.approx(
        calculate("rope_angle", position=target - 1, pair=i, d_head=d).value
    )


# ---------------------------------------------------------------------------- ALiBi


def test_alibi_slopes_for_eight_heads_are_the_published_sequence() -> None:
    # Press et al. 2021 (arXiv:2108.12409), section 3: for 8 heads the slopes are 1/2, 1/4, ..., 1/256.
    got = [calculate("alibi_slope", n_heads=8, head=k).value for k in range(1, 9)]
    assert got == [1 / 2**k for k in range(1, 9)]


@pytest.mark.parametrize("h", [4, 16, 32, 64])
def test_alibi_slopes_are_geometric_from_2_to_the_minus_8_over_h_down_to_2_to_the_minus_8(h: int) -> None:
    s = np.array([calculate("alibi_slope", n_heads=h, head=k).value for k in range(1, h + 1)])  # (h,)
    assert s[0] == pytest.approx(2 ** (-8 / h)) and s[-1] == pytest.approx(2**-8)
    assert np.allclose(s[1:] / s[:-1], s[0])  # (h-1,): a constant ratio


def test_alibi_bias_matches_a_bias_matrix_built_with_numpy() -> None:
    h, t = 8, 6
    slopes = 2.0 ** (-8 * np.arange(1, h + 1) / h)  # (h,)
    i, j = np.arange(t)[:, None], np.arange(t)[None, :]  # (t, 1), (1, t)
    bias = -slopes[:, None, None] * (i - j)  # (h, t, t)
    for head in (1, 4, 8):
        for qi, kj in [(5, 0), (3, 3), (4, 1)]:
            got = calculate("alibi_bias", n_heads=h, head=head, distance=qi - kj).value
            assert got == pytest.approx(bias[head - 1, qi, kj])


# ---------------------------------------------------------------------------- long context


def _reach(n_layers: int, window: int, t: int) -> int:
    """How far back the last position can see after stacking banded causal masks (keys i-W .. i)."""
    i, j = np.arange(t)[:, None], np.arange(t)[None, :]  # (t, 1), (1, t)
    band = ((j <= i) & (j >= i - window)).astype(np.int64)  # (t, t)
    seen = np.eye(t, dtype=np.int64)  # (t, t)
    for _ in range(n_layers):
        seen = np.minimum(band @ seen, 1)  # (t, t) @ (t, t) -> (t, t)
    return int(t - 1 - np.flatnonzero(seen[-1])[0])


@pytest.mark.parametrize(("layers", "window"), [(1, 5), (2, 5), (4, 3), (6, 7)])
def test_sliding_window_reach_matches_stacked_banded_masks(layers: int, window: int) -> None:
    assert calculate("sliding_window_reach", n_layers=layers, window=window).value == _reach(
        layers, window, 80
    )


def _simulate_cache(window: int, tokens: int, sinks: int) -> int:
    """Feeds tokens one at a time into a cache that keeps the first `sinks` and a ring of `window` slots."""
    kept: list[int] = []
    ring: dict[int, int] = {}
    for pos in range(tokens):
        if pos < sinks:
            kept.append(pos)
        else:
            ring[(pos - sinks) % window] = pos
    return len(kept) + len(ring)


@given(window=st.integers(1, 64), tokens=st.integers(1, 400), sinks=st.integers(0, 8))
def test_rolling_cache_length_matches_a_simulated_ring_buffer(window: int, tokens: int, sinks: int) -> None:
    got = calculate("rolling_cache_tokens", window=window, tokens=tokens, sink_tokens=sinks).value
    assert got == _simulate_cache(window, tokens, sinks)


def test_rolling_cache_bytes_match_an_allocated_array() -> None:
    layers, kv, dh, batch, window, tokens, sinks = 4, 2, 16, 3, 50, 333, 4
    held = _simulate_cache(window, tokens, sinks)
    cache = np.zeros((layers, 2, batch, kv, held, dh), dtype=np.float16)  # (L, K/V, B, n_kv, held, d_head)
    got = calculate(
        "rolling_cache_bytes",
        n_layers=layers,
        n_kv_heads=kv,
        d_head=dh,
        bytes_per_element=2,
        window=window,
        tokens=tokens,
        sink_tokens=sinks,
        batch=batch,
    )
    assert got.value == cache.nbytes
    assert got.misconception("forgot-sink-tokens").value == cache.nbytes // held * window


def test_sparse_pairs_count_the_local_and_strided_masks() -> None:
    t, w, stride = 256, 16, 32
    i, j = np.arange(t)[:, None], np.arange(t)[None, :]  # (t, 1), (1, t)
    local = ((i - j) % t) < w  # (t, t): w keys per query (wrapping at the start)
    strided = np.broadcast_to((j % stride) == stride - 1, (t, t))  # (t, t): t / stride keys per query
    want = int(local.sum() + strided.sum())
    assert calculate("sparse_attention_pairs", seq_len=t, window=w, stride=stride).value == want
    assert calculate("sparse_attention_savings", seq_len=t, window=w, stride=stride).value == pytest.approx(
        t * t / want
    )


def _matmul_flops(a: np.ndarray, b: np.ndarray) -> int:
    return 2 * a.shape[-2] * a.shape[-1] * b.shape[-1]


def test_mixing_flops_count_the_matmuls_actually_done() -> None:
    rng = np.random.default_rng(1)
    h, t, dk = 2, 12, 5
    q, k, v = (rng.standard_normal((h, t, dk)) for _ in range(3))  # (h, t, dk) each
    kt = k.transpose(0, 2, 1)  # (h, dk, t)
    scores = q @ kt  # (h, t, dk) @ (h, dk, t) -> (h, t, t)
    quadratic = h * (_matmul_flops(q, kt) + _matmul_flops(scores, v))
    state = kt @ v  # (h, dk, t) @ (h, t, dk) -> (h, dk, dk)
    linear = h * (_matmul_flops(kt, v) + _matmul_flops(q, state))
    assert np.allclose(scores @ v, q @ state)  # (h, t, dk): without the softmax the two orders agree
    assert calculate("mixing_flops", seq_len=t, d_head=dk, n_heads=h, kind="softmax").value == quadratic
    assert calculate("mixing_flops", seq_len=t, d_head=dk, n_heads=h, kind="linear").value == linear


@pytest.mark.parametrize("dk", [32, 64, 128])
def test_linear_attention_is_cheaper_exactly_beyond_the_crossover(dk: int) -> None:
    t_star = int(calculate("linear_attention_crossover", d_head=dk, n_heads=8).value)

    def cost(t: int, kind: str) -> int:
        return int(calculate("mixing_flops", seq_len=t, d_head=dk, n_heads=8, kind=kind).value)

    assert cost(t_star, "linear") == cost(t_star, "softmax")
    assert cost(t_star + 1, "linear") < cost(t_star + 1, "softmax")
    assert cost(t_star - 1, "linear") > cost(t_star - 1, "softmax")


# ---------------------------------------------------------------------------- bad arguments

BAD: list[tuple[str, dict[str, Any], list[str]]] = [
    ("rope_angle", {"position": 1, "pair": 4, "d_head": 8}, ["pair=4", "d_head=8"]),
    ("rope_angle", {"position": 1, "pair": 0, "d_head": 7}, ["d_head=7"]),
    ("rope_angle", {"position": -1, "pair": 0, "d_head": 8}, ["position=-1"]),
    ("rope_angle", {"position": 1, "pair": 0, "d_head": 8, "base": 1.0}, ["base=1.0"]),
    ("rope_score", {"q": [[1, 2, 3]], "k": [[1, 2, 3]], "query_position": 1, "key_position": 0}, ["(1, 3)"]),
    ("rope_score", {"q": [[1, 2]], "k": [[1, 2, 3, 4]], "query_position": 1, "key_position": 0}, ["(1, 4)"]),
    (
        "rope_rotate",
        {"x0": 1, "x1": 1, "position": 1, "pair": 0, "d_head": 4, "component": "third"},
        ["third"],
    ),
    (
        "rope_interpolated_angle",
        {"position": 1, "train_len": 4096, "target_len": 2048, "pair": 0, "d_head": 8},
        ["target_len=2048", "train_len=4096"],
    ),
    ("rope_decode_angle", {"cached_tokens": 0, "pair": 0, "d_head": 8}, ["cached_tokens=0"]),
    ("alibi_slope", {"n_heads": 12, "head": 1}, ["n_heads=12"]),
    ("alibi_slope", {"n_heads": 8, "head": 0}, ["head=0"]),
    ("alibi_bias", {"n_heads": 8, "head": 1, "distance": -2}, ["distance=-2"]),
    ("sliding_window_reach", {"n_layers": 0, "window": 4}, ["n_layers=0"]),
    ("rolling_cache_tokens", {"window": 4, "tokens": 10, "sink_tokens": -1}, ["sink_tokens=-1"]),
    ("sparse_attention_pairs", {"seq_len": 100, "window": 8, "stride": 32}, ["seq_len=100", "stride=32"]),
    ("sparse_attention_pairs", {"seq_len": 64, "window": 128, "stride": 32}, ["window=128", "seq_len=64"]),
    ("mixing_flops", {"seq_len": 8, "d_head": 4, "n_heads": 1, "kind": "cubic"}, ["cubic"]),
    ("linear_attention_crossover", {"d_head": 0, "n_heads": 1}, ["d_head=0"]),
]


@pytest.mark.parametrize(("name", "args", "words"), BAD, ids=[f"{n}-{i}" for i, (n, _, _) in enumerate(BAD)])
def test_bad_arguments_raise_value_errors_naming_them(
    name: str, args: dict[str, Any], words: list[str]
) -> None:
    with pytest.raises(ValueError) as exc:
        calculate(name, **args)
    for w in words:
        assert w in str(exc.value)
