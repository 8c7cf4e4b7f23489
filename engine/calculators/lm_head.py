"""Provides the LM head's cost at decode: its FLOPs per token and how they compare with sorting the
vocabulary.
"""

from __future__ import annotations

import math
from typing import Annotated

from engine.calculator import Param, register
from engine.calculators.case_common import formula_result, num, require_positive_numbers
from engine.calculators.common import Batch, DModel
from engine.calculators.quant_sampling import apart
from engine.derivation import Derivation, Misconception, Mistake, Step

MAC_AS_ONE = Mistake("mac-as-one", "You counted a multiply-add as one FLOP", "Each multiply-add is 2 FLOPs.")
SQUARED_WIDTH = Mistake(
    "squared-width", "You used d_model x d_model", "The head maps d_model to the vocabulary."
)
FORGOT_BATCH = Mistake("forgot-batch", "You counted one sequence", "Every sequence gets its own logits.")


@register(
    summary="FLOPs of the LM head per decode step: 2 x batch x vocab x d_model.",
    unit="FLOPs",
    misconceptions=(MAC_AS_ONE, FORGOT_BATCH, SQUARED_WIDTH),
)
def lm_head_flops(
    vocab: Annotated[int, Param("vocabulary size", gt=0)],
    d_model: DModel,
    batch: Batch = 1,
    *,
    worked: bool = True,
) -> Derivation:
    """The last hidden state times the (d_model, vocab) unembedding: one multiply-add per entry."""
    value = 2 * batch * vocab * d_model
    wrong: list[Misconception] = [
        MAC_AS_ONE.gives(value // 2),
        SQUARED_WIDTH.gives(2 * batch * d_model * d_model),
    ]
    if batch > 1:
        wrong.insert(
            1,
            FORGOT_BATCH.gives(value // batch),
        )
    return formula_result(
        value,
        "LM head FLOPs",
        "2 x batch x vocab x d_model",
        f"2 x {batch} x {num(vocab)} x {num(d_model)}",
        wrong,
        worked=worked,
    )


QUADRATIC_SORT = Mistake(
    "quadratic-sort", "You costed the sort as V^2", "A comparison sort is V log2 V, not V^2."
)
INVERTED = Mistake(
    "inverted", "You divided the sort by the head", "The question asks how many times bigger the head is."
)


@register(
    summary="How many times the LM head's FLOPs exceed a full sort of the vocabulary: 2 V d / (V log2 V).",
    unit="x",
    misconceptions=(MAC_AS_ONE, QUADRATIC_SORT, INVERTED, FORGOT_BATCH),
)
def sort_to_head_ratio(
    vocab: Annotated[int, Param("vocabulary size")],
    d_model: Annotated[int, Param("model width (unused when head_flops is given)")] = 0,
    batch: Annotated[int, Param("sequences decoding together, each sorting its own vocabulary", gt=0)] = 1,
    head_flops: Annotated[
        float, Param("the LM head's FLOPs at this batch (an earlier step); 0: 2 B V d")
    ] = 0.0,
    *,
    worked: bool = True,
) -> Derivation:
    """A comparison sort costs about V log2 V steps against 2 V d FLOPs: the ratio is 2d / log2 V, and
    a batch changes neither side's share because every sequence has its own head and its own sort."""
    require_positive_numbers(vocab=vocab - 1)
    log_v = math.log2(vocab)
    if head_flops > 0:
        return _head_over_sorts(vocab, batch, head_flops, log_v, worked=worked)
    require_positive_numbers(d_model=d_model)
    value = 2 * d_model / log_v
    before = (Step("log2 of the vocabulary", "log2 V", f"log2 {num(vocab)}", log_v),)
    wrong: list[Misconception] = [
        MAC_AS_ONE.gives(
            d_model / log_v,
            label="You counted the head as V x d FLOPs",
            explanation="A multiply-add is 2 FLOPs.",
        ),
        QUADRATIC_SORT.gives(2 * d_model / vocab),
        INVERTED.gives(log_v / (2 * d_model)),
    ]
    return formula_result(
        value,
        "Head / sort",
        "2 x d_model / log2 V",
        f"2 x {num(d_model)} / {log_v:.6g}",
        apart(value, wrong),
        worked=worked,
        before=before,
    )


def _head_over_sorts(vocab: int, batch: int, head_flops: float, log_v: float, *, worked: bool) -> Derivation:
    """The head's FLOPs for the whole batch (as given) against one sort of the vocabulary per sequence."""
    sorts = batch * vocab * log_v
    value = head_flops / sorts
    before = (
        Step("log2 of the vocabulary", "log2 V", f"log2 {num(vocab)}", log_v),
        Step("Sort work", "batch x V x log2 V", f"{batch} x {num(vocab)} x {log_v:.6g}", sorts),
    )
    wrong: list[Misconception] = [
        FORGOT_BATCH.gives(
            head_flops / (vocab * log_v),
            label="You compared the whole batch's head with a single sort",
            explanation=(
                f"Each of the {batch} sequences sorts its own vocabulary: the sort work grows with the batch."
            ),
        ),
        MAC_AS_ONE.gives(
            value / 2,
            label="You halved the head's FLOPs",
            explanation="The head's count already has 2 FLOPs per multiply-add; use it as it is.",
        ),
        QUADRATIC_SORT.gives(head_flops / (batch * float(vocab) ** 2)),
        INVERTED.gives(sorts / head_flops),
    ]
    return formula_result(
        value,
        "Head / sort",
        "head FLOPs / sort work",
        f"{num(head_flops)} / {num(sorts)}",
        apart(value, wrong),
        worked=worked,
        before=before,
    )
