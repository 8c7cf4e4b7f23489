"""Provides property tests (hypothesis) of the attention engine and checks of its error messages."""

from __future__ import annotations

import re
import tracemalloc
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import benchmarks.fast.kernels as head_kernels
import engine
from benchmarks.fast import fast_multi_head_attention

Forward = Any
BOTH = pytest.mark.parametrize(
    "forward", [engine.multi_head_attention, fast_multi_head_attention], ids=["reference", "fast"]
)
"""Every property holds for the reference the app uses and for the fast path."""

EXAMPLES = settings(max_examples=60)


@dataclass(frozen=True)
class Case:
    """A small random attention problem: params plus a batch of tokens."""

    p: engine.AttentionParams
    x: np.ndarray  # (B, T, d)
    seed: int

    @property
    def shape(self) -> tuple[int, int, int]:
        b, t, d = self.x.shape
        return b, t, d


@st.composite
def cases(draw: st.DrawFn, bias: bool | None = None, max_t: int = 6) -> Case:
    n_kv = draw(st.integers(1, 3))
    g = draw(st.integers(1, 3))
    d_head = draw(st.integers(1, 4))
    batch = draw(st.integers(1, 2))
    t = draw(st.integers(1, max_t))
    seed = draw(st.integers(0, 2**16))
    use_bias = draw(st.booleans()) if bias is None else bias
    h = n_kv * g
    p = engine.init_attention(h * d_head, h, n_kv_heads=n_kv, seed=seed, bias=use_bias)
    x = np.random.default_rng(seed + 1).normal(size=(batch, t, h * d_head)).astype(np.float32)
    return Case(p, x, seed)


def random_bool_mask(case: Case, p_allowed: float = 0.6) -> np.ndarray:
    b, t, _ = case.shape
    rng = np.random.default_rng(case.seed + 2)
    return rng.random((b, case.p.n_heads, t, t)) < p_allowed  # (B, H, T, S)


