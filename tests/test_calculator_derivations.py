"""Every calculator shows each step and names the wrong formulas people use, each evaluated on the same
arguments and equal to the engine run with that one mistake; bad arguments are refused by name."""

from __future__ import annotations

import importlib
import math
import pkgutil
import random
from typing import Any

import numpy as np
import pytest

import engine
from engine import CALCULATORS, calculate

GiB = 2**30

# ---------------------------------------------------------------------------- arguments are checked

BAD: list[tuple[str, dict[str, Any], list[str]]] = [
    ("head_dim", {"d_model": 100, "n_heads": 8}, ["d_model=100", "n_heads=8"]),
    ("head_dim", {"d_model": -64, "n_heads": 8}, ["d_model=-64"]),
    ("head_dim", {"d_model": 64}, ["n_heads"]),
    ("head_dim", {"d_model": 64, "n_heads": 8, "bogus": 1}, ["bogus"]),
    ("head_dim", {"d_model": 64.5, "n_heads": 8}, ["d_model", "64.5"]),
    ("head_dim", {"d_model": True, "n_heads": 8}, ["d_model", "True"]),
    ("attention_parameters", {"d_model": 64, "n_heads": 8, "n_kv_heads": 3}, ["n_heads=8", "n_kv_heads=3"]),
    ("attention_parameters", {"d_model": 64, "n_heads": 8, "n_layers": 0}, ["n_layers=0"]),
    ("attention_parameters", {"d_model": 64, "n_heads": 8, "bias": "yes"}, ["bias", "yes"]),
    ("single_vs_multi_head_parameters", {"d_model": 30, "n_heads": 4}, ["d_model=30", "n_heads=4"]),
    ("single_vs_multi_head_parameters", {"d_model": 32, "n_heads": 4, "which": "both"}, ["which", "both"]),
    (
        "kv_cache_bytes",
        {"n_layers": 2, "n_kv_heads": 1, "d_head": 8, "seq_len": -1, "batch": 1, "bytes_per_element": 2},
        ["seq_len=-1"],
    ),
    (
        "kv_cache_bytes",
        {
            "n_layers": 2,
            "n_kv_heads": 3,
            "d_head": 8,
            "seq_len": 4,
            "batch": 1,
            "bytes_per_element": 2,
            "n_heads": 8,
        },
        ["n_heads=8", "n_kv_heads=3"],
    ),
    (
        "kv_cache_bytes_per_token",
        {"n_layers": 2, "n_kv_heads": 1, "d_head": 0, "bytes_per_element": 2},
        ["d_head=0"],
    ),
    ("kv_cache_savings", {"n_heads": 8, "n_kv_heads": 3}, ["n_heads=8", "n_kv_heads=3"]),
    ("kv_cache_savings", {"n_heads": 8, "n_kv_heads": 0}, ["n_kv_heads=0"]),
    ("attention_flops", {"seq_len": 16, "d_model": 30, "n_heads": 4}, ["d_model=30", "n_heads=4"]),
    ("attention_flops", {"seq_len": 16, "d_model": 32, "n_heads": 4, "batch": 0}, ["batch=0"]),
    ("attention_flops", {"seq_len": 16, "d_model": 32, "n_heads": 4, "part": "softmax"}, ["part", "softmax"]),
    (
        "score_matrix_bytes",
        {"batch": 1, "n_heads": 4, "seq_len": 16, "bytes_per_element": 2, "kv_len": -3},
        ["kv_len=-3"],
    ),
    (
        "attention_shape",
        {"batch": 1, "seq_len": 4, "d_model": 8, "n_heads": 2, "stage": "nope"},
        ["stage", "nope"],
    ),
    (
        "attention_shape",
        {"batch": 1, "seq_len": 4, "d_model": 9, "n_heads": 2, "stage": "q"},
        ["d_model=9", "n_heads=2"],
    ),
    (
        "attention_shape",
        {"batch": 1, "seq_len": 4, "d_model": 8, "n_heads": 4, "stage": "k_heads", "n_kv_heads": 3},
        ["n_heads=4", "n_kv_heads=3"],
    ),
    ("attention_entry", {"q": [[1, 0]], "k": [[1, 0, 0]], "v": [[1]], "row": 0}, ["(1, 2)", "(1, 3)"]),
    ("attention_entry", {"q": [[1, 0]], "k": [[1, 0]], "v": [[1]], "row": 1}, ["row=1", "(1, 1)"]),
    (
        "attention_entry",
        {"q": [[1, 0]], "k": [[1, 0]], "v": [[1, 2]], "row": 0, "col": 2, "which": "output"},
        ["col=2", "(1, 2)"],
    ),
    (
        "attention_entry",
        {"q": [[1, 0]], "k": [[1, 0]], "v": [[1]], "row": 0, "tokens": ["a", "b"]},
        ["2 labels", "T=1"],
    ),
    ("attention_entry", {"q": [[1, float("nan")]], "k": [[1, 0]], "v": [[1]], "row": 0}, ["q", "finite"]),
    ("toy_heads", {"ask": "induction_target", "draw": 1, "length": 9, "query": 3}, ["query=3", "9 to 17"]),
    ("toy_heads", {"ask": "induction_score", "draw": 1, "length": 40}, ["length=40"]),
    ("toy_head_panels", {"ask": "induction_head", "draw": -1, "length": 5}, ["draw=-1"]),
]


