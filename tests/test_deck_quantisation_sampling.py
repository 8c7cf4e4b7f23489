"""The quantisation and sampling deck as an interviewer reads it: a prompt gives the parameter count its
answer needs, a crossover batch one off the ceiling is right, and the explain parts credit the right claim
without reading it as its reverse."""

from __future__ import annotations

from functools import cache

from quizapp.content.catalog import Catalog, load_catalog
from quizapp.content.instance import Instance
from quizapp.grading.explain import read_explanation
from quizapp.grading.explain_reading import Reading
from quizapp.grading.grade import grade

SIZED = (
    "quantisation-sampling-int4-weight-gb",
    "quantisation-sampling-int4-batch1-step",
    "quantisation-sampling-int4-large-batch-step",
    "quantisation-sampling-fp8-large-batch-step",
    "quantisation-sampling-two-tiers",
)


@cache
def _catalog() -> Catalog:
    return load_catalog(use_cache=False)


def _read(inst: Instance, text: str) -> Reading:
    return read_explanation(text, inst.point_specs, inst.rejects)


def _last_part(qid: str, seed: int) -> Instance:
    last = _catalog().instance(qid, seed).follow_up
    assert last is not None and last.point_specs
    return last


def test_a_weight_size_prompt_states_the_parameter_count_its_answer_uses() -> None:
    # "Mistral 7B" is 7.24e9 parameters by its config and "7.3B" by its announcement: at 0.5% the answer
    # cannot rest on recall, and a 7e9 guess with the scales lands on the ignored-scales value.
    for qid in SIZED:
        for seed in range(12):
            prompt = " ".join(_catalog().instance(qid, seed).prompt.split())
            assert "billion parameters)" in prompt, (qid, seed, prompt)


def test_a_crossover_batch_one_below_the_ceiling_is_right() -> None:
    # A100 bf16: ridge 153.02 FLOP/B, so the exact ceiling is 154; an interviewer takes the ridge, 153.
    qid = "quantisation-sampling-crossover-batch"
    (seed,) = [
        s for s in range(80) if "A100" in (p := _catalog().instance(qid, s).prompt) and "bf16 weights" in p
    ][:1]
    inst = _catalog().instance(qid, seed)
    assert inst.expected == 154
    assert grade(inst, "153").correct and grade(inst, "155").correct
    assert not grade(inst, "152").correct


def test_the_two_tier_answer_is_not_read_as_fp8_for_the_latency_tier() -> None:
    last = _last_part("quantisation-sampling-two-tiers", 3)
    right = _read(last, "INT4 wins the latency tier and FP8 wins the throughput tier.")
    assert not right.misconceptions and {0, 1} <= right.covered()
    wrong = _read(last, "FP8 is better for the latency tier, and INT4 for the throughput tier.")
    assert {m.id for m in wrong.misconceptions} == {"fp8-for-latency", "int4-for-throughput"}


def test_the_two_tier_answer_catches_awq_on_fast_tensor_cores() -> None:
    last = _last_part("quantisation-sampling-two-tiers", 3)
    wrong = _read(last, "INT4 wins at batch 256 too, because AWQ runs its matmuls on FP8 tensor cores.")
    assert "int4-on-fast-cores" in {m.id for m in wrong.misconceptions}
    right = _read(last, "AWQ computes in bf16 and W8A8 uses the FP8 tensor cores.")
    assert not right.misconceptions and 2 in right.covered()


def test_quantising_the_cache_as_well_is_not_read_as_awq_doing_it() -> None:
    inst = _catalog().instance("quantisation-sampling-explain-kv", 0)
    right = _read(
        inst, "Keep the INT4 weights and also quantise the KV cache to FP8, since the cache dominates."
    )
    assert not right.misconceptions
    wrong = _read(inst, "AWQ also quantises the KV cache.")
    assert [m.id for m in wrong.misconceptions] == ["awq-quantises-cache"]


