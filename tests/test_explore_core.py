"""The Explore sandbox without a screen: toggles change the weights the way the user expects, W_O changes
the output and not the weights, presets drive the cost panel, and bad combinations get a message."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from hypothesis import given
from hypothesis import settings as hsettings
from hypothesis import strategies as st

import engine
from engine.attention import merge_heads
from quizapp.errors import QuizappError
from quizapp.explore.model import (
    DTYPES,
    MAX_TOKENS,
    SANDBOX_HEADS,
    ExploreInputs,
    apply_preset,
    embed,
    explore,
    layer,
    presets,
    sandbox_sizes,
    toggled,
    tokenize,
    with_text,
)

BASE = ExploreInputs(sentence="the cat sat on the mat", d_model=16, n_heads=4, n_kv_heads=4, seed=3)


def test_the_heatmap_is_labelled_with_the_tokens_and_has_one_block_per_head() -> None:
    result = explore(BASE)
    assert result.tokens == ("the", "cat", "sat", "on", "the", "mat")
    assert result.heatmap.row_labels == result.tokens == result.heatmap.col_labels
    assert result.heatmap.weights.shape == (4, 6, 6)
    assert result.heatmap.head_labels == ("head 1", "head 2", "head 3", "head 4")
    np.testing.assert_allclose(result.heatmap.weights.sum(-1), 1.0, rtol=1e-5)


def test_the_weights_are_the_engines_own_forward_pass() -> None:
    result = explore(BASE)
    params = engine.init_attention(16, 4, 4, seed=3)
    expected = engine.multi_head_attention(embed(result.tokens, 16, 3), params)
    np.testing.assert_allclose(result.heatmap.weights, expected.weights)
    np.testing.assert_allclose(result.output, expected.output)


def test_a_configuration_draws_its_weights_once_and_toggles_reuse_them() -> None:
    layer.cache_clear()
    explore(BASE)
    for name in ("causal", "tie_heads", "drop_output_projection"):
        explore(toggled(BASE, name))
    explore(replace(BASE, sentence="a different sentence"))
    info = layer.cache_info()
    assert (info.misses, info.hits) == (1, 4)
    explore(replace(BASE, seed=4))  # another seed is another layer
    assert layer.cache_info().misses == 2
    with pytest.raises(ValueError, match="read-only"):  # shared, so nobody may change it in place
        layer(16, 4, 4, 3).w_q[0, 0] = 1.0


def test_same_weights_for_all_heads_collapses_them_into_one_pattern() -> None:
    free = explore(BASE).heatmap.weights
    tied = explore(toggled(BASE, "tie_heads")).heatmap.weights
    assert not np.allclose(free[0], free[1])  # without the toggle, heads differ
    for head in tied[1:]:
        np.testing.assert_array_equal(head, tied[0])


def test_the_causal_mask_zeroes_every_weight_above_the_diagonal() -> None:
    plain = explore(BASE).heatmap.weights
    causal = explore(toggled(BASE, "causal")).heatmap.weights
    above = np.triu(np.ones((6, 6), dtype=bool), k=1)
    assert (plain[:, above] > 0).all()
    assert (causal[:, above] == 0).all()
    np.testing.assert_allclose(causal.sum(-1), 1.0, rtol=1e-5)
    np.testing.assert_allclose(causal[:, 0, 0], 1.0)  # the first token can only see itself


def test_removing_w_o_changes_the_output_but_not_the_weights() -> None:
    with_wo = explore(BASE)
    without = explore(toggled(BASE, "drop_output_projection"))
    np.testing.assert_array_equal(with_wo.heatmap.weights, without.heatmap.weights)
    assert not np.allclose(with_wo.output, without.output)
    params = engine.init_attention(16, 4, 4, seed=3)
    x = embed(with_wo.tokens, 16, 3)
    heads = merge_heads(engine.multi_head_attention(x, params).heads[None])[0]  # (T, h*d_head)
    np.testing.assert_allclose(without.output, heads)
    np.testing.assert_allclose(with_wo.output, heads @ params.w_o, rtol=1e-5, atol=1e-6)
    assert without.wo.removed and not with_wo.wo.removed
    assert without.wo.difference_norm == pytest.approx(
        float(np.linalg.norm(with_wo.output - heads)), rel=1e-5
    )
    assert without.wo.shape_without == (6, 16) and "side by side" in without.wo.text
    # the cost panel counts W_O only while it is there: d_model^2 fewer parameters without it
    assert with_wo.cost.parameters.value - without.cost.parameters.value == 16 * 16  # type: ignore[operator]


def test_the_same_word_starts_from_the_same_vector_and_the_seed_changes_everything() -> None:
    x = embed(("the", "cat", "The"), 8, 0)
    pos = embed(("a", "a", "a"), 8, 0)
    np.testing.assert_allclose(x[2] - pos[2], x[0] - pos[0])  # "The" and "the": same word, own position
    assert not np.allclose(explore(BASE).heatmap.weights, explore(replace(BASE, seed=4)).heatmap.weights)
    np.testing.assert_array_equal(explore(BASE).heatmap.weights, explore(BASE).heatmap.weights)


def test_grouped_query_heads_are_labelled_with_their_kv_head() -> None:
    result = explore(replace(BASE, n_heads=4, n_kv_heads=2))
    assert result.heatmap.head_labels == ("head 1 · kv 1", "head 2 · kv 1", "head 3 · kv 2", "head 4 · kv 2")
    assert "GQA" in result.note


@pytest.mark.parametrize(
    ("changes", "words"),
    [
        ({"d_model": 20, "n_heads": 3}, "d_model 20 does not split into 3 heads"),
        ({"n_heads": 4, "n_kv_heads": 3}, "4 heads cannot share 3 KV heads"),
        ({"sentence": "   "}, "Type a sentence"),
        ({"sentence": " ".join(["w"] * (MAX_TOKENS + 1))}, f"at most {MAX_TOKENS} tokens"),
        ({"n_kv_heads": 0}, "KV heads"),
    ],
)
def test_invalid_combinations_give_a_clear_message(changes: dict[str, object], words: str) -> None:
    with pytest.raises(QuizappError, match=words):
        explore(replace(BASE, **changes))  # type: ignore[arg-type]


def test_typed_fields_are_read_and_checked() -> None:
    assert with_text(BASE, "d_model", " 32 ").d_model == 32
    assert with_text(BASE, "context", "8,192").context == 8192
    with pytest.raises(QuizappError, match="whole number"):
        with_text(BASE, "n_heads", "four")
    with pytest.raises(QuizappError, match="between 1 and 4,096"):
        with_text(BASE, "batch", "0")
    with pytest.raises(QuizappError, match="Unknown dtype"):
        with_text(BASE, "dtype", "fp12")
    assert tokenize("The cat, sat.") == ("The", "cat", ",", "sat", ".")


def test_a_preset_drives_the_cost_panel_with_the_real_sizes() -> None:
    llama = engine.MODELS["llama-2-70b"]
    inputs = apply_preset(replace(BASE, batch=8), "llama-2-70b")
    result = explore(inputs)
    kv = engine.calculate(
        "kv_cache_bytes",
        n_layers=llama.n_layers,
        n_kv_heads=llama.n_kv_heads,
        d_head=llama.d_head,
        seq_len=llama.context_length,
        batch=8,
        bytes_per_element=DTYPES["fp16"],
    )
    assert result.cost.kv_cache.value == kv.value
    assert result.cost.kv_cache.value == 10 * 1024**3  # the 10 GiB anchor for Llama-2 70B
    params = engine.calculate(
        "attention_parameters", d_model=8192, n_heads=64, n_kv_heads=8, n_layers=llama.n_layers
    )
    assert result.cost.parameters.value == params.value
    # the drawing is a scaled-down copy with the same grouping: 8 query heads per KV head
    assert (inputs.n_heads, inputs.n_kv_heads) == (8, 1)
    assert result.heatmap.weights.shape[0] == 8
    assert "Llama-2 70B" in result.note and "scaled-down" in result.note


def test_transformer_base_preset_counts_the_published_parameters() -> None:
    result = explore(replace(apply_preset(BASE, "transformer-base"), n_layers=1))
    assert result.cost.parameters.value == 1_048_576  # 4 x 512^2, Vaswani et al.


def test_editing_the_sandbox_sizes_leaves_the_preset_but_other_fields_keep_it() -> None:
    inputs = apply_preset(BASE, "llama-3-8b")
    assert with_text(inputs, "batch", "4").preset == "llama-3-8b"
    assert with_text(inputs, "d_model", str(inputs.d_model)).preset == "llama-3-8b"  # unchanged value
    assert with_text(inputs, "d_model", "32").preset is None
    assert apply_preset(inputs, None).preset is None
    with pytest.raises(QuizappError, match="Unknown model preset"):
        apply_preset(BASE, "gpt-5")


def test_every_preset_scales_down_to_a_drawable_layer_with_its_grouping() -> None:
    for key, _name in presets():
        model = engine.MODELS[key]
        d_model, heads, kv = sandbox_sizes(model)
        assert heads <= SANDBOX_HEADS and heads % kv == 0 and d_model % heads == 0
        if model.n_kv_heads == model.n_heads:
            assert kv == heads  # MHA stays MHA
        elif model.n_kv_heads == 1:
            assert kv == 1  # MQA stays MQA
        elif model.n_heads // model.n_kv_heads <= SANDBOX_HEADS:
            assert heads // kv == model.n_heads // model.n_kv_heads  # GQA keeps its group size
        explore(apply_preset(BASE, key))


@st.composite
def layers(draw: st.DrawFn) -> ExploreInputs:
    kv = draw(st.integers(1, 4))
    heads = kv * draw(st.integers(1, 4))
    d_model = heads * draw(st.integers(1, 6))
    words = draw(st.lists(st.sampled_from(["the", "cat", "sat", "on", "mat", "."]), min_size=1, max_size=8))
    return ExploreInputs(
        sentence=" ".join(words),
        d_model=d_model,
        n_heads=heads,
        n_kv_heads=kv,
        seed=draw(st.integers(0, 1000)),
        causal=draw(st.booleans()),
        tie_heads=draw(st.booleans()),
        drop_output_projection=draw(st.booleans()),
    )


@hsettings(max_examples=60)
@given(inputs=layers())
def test_any_valid_layer_gives_weights_rows_that_sum_to_one(inputs: ExploreInputs) -> None:
    result = explore(inputs)
    h, t = inputs.n_heads, len(result.tokens)
    assert result.heatmap.weights.shape == (h, t, t)
    np.testing.assert_allclose(result.heatmap.weights.sum(-1), 1.0, rtol=1e-5)
    assert result.output.shape == (t, inputs.d_model)