@pytest.mark.parametrize(("name", "args", "words"), BAD, ids=[f"{n}-{i}" for i, (n, _, _) in enumerate(BAD)])
def test_bad_configurations_raise_value_errors_naming_the_values(
    name: str, args: dict[str, Any], words: list[str]
) -> None:
    with pytest.raises(ValueError) as exc:
        calculate(name, **args)
    for w in words:
        assert w in str(exc.value)


def test_an_unknown_calculator_lists_the_known_ones() -> None:
    with pytest.raises(ValueError, match="head_dim"):
        calculate("no_such_calculator")


# ---------------------------------------------------------------------------- every calculator, every branch

X = [[1, 0, 2], [0, 1, -1], [2, -1, 0], [1, 1, 1]]
Y = [[0, 1, 1], [2, 0, -1]]
SAMPLES: list[tuple[str, dict[str, Any]]] = [
    ("head_dim", {"d_model": 512, "n_heads": 8}),
    ("attention_parameters", {"d_model": 512, "n_heads": 8, "n_kv_heads": 2, "bias": True, "n_layers": 3}),
    ("attention_parameters", {"d_model": 768, "n_heads": 12, "output_projection": False}),
    (
        "kv_cache_bytes",
        {
            "n_layers": 4,
            "n_kv_heads": 2,
            "d_head": 64,
            "seq_len": 128,
            "batch": 3,
            "bytes_per_element": 2,
            "n_heads": 8,
        },
    ),
    (
        "kv_cache_bytes",
        {"n_layers": 4, "n_kv_heads": 8, "d_head": 64, "seq_len": 128, "batch": 1, "bytes_per_element": 4},
    ),
    (
        "kv_cache_bytes_per_token",
        {"n_layers": 32, "n_kv_heads": 8, "d_head": 128, "bytes_per_element": 2, "n_heads": 32},
    ),
    ("kv_cache_savings", {"n_heads": 32, "n_kv_heads": 8}),
    ("score_matrix_bytes", {"batch": 2, "n_heads": 8, "seq_len": 128, "bytes_per_element": 2}),
    ("score_matrix_bytes", {"batch": 1, "n_heads": 8, "seq_len": 128, "bytes_per_element": 4, "kv_len": 300}),
]
SAMPLES += [
    ("single_vs_multi_head_parameters", {"d_model": 512, "n_heads": 8, "bias": b, "which": w})
    for b in (False, True)
    for w in ("multi", "single", "per_head")
]
SAMPLES += [
    ("attention_flops", {"seq_len": 128, "d_model": 512, "n_heads": 8, "batch": 2, "part": p, **kv})
    for kv in ({}, {"kv_len": 77})
    for p in ("total", "projections", "scores", "weighted_sum", "output")
]
SAMPLES += [
    (
        "attention_shape",
        {"batch": 2, "seq_len": 16, "d_model": 64, "n_heads": 8, "stage": s, "n_kv_heads": 2, "kv_len": 20},
    )
    for s in engine.calculators.shapes.STAGES
]
SAMPLES += [
    ("attention_entry", {"q": X, "k": X, "v": X, "row": 2, "col": 1, "which": w, "causal": c})
    for w in ("score", "weight", "output")
    for c in (False, True)
]
SAMPLES += [
    ("attention_entry", {"q": X, "k": Y, "v": Y, "row": 3, "col": 1, "which": w, "tokens": "a b c d x y"})
    for w in ("weight", "output")
]

