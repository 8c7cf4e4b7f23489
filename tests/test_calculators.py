"""The calculators agree with the published numbers, the model presets with their configs, and the worked
examples with the attention engine itself; the formulas keep their laws (linear, quadratic, 4 d^2)."""

from __future__ import annotations

import re
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import engine
import engine.models
from engine import MODELS, ModelConfig, calculate
from engine.calculator import calculate_value
from engine.calculators import entry

GiB = 2**30
X = [[1, 0, 2], [0, 1, -1], [2, -1, 0], [1, 1, 1]]  # (T=4, d=3)
Y = [[0, 1, 1], [2, 0, -1]]  # (S=2, d=3): another sequence, for cross-attention

# ---------------------------------------------------------------------------- published numbers (issue 2 §4)


def test_768_over_12_heads_is_64_for_bert_base_and_gpt2_small() -> None:
    assert calculate("head_dim", d_model=768, n_heads=12).value == 64
    for key in ("bert-base", "gpt2-small"):
        m = MODELS[key]
        assert calculate("head_dim", d_model=m.d_model, n_heads=m.n_heads).value == m.d_head == 64


def test_transformer_base_attention_is_4_times_512_squared() -> None:
    assert calculate("attention_parameters", d_model=512, n_heads=8).value == 1_048_576
    m = MODELS["transformer-base"]
    assert (
        calculate("attention_parameters", d_model=m.d_model, n_heads=m.n_heads, bias=m.bias).value
        == 1_048_576
    )


def test_gpt2_small_attention_parameters_per_layer_with_biases() -> None:
    m = MODELS["gpt2-small"]
    assert (
        calculate("attention_parameters", d_model=m.d_model, n_heads=m.n_heads, bias=m.bias).value
        == 2_362_368
    )
    assert calculate("attention_parameters", d_model=768, n_heads=12, bias=True).value == 2_362_368


@pytest.mark.parametrize(
    ("kv_heads", "expected", "gib"),
    [(64, 85_899_345_920, 80), (8, 10_737_418_240, 10), (1, 1_342_177_280, 1.25)],
)
def test_llama2_70b_kv_cache_at_4096_tokens_batch_8_fp16(kv_heads: int, expected: int, gib: float) -> None:
    m = MODELS["llama-2-70b"]
    d = calculate(
        "kv_cache_bytes",
        n_layers=m.n_layers,
        n_kv_heads=kv_heads,
        d_head=m.d_head,
        seq_len=4096,
        batch=8,
        bytes_per_element=2,
        n_heads=m.n_heads,
    )
    assert d.value == expected
    assert d.value / GiB == gib
    assert "GiB" in d.to_text()


def test_presets_match_the_published_anchors() -> None:
    gpt3, llama, falcon = MODELS["gpt3-175b"], MODELS["llama-2-70b"], MODELS["falcon-7b"]
    assert (gpt3.n_layers, gpt3.n_heads, gpt3.d_model, gpt3.d_head, gpt3.context_length) == (
        96,
        96,
        12288,
        128,
        2048,
    )
    assert (llama.n_layers, llama.n_heads, llama.n_kv_heads, llama.d_model) == (80, 64, 8, 8192)
    assert (falcon.n_kv_heads, falcon.d_model, falcon.n_heads, falcon.d_head) == (1, 4544, 71, 64)


# ---------------------------------------------------------------------------- engine.MODELS


def test_every_issue_preset_exists_names_its_source_and_splits_evenly() -> None:
    wanted = (
        "transformer-base transformer-big bert-base bert-large gpt2-small gpt2-medium gpt2-large gpt2-xl "
    )
    wanted += "gpt3-175b llama-2-7b llama-2-13b llama-2-70b llama-3-8b llama-3-70b mistral-7b falcon-7b "
    wanted += "mixtral-8x7b gemma-7b qwen2-7b llama-3.1-405b deepseek-v2 "
    wanted += "llama-3.1-8b llama-3.1-70b gemma-3-27b"
    assert list(MODELS) == wanted.split()
    for key, m in MODELS.items():
        assert m.key == key
        assert re.search(r"config|Table|README|paper|arXiv", m.source), key
        if m.explicit_head_dim:  # Gemma, DeepSeek-V2: the config's head_dim, not d_model / h
            assert calculate("head_dim", d_model=m.d_model, n_heads=m.n_heads).value != m.d_head
        else:
            assert calculate("head_dim", d_model=m.d_model, n_heads=m.n_heads).value == m.d_head
        assert calculate("kv_cache_savings", n_heads=m.n_heads, n_kv_heads=m.n_kv_heads).value >= 1


