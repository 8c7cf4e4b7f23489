"""Provides the bytes a tensor-parallel all-reduce moves per GPU."""

from __future__ import annotations

from typing import Annotated, Literal

from engine.calculator import Param, register, result
from engine.calculators.common import (
    Batch,
    BytesPerElement,
    DModel,
    NLayers,
    ratio,
)
from engine.derivation import Derivation, Misconception, Mistake, Step

FORGOT_BYTES = Mistake(
    "forgot-bytes", "You counted numbers, not bytes", "Multiply the elements by the bytes per element."
)
RING_NO_X2 = Mistake(
    "ring-no-x2",
    "You counted only the reduce-scatter half",
    "A ring all-reduce is a reduce-scatter then an all-gather, each sending (tp - 1) / tp of "
    "the message from every GPU.",
)
DIVIDED_BY_TP = Mistake(
    "divided-by-tp",
    "You divided the message by tp",
    "After the row-parallel W_O every GPU holds a partial sum of the WHOLE (B, T, d_model) "
    "output, not a 1/tp slice of it; the all-reduce adds these full-size tensors.",
)
TWO_PER_BLOCK = Mistake(
    "two-per-block",
    "You counted two all-reduces per attention block",
    "Column-parallel W_Q/W_K/W_V need no communication in the forward pass (the input is "
    "already on every GPU); only the row-parallel W_O output is all-reduced.",
)
FORGOT_LAYERS = Mistake(
    "forgot-layers", "You left out the layers", "Every layer's attention block ends with its own all-reduce."
)


@register(
    summary="Attention all-reduce under TP: message B x T x d x bytes, ring traffic per GPU, per pass.",
    unit="B",
    misconceptions=(DIVIDED_BY_TP, FORGOT_BYTES, RING_NO_X2, TWO_PER_BLOCK, FORGOT_LAYERS),
)
def tp_allreduce_bytes(
    batch: Batch,
    seq_len: Annotated[int, Param("tokens per sequence in this pass", gt=0)],
    d_model: DModel,
    bytes_per_element: BytesPerElement,
    tp: Annotated[int, Param("tensor-parallel degree (GPUs sharing one layer)", gt=0)],
    n_layers: NLayers = 1,
    scope: Annotated[
        Literal["message", "ring_per_gpu", "forward"],
        Param(
            "message (one all-reduce), ring_per_gpu (bytes one GPU sends in a ring all-reduce) or "
            "forward (all attention all-reduces of one forward pass)"
        ),
    ] = "message",
    *,
    worked: bool = True,
) -> Derivation:
    """Each GPU's W_O slice gives a full-size partial sum of the output; all-reduce adds them up."""
    if scope == "ring_per_gpu" and tp < 2:
        raise ValueError(f"a ring all-reduce needs tp >= 2, got tp={tp}")
    msg = batch * seq_len * d_model * bytes_per_element
    ring = ratio(2 * (tp - 1) * msg, tp)
    value = {"message": msg, "ring_per_gpu": ring, "forward": msg * n_layers}[scope]
    if not worked:
        return result(value)
    msg_label = "One all-reduce message"
    steps = [
        Step(
            msg_label,
            "batch x seq_len x d_model x bytes (a full-size partial output)",
            f"{batch} x {seq_len:,} x {d_model} x {bytes_per_element}",
            msg,
            "B",
        )
    ]
    wrong: list[Misconception] = []
    if scope == "ring_per_gpu":
        label = "Sent per GPU (ring)"
        steps.append(
            Step(
                label,
                "2 (tp - 1) / tp x message (reduce-scatter + all-gather)",
                f"2 x {tp - 1} / {tp} x {msg:,}",
                ring,
                "B",
            )
        )
        wrong.append(RING_NO_X2.gives(ratio((tp - 1) * msg, tp), label))
    elif scope == "forward":
        label = "Attention all-reduces, one forward pass"
        steps.append(Step(label, "1 per attention block x n_layers", f"{msg:,} x {n_layers}", value, "B"))
        wrong.append(TWO_PER_BLOCK.gives(2 * value, label))
        if n_layers > 1:
            wrong.append(FORGOT_LAYERS.gives(msg, label))
    if scope != "ring_per_gpu":
        wrong.append(DIVIDED_BY_TP.gives(ratio(int(value), tp), msg_label))
    wrong.append(
        FORGOT_BYTES.gives(
            ratio(value, bytes_per_element) if isinstance(value, int) else value / bytes_per_element,
            msg_label,
        )
    )
    return result(value, tuple(steps), wrong)