SAMPLES += [  # positions and long context
    ("rope_angle", {"position": 100, "pair": 3, "d_head": 64}),
    ("rope_wavelength", {"pair": 5, "d_head": 128, "base": 500000.0}),
    ("rope_rotate", {"x0": 2.0, "x1": -1.0, "position": 7, "pair": 1, "d_head": 8, "component": "first"}),
    ("rope_rotate", {"x0": 2.0, "x1": -1.0, "position": 7, "pair": 1, "d_head": 8, "component": "second"}),
    ("rope_score", {"q": [[1, 2, -1, 3]], "k": [[2, -1, 1, 1]], "query_position": 12, "key_position": 9}),
    ("rope_decode_angle", {"cached_tokens": 37, "pair": 2, "d_head": 16, "base": 100.0}),
    (
        "rope_interpolated_angle",
        {"position": 6000, "train_len": 4096, "target_len": 8192, "pair": 1, "d_head": 64},
    ),
    ("alibi_slope", {"n_heads": 8, "head": 3}),
    ("alibi_bias", {"n_heads": 16, "head": 5, "distance": 40}),
    ("sliding_window_reach", {"n_layers": 32, "window": 4096}),
    ("rolling_cache_tokens", {"window": 1024, "tokens": 5000, "sink_tokens": 4}),
    ("rolling_cache_tokens", {"window": 1024, "tokens": 600}),
    (
        "rolling_cache_bytes",
        {
            "n_layers": 32,
            "n_kv_heads": 8,
            "d_head": 128,
            "bytes_per_element": 2,
            "window": 4096,
            "tokens": 9000,
        },
    ),
    ("sparse_attention_pairs", {"seq_len": 4096, "window": 128, "stride": 64}),
    ("sparse_attention_savings", {"seq_len": 4096, "window": 128, "stride": 64}),
    ("mixing_flops", {"seq_len": 4096, "d_head": 128, "n_heads": 32, "kind": "softmax"}),
    ("mixing_flops", {"seq_len": 4096, "d_head": 128, "n_heads": 32, "kind": "linear"}),
    ("linear_attention_crossover", {"d_head": 128, "n_heads": 32}),
]


_V2_MLA = {
    "n_layers": 60,
    "kv_lora_rank": 512,
    "rope_dim": 64,
    "bytes_per_element": 2,
    "n_heads": 128,
    "d_head": 128,
}
_TP = {"n_layers": 80, "n_heads": 64, "d_head": 128, "seq_len": 4096, "batch": 8, "bytes_per_element": 2}
_MLA_SHAPE = {
    "batch": 2,
    "seq_len": 1,
    "kv_len": 4096,
    "n_heads": 128,
    "kv_lora_rank": 512,
    "rope_dim": 64,
    "d_nope": 128,
}
SAMPLES += [
    ("mla_cache_bytes_per_token", _V2_MLA),
    ("mla_cache_bytes", {**_V2_MLA, "seq_len": 4096, "batch": 8}),
    ("mla_cache_ratio", {"n_kv_heads": 128, "d_head": 128, "kv_lora_rank": 512, "rope_dim": 64}),
    ("mla_equivalent_gqa_groups", {"d_head": 128, "kv_lora_rank": 512, "rope_dim": 64}),
    *[
        ("mla_shape", {**_MLA_SHAPE, "stage": st})
        for st in ("latent_cache", "rope_key_cache", "absorbed_query", "w_uk", "absorbed_context")
    ],
    *[
        ("tp_heads_per_gpu", {"n_heads": 64, "n_kv_heads": 8, "tp": tp, "which": w})
        for tp in (4, 16)
        for w in ("query", "kv", "kv_replicas")
    ],
    *[
        ("tp_kv_cache_bytes", {**_TP, "n_kv_heads": 8, "tp": tp, "scope": sc})
        for tp in (4, 16)
        for sc in ("per_gpu", "all_gpus")
    ],
    (
        "tp_attention_params_per_gpu",
        {"d_model": 8192, "n_heads": 64, "n_kv_heads": 8, "tp": 16, "n_layers": 80},
    ),
    *[
        (
            "tp_allreduce_bytes",
            {
                "batch": 8,
                "seq_len": 2048,
                "d_model": 8192,
                "bytes_per_element": 2,
                "tp": 8,
                "n_layers": 80,
                "scope": sc,
            },
        )
        for sc in ("message", "ring_per_gpu", "forward")
    ],
]