def test_the_model_table_in_the_models_docstring_is_what_the_engine_computes() -> None:
    doc = engine.models.__doc__ or ""
    rows = [line.split() for line in doc.splitlines() if line.split() and line.split()[0] in MODELS]
    assert [r[0] for r in rows] == [k for k, m in MODELS.items() if not m.kv_lora_rank]
    for key, layers, heads, kv, d, d_head, ctx, per_layer, total, kv_token in rows:
        m = MODELS[key]
        assert [int(x) for x in (layers, heads, kv, d, d_head, ctx)] == [
            m.n_layers,
            m.n_heads,
            m.n_kv_heads,
            m.d_model,
            m.d_head,
            m.context_length,
        ]
        args: dict[str, Any] = {
            "d_model": m.d_model,
            "n_heads": m.n_heads,
            "n_kv_heads": m.n_kv_heads,
            "bias": m.bias,
            "o_bias": m.o_bias,
        }
        if m.explicit_head_dim:
            args["d_head"] = m.d_head
        assert int(per_layer.replace(",", "")) == calculate("attention_parameters", **args).value
        assert (
            int(total.replace(",", ""))
            == calculate("attention_parameters", **args, n_layers=m.n_layers).value
        )
        per_token = calculate(
            "kv_cache_bytes_per_token",
            n_layers=m.n_layers,
            n_kv_heads=m.n_kv_heads,
            d_head=m.d_head,
            bytes_per_element=2,
        ).value
        assert int(kv_token.replace(",", "")) == per_token


@pytest.mark.parametrize(
    ("changes", "words"),
    [
        ({"d_head": 60}, ["n_heads=12", "d_head=60", "d_model=768"]),
        ({"n_kv_heads": 5}, ["n_heads=12", "n_kv_heads=5"]),
        ({"n_layers": 0}, ["n_layers=0"]),
        ({"source": " "}, ["source", "config"]),
    ],
)
def test_a_preset_that_does_not_add_up_is_refused(changes: dict[str, Any], words: list[str]) -> None:
    fields = {**MODELS["gpt2-small"].__dict__, **changes}
    with pytest.raises(ValueError) as exc:
        ModelConfig(**fields)
    for w in words:
        assert w in str(exc.value)


# ------------------------------------------------------------------ cross-checks with the attention engine


def test_attention_entry_goes_through_the_engines_own_softmax_and_mask() -> None:
    assert entry.softmax is engine.softmax
    assert entry.causal_mask is engine.causal_mask


@settings(max_examples=40)
@given(
    t=st.integers(1, 5),
    s=st.integers(1, 5),
    d=st.integers(1, 4),
    causal=st.booleans(),
    cross=st.booleans(),
    seed=st.integers(0, 10_000),
)
def test_attention_entry_agrees_with_multi_head_attention_with_identity_projections(
    t: int, s: int, d: int, causal: bool, cross: bool, seed: int
) -> None:
    rng = np.random.default_rng(seed)
    x = rng.integers(-3, 4, size=(t, d)).astype(np.float64)  # (T, d)
    y = rng.integers(-3, 4, size=(s, d)).astype(np.float64) if cross else x  # (S, d)
    eye = np.eye(d)  # (d, d)
    params = engine.AttentionParams(w_q=eye, w_k=eye, w_v=eye, w_o=eye, n_heads=1, n_kv_heads=1)
    r = engine.multi_head_attention(x, params, mask="causal" if causal else None, kv=y if cross else None)
    rows = y.shape[0]
    for row in range(t):
        for col in range(rows):
            got = calculate("attention_entry", q=x, k=y, v=y, row=row, col=col, which="weight", causal=causal)
            assert got.value == pytest.approx(float(r.weights[0, row, col]), abs=1e-12)
            if not causal:
                score = calculate("attention_entry", q=x, k=y, v=y, row=row, col=col, which="score").value
                assert score == pytest.approx(float(r.scores[0, row, col]), abs=1e-12)
        for col in range(d):
            out = calculate("attention_entry", q=x, k=y, v=y, row=row, col=col, which="output", causal=causal)
            assert out.value == pytest.approx(float(r.output[row, col]), abs=1e-12)
    assert got.heatmap is not None
    np.testing.assert_allclose(got.heatmap.weights, r.weights, atol=1e-12)


