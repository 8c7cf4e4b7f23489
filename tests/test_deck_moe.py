"""The MoE deck as an interviewer reads it: what a prompt assumes holds for every seed, no explanation shows a
raw placeholder, and the case study's last part credits the right claim and not its reverse."""

from __future__ import annotations

from functools import cache

from engine.accelerators import ACCELERATORS
from quizapp.content.catalog import Catalog, load_catalog
from quizapp.grading.explain import read_explanation

DECK = "moe"


@cache
def _catalog() -> Catalog:
    return load_catalog(use_cache=False)


def _step_value(qid: str, seed: int, label: str) -> float:
    derivation = _catalog().instance(qid, seed).derivation
    assert derivation is not None
    (value,) = [s.value for s in derivation.steps if s.label == label]
    assert isinstance(value, (int, float))
    return float(value)


def test_the_hottest_expert_really_can_run_at_the_peak_the_prompt_names() -> None:
    # The question times the hot expert at its dense bf16 peak: that is only true when each bf16 weight read
    # serves enough tokens (FLOPs per byte = hot load) to pass the GPU's ridge point.
    qid = "moe-hot-expert-ms"
    for seed in range(200):
        prompt = _catalog().instance(qid, seed).prompt
        (gpu,) = [a for a in ACCELERATORS.values() if f"one expert per {a.name}," in " ".join(prompt.split())]
        ridge = gpu.bf16_tflops * 1e12 / (gpu.bandwidth_gb_s * 1e9)
        assert _step_value(qid, seed, "Hot load") >= ridge, (seed, gpu.key)


def test_no_moe_explanation_shows_a_raw_placeholder() -> None:
    cat = _catalog()
    for qid in cat.decks[DECK].questions:
        for seed in (0, 3, 7):
            inst = cat.instance(qid.id, seed)
            parts = [inst, *inst.steps, *([inst.follow_up] if inst.follow_up else [])]
            for part in parts:
                assert "{" not in part.explanation, (qid.id, seed, part.explanation)


def test_the_case_study_credits_slow_reads_but_not_a_slow_all_to_all() -> None:
    inst = _catalog().instance("moe-case-serve-400b", 3)
    last = inst.follow_up
    assert last is not None and last.point_specs
    right = read_explanation(
        "Reading the weight shard and the KV cache takes many times longer than the all-to-all. Each GPU "
        "holds one eighth of the experts whatever the layout. On MI300X I keep it on Infinity Fabric.",
        last.point_specs,
        last.rejects,
    )
    assert {1, 2, 4} <= right.covered()  # points 2, 3 and 5, counted from 0
    wrong = read_explanation(
        "The all-to-all takes longer than reading the weights, so the step is communication bound.",
        last.point_specs,
        last.rejects,
    )
    assert 1 not in wrong.covered()  # point 2 is not credited for its reverse
    assert 0 in wrong.contradicted()  # and point 1 is read as contradicted