def _area_samples() -> list[tuple[str, dict[str, Any]]]:
    """Samples kept beside each newer calculator area: a module in tests/cases/ may define SAMPLES; a
    calculator with none gets three draws of its area's argument generator."""
    import cases
    from grading_cases import area_arg_makers

    found: list[tuple[str, dict[str, Any]]] = []
    for info in pkgutil.iter_modules(cases.__path__):
        found += getattr(importlib.import_module(f"cases.{info.name}"), "SAMPLES", [])
    covered = {name for name, _ in SAMPLES + found}
    for name, make in sorted(area_arg_makers().items()):
        if name not in covered:
            rng = random.Random(f"samples-{name}")
            found += [(name, {k: v for k, v in make(rng).items() if v is not None}) for _ in range(3)]
    return found


SAMPLES += _area_samples()


def test_the_samples_cover_every_calculator() -> None:
    assert {name for name, _ in SAMPLES} == set(CALCULATORS)


@pytest.mark.parametrize(("name", "args"), SAMPLES, ids=[f"{n}-{i}" for i, (n, _) in enumerate(SAMPLES)])
def test_every_step_is_rendered_and_every_misconception_is_a_wrong_number_at_a_real_step(
    name: str, args: dict[str, Any]
) -> None:
    d = calculate(name, **args)
    calc = CALCULATORS[name]
    assert d.calculator == name and d.unit == calc.unit
    text = d.to_text()
    for step in d.steps:
        assert step.label in text and step.formula in text and step.substituted in text
    assert text.splitlines()[-1 - len(d.notes)].startswith("Result: ")
    assert d.misconceptions, f"{name} recognised no mistake for {args}"
    labels = {s.label for s in d.steps}
    for m in d.misconceptions:
        assert m.id in calc.misconception_ids
        assert m.step in labels, (m.id, m.step)
        assert m.value != d.value, (m.id, m.value)  # equal ones may coexist: grading names them all
        assert d.misconception(m.id) is m


# ------------------------------------------------------------------ each wrong formula is the one it names

KV = {"n_layers": 80, "n_kv_heads": 8, "d_head": 128, "seq_len": 4096, "batch": 8, "bytes_per_element": 2}


def test_kv_cache_misconceptions_are_the_formula_with_one_factor_wrong() -> None:
    d = calculate("kv_cache_bytes", **KV, n_heads=64)
    wrong = {m.id: m.value for m in d.misconceptions}
    assert wrong["no-x2-kv"] * 2 == d.value
    assert wrong["used-n-heads"] == calculate("kv_cache_bytes", **{**KV, "n_kv_heads": 64}).value
    assert wrong["forgot-layers"] == calculate("kv_cache_bytes", **{**KV, "n_layers": 1}).value
    assert wrong["forgot-batch"] == calculate("kv_cache_bytes", **{**KV, "batch": 1}).value
    assert wrong["forgot-seq-len"] == calculate("kv_cache_bytes", **{**KV, "seq_len": 1}).value
    assert wrong["fp32-for-fp16"] == calculate("kv_cache_bytes", **{**KV, "bytes_per_element": 4}).value
    assert wrong["gib-as-gb"] == pytest.approx(d.value / GiB * 1e9)
    assert wrong["gb-as-gib"] == pytest.approx(d.value / 1e9 * GiB)
    assert d.misconception("no-x2-kv").label == "You left out the x2 for K and V"