def test_the_heatmap_is_labelled_with_the_tokens_or_positions() -> None:
    labelled = calculate(
        "attention_entry", q=X, k=X, v=X, row=0, tokens=["the", "cat", "sat", "down"]
    ).heatmap
    assert labelled is not None and labelled.weights.shape == (1, 4, 4)
    assert labelled.row_labels == labelled.col_labels == ("the", "cat", "sat", "down")
    cross = calculate("attention_entry", q=X, k=Y, v=Y, row=0, tokens="a b c d x y").heatmap
    assert cross is not None and (cross.row_labels, cross.col_labels) == (("a", "b", "c", "d"), ("x", "y"))
    plain = calculate("attention_entry", q=X, k=Y, v=Y, row=0).heatmap
    assert plain is not None and (plain.row_labels, plain.col_labels) == (
        ("t0", "t1", "t2", "t3"),
        ("k0", "k1"),
    )


@pytest.mark.parametrize(("h", "n_kv", "b", "t", "s"), [(4, 4, 2, 5, 5), (4, 2, 1, 3, 6), (8, 1, 3, 4, 2)])
def test_attention_shape_matches_the_tensors_the_engine_builds(
    h: int, n_kv: int, b: int, t: int, s: int
) -> None:
    d = 8 * h
    p = engine.init_attention(d, h, n_kv, seed=0)
    rng = np.random.default_rng(0)
    r = engine.multi_head_attention(rng.normal(size=(b, t, d)), p, kv=rng.normal(size=(b, s, d)))
    args = {"batch": b, "seq_len": t, "d_model": d, "n_heads": h, "n_kv_heads": n_kv, "kv_len": s}

    def shape(stage: str) -> Any:
        return calculate("attention_shape", **args, stage=stage).value

    assert (shape("scores"), shape("context"), shape("output")) == (
        r.weights.shape,
        r.heads.shape,
        r.output.shape,
    )
    assert (shape("w_q"), shape("w_k"), shape("w_o")) == (p.w_q.shape, p.w_k.shape, p.w_o.shape)
    assert shape("w_qkv") == (d, p.w_q.shape[1] + p.w_k.shape[1] + p.w_v.shape[1])


# ---------------------------------------------------------------------------- properties

sizes = st.integers(min_value=1, max_value=64)
heads = st.sampled_from([1, 2, 4, 8, 16, 32, 64])


@settings(max_examples=100)
@given(layers=sizes, kv=sizes, d_head=sizes, seq=sizes, batch=sizes, nbytes=st.sampled_from([1, 2, 4]))
def test_kv_cache_is_linear_in_length_and_batch(
    layers: int, kv: int, d_head: int, seq: int, batch: int, nbytes: int
) -> None:
    args = {"n_layers": layers, "n_kv_heads": kv, "d_head": d_head, "bytes_per_element": nbytes}
    total = calculate("kv_cache_bytes", **args, seq_len=seq, batch=batch).value
    assert calculate("kv_cache_bytes", **args, seq_len=2 * seq, batch=batch).value == 2 * total
    assert calculate("kv_cache_bytes", **args, seq_len=seq, batch=3 * batch).value == 3 * total
    assert total == calculate("kv_cache_bytes_per_token", **args).value * seq * batch


@settings(max_examples=100)
@given(h=heads, data=st.data(), layers=sizes, d_head=sizes)
def test_savings_is_the_ratio_of_the_two_caches(
    h: int, data: st.DataObject, layers: int, d_head: int
) -> None:
    kv = data.draw(st.sampled_from([g for g in (1, 2, 4, 8, 16, 32, 64) if h % g == 0]))
    args = {"n_layers": layers, "d_head": d_head, "seq_len": 16, "batch": 2, "bytes_per_element": 2}
    full = calculate("kv_cache_bytes", **args, n_kv_heads=h).value
    small = calculate("kv_cache_bytes", **args, n_kv_heads=kv).value
    assert calculate("kv_cache_savings", n_heads=h, n_kv_heads=kv).value * small == full


@settings(max_examples=100)
@given(h=heads, width=st.integers(1, 64), bias=st.booleans(), layers=st.integers(1, 96))
def test_mha_is_four_d_squared_plus_four_d_with_bias_per_layer(
    h: int, width: int, bias: bool, layers: int
) -> None:
    d = h * width
    value = calculate("attention_parameters", d_model=d, n_heads=h, bias=bias).value
    assert value == 4 * d * d + (4 * d if bias else 0)
    assert (
        calculate("attention_parameters", d_model=d, n_heads=h, bias=bias, n_layers=layers).value
        == value * layers
    )
    for which in ("multi", "single"):
        assert (
            calculate("single_vs_multi_head_parameters", d_model=d, n_heads=h, bias=bias, which=which).value
            == value
        )


