"""Rejected forms stay precise: a correct sentence a strong candidate says about a question never names a
misconception (issue 34: telling a right candidate they hold a misconception is the worst thing the grader
can do to trust), while the misconception stated plainly is still caught.

Each correct sentence below was flagged by a form that was too broad (a bare negator, a bare word such as
`approximat*` or `lossless`, a phrase that ran across a comma, or a wide `&`/`..` between common words)."""

from __future__ import annotations

import pytest

from quizapp.content.catalog import Catalog, load_catalog
from quizapp.grading.explain import read_explanation

CORRECT = [
    (
        "flash-attention-explain-why-faster",
        "Unlike approximate methods such as Linformer, FlashAttention computes exact attention.",
    ),
    ("flash-attention-explain-why-faster", "Unlike block-sparse attention, it computes exact attention."),
    (
        "flash-attention-explain-online-softmax",
        "The old sum does not stay valid: it must be rescaled by exp(m_old - m_new).",
    ),
    (
        "flash-attention-explain-online-softmax",
        "The previous accumulator does not know the new max yet, so we rescale it.",
    ),
    ("flash-attention-explain-online-softmax", "Unlike approximate tricks, online softmax is exact."),
    (
        "long-context-explain-sliding-cache",
        "Stacking layers does not keep the reach at W: it grows to L times W.",
    ),
    (
        "long-context-explain-sliding-cache",
        "Stacked layers do not see only W tokens; information relays across layers.",
    ),
    ("long-context-explain-sliding-cache", "Unlike a lossless cache, the relay loses detail at each hop."),
    (
        "what-heads-learn-verify-a-head",
        "A small effect on the loss is not proof that the head is unimportant,"
        " because backup heads can compensate.",
    ),
    ("what-heads-learn-verify-a-head", "A small drop is not evidence the head does nothing."),
    (
        "serving-explain-continuous-batching",
        "Fragmentation is not solved by continuous batching alone; paging fixes it.",
    ),
    (
        "serving-explain-continuous-batching",
        "With paging, fragmentation is not an issue since blocks are small.",
    ),
    ("scaled-dot-product-explain-sqrt", "The softmax is invariant to adding a constant, not to scaling."),
    (
        "scaled-dot-product-explain-sqrt",
        "The softmax sums to one at any scale; the scaling only controls how peaked it is.",
    ),
    (
        "scaled-dot-product-explain-sqrt",
        "Scaling keeps the same argmax but makes the distribution much sharper.",
    ),
    ("scaled-dot-product-explain-stable-softmax", "Unlike approximate tricks, this is exact."),
    (
        "scaled-dot-product-explain-logit-growth",
        "A higher learning rate makes logit growth worse, so lower it or lengthen warm-up.",
    ),
    ("scaled-dot-product-explain-logit-growth", "Larger learning rates make the logits grow faster."),
    (
        "serving-explain-decode",
        "GQA/MQA keep every query head and reduce the key/value heads, so they shrink the cache read.",
    ),
    (
        "serving-explain-slo-sizing",
        "An unchunked long prefill is compute-bound and stalls every decoding sequence.",
    ),
    ("cost-explain-decode-kv", "The weight read is paid once per step, not with batch size."),
    (
        "interview-answers-mqa-memory-32-heads",
        "Only one key head and one value head get stored, query heads aren't cached at all.",
    ),
    (
        "interview-answers-mqa-memory-32-heads",
        "Keys and values are stored; queries are recomputed every step.",
    ),
    ("interview-answers-mqa-memory-32-heads", "MQA caches one K/V head shared by all 32 query heads."),
    (
        "interview-answers-kv-cache-complexity",
        "Caching trades memory for compute: compute saved, memory spent.",
    ),
    (
        "mqa-gqa-explain-kv-redundancy",
        "Sharing keys costs no more expressiveness than sharing queries would.",
    ),
    ("mqa-gqa-explain-tradeoff", "Unlike GQA, MQA is far from lossless."),
    ("parameters-explain-one-wide-head", "One wide head is measurably worse at the same computation."),
    ("parameters-explain-one-wide-head", "At the same compute, multi-head is better."),
    (
        "pipeline-comms-explain-small-allreduce",
        "Upgrading the interconnect does nothing here; the alpha term dominates.",
    ),
    (
        "what-heads-learn-k-composition",
        "Composition can go through the queries (Q-composition), the keys (K-composition)"
        " or the values (V-composition).",
    ),
    (
        "what-heads-learn-honest-answer",
        "Unlike a bigram model that memorises bigrams, the induction head copies from context.",
    ),
    ("interview-answers-role-of-wo", "If W_O were block diagonal, the heads could not mix."),
    (
        "output-projection-explain-sum-of-heads",
        "W_O as a whole is full rank, but each head's OV circuit has rank at most d_k.",
    ),
    (
        "interview-answers-pruning",
        "Heads can be pruned because the trained model is over-parameterised,"
        " but training with fewer heads from the start does worse.",
    ),
    (
        "training-memory-explain-budget",
        "Without master weights it would be 84 GB, but with them it is 112 GB.",
    ),
    (
        "serving-explain-speculative",
        "Unlike quantisation, which trades quality for speed, speculative decoding keeps the output exact.",
    ),
    (
        "cross-attention-explain-decoder-layer",
        "Self-attention in the decoder uses the same causal mask as a decoder-only model,"
        " but cross-attention has none.",
    ),
    ("serving-explain-capacity", "Use the floor: rounding up with ceil would overcommit memory."),
    (
        "tensor-parallel-explain-cost",
        "Data parallel communicates only in backward; tensor parallel communicates in forward too.",
    ),
    (
        "training-memory-explain-attention-activations",
        "Full recomputation frees the activations at the price of one extra forward.",
    ),
]