def test_kv_cache_mistakes_that_cannot_happen_are_left_out() -> None:
    plain = calculate("kv_cache_bytes", **{**KV, "batch": 1, "bytes_per_element": 4})
    ids = {m.id for m in plain.misconceptions}
    assert not ids & {"used-n-heads", "forgot-batch", "fp32-for-fp16"}
    mha = calculate(
        "kv_cache_bytes_per_token", n_layers=32, n_kv_heads=32, d_head=128, bytes_per_element=2, n_heads=32
    )
    assert "used-n-heads" not in {m.id for m in mha.misconceptions}


def test_attention_parameter_misconceptions_are_the_count_with_one_choice_flipped() -> None:
    args = {"d_model": 8192, "n_heads": 64, "n_kv_heads": 8, "n_layers": 80}
    d = calculate("attention_parameters", **args)
    wrong = {m.id: m.value for m in d.misconceptions}
    assert wrong["forgot-wo"] == calculate("attention_parameters", **args, output_projection=False).value
    assert wrong["added-biases"] == calculate("attention_parameters", **args, bias=True).value
    assert wrong["kv-used-n-heads"] == calculate("attention_parameters", **{**args, "n_kv_heads": 64}).value
    assert wrong["forgot-layers"] == calculate("attention_parameters", **{**args, "n_layers": 1}).value
    assert wrong["divided-by-h"] == d.value // 64
    one_head = calculate("single_vs_multi_head_parameters", d_model=8192, n_heads=64, which="per_head").value
    assert wrong["one-head-only"] == one_head * 80
    with_bias = calculate("attention_parameters", d_model=768, n_heads=12, bias=True)
    assert (
        with_bias.misconception("forgot-biases").value
        == calculate("attention_parameters", d_model=768, n_heads=12).value
    )
    mha = calculate("attention_parameters", d_model=512, n_heads=8)
    assert mha.misconception("qkv-one-matrix").value * 2 == mha.value
    assert "kv-used-n-heads" not in {m.id for m in mha.misconceptions}


def test_one_wide_head_costs_what_h_heads_cost_and_h_times_is_named() -> None:
    multi = calculate("single_vs_multi_head_parameters", d_model=512, n_heads=8)
    single = calculate("single_vs_multi_head_parameters", d_model=512, n_heads=8, which="single")
    assert multi.value == single.value == calculate("attention_parameters", d_model=512, n_heads=8).value
    assert multi.misconception("h-times").value == 8 * multi.value
    no_wo = calculate("attention_parameters", d_model=512, n_heads=8, output_projection=False).value
    assert multi.misconception("forgot-wo").value == no_wo


def test_head_dim_misconceptions_multiply_or_skip_the_split() -> None:
    d = calculate("head_dim", d_model=4096, n_heads=32)
    assert d.misconception("multiplied").value == 4096 * 32
    assert d.misconception("no-split").value == 4096


def test_flops_misconceptions_halve_drop_the_batch_or_drop_av() -> None:
    args = {"seq_len": 1024, "d_model": 768, "n_heads": 12, "batch": 4}
    d = calculate("attention_flops", **args)
    assert d.value == sum(
        calculate("attention_flops", **args, part=p).value
        for p in ("projections", "scores", "weighted_sum", "output")
    )
    assert d.misconception("mac-as-one").value * 2 == d.value
    assert d.misconception("forgot-batch").value == calculate("attention_flops", **{**args, "batch": 1}).value
    assert (
        d.misconception("forgot-av").value
        == d.value - calculate("attention_flops", **args, part="weighted_sum").value
    )
    wide = calculate("attention_flops", **{**args, "d_model": 768 * 12, "n_heads": 12}, part="scores").value
    assert calculate("attention_flops", **args, part="scores").misconception("d-model-per-head").value == wide


def test_score_memory_misconceptions_drop_heads_batch_or_a_length() -> None:
    args = {"batch": 4, "n_heads": 12, "seq_len": 2048, "bytes_per_element": 2}
    d = calculate("score_matrix_bytes", **args)
    assert (
        d.misconception("forgot-heads").value
        == calculate("score_matrix_bytes", **{**args, "n_heads": 1}).value
    )
    assert (
        d.misconception("forgot-batch").value == calculate("score_matrix_bytes", **{**args, "batch": 1}).value
    )
    assert d.misconception("linear-in-t").value == calculate("score_matrix_bytes", **args, kv_len=1).value
    assert (
        d.misconception("forgot-bytes").value
        == calculate("score_matrix_bytes", **{**args, "bytes_per_element": 1}).value
    )