@contextmanager
def tiny_blocks() -> Iterator[None]:
    """Forces causal attention into blocks of one key (scores) and one query (values) on tiny inputs."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(head_kernels, "CAUSAL_BLOCKS", 10**6)
        mp.setattr(head_kernels, "MIN_CAUSAL_KEYS", 1)
        mp.setattr(head_kernels, "MIN_CAUSAL_QUERIES", 1)
        yield


# ---- properties of the weights -------------------------------------------------------------------


@EXAMPLES
@given(cases(), st.sampled_from([None, "causal", "bool"]))
@BOTH
def test_every_weight_row_sums_to_one(forward: Forward, case: Case, mask_kind: str | None) -> None:
    mask = random_bool_mask(case) if mask_kind == "bool" else mask_kind
    r = forward(case.x, case.p, mask=mask)
    sums = r.weights.sum(axis=-1)
    if mask_kind == "bool":
        assert isinstance(mask, np.ndarray)
        allowed_somewhere = mask.any(axis=-1)
        np.testing.assert_allclose(sums[allowed_somewhere], 1.0, atol=1e-5)
        assert np.all(sums[~allowed_somewhere] == 0.0)
    else:
        np.testing.assert_allclose(sums, 1.0, atol=1e-5)
    assert np.all(r.weights >= 0)


@EXAMPLES
@given(cases(max_t=9), st.booleans())
def test_causal_weights_are_zero_above_the_diagonal(case: Case, blocked_path: bool) -> None:
    if blocked_path:
        with tiny_blocks():
            r = fast_multi_head_attention(case.x, case.p, mask="causal")
    else:
        r = fast_multi_head_attention(case.x, case.p, mask="causal")
    t = case.shape[1]
    above = ~engine.causal_mask(t)  # (T, S): True above the diagonal
    assert np.all(r.weights[..., above] == 0.0)
    assert np.all(r.scores[..., above] == -np.inf)
    assert np.all(r.weights[..., ~above] > 0.0)


@EXAMPLES
@given(cases(), st.integers(1, 9), st.booleans())
def test_causal_cross_attention_is_top_left_aligned(case: Case, s: int, blocked_path: bool) -> None:
    b, t, d = case.shape
    kv = np.random.default_rng(case.seed).normal(size=(b, s, d))
    if blocked_path:
        with tiny_blocks():
            r = fast_multi_head_attention(case.x, case.p, kv=kv, mask="causal")
    else:
        r = fast_multi_head_attention(case.x, case.p, kv=kv, mask="causal")
    allowed = engine.causal_mask(t, s)  # (T, S)
    assert np.all(r.weights[..., ~allowed] == 0.0)
    np.testing.assert_allclose(r.weights.sum(axis=-1), 1.0, atol=1e-5)
    explicit = fast_multi_head_attention(case.x, case.p, kv=kv, mask=allowed)
    np.testing.assert_allclose(r.weights, explicit.weights, atol=1e-6)
    np.testing.assert_allclose(r.output, explicit.output, atol=1e-5)


@EXAMPLES
@given(cases())
@BOTH
def test_causal_string_bool_mask_and_additive_mask_agree(forward: Forward, case: Case) -> None:
    t = case.shape[1]
    allowed = engine.causal_mask(t)
    additive = np.where(allowed, 0.0, -np.inf)
    by_name = forward(case.x, case.p, mask="causal")
    by_bool = forward(case.x, case.p, mask=allowed)
    by_add = forward(case.x, case.p, mask=additive)
    for other in (by_bool, by_add):
        np.testing.assert_allclose(other.weights, by_name.weights, atol=1e-6)
        np.testing.assert_allclose(other.output, by_name.output, atol=1e-6)


@EXAMPLES
@given(cases(max_t=9), st.integers(1, 9))
def test_causal_blocks_that_skip_work_give_the_answer_of_the_unblocked_bool_mask(case: Case, s: int) -> None:
    b, t, d = case.shape
    kv = np.random.default_rng(case.seed).normal(size=(b, s, d)).astype(np.float32)  # (B, S, d)
    unblocked = fast_multi_head_attention(case.x, case.p, kv=kv, mask=engine.causal_mask(t, s))
    with tiny_blocks():
        blocked = fast_multi_head_attention(case.x, case.p, kv=kv, mask="causal")
    np.testing.assert_allclose(blocked.weights, unblocked.weights, atol=1e-6)
    np.testing.assert_allclose(blocked.output, unblocked.output, atol=1e-5)
    np.testing.assert_array_equal(np.isneginf(blocked.scores), np.isneginf(unblocked.scores))


@EXAMPLES
@given(cases(max_t=9), st.sampled_from([None, "causal", "bool"]), st.floats(1.0, 400.0))
def test_large_scores_take_the_max_subtracting_path_and_stay_exact(
    case: Case, mask_kind: str | None, scale: float
) -> None:
    """Scaled-up tokens push the scores past where exp(score) is safe without the row max."""
    mask = random_bool_mask(case) if mask_kind == "bool" else mask_kind
    x = case.x * np.float32(scale)  # (B, T, d)
    r = fast_multi_head_attention(x.astype(np.float64), case.p, mask=mask)
    reference = engine.softmax(r.scores, axis=-1)  # (B, H, T, S): subtracts each row's max
    np.testing.assert_allclose(r.weights, reference, rtol=1e-9, atol=1e-12)
    assert np.all(np.isfinite(r.weights)) and np.all(np.isfinite(r.output))
    with tiny_blocks():
        blocked = fast_multi_head_attention(x.astype(np.float64), case.p, mask=mask)
    np.testing.assert_allclose(blocked.weights, r.weights, rtol=1e-9, atol=1e-12)


def exp_passes(monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    """Records, for each exp pass over a group's scores, whether it subtracted the row max."""
    passes: list[bool] = []
    real = head_kernels._exp_and_sum

    def spy(*args: Any) -> Any:
        passes.append(args[3] is not None)
        return real(*args)

    monkeypatch.setattr(head_kernels, "_exp_and_sum", spy)
    return passes