@settings(max_examples=100)
@given(h=heads, width=st.integers(1, 32), data=st.data())
def test_gqa_shrinks_only_w_k_and_w_v(h: int, width: int, data: st.DataObject) -> None:
    g = data.draw(st.sampled_from([k for k in (1, 2, 4, 8, 16, 32, 64) if h % k == 0]))
    d = h * width
    value = calculate("attention_parameters", d_model=d, n_heads=h, n_kv_heads=g).value
    assert value == 2 * d * d + 2 * d * (g * width)


@settings(max_examples=100)
@given(b=st.integers(1, 8), h=heads, t=st.integers(1, 4096), nbytes=st.sampled_from([1, 2, 4]))
def test_score_memory_is_quadratic_in_length(b: int, h: int, t: int, nbytes: int) -> None:
    args = {"batch": b, "n_heads": h, "bytes_per_element": nbytes}
    assert (
        calculate("score_matrix_bytes", **args, seq_len=2 * t).value
        == 4 * calculate("score_matrix_bytes", **args, seq_len=t).value
    )


@settings(max_examples=100)
@given(
    layers=st.integers(1, 96),
    kv=st.sampled_from([1, 2, 4, 8]),
    mult=st.sampled_from([1, 2, 4, 8]),
    batch=st.integers(1, 32),
    nbytes=st.sampled_from([1, 2, 4]),
)
def test_every_kv_misconception_differs_from_the_answer_and_points_at_a_step(
    layers: int, kv: int, mult: int, batch: int, nbytes: int
) -> None:
    d = calculate(
        "kv_cache_bytes",
        n_layers=layers,
        n_kv_heads=kv,
        d_head=64,
        seq_len=512,
        batch=batch,
        bytes_per_element=nbytes,
        n_heads=kv * mult,
    )
    labels = {s.label for s in d.steps}
    assert len({m.id for m in d.misconceptions}) == len(d.misconceptions)
    for m in d.misconceptions:
        assert m.step in labels and m.value != d.value


# ---------------------------------------------------------------------------- the value-only run

_SIZES = st.sampled_from([1, 2, 3, 4, 8, 12, 32, 64, 96, 100, 512, 768, 4096]) | st.integers(-1, 5)
_MATRICES = st.lists(st.lists(st.integers(-3, 3), min_size=2, max_size=2), min_size=2, max_size=3)


def _some_args(calc: engine.Calculator, data: st.DataObject) -> dict[str, Any]:
    """Arguments of the right kinds, often valid and sometimes not (a bad size, an unknown choice, q, k
    and v of lengths that do not fit)."""
    args: dict[str, Any] = {}
    for arg in calc.args:
        if not arg.required and data.draw(st.booleans()):
            continue
        if arg.kind == "int":
            args[arg.name] = data.draw(st.integers(0, 2) if calc.name == "attention_entry" else _SIZES)
        elif arg.kind == "bool":
            args[arg.name] = data.draw(st.booleans())
        elif arg.kind == "str":
            args[arg.name] = data.draw(st.sampled_from([*arg.choices, "nope"]))
        elif arg.kind == "matrix":
            args[arg.name] = data.draw(_MATRICES)
    return args


@pytest.mark.parametrize("name", sorted(engine.CALCULATORS))
@settings(max_examples=40)
@given(data=st.data())
def test_the_value_only_run_checks_and_computes_what_the_full_run_does(
    name: str, data: st.DataObject
) -> None:
    """The deck validator runs most seeds with worked=False; it must accept and refuse exactly what the
    full calculation accepts and refuses, with the same value and the same message."""
    args = _some_args(engine.CALCULATORS[name], data)
    try:
        full = calculate(name, **args)
    except ValueError as exc:
        with pytest.raises(ValueError) as quick_error:
            calculate_value(name, **args)
        assert str(quick_error.value) == str(exc)
        return
    quick = calculate_value(name, **args)
    assert (quick.calculator, quick.value, quick.unit) == (full.calculator, full.value, full.unit)
    assert quick.steps == () and quick.misconceptions == () and quick.heatmap is None
    assert full.steps  # the full run still shows its work