def test_savings_misconceptions_invert_or_subtract_and_vanish_for_mha() -> None:
    d = calculate("kv_cache_savings", n_heads=64, n_kv_heads=8)
    assert d.misconception("inverted").value == 1 / d.value
    assert d.misconception("difference").value == 64 - 8
    assert "inverted" not in {
        m.id for m in calculate("kv_cache_savings", n_heads=8, n_kv_heads=8).misconceptions
    }


def test_shape_misconceptions_are_the_classic_wrong_layouts() -> None:
    args = {"batch": 2, "seq_len": 10, "d_model": 64, "n_heads": 8}
    d = calculate("attention_shape", **args, stage="q_heads")
    assert d.value == (2, 8, 10, 8)
    assert d.misconception("no-head-split").value == calculate("attention_shape", **args, stage="q").value
    assert d.misconception("heads-before-transpose").value == (2, 10, 8, 8)
    assert d.misconception("d-model-per-head").value == (2, 8, 10, 64)
    torch = calculate("attention_shape", **args, stage="w_qkv").misconception("torch-layout").value
    assert torch == calculate("attention_shape", **args, stage="w_qkv").value[::-1]


def test_entry_misconceptions_are_the_engine_run_with_one_step_skipped() -> None:
    q, k, v = np.array(X, float), np.array(X, float), np.array(X, float)
    base = {"q": q, "k": k, "v": v, "row": 2, "col": 1}
    w = calculate("attention_entry", **base, which="weight", causal=True)
    scaled = calculate("attention_entry", **base, which="score")
    assert w.misconception("no-scaling").value == pytest.approx(
        calculate("attention_entry", **{**base, "q": q * math.sqrt(3)}, causal=True).value
    )
    assert w.misconception("no-causal-mask").value == pytest.approx(
        calculate("attention_entry", **base).value
    )
    assert w.misconception("forgot-softmax").value == pytest.approx(scaled.value)
    assert w.misconception("raw-score").value == pytest.approx(scaled.value * math.sqrt(3))
    down = calculate("attention_entry", q=k, k=q, v=v, row=1, col=2)  # column softmax = row softmax of K Q^T
    assert calculate("attention_entry", **base).misconception("softmax-over-queries").value == pytest.approx(
        down.value
    )
    mean = calculate(
        "attention_entry", **{**base, "q": np.zeros_like(q)}, which="output"
    ).value  # flat scores
    assert calculate("attention_entry", **base, which="output").misconception(
        "unweighted-mean"
    ).value == pytest.approx(mean)


def test_mla_with_the_kv_caches_x2_is_named_apart_from_a_doubled_latent() -> None:
    d = calculate(
        "mla_cache_bytes_per_token", n_layers=60, kv_lora_rank=512, rope_dim=64, bytes_per_element=2
    )
    wrong = {m.id: m.value for m in d.misconceptions}
    assert wrong["kv-x2-on-mla"] == 2 * d.value  # K and V each given the whole latent and RoPE key
    assert wrong["x2-on-latent"] == (2 * 512 + 64) * 2 * 60  # the latent alone doubled


@pytest.mark.parametrize(
    ("recompute", "taken_for", "wrong_id"),
    [
        ("full", "selective", "selective-for-full"),
        ("selective", "full", "full-for-selective"),
        ("none", "selective", "core-dropped-without-recompute"),
    ],
)
def test_recomputation_taken_at_the_wrong_level_is_named(
    recompute: str, taken_for: str, wrong_id: str
) -> None:
    sizes = {"batch": 2, "seq_len": 4096, "d_model": 4096, "n_heads": 32, "n_layers": 32}
    d = calculate("layer_activation_bytes", **sizes, recompute=recompute)
    wrong = {m.id: m.value for m in d.misconceptions}
    assert wrong[wrong_id] == calculate("layer_activation_bytes", **sizes, recompute=taken_for).value