def test_the_row_max_is_subtracted_only_when_the_sums_of_exp_leave_the_safe_range(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    p = engine.init_attention(16, 2, seed=3)
    x = np.random.default_rng(4).normal(size=(5, 16)).astype(np.float32)  # (T, d)
    passes = exp_passes(monkeypatch)
    fast_multi_head_attention(x, p)
    assert passes == [False]  # ordinary scores: one pass, no max needed
    passes.clear()
    big = fast_multi_head_attention(x * 1e3, p)  # scores of order 1e5: exp overflows unshifted
    assert passes == [False, True]
    np.testing.assert_allclose(big.weights, engine.softmax(big.scores.astype(np.float64)), atol=1e-6)
    assert np.all(np.isfinite(big.weights))


@BOTH
def test_a_query_whose_keys_all_get_minus_1e9_attends_evenly_like_torch(forward: Forward) -> None:
    """exp(-1e9) is 0 for every key, but softmax is shift-invariant: these weights are uniform."""
    p = engine.init_attention(8, 2, seed=5)
    x = np.random.default_rng(6).normal(size=(4, 8)).astype(np.float32)  # (T, d)
    additive = np.zeros((4, 4), dtype=np.float32)  # (T, S)
    additive[2] = -1e9  # query 2: every key pushed far down by the same amount
    additive[3] = -np.inf  # query 3: no key allowed at all
    r = forward(x, p, mask=additive)
    np.testing.assert_allclose(r.weights[:, 2], 0.25, atol=1e-6)
    np.testing.assert_array_equal(r.weights[:, 3], 0.0)
    np.testing.assert_allclose(
        r.weights[:, :2], engine.softmax(r.scores[:, :2].astype(np.float64)), atol=1e-6
    )


# ---- grouped key/value heads, and token order ---------------------------------------------------


@EXAMPLES
@given(cases())
@BOTH
def test_grouped_kv_heads_equal_mha_with_kv_weights_repeated(forward: Forward, case: Case) -> None:
    p = case.p
    d, g, d_head = p.d_model, p.group_size, p.d_head

    def repeat(w: np.ndarray) -> np.ndarray:
        # like torch's repeat_interleave: kv head j serves query heads j*g .. j*g + g - 1
        return np.repeat(w.reshape(*w.shape[:-1], p.n_kv_heads, d_head), g, axis=-2).reshape(
            *w.shape[:-1], -1
        )

    mha = engine.AttentionParams(
        w_q=p.w_q,
        w_k=repeat(p.w_k),
        w_v=repeat(p.w_v),
        w_o=p.w_o,
        n_heads=p.n_heads,
        n_kv_heads=p.n_heads,
        b_q=p.b_q,
        b_k=None if p.b_k is None else repeat(p.b_k),
        b_v=None if p.b_v is None else repeat(p.b_v),
        b_o=p.b_o,
    )
    assert mha.w_k.shape == (d, d)
    grouped = forward(case.x, p, mask="causal")
    full = forward(case.x, mha, mask="causal")
    np.testing.assert_allclose(grouped.weights, full.weights, atol=1e-6)
    np.testing.assert_allclose(grouped.output, full.output, atol=1e-5)


@EXAMPLES
@given(cases())
@BOTH
def test_multi_query_attention_equals_mha_with_one_kv_head_copied_to_all(
    forward: Forward, case: Case
) -> None:
    d, h = case.p.d_model, case.p.n_heads
    mqa = engine.init_attention(d, h, n_kv_heads=1, seed=case.seed)
    mha = engine.AttentionParams(
        w_q=mqa.w_q, w_k=np.tile(mqa.w_k, h), w_v=np.tile(mqa.w_v, h), w_o=mqa.w_o, n_heads=h, n_kv_heads=h
    )
    a = forward(case.x, mqa)
    b = forward(case.x, mha)
    np.testing.assert_allclose(a.weights, b.weights, atol=1e-6)
    np.testing.assert_allclose(a.output, b.output, atol=1e-5)


@EXAMPLES
@given(cases(), st.data())
@BOTH
def test_without_a_mask_attention_is_permutation_equivariant(
    forward: Forward, case: Case, data: st.DataObject
) -> None:
    t = case.shape[1]
    perm = np.array(data.draw(st.permutations(range(t))), dtype=int)
    r = forward(case.x, case.p)
    rp = forward(case.x[:, perm], case.p)
    np.testing.assert_allclose(rp.output, r.output[:, perm], atol=1e-5)
    np.testing.assert_allclose(rp.weights, r.weights[:, :, perm][..., perm], atol=1e-6)


def test_the_fast_path_never_repeats_grouped_kv_heads_in_memory() -> None:
    """The reference repeats K/V heads as torch's repeat_interleave does (clear to read); the fast path
    broadcasts them instead, and its peak memory shows it."""
    forward = fast_multi_head_attention
    x = np.random.default_rng(0).normal(size=(1, 64, 64)).astype(np.float32)

    def peak(n_kv: int) -> int:
        p = engine.init_attention(64, 8, n_kv_heads=n_kv, seed=0)
        tracemalloc.start()
        forward(x, p, mask="causal")
        top = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        return top

    mha, mqa = peak(8), peak(1)
    kv_bytes_saved = 2 * 64 * (64 - 8) * 4  # K and V: (T, d) in MHA, (T, d_head) in MQA
    assert mqa <= mha - kv_bytes_saved


# ---- masks, dtypes, shapes -----------------------------------------------------------------------


@EXAMPLES
@given(cases(), st.sampled_from(["bool", "additive"]))
@BOTH
def test_a_fully_masked_row_gives_zero_weights_and_zero_output_not_nan(
    forward: Forward, case: Case, kind: str
) -> None:
    b = case.shape[0]
    allowed = random_bool_mask(case)
    allowed[:, :, 0, :] = False  # query 0 may attend to nothing
    mask = allowed if kind == "bool" else np.where(allowed, 0.0, -np.inf)
    r = forward(case.x, case.p, mask=mask)
    for a in (r.weights, r.heads, r.output):
        assert not np.isnan(a).any()
    assert np.all(r.weights[:, :, 0] == 0.0)
    assert np.all(r.heads[:, :, 0] == 0.0)
    b_o = np.zeros(case.p.d_model, np.float32) if case.p.b_o is None else case.p.b_o
    np.testing.assert_array_equal(r.output[:, 0], np.broadcast_to(b_o, (b, case.p.d_model)))


def test_softmax_of_an_all_minus_infinity_row_is_zero() -> None:
    w = engine.softmax(np.array([[-np.inf, -np.inf], [0.0, -np.inf]]))
    assert np.all(w[0] == 0.0)
    assert w[1].sum() == 1.0


@EXAMPLES
@given(st.lists(st.floats(-50, 50), min_size=1, max_size=8), st.floats(-1e4, 1e4))
def test_softmax_subtracts_the_row_max_so_shifts_do_not_matter(row: list[float], shift: float) -> None:
    x = np.array(row)
    w = engine.softmax(x)
    np.testing.assert_allclose(engine.softmax(x + shift), w, atol=1e-6)
    np.testing.assert_allclose(w.sum(), 1.0)


def test_causal_mask_is_top_left_aligned_like_torch() -> None:
    for t, s in [(3, 3), (2, 5), (5, 2)]:
        np.testing.assert_array_equal(engine.causal_mask(t, s), np.tril(np.ones((t, s), dtype=bool)))


@EXAMPLES
@given(cases())
@BOTH
def test_float64_input_stays_float64_and_float32_is_the_default(forward: Forward, case: Case) -> None:
    r32 = forward(case.x, case.p)
    r64 = forward(case.x.astype(np.float64), case.p)
    for a32, a64 in [(r32.output, r64.output), (r32.weights, r64.weights), (r32.heads, r64.heads)]:
        assert a32.dtype == np.float32
        assert a64.dtype == np.float64
        np.testing.assert_allclose(a32, a64, atol=1e-5)
    assert r64.scores.dtype == np.float64
    assert case.p.w_q.dtype == np.float32


@EXAMPLES
@given(cases(), st.integers(1, 5))
@BOTH
def test_unbatched_and_cross_attention_shapes(forward: Forward, case: Case, s: int) -> None:
    b, t, d = case.shape
    kv = np.random.default_rng(case.seed).normal(size=(b, s, d))
    r = forward(case.x, case.p, kv=kv, mask="causal")
    h, d_head = case.p.n_heads, case.p.d_head
    assert r.output.shape == (b, t, d)
    assert r.weights.shape == r.scores.shape == (b, h, t, s)
    assert r.heads.shape == (b, h, t, d_head)
    single = forward(case.x[0], case.p, kv=kv[0], mask="causal")
    assert single.weights.shape == (h, t, s)
    np.testing.assert_allclose(single.output, r.output[0], atol=1e-6)


# ---- errors name the values ----------------------------------------------------------------------


def _raises(fn: object, *fragments: str) -> None:
    assert callable(fn)
    with pytest.raises(ValueError) as info:
        fn()
    for fragment in fragments:
        assert fragment in str(info.value), f"{fragment!r} not in {info.value}"


def test_d_model_not_divisible_by_n_heads_is_named() -> None:
    _raises(lambda: engine.init_attention(10, 3), "d_model=10", "n_heads=3")


def test_n_heads_not_divisible_by_n_kv_heads_is_named() -> None:
    _raises(lambda: engine.init_attention(12, 4, n_kv_heads=3), "n_heads=4", "n_kv_heads=3")
    p = engine.init_attention(12, 4)
    _raises(lambda: engine.AttentionParams(p.w_q, p.w_k, p.w_v, p.w_o, 4, 3), "n_heads=4", "n_kv_heads=3")


def test_mismatched_weight_shapes_are_named() -> None:
    p = engine.init_attention(8, 2)
    _raises(
        lambda: engine.AttentionParams(p.w_q, p.w_k[:, :3], p.w_v, p.w_o, 2, 2), "w_k", "(8, 3)", "(8, 8)"
    )
    _raises(lambda: engine.AttentionParams(p.w_q, p.w_k, p.w_v, p.w_o, 2, 2, b_o=np.zeros(5)), "b_o", "(5,)")


@BOTH
def test_mismatched_input_shapes_are_named(forward: Forward) -> None:
    p = engine.init_attention(8, 2)
    _raises(lambda: forward(np.zeros((5, 7)), p), "(5, 7)", "d_model=8")
    _raises(
        lambda: forward(np.zeros((2, 5, 8)), p, kv=np.zeros((3, 4, 8))),
        "(3, 4, 8)",
        "(2, 5, 8)",
    )
    _raises(lambda: forward(np.zeros((4, 5, 6, 8)), p), "(4, 5, 6, 8)")


@BOTH
def test_a_mask_that_does_not_broadcast_is_named(forward: Forward) -> None:
    p = engine.init_attention(8, 2)
    x = np.zeros((5, 8))
    _raises(lambda: forward(x, p, mask=np.ones((3, 3), bool)), "(3, 3)", "(1, 2, 5, 5)")
    _raises(lambda: forward(x, p, mask=np.ones((4, 2, 5, 5), bool)), "(4, 2, 5, 5)")


@BOTH
def test_a_bad_mask_string_or_dtype_is_named(forward: Forward) -> None:
    p = engine.init_attention(8, 2)
    x = np.zeros((5, 8))
    _raises(lambda: forward(x, p, mask="causual"), "'causual'", "'causal'")
    _raises(lambda: forward(x, p, mask=np.ones((5, 5), int)), "int64")
    _raises(lambda: forward(x, p, mask=np.full((5, 5), np.nan)), "NaN")


@BOTH
def test_non_finite_input_is_rejected(forward: Forward) -> None:
    p = engine.init_attention(8, 2)
    x = np.zeros((5, 8))
    x[2, 3] = np.nan
    _raises(lambda: forward(x, p), "x contains NaN")
    _raises(lambda: forward(np.zeros((5, 8)), p, kv=np.full((3, 8), np.inf)), "kv contains")
    bad = p.w_q.copy()
    bad[0, 0] = np.inf
    _raises(lambda: engine.AttentionParams(bad, p.w_k, p.w_v, p.w_o, 2, 2), "w_q")


def test_error_messages_match_the_documented_pattern() -> None:
    with pytest.raises(ValueError, match=re.escape("d_model=6 is not divisible by n_heads=4")):
        engine.init_attention(6, 4)


def test_the_reference_reads_like_picogpt() -> None:
    """The building blocks a learner reads first, and a forward pass short enough to read in one go that
    knows nothing of Explore's experiments (those are weight changes in quizapp/explore/transforms.py)."""
    import inspect

    import engine.attention as attention

    for name in ("softmax", "causal_mask", "split_heads", "merge_heads", "scaled_dot_product_attention"):
        assert callable(getattr(attention, name))
    lines, _ = inspect.getsourcelines(attention.multi_head_attention)
    assert len(lines) <= 40
    assert list(inspect.signature(attention.multi_head_attention).parameters) == ["x", "p", "mask", "kv"]
    body = [line for line in lines if "np." in line or "@" in line]
    assert body and all("->" in line for line in body if not line.lstrip().startswith(("#", '"')))