def test_a_large_batch_named_before_compute_bound_is_credited() -> None:
    inst = _catalog().instance("quantisation-sampling-explain-formats", 0)
    reading = _read(inst, "Once the batch is large, say a few hundred, the GEMMs are compute-bound.")
    assert 1 in reading.covered()


INCOHERENT = "quantisation-sampling-incoherent-after-sampler-change"


def _answers_from(inst: Instance, k: int, value: float) -> list[str]:
    """Steps 1..k+2: true answers before step k, `value` at step k, the next step worked on that value."""
    assert inst.rework is not None
    answers = [f"{s.expected!r} {s.base_unit}".strip() for s in inst.steps[:k]]
    answers.append(f"{value!r} {inst.steps[k].base_unit}".strip())
    worked = inst.rework(k + 1, {inst.step_names[k]: value})
    answers.append(f"{worked.expected!r} {inst.steps[k + 1].base_unit}".strip())
    return answers


def test_a_wrong_nucleus_or_head_count_is_carried_into_the_step_that_uses_it() -> None:
    """A learner who stops before the token crossing p renormalises over their own (smaller) nucleus, and
    one who forgets the batch in the head compares their own head figure with the sorts: both carried."""
    from quizapp.grading.scenario import grade_scenario

    for seed in range(6):
        inst = _catalog().instance(INCOHERENT, seed)
        assert inst.step_uses[3] == ("nucleus",) and inst.step_uses[5] == ("head",)
        for name, trap in (("nucleus", "excluded-crossing-token"), ("head", "forgot-batch")):
            k = inst.step_names.index(name)
            d = inst.steps[k].derivation
            assert d is not None
            answers = _answers_from(inst, k, d.misconception(trap).value)  # type: ignore[arg-type]
            steps = grade_scenario(inst, answers).steps
            assert not steps[k].verdict.correct
            assert steps[k + 1].carried_forward, (seed, name)


def test_the_sampler_diagnosis_credits_the_cause_and_catches_blaming_the_sort() -> None:
    last = _last_part(INCOHERENT, 0)
    right = _read(
        last,
        "The higher temperature flattened the distribution and the wider top-p let tail tokens into the "
        "nucleus. The sort is negligible next to the LM head. Lower the temperature and restore top-p.",
    )
    assert not right.misconceptions and {0, 1, 2, 3} <= right.covered()
    wrong = _read(last, "The sort is the bottleneck, so raise the temperature to fix coherence.")
    assert {m.id for m in wrong.misconceptions} == {"sort-slows-the-step", "raise-temperature-to-fix"}


def test_the_sampler_diagnosis_credits_a_sort_that_costs_the_same_at_any_p() -> None:
    """The decisive answer to the engineer is that the full-vocabulary sort does not depend on p; a
    candidate who says so covers the cost point, and one who says the wider p slowed it is caught."""
    last = _last_part(INCOHERENT, 0)
    for text in (
        "The sort cost does not depend on top-p.",
        "The sampler sorts the full vocabulary at any p.",
        "The nucleus now holds several more tokens, so junk tokens get sampled.",
    ):
        reading = _read(last, text)
        assert not reading.misconceptions, text
    assert 2 in _read(last, "The sort cost does not depend on top-p.").covered()
    assert 2 in _read(last, "The sampler sorts the full vocabulary at any p.").covered()
    grew = "The nucleus now holds several more tokens, so junk tokens get sampled."
    assert 1 in _read(last, grew).covered()
    wrong = _read(last, "The sort got dearer because the wider top-p slowed every step.")
    assert [m.id for m in wrong.misconceptions] == ["sort-slows-the-step"]


def test_the_sampler_case_asks_for_the_probability_before_the_top_p_cut() -> None:
    """The old setting included top-p 0.9, so the first two steps must say they ask before the cut."""
    inst = _catalog().instance(INCOHERENT, 0)
    assert all("before" in s.prompt and "top-p cut" in s.prompt for s in inst.steps[:2])
