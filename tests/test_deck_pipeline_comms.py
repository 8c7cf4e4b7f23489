"""The pipeline-comms deck as an interviewer reads it: a real model it shards really splits over the GPUs
named, and a right answer in a learner's own words is credited while its reverse is not."""

from __future__ import annotations

from functools import cache

from engine.models import MODELS
from quizapp.content.catalog import Catalog, load_catalog
from quizapp.grading.explain import read_explanation


@cache
def _catalog() -> Catalog:
    return load_catalog(use_cache=False)


def test_every_model_the_tp_volume_question_shards_splits_its_heads_over_the_gpus_it_names() -> None:
    # Megatron's tensor parallelism gives each GPU whole heads: a model whose head count the TP degree does
    # not divide (GPT-2 XL, 25 heads, over 8 GPUs) cannot be run the way the prompt says.
    qid = "pipeline-comms-tp-volume-per-token"
    seen = set()
    for seed in range(200):
        prompt = " ".join(_catalog().instance(qid, seed).prompt.split())
        (model,) = [m for m in MODELS.values() if prompt.startswith(f"{m.name} runs ")]
        (tp,) = [t for t in (2, 4, 8, 16) if f"over {t} GPUs" in prompt]
        assert model.n_heads % tp == 0, (seed, model.key, model.n_heads, tp)
        seen.add(model.key)
    assert len(seen) >= 4


def _first_point(qid: str, answer: str) -> str:
    """How the question's first key point is read in the answer: covered, missing or contradicted."""
    inst = _catalog().instance(qid, 0)
    return read_explanation(answer, inst.point_specs, inst.rejects).points[0].status


def test_the_micro_batch_answer_credits_a_bigger_m_for_a_smaller_bubble_and_not_its_reverse() -> None:
    qid = "pipeline-comms-explain-microbatches"
    assert _first_point(qid, "Since m grows the denominator, a bigger m gives a smaller bubble.") == "covered"
    assert _first_point(qid, "The bubble shrinks as m grows.") == "covered"
    assert _first_point(qid, "Larger micro-batches give a smaller bubble and a bigger m a bigger one.") == (
        "contradicted"
    )
