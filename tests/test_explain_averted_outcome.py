"""The sqrt(d_k) question read as candidates most often answer it: the fix named with what it averts ("so
the softmax does not saturate"). The negation there states the risk the scaling removes; it is not a
denial, and it is not the misconception that the softmax ignores scale. Its denial still is."""

from __future__ import annotations

import pytest

from quizapp.content.catalog import Catalog, load_catalog
from quizapp.grading.explain import read_explanation
from quizapp.grading.explain_reading import Reading
from quizapp.grading.rating import AGAIN, GOOD

QID = "scaled-dot-product-explain-sqrt"


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    return load_catalog()


def _read(catalog: Catalog, text: str) -> Reading:
    inst = catalog.instance(QID, 0)
    return read_explanation(text, inst.point_specs, inst.rejects)


@pytest.mark.parametrize(
    "text",
    [
        "The dot product of q and k has variance d_k. Dividing by sqrt(d_k) keeps the variance of the "
        "scores at one so the softmax does not saturate and gradients survive.",
        "q.k has variance d_k, so we divide by sqrt(d_k) to keep it at one, so that the softmax doesn't "
        "saturate and the gradients don't vanish.",
    ],
)
def test_the_fix_named_with_what_it_averts_covers_every_point(catalog: Catalog, text: str) -> None:
    reading = _read(catalog, text)
    assert [p.status for p in reading.points] == ["covered"] * len(reading.points)
    assert not reading.misconceptions
    assert reading.rating == GOOD


def test_saying_the_softmax_is_not_scale_invariant_is_no_misconception(catalog: Catalog) -> None:
    reading = _read(catalog, "The softmax is not scale invariant: large scores saturate it.")
    assert not reading.misconceptions


def test_denying_saturation_is_still_a_contradiction(catalog: Catalog) -> None:
    reading = _read(
        catalog, "Large scores are fine: the softmax does not saturate and gradients do not vanish."
    )
    assert reading.points[1].status == "contradicted"
    assert reading.points[2].status != "covered"
    assert reading.rating == AGAIN


def test_the_misconception_that_the_softmax_ignores_scale_is_still_named(catalog: Catalog) -> None:
    reading = _read(
        catalog, "The softmax is not affected by the size of the scores; the scaling is convention."
    )
    assert [m.id for m in reading.misconceptions] == ["softmax-scale-invariant"]


def _read_part(catalog: Catalog, question_id: str, text: str) -> Reading:
    """Reads `text` against a question's points, or a case study's explain step."""
    inst = catalog.instance(question_id, 0)
    part = inst.follow_up if inst.follow_up is not None else inst
    return read_explanation(text, part.point_specs, part.rejects)


