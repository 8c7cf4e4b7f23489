"""A wrong answer two causes explain is never pinned on one of them: the feedback says "either X, or Y".
The slips that used to get only "8 times the answer" (total parameters for one GPU's, RoPE decode without
the prompt's positions, ALiBi's 8-head slopes at another head count) are each named."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from grading_cases import answer_text, make_instance

import engine
from quizapp.content.catalog import Catalog, load_catalog
from quizapp.grading import grade

CONTENT = Path(__file__).resolve().parents[1] / "content"


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    return load_catalog([CONTENT], include_default=False, use_cache=False)


def test_bits_as_bytes_and_query_heads_give_the_same_cache_and_both_are_named() -> None:
    """64 query heads over 8 KV heads is 8 times the cache, and so is 8 bits read as 8 bytes of fp8."""
    args: dict[str, Any] = {
        "n_layers": 80,
        "n_kv_heads": 8,
        "d_head": 128,
        "seq_len": 4096,
        "batch": 16,
        "n_heads": 64,
    }
    inst = make_instance("kv_cache_bytes", **args, bytes_per_element=1)
    in_bits = engine.calculate("kv_cache_bytes", **args, bytes_per_element=8).value  # 8 bits as bytes
    v = grade(inst, answer_text(in_bits, inst.base_unit))
    text = (v.diagnosis or "").lower()
    assert not v.correct and text.startswith("either")
    assert "query heads instead of the kv heads" in text and "bits where bytes were needed" in text
    # with as many KV heads as query heads nothing else gives 8 times: bits-as-bytes alone is named
    mha = make_instance("kv_cache_bytes", **{**args, "n_kv_heads": 64}, bytes_per_element=1)
    in_bits = engine.calculate("kv_cache_bytes", **{**args, "n_kv_heads": 64}, bytes_per_element=8).value
    alone = grade(mha, answer_text(in_bits, mha.base_unit))
    assert alone.diagnosis_id == "slip-bits-as-bytes" and "either" not in (alone.diagnosis or "").lower()


def test_the_bank_names_bits_as_bytes_beside_query_heads_in_the_70b_cache(catalog: Catalog) -> None:
    inst = catalog.instance("case-studies-70b-tp8-serving", 0).steps[1]
    assert isinstance(inst.expected, int)
    v = grade(inst, f"{inst.expected * 8} B")
    text = v.diagnosis or ""
    assert text.startswith("Either") and "bits where bytes" in text and "query heads" in text
    assert text.count("Either") == 1 and "," in text


def test_halving_for_a_causal_mask_and_a_multiply_add_as_one_flop_are_both_named(catalog: Catalog) -> None:
    args: dict[str, Any] = {"seq_len": 2048, "d_model": 4096, "n_heads": 32, "batch": 4, "part": "scores"}
    inst = make_instance("attention_flops", **args)
    full = engine.calculate("attention_flops", **args).value
    assert isinstance(full, int)
    v = grade(inst, answer_text(full // 2, inst.base_unit))  # half of T x T: the causal triangle, or MACs
    text = (v.diagnosis or "").lower()
    assert text.startswith("either") and "multiply-add as one flop" in text and "causal mask" in text
    for seed in range(5):  # the bank's unmasked scores question, whatever its draw
        real = catalog.instance("cost-flops-scores", seed)
        assert isinstance(real.expected, int)
        said = grade(real, f"{real.expected // 2} FLOPs").diagnosis or ""
        assert "causal mask" in said and "multiply-add" in said, (seed, said)


def test_a_misconception_alone_is_still_named_alone() -> None:
    """Ties add a cause only when one gives the same number: a plain mistake keeps its own words."""
    args: dict[str, Any] = {"seq_len": 2048, "d_model": 4096, "n_heads": 32, "batch": 4, "part": "total"}
    inst = make_instance("attention_flops", **args)
    v = grade(inst, answer_text(engine.calculate("attention_flops", **{**args, "batch": 1}).value, "FLOPs"))
    assert v.diagnosis_id == "forgot-batch" and v.diagnosis == "You left out the batch"


def test_total_attention_parameters_given_for_one_gpu_are_named(catalog: Catalog) -> None:
    shape: dict[str, Any] = {"d_model": 8192, "n_heads": 64, "n_kv_heads": 8, "n_layers": 80}
    inst = make_instance("tp_attention_params_per_gpu", **shape, tp=8)
    total = engine.calculate("attention_parameters", **shape).value  # the whole model's attention
    v = grade(inst, answer_text(total, inst.base_unit))
    assert v.diagnosis_id == "total-not-per-gpu" and "not one GPU's" in (v.diagnosis or "")
    for seed in range(6):
        real = catalog.instance("tensor-parallel-params-per-gpu", seed)
        assert real.derivation is not None
        wrong = real.derivation.misconception("total-not-per-gpu").value
        assert grade(real, answer_text(wrong, real.base_unit)).diagnosis_id == "total-not-per-gpu"


def test_a_rope_decode_angle_without_the_prompt_offset_is_named(catalog: Catalog) -> None:
    inst = make_instance("rope_decode_angle", cached_tokens=45, pair=3, d_head=64, generated=5)
    from_generated = engine.calculate("rope_angle", position=5, pair=3, d_head=64).value  # prompt left out
    v = grade(inst, answer_text(from_generated, inst.base_unit))
    assert v.diagnosis_id == "forgot-prompt-offset" and "prompt" in (v.diagnosis or "")
    for seed in range(8):
        real = catalog.instance("positional-rope-decode-offset", seed)
        assert real.derivation is not None
        wrong = real.derivation.misconception("forgot-prompt-offset").value
        assert grade(real, answer_text(wrong, real.base_unit)).diagnosis_id == "forgot-prompt-offset"


@pytest.mark.parametrize(("n_heads", "head"), [(16, 3), (32, 5), (64, 2), (4, 1)])
def test_alibi_slopes_of_an_eight_head_model_used_at_another_head_count_are_named(
    n_heads: int, head: int
) -> None:
    inst = make_instance("alibi_slope", n_heads=n_heads, head=head)
    eight = engine.calculate("alibi_slope", n_heads=8, head=head).value  # 2^-k
    v = grade(inst, answer_text(eight, inst.base_unit))
    assert not v.correct and v.diagnosis_id == "eight-head-slopes"
    bias = make_instance("alibi_bias", n_heads=n_heads, head=head, distance=40)
    wrong = engine.calculate("alibi_bias", n_heads=8, head=head, distance=40).value
    assert grade(bias, answer_text(wrong, bias.base_unit)).diagnosis_id == "eight-head-slopes"
