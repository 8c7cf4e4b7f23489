"""GPU memory as the device reports it, and data parallelism that does not shard a micro-batch's activations:
the case studies' numbers are physically right at every seed."""

from __future__ import annotations

import re

import pytest

from engine import ACCELERATORS
from quizapp.content.catalog import Catalog, load_catalog
from quizapp.content.instance import Instance
from quizapp.grading.scenario import grade_scenario

SERVING = "case-studies-70b-tp8-serving"
KIVI = "case-studies-int4-kv-kivi"
RECOMPUTE = "case-studies-training-memory-recompute"
GIB = 2**30


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    return load_catalog()


def _reported(inst: Instance) -> tuple[int, float]:
    """(MiB the prompt says the GPU reports, the preset's GiB) for the GPU the seed drew."""
    mib = int(re.search(r"reports ([\d,]+) MiB", inst.prompt).group(1).replace(",", ""))  # type: ignore[union-attr]
    (gpu,) = [g for g in ACCELERATORS.values() if g.memory_mib == mib]
    return mib, gpu.memory_gib


def _value(step: Instance) -> float:
    assert isinstance(step.expected, (int, float))
    return float(step.expected)


@pytest.mark.parametrize("qid", [SERVING, KIVI])
def test_free_memory_starts_from_the_gib_the_gpu_reports_at_every_seed(catalog: Catalog, qid: str) -> None:
    for seed in range(30):
        inst = catalog.instance(qid, seed)
        mib, _ = _reported(inst)
        reserve = int(re.search(r"(\d+) GiB (per GPU held back|for activations)", inst.prompt).group(1))  # type: ignore[union-attr]
        names = inst.step_names
        weights, free = inst.steps[names.index("weights")], inst.steps[names.index("free")]
        assert _value(free) == pytest.approx(mib * 2**20 - reserve * GIB - _value(weights)), (qid, seed)


def test_the_decimal_gb_reading_at_seed_1_is_now_marked_wrong_and_named(catalog: Catalog) -> None:
    inst = catalog.instance(SERVING, 1)
    weights, kv, free = inst.steps[:3]
    mib, gib = _reported(inst)
    assert mib == 81920 and "A100" in inst.prompt  # 80 GiB exactly: 85.9e9 bytes, not 80e9
    old = gib * 1e9 - 10 * 1e9 - _value(weights)  # what the bank used to expect (decimal GB)
    verdict = grade_scenario(inst, [f"{_value(weights)} B", f"{_value(kv)} B", f"{old} B"])
    step = verdict.steps[2].verdict
    assert not step.correct and step.diagnosis_id == "gb-as-gib"
    assert free.derivation is not None
    assert "81,559 MiB" in free.derivation.misconception("gb-as-gib").explanation
    right = grade_scenario(inst, [f"{_value(s)} B" for s in (weights, kv, free)])
    assert [s.verdict.correct for s in right.steps[:3]] == [True, True, True]


def test_training_gpus_hold_sharded_states_beside_a_whole_micro_batch_at_every_seed(catalog: Catalog) -> None:
    exceeded = 0
    for seed in range(60):
        inst = catalog.instance(RECOMPUTE, seed)
        _, gib = _reported(inst)
        memory = gib * GIB
        by = dict(zip(inst.step_names, inst.steps, strict=True))
        states, act_full, gpus = _value(by["states"]), _value(by["act_full"]), int(_value(by["gpus_full"]))
        assert act_full < memory, seed  # one micro-batch fits with full recomputation
        assert states / gpus + act_full <= memory < states / max(gpus - 1, 1e-9) + act_full, seed
        act_none, per_gpu = _value(by["act_none"]), by["per_gpu_none"]
        assert _value(per_gpu) == pytest.approx(states / gpus + act_none), seed
        assert per_gpu.derivation is not None
        (note,) = per_gpu.derivation.notes
        if act_none >= memory:  # no data-parallel degree fits this micro-batch: the feedback says why
            exceeded += 1
            assert "cannot help" in note and "context parallelism" in note, (seed, note)
    assert exceeded > 30, "most draws show one micro-batch's activations outgrowing a GPU"


def test_splitting_activations_over_data_parallel_gpus_is_named(catalog: Catalog) -> None:
    inst = catalog.instance(RECOMPUTE, 3)
    step = inst.steps[inst.step_names.index("per_gpu_none")]
    assert step.derivation is not None
    wrong = step.derivation.misconception("sharded-activations")
    assert "own micro-batch" in wrong.explanation
