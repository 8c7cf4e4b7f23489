"""The calculators agree with published numbers, with the attention code, and reject bad configurations."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import engine
from engine import MODELS, calculate


def test_head_dim_of_bert_base_is_64() -> None:
    assert calculate("head_dim", d_model=768, n_heads=12).value == 64


def test_mha_parameters_without_bias_are_four_d_squared() -> None:
    assert calculate("attention_parameters", d_model=512, n_heads=8).value == 1_048_576


def test_gpt2_small_attention_parameters_per_layer_with_biases() -> None:
    m = MODELS["gpt2-small"]
    d = calculate("attention_parameters", d_model=m.d_model, n_heads=m.n_heads, bias=m.bias)
    assert d.value == 2_362_368


@pytest.mark.parametrize(
    ("kv_heads", "expected"), [(64, 85_899_345_920), (8, 10_737_418_240), (1, 1_342_177_280)]
)
def test_llama2_70b_kv_cache_at_4096_context_batch_8_fp16(kv_heads: int, expected: int) -> None:
    m = MODELS["llama-2-70b"]
    d = calculate(
        "kv_cache_bytes",
        n_layers=m.n_layers,
        n_kv_heads=kv_heads,
        d_head=m.d_head,
        seq_len=4096,
        batch=8,
        bytes_per_element=2,
    )
    assert d.value == expected


def test_llama2_70b_preset_is_gqa_with_8_kv_heads() -> None:
    m = MODELS["llama-2-70b"]
    assert (m.n_layers, m.n_heads, m.n_kv_heads, m.d_model) == (80, 64, 8, 8192)
    assert m.attention_kind == "GQA"
    assert MODELS["falcon-7b"].attention_kind == "MQA"
    assert all(cfg.source for cfg in MODELS.values())


def test_kv_cache_misconception_for_the_missing_x2_is_half_the_answer() -> None:
    d = calculate(
        "kv_cache_bytes", n_layers=80, n_kv_heads=8, d_head=128, seq_len=4096, batch=8, bytes_per_element=2
    )
    m = d.misconception("no-x2-kv")
    assert m.value * 2 == d.value
    assert m.step in {s.label for s in d.steps}


@pytest.mark.parametrize(
    ("name", "args", "words"),
    [
        ("head_dim", {"d_model": 100, "n_heads": 8}, ["d_model=100", "n_heads=8"]),
        (
            "attention_parameters",
            {"d_model": 64, "n_heads": 8, "n_kv_heads": 3},
            ["n_heads=8", "n_kv_heads=3"],
        ),
        (
            "kv_cache_bytes",
            {"n_layers": 0, "n_kv_heads": 1, "d_head": 1, "seq_len": 1, "batch": 1, "bytes_per_element": 2},
            ["n_layers=0"],
        ),
        (
            "attention_shape",
            {"batch": 1, "seq_len": 4, "d_model": 8, "n_heads": 2, "stage": "nope"},
            ["stage", "nope"],
        ),
        ("kv_cache_savings", {"n_heads": 8, "n_kv_heads": 3}, ["n_heads=8", "n_kv_heads=3"]),
        ("head_dim", {"d_model": 64}, ["n_heads"]),
        ("head_dim", {"d_model": 64, "n_heads": 8, "bogus": 1}, ["bogus"]),
    ],
)
def test_bad_configurations_raise_value_errors_naming_the_values(
    name: str, args: dict[str, object], words: list[str]
) -> None:
    with pytest.raises(ValueError) as exc:
        calculate(name, **args)
    for w in words:
        assert w in str(exc.value)


def test_unknown_calculator_lists_the_known_ones() -> None:
    with pytest.raises(ValueError, match="head_dim"):
        calculate("no_such_calculator")


def test_every_calculator_renders_each_step_and_knows_misconceptions() -> None:
    samples = {
        "head_dim": {"d_model": 512, "n_heads": 8},
        "attention_parameters": {"d_model": 512, "n_heads": 8, "n_kv_heads": 2, "bias": True, "n_layers": 3},
        "single_vs_multi_head_parameters": {"d_model": 512, "n_heads": 8},
        "kv_cache_bytes": {
            "n_layers": 4,
            "n_kv_heads": 2,
            "d_head": 64,
            "seq_len": 128,
            "batch": 2,
            "bytes_per_element": 2,
            "n_heads": 8,
        },
        "kv_cache_bytes_per_token": {
            "n_layers": 4,
            "n_kv_heads": 2,
            "d_head": 64,
            "bytes_per_element": 2,
            "n_heads": 8,
        },
        "kv_cache_savings": {"n_heads": 32, "n_kv_heads": 8},
        "attention_flops": {"seq_len": 128, "d_model": 512, "n_heads": 8, "batch": 2},
        "score_matrix_bytes": {"batch": 2, "n_heads": 8, "seq_len": 128, "bytes_per_element": 2},
        "attention_entry": {
            "q": [[1, 0], [0, 1]],
            "k": [[1, 2], [0, 1]],
            "v": [[1, 2], [3, 4]],
            "row": 1,
            "causal": True,
        },
        "attention_shape": {"batch": 2, "seq_len": 16, "d_model": 64, "n_heads": 8, "stage": "q_heads"},
    }
    assert set(samples) == set(engine.CALCULATORS)
    for name, args in samples.items():
        d = calculate(name, **args)
        text = d.to_text()
        for step in d.steps:
            assert step.label in text
        assert d.misconceptions, name
        for m in d.misconceptions:
            assert m.value != d.value
            assert m.id in engine.CALCULATORS[name].misconception_ids


def test_attention_entry_agrees_with_the_attention_engine() -> None:
    rng = np.random.default_rng(3)
    x = rng.integers(-2, 3, size=(4, 4)).astype(np.float64)  # (T, d)
    eye = np.eye(4)
    params = engine.AttentionParams(
        w_q=eye, w_k=eye, w_v=eye, w_o=eye, n_heads=1, n_kv_heads=1, b_q=None, b_k=None, b_v=None, b_o=None
    )
    r = engine.multi_head_attention(x, params, mask="causal")
    for row in range(4):
        for col in range(4):
            w = calculate("attention_entry", q=x, k=x, v=x, row=row, col=col, which="weight", causal=True)
            o = calculate("attention_entry", q=x, k=x, v=x, row=row, col=col, which="output", causal=True)
            assert w.value == pytest.approx(float(r.weights[0, row, col]), abs=1e-9)
            assert o.value == pytest.approx(float(r.output[row, col]), abs=1e-9)
    heat = calculate(
        "attention_entry", q=x, k=x, v=x, row=0, causal=True, tokens=["a", "b", "c", "d"]
    ).heatmap
    assert heat is not None
    assert heat.weights.shape == (1, 4, 4)
    assert heat.row_labels == ("a", "b", "c", "d")


sizes = st.integers(min_value=1, max_value=64)


@given(layers=sizes, kv=sizes, d_head=sizes, seq=sizes, batch=sizes, nbytes=st.sampled_from([1, 2, 4]))
def test_kv_cache_is_per_token_cost_times_tokens_and_batch(
    layers: int, kv: int, d_head: int, seq: int, batch: int, nbytes: int
) -> None:
    total = calculate(
        "kv_cache_bytes",
        n_layers=layers,
        n_kv_heads=kv,
        d_head=d_head,
        seq_len=seq,
        batch=batch,
        bytes_per_element=nbytes,
    ).value
    per_token = calculate(
        "kv_cache_bytes_per_token", n_layers=layers, n_kv_heads=kv, d_head=d_head, bytes_per_element=nbytes
    ).value
    assert total == per_token * seq * batch


@given(h=st.sampled_from([1, 2, 4, 8, 16, 32, 64]), data=st.data())
def test_savings_is_the_ratio_of_the_two_caches(h: int, data: st.DataObject) -> None:
    kv = data.draw(st.sampled_from([g for g in (1, 2, 4, 8, 16, 32, 64) if h % g == 0]))
    full = calculate(
        "kv_cache_bytes", n_layers=2, n_kv_heads=h, d_head=8, seq_len=16, batch=1, bytes_per_element=2
    ).value
    small = calculate(
        "kv_cache_bytes", n_layers=2, n_kv_heads=kv, d_head=8, seq_len=16, batch=1, bytes_per_element=2
    ).value
    assert calculate("kv_cache_savings", n_heads=h, n_kv_heads=kv).value * small == full


@given(h=st.sampled_from([1, 2, 4, 8, 16]), width=st.integers(min_value=1, max_value=64), bias=st.booleans())
def test_mha_parameters_are_four_d_squared_plus_four_d_with_bias(h: int, width: int, bias: bool) -> None:
    d = h * width
    value = calculate("attention_parameters", d_model=d, n_heads=h, bias=bias).value
    assert value == 4 * d * d + (4 * d if bias else 0)
    assert (
        calculate("single_vs_multi_head_parameters", d_model=d, n_heads=h, bias=bias, which="single").value
        == value
    )