FIX_AND_WHAT_IT_AVERTS = [
    (
        "numerics-explain-stable-softmax",
        "We subtract the max so that exp never overflows in fp16.",
        1,
    ),
    (
        "scaled-dot-product-explain-stable-softmax",
        "Softmax is invariant to subtracting a constant from the row, so we subtract the row max so the "
        "exponentials never overflow; the denominator is at least 1, and the result does not change.",
        None,
    ),
    (
        "scaled-dot-product-explain-causal",
        "The mask is added to the scores before the softmax so that no query attends to a future key; that "
        "way the target doesn't leak and we can train every position at once.",
        4,
    ),
    (
        "scaled-dot-product-explain-fully-masked",
        "When padding and a causal mask leave a query with no allowed key, the row is all -inf and softmax "
        "gives 0/0 = NaN, which spreads to the loss and the gradients. Use a large finite negative instead "
        "of -inf so the row doesn't turn into NaN, and drop those positions from the loss.",
        None,
    ),
    (
        "scaled-dot-product-explain-fully-masked",
        "Fill masked positions with a large finite negative instead of -inf so the fully masked row doesn't "
        "become NaN.",
        2,
    ),
    (
        "long-context-explain-sinks",
        "StreamingLLM keeps a few sink tokens plus a recent window, constant size. Softmax must put its "
        "weight somewhere and models dump it on the first tokens, so we keep them so the attention doesn't "
        "collapse when the window slides. It works without fine-tuning, but it does not recall the middle.",
        None,
    ),
    (
        "long-context-explain-options",
        "Sinks stabilise streaming but don't remember the middle.",
        4,
    ),
    (
        "serving-explain-continuous-batching",
        "Iteration-level scheduling lets requests join and leave at every step so freed slots don't sit "
        "idle until the batch ends. Paged KV allocates fixed-size blocks on demand through a block table so "
        "memory isn't reserved for the maximum length and doesn't fragment. Under memory pressure, preempt "
        "by swapping or recomputation.",
        None,
    ),
    (
        "cost-explain-decode-kv",
        "Decoding is matrix-vector work, about one multiply-add per value read, so step time is set by "
        "bytes read, not FLOPs. Weights are read once per step and shared across the batch, but the KV "
        "cache is per sequence and grows with context and batch. GQA/MQA share each K/V head across query "
        "heads so the cache doesn't scale with the query heads, cutting it by n_heads / n_kv_heads.",
        None,
    ),
    (
        "mqa-gqa-explain-kv-redundancy",
        "Only K and V are cached; the query is computed fresh for the current token, so sharing Q would "
        "save almost nothing, while sharing K/V cuts cache and decode bandwidth by h / n_kv. q.k is "
        "symmetric, so sharing Q would cost no more expressiveness than sharing K; the cache decides. "
        "Quality losses from sharing K/V are small but not zero for MQA.",
        None,
    ),
    (
        "mqa-gqa-explain-implement",
        "W_Q is d x (h d_k) and W_K, W_V are d x (n_kv d_k). The cache stores only n_kv heads. Query head "
        "i reads KV head i // (h/n_kv). Broadcast with expand so you don't materialise h/n_kv copies of "
        "the cache. Scores are (B, h, T, S), then merge and W_O.",
        None,
    ),
    (
        "flash-attention-explain-causal-blocks",
        "Work is organised in query block by key block tiles. Tiles strictly above the diagonal are "
        "skipped so no compute is wasted on them, tiles below the diagonal don't need masking, and only "
        "diagonal tiles apply the element-wise mask. That saves about half the compute.",
        None,
    ),
    (
        "tensor-parallel-explain-walkthrough",
        "With 8 GPUs each gets n_heads / 8 heads, so 8 must divide n_heads. Split W_Q, W_K, W_V by "
        "columns and W_O by rows so the heads never need to talk to each other until one all-reduce after "
        "W_O, over batch x tokens x d_model. The softmax and each head's KV cache stay on their GPU. KV "
        "heads split n_kv / 8, or get replicated if there are fewer than 8.",
        None,
    ),
    (
        "case-studies-training-memory-recompute",
        "Full recomputation trades compute for memory: it reruns the forward, about a third more compute. "
        "The attention s^2 term dominates; selective recomputation or FlashAttention removes it cheaply, "
        "so do that first. Recomputation doesn't touch the 16 bytes/param of states; shard them with ZeRO "
        "or FSDP so they aren't replicated on every GPU. A smaller micro-batch with gradient accumulation "
        "also cuts activations.",
        None,
    ),
    (
        "case-studies-prefill-ttft",
        "Faster HBM or weight-only quantisation won't help TTFT, only TPOT.",
        3,
    ),
    (
        "pipeline-comms-case-step-over-estimate",
        "The gap is the latency term of the all-reduce, not bandwidth, so a faster link won't help.",
        2,
    ),
    (
        "masks-explain-padding",
        "Mask the padded keys so that real tokens never attend to padding, and leave padded query "
        "positions out of the loss.",
        2,
    ),
]


AVERTED_THEN_AND = [
    # The averted outcome is followed by "and <what the fix does>" in one clause; the negation must not
    # carry over the "and" to the second half, and the averted half states its point.
    (
        "interview-answers-kv-cache-complexity",
        "We cache K and V so we don't recompute the prefix and each step only projects the new token and "
        "attends one query over t keys.",
        (1, 2),
    ),
    (
        "mqa-gqa-explain-tradeoff",
        "GQA shares K/V heads so the cache doesn't grow with query heads and the decode traffic drops by "
        "h / n_kv.",
        (3,),
    ),
    (
        "cost-explain-score-memory",
        "Tiling with an online softmax means the T x T matrix is never stored and the backward recomputes "
        "the weights instead of storing them.",
        (3, 4),
    ),
    (
        "interview-answers-flash-attention",
        "The online softmax merges blocks with a running max and sum so the full T x T matrix is never "
        "built and the result is exact.",
        (1, 3),
    ),
    (
        "long-context-explain-sliding-cache",
        "Each query sees only the last W positions, so older keys are never read and a ring buffer of W "
        "slots suffices.",
        (1, 2),
    ),
    (
        "numerics-explain-mask-values",
        "Use finfo(dtype).min so the mask doesn't become -inf in fp16 and fully masked rows don't give NaN "
        "after max subtraction.",
        (1, 2, 4),
    ),
    (
        "scaled-dot-product-explain-causal",
        "Scores above the diagonal are set to -inf before the softmax so future tokens get zero weight and "
        "all positions train in parallel in one pass.",
        (1, 2, 3, 4),
    ),
    (
        "serving-explain-continuous-batching",
        "With paging nothing is reserved for the maximum length and memory doesn't fragment, and with "
        "continuous batching freed blocks don't idle until the batch ends.",
        (3, 4),
    ),
]


@pytest.mark.parametrize(("question_id", "text", "points"), AVERTED_THEN_AND)
def test_an_averted_outcome_joined_by_and_covers_both_halves(
    catalog: Catalog, question_id: str, text: str, points: tuple[int, ...]
) -> None:
    reading = _read_part(catalog, question_id, text)
    assert [reading.points[n - 1].status for n in points] == ["covered"] * len(points)
    assert not [p for p in reading.points if p.status == "contradicted"]
    assert not reading.misconceptions