MISCONCEPTIONS = [
    ("flash-attention-explain-why-faster", "FlashAttention is an approximation.", "flash-approximate"),
    (
        "flash-attention-explain-why-faster",
        "It only computes a sparse subset of the matrix.",
        "flash-approximate",
    ),
    (
        "flash-attention-explain-online-softmax",
        "The old sum and the accumulator don't need touching.",
        "old-terms-need-no-rescaling",
    ),
    (
        "flash-attention-explain-online-softmax",
        "It's a close approximation, good enough in practice.",
        "online-softmax-approximate",
    ),
    (
        "long-context-explain-sliding-cache",
        "Stacking layers doesn't help, because every layer has the same window.",
        "layers-do-not-extend-reach",
    ),
    ("long-context-explain-sliding-cache", "The layer-to-layer relay is lossless.", "relay-is-lossless"),
    (
        "what-heads-learn-verify-a-head",
        "If the loss barely changes, it wasn't important.",
        "small-ablation-effect-proves-unimportant",
    ),
    (
        "serving-explain-continuous-batching",
        "Contiguous max-length reservations do not fragment memory.",
        "fragmentation-not-an-issue",
    ),
    (
        "serving-explain-continuous-batching",
        "Without paging fragmentation is not a problem.",
        "fragmentation-not-an-issue",
    ),
    ("scaled-dot-product-explain-sqrt", "The softmax is scale invariant.", "softmax-scale-invariant"),
    ("scaled-dot-product-explain-sqrt", "It just picks the same argmax.", "softmax-scale-invariant"),
    (
        "scaled-dot-product-explain-sqrt",
        "You divide by sqrt(d_k) so the softmax outputs sum to one.",
        "scaling-makes-softmax-sum-to-one",
    ),
    (
        "scaled-dot-product-explain-stable-softmax",
        "Subtracting the max changes the result slightly.",
        "max-subtraction-changes-result",
    ),
    (
        "scaled-dot-product-explain-stable-softmax",
        "It is an approximation.",
        "max-subtraction-changes-result",
    ),
    ("scaled-dot-product-explain-logit-growth", "Raise the learning rate.", "raise-learning-rate"),
    ("scaled-dot-product-explain-logit-growth", "The fix is a higher learning rate.", "raise-learning-rate"),
    ("serving-explain-decode", "GQA reduces the query heads, not the bytes.", "gqa-cuts-query-heads"),
    ("serving-explain-slo-sizing", "Decode is compute bound.", "tpot-flat-in-batch"),
    ("cost-explain-decode-kv", "The KV cache is shared across the batch.", "kv-cache-shared-across-batch"),
    (
        "interview-answers-mqa-memory-32-heads",
        "The cache stores queries, keys and values.",
        "cache-stores-queries",
    ),
    ("interview-answers-kv-cache-complexity", "KV caching saves memory.", "caching-saves-memory"),
    (
        "mqa-gqa-explain-kv-redundancy",
        "Sharing keys costs nothing in expressiveness.",
        "sharing-q-collapses-patterns",
    ),
    ("mqa-gqa-explain-tradeoff", "MQA is lossless.", "mqa-no-quality-cost"),
    (
        "parameters-explain-one-wide-head",
        "Multi-head computes the same function as one wide head.",
        "mha-same-function",
    ),
    (
        "pipeline-comms-explain-small-allreduce",
        "Upgrade the interconnect so the small all-reduces speed up.",
        "bandwidth-fixes-small",
    ),
    (
        "what-heads-learn-k-composition",
        "The induction head uses V-composition.",
        "induction-via-v-composition",
    ),
    (
        "what-heads-learn-honest-answer",
        "Induction heads store bigrams seen in training.",
        "induction-stores-bigrams",
    ),
    ("interview-answers-role-of-wo", "W_O is block-diagonal, so it does not mix heads.", "wo-block-diagonal"),
    (
        "output-projection-explain-sum-of-heads",
        "Each head's OV circuit is a full-rank d_model x d_model map.",
        "ov-circuit-full-rank",
    ),
    (
        "interview-answers-pruning",
        "Pruning shows you could train with fewer heads from the start.",
        "train-fewer-heads-from-start",
    ),
    (
        "training-memory-explain-budget",
        "No need for fp32 master weights, so the total is 84 GB.",
        "no-master-weights",
    ),
    (
        "serving-explain-speculative",
        "Speculative decoding trades quality for speed.",
        "speculative-changes-outputs",
    ),
    (
        "cross-attention-explain-decoder-layer",
        "Cross-attention reuses the same causal mask.",
        "cross-attention-is-causal",
    ),
    (
        "serving-explain-capacity",
        "Take the ceiling of free memory over the cache per request.",
        "round-up-requests",
    ),
    ("tensor-parallel-explain-cost", "TP communicates only in the backward pass.", "tp-comm-only-backward"),
    (
        "training-memory-explain-attention-activations",
        "Full checkpointing is free.",
        "full-checkpointing-free",
    ),
    ("training-memory-explain-attention-activations", "Recomputation is free.", "recomputation-is-free"),
]


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    return load_catalog()


def _misconceptions(catalog: Catalog, question_id: str, text: str) -> list[str]:
    inst = catalog.instance(question_id, 0)
    reading = read_explanation(text, inst.point_specs, inst.rejects)
    return [f"{m.id}: {m.evidence.text!r}" for m in reading.misconceptions]


@pytest.mark.parametrize(("question_id", "sentence"), CORRECT)
def test_correct_sentence_names_no_misconception(catalog: Catalog, question_id: str, sentence: str) -> None:
    assert _misconceptions(catalog, question_id, sentence) == []


@pytest.mark.parametrize(("question_id", "sentence", "reject_id"), MISCONCEPTIONS)
def test_plain_misconception_is_still_caught(
    catalog: Catalog, question_id: str, sentence: str, reject_id: str
) -> None:
    named = _misconceptions(catalog, question_id, sentence)
    assert any(n.startswith(f"{reject_id}:") for n in named), named
