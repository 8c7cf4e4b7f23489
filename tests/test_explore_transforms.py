"""Explore's "same weights" and "no W_O" as weight changes: they do what the old switches of the forward
pass did, for the reference, the fast path and the toy transformer."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import engine
from benchmarks.fast import fast_multi_head_attention
from engine import toy
from engine.attention import merge_heads
from quizapp.explore.transforms import drop_output_projection, tie_heads, transformed_toy

Forward = Any
BOTH = pytest.mark.parametrize(
    "forward", [engine.multi_head_attention, fast_multi_head_attention], ids=["reference", "fast"]
)
EXAMPLES = settings(max_examples=60, deadline=None)
ROUNDING = {np.float32: 1e-6, np.float64: 1e-12}
"""How far tied heads may differ: BLAS can round a matmul's last columns differently from its first, so
head 0's columns copied to head 3 can give head 3 a result one unit in the last place away."""


@dataclass(frozen=True)
class Case:
    p: engine.AttentionParams
    x: np.ndarray  # (B, T, d)
    mask: Any


@st.composite
def cases(draw: st.DrawFn) -> Case:
    n_kv, g, d_head = draw(st.integers(1, 3)), draw(st.integers(1, 3)), draw(st.integers(1, 5))
    b, t, seed = draw(st.integers(1, 2)), draw(st.integers(1, 6)), draw(st.integers(0, 2**16))
    h = n_kv * g
    dtype = draw(st.sampled_from([np.float32, np.float64]))
    p = engine.init_attention(h * d_head, h, n_kv_heads=n_kv, seed=seed, bias=draw(st.booleans()))
    rng = np.random.default_rng(seed + 1)
    x = rng.normal(size=(b, t, h * d_head)).astype(dtype)  # (B, T, d)
    mask = draw(st.sampled_from([None, "causal", "bool"]))
    return Case(p, x, rng.random((b, 1, t, t)) < 0.7 if mask == "bool" else mask)  # one for every head


@EXAMPLES
@given(cases())
def test_tying_copies_head_zeros_columns_to_every_head_and_keeps_w_o(case: Case) -> None:
    p, tied = case.p, tie_heads(case.p)
    dh = p.d_head
    for name, n in (("w_q", p.n_heads), ("w_k", p.n_kv_heads), ("w_v", p.n_kv_heads)):
        for bias in (False, True):
            given_, made = (
                getattr(p, name.replace("w_", "b_") if bias else name),
                getattr(tied, name.replace("w_", "b_") if bias else name),
            )
            if given_ is None:
                assert made is None
                continue
            assert made.shape == given_.shape
            for i in range(n):
                np.testing.assert_array_equal(made[..., i * dh : (i + 1) * dh], given_[..., :dh])
    np.testing.assert_array_equal(tied.w_o, p.w_o)
    assert (tied.n_heads, tied.n_kv_heads) == (p.n_heads, p.n_kv_heads)


@EXAMPLES
@given(cases())
@BOTH
def test_tied_heads_all_have_the_weights_of_head_zero_of_the_untied_layer(
    forward: Forward, case: Case
) -> None:
    tol = ROUNDING[case.x.dtype.type]
    tied = forward(case.x, tie_heads(case.p), mask=case.mask)
    untied = forward(case.x, case.p, mask=case.mask)
    for i in range(case.p.n_heads):
        np.testing.assert_allclose(tied.weights[:, i], tied.weights[:, 0], rtol=0, atol=tol)
        np.testing.assert_allclose(tied.heads[:, i], tied.heads[:, 0], rtol=0, atol=tol)
    np.testing.assert_allclose(tied.weights[:, 0], untied.weights[:, 0], rtol=0, atol=tol)
    np.testing.assert_allclose(tied.heads[:, 0], untied.heads[:, 0], rtol=0, atol=10 * tol)


@EXAMPLES
@given(cases())
@BOTH
def test_without_w_o_the_output_is_the_heads_side_by_side_bit_for_bit(forward: Forward, case: Case) -> None:
    full = forward(case.x, case.p, mask=case.mask)
    bare = forward(case.x, drop_output_projection(case.p), mask=case.mask)
    for name in ("weights", "scores", "heads"):  # W_O acts after attention: nothing before it changes
        np.testing.assert_array_equal(getattr(bare, name), getattr(full, name))
    np.testing.assert_array_equal(bare.output, merge_heads(bare.heads))
    dh = case.p.d_head
    for i in range(case.p.n_heads):  # output slice i comes from head i only
        np.testing.assert_array_equal(bare.output[..., i * dh : (i + 1) * dh], bare.heads[:, i])
    expected = bare.output @ case.p.w_o + (0 if case.p.b_o is None else case.p.b_o)
    np.testing.assert_allclose(full.output, expected, rtol=1e-5, atol=1e-5)


def test_no_w_o_needs_heads_as_wide_as_the_model() -> None:
    rng = np.random.default_rng(0)
    narrow = engine.AttentionParams(  # d_model 6, 2 heads of width 2: concat(heads) is 4 wide
        w_q=rng.normal(size=(6, 4)), w_k=rng.normal(size=(6, 4)), w_v=rng.normal(size=(6, 4)),
        w_o=rng.normal(size=(4, 6)), n_heads=2, n_kv_heads=2,
    )  # fmt: skip
    with pytest.raises(ValueError, match=r"n_heads=2, d_head=2, d_model=6"):
        drop_output_projection(narrow)


def test_the_transforms_leave_the_given_layer_alone() -> None:
    p = engine.init_attention(8, 2, seed=1, bias=True)
    before = {name: np.array(getattr(p, name)) for name in ("w_q", "w_k", "w_v", "w_o", "b_o")}
    drop_output_projection(tie_heads(p))
    for name, array in before.items():
        np.testing.assert_array_equal(getattr(p, name), array)


def test_the_toy_with_tied_heads_or_without_w_o() -> None:
    model = toy.pretrained()
    tokens = toy.repeated_tokens(np.random.default_rng(4), 12)
    plain = model.forward(tokens)
    assert transformed_toy(model, tie=False, drop_wo=False) is model
    tied = transformed_toy(model, tie=True, drop_wo=False).attention_weights(tokens)  # (L, H, T, T)
    for head in range(1, model.n_heads):  # layer 0 sees one input: every head makes head 0's pattern
        np.testing.assert_allclose(tied[0, head], tied[0, 0], rtol=0, atol=1e-6)
    np.testing.assert_allclose(tied[0, 0], plain.weights[0, 0], rtol=0, atol=1e-6)
    no_wo = transformed_toy(model, tie=False, drop_wo=True).forward(tokens)
    np.testing.assert_array_equal(no_wo.weights[0], plain.weights[0])  # layer 0 runs before any W_O
    assert not np.allclose(no_wo.logits, plain.logits)
    x = model.params["embed"][tokens] + model.params["pos"][: tokens.size]  # (T, d)
    layer0 = engine.AttentionParams(
        n_heads=model.n_heads,
        n_kv_heads=model.n_heads,
        **{w: model.params[f"l0.{w}"] for w in toy.model.LAYER_WEIGHTS},
    )
    heads = engine.multi_head_attention(x, layer0, mask="causal").heads  # (H, T, dh)
    x1 = x + merge_heads(heads[None])[0]  # (T, d): layer 0 adds concat(heads) itself, no W_O
    np.testing.assert_array_equal(
        no_wo.weights[1],
        engine.multi_head_attention(
            x1, transformed_toy(model, tie=False, drop_wo=True)._layers[1], mask="causal"
        ).weights,
    )