@pytest.mark.parametrize(("question_id", "text", "point"), FIX_AND_WHAT_IT_AVERTS)
def test_other_questions_read_the_averted_outcome_as_stated(
    catalog: Catalog, question_id: str, text: str, point: int | None
) -> None:
    """`point` None: the answer covers every point; a number: that point (from 1) is covered."""
    reading = _read_part(catalog, question_id, text)
    if point is None:
        assert [p.status for p in reading.points] == ["covered"] * len(reading.points)
    else:
        assert reading.points[point - 1].status == "covered"
    assert not reading.misconceptions


DENIALS = [
    ("case-studies-prefill-ttft", "Faster HBM does not help TPOT; it cuts the TTFT.", 3),
    ("pipeline-comms-case-step-over-estimate", "A faster link closes the gap.", 2),
    (
        "serving-explain-continuous-batching",
        "Paging doesn't help: with paging memory still fragments.",
        3,
    ),
    (
        "numerics-explain-mask-values",
        "-1e9 is fine in fp16: the mask does not become -inf and a fully masked row does not give NaN.",
        2,
    ),
    ("mqa-gqa-explain-tradeoff", "The cache does not grow with the number of K/V heads.", 3),
    ("interview-answers-flash-attention", "It is not exact and the result is approximate.", 1),
    (
        "cost-explain-score-memory",
        "FlashAttention doesn't store the matrix and doesn't need to recompute anything in the backward "
        "pass.",
        4,
    ),
    (
        "numerics-explain-stable-softmax",
        "exp doesn't overflow fp16 at these sizes, so there is no need to subtract anything.",
        1,
    ),
    (
        "scaled-dot-product-explain-stable-softmax",
        "Exponentials of attention scores never overflow, so subtracting the max is just a convention.",
        2,
    ),
    (
        "scaled-dot-product-explain-stable-softmax",
        "The result changes a little; the output does not stay identical.",
        4,
    ),
    (
        "scaled-dot-product-explain-fully-masked",
        "An all -inf row is fine: the softmax does not produce NaN, it returns a uniform row.",
        2,
    ),
    (
        "long-context-explain-sinks",
        "Pure window attention works fine: it does not collapse when the first tokens are evicted.",
        2,
    ),
    (
        "long-context-explain-sinks",
        "A plain sliding window keeps working and never breaks when the first tokens leave.",
        2,
    ),
    ("long-context-explain-options", "Sinks stabilise streaming and they remember the middle as well.", 4),
    (
        "serving-explain-continuous-batching",
        "Without paging, reserving for the maximum length is fine: it does not fragment memory.",
        3,
    ),
    (
        "cost-explain-decode-kv",
        "GQA is pointless here: the cache does not grow with the query heads anyway.",
        5,
    ),
    (
        "mqa-gqa-explain-implement",
        "Broadcasting is just syntax; it does not avoid materialising copies of the cache.",
        5,
    ),
    (
        "flash-attention-explain-causal-blocks",
        "Every tile, including those below the diagonal, needs the mask applied.",
        3,
    ),
    (
        "tensor-parallel-explain-walkthrough",
        "The heads never need to communicate: there is no all-reduce at all.",
        3,
    ),
]


@pytest.mark.parametrize(("question_id", "text", "point"), DENIALS)
def test_denying_the_risk_still_does_not_cover_the_point(
    catalog: Catalog, question_id: str, text: str, point: int
) -> None:
    reading = _read_part(catalog, question_id, text)
    assert reading.points[point - 1].status != "covered"


@pytest.mark.parametrize(
    ("question_id", "text", "misconception"),
    [
        (
            "interview-answers-pruning",
            "It implies that only a small share of heads can be removed: pruning any large fraction hurts "
            "badly.",
            "few-heads-prunable",
        ),
        (
            "tensor-parallel-explain-walkthrough",
            "Split W_Q, W_K and W_V by rows and W_O by columns.",
            "swapped-split",
        ),
        (
            "tensor-parallel-explain-walkthrough",
            "W_Q, W_K, W_V are sharded by rows; W_O is split by columns.",
            "swapped-split",
        ),
        (
            "mqa-gqa-explain-kv-redundancy",
            "Sharing keys and values loses no expressiveness at all.",
            "sharing-q-collapses-patterns",
        ),
        (
            "scaled-dot-product-explain-fully-masked",
            "If every key is masked, the softmax just returns all zeros, since every exp(-inf) is 0.",
            "softmax-returns-zeros",
        ),
        (
            "scaled-dot-product-explain-fully-masked",
            "A row of all -inf is harmless, the softmax just gives zeros there.",
            "softmax-returns-zeros",
        ),
    ],
)
def test_narrowed_misconceptions_are_still_named(
    catalog: Catalog, question_id: str, text: str, misconception: str
) -> None:
    reading = _read_part(catalog, question_id, text)
    assert misconception in [m.id for m in reading.misconceptions]
