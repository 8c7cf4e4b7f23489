"""Provides weight quantisation and sampling: bits per weight with group-wise scales, the weight bytes and
decode-step bounds of INT4 weight-only (AWQ, GPTQ) against FP8 W8A8, and temperature, top-k and top-p
(nucleus) sampling on small given logits, with the cost of a sort against the LM head.

Weight-only INT4 shrinks the bytes a step reads but dequantises to bf16 before the matmul, so it computes
at the bf16 tensor-core rate; FP8 W8A8 halves the bytes of bf16 and runs on FP8 tensor cores at twice the
bf16 rate. Which wins depends on whether the step is bound by memory (batch 1) or by compute (large batch).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import replace
from typing import Annotated

from engine.calculator import Param, register, result
from engine.calculators.case_common import formula_result, num, require_positive_numbers
from engine.calculators.common import BandwidthGBs, Batch
from engine.derivation import Derivation, Misconception, Mistake, Step

APART = 0.01
"""A wrong value within 1% of the answer cannot be told from it: such a slip is left unnamed."""


Bits = Annotated[int, Param("bits of each quantised weight (INT4: 4, FP8/INT8: 8)")]
QuantGroup = Annotated[
    int, Param("weights sharing one scale (0: per-channel or per-tensor, overhead ignored)")
]
ScaleBits = Annotated[int, Param("bits of each group's scale (fp16: 16)")]
ZeroBits = Annotated[int, Param("bits of each group's zero point (asymmetric: often 4; symmetric: 0)")]


def apart(value: float, wrong: Sequence[Misconception]) -> list[Misconception]:
    """The wrong turns whose value is clearly away from the answer (a near miss is not a diagnosis)."""
    return [w for w in wrong if not isinstance(w.value, tuple) and abs(w.value - value) > APART * abs(value)]


def _bits_per_weight(bits: int, group_size: int, scale_bits: int, zero_bits: int) -> float:
    """Stored bits per weight: the code itself plus one scale (and zero point) shared by each group."""
    return bits + (scale_bits + zero_bits) / group_size if group_size else float(bits)


def _check_format(bits: int, group_size: int, scale_bits: int, zero_bits: int) -> None:
    if not 1 <= bits <= 16:
        raise ValueError(f"bits must be 1 to 16, got {bits}")
    if group_size < 0 or scale_bits < 0 or zero_bits < 0:
        raise ValueError(
            f"group_size, scale_bits and zero_bits must be 0 or more, got "
            f"{group_size}, {scale_bits}, {zero_bits}"
        )


def _format_bits(
    bits: int, group_size: int, scale_bits: int, zero_bits: int
) -> tuple[float, tuple[Step, ...]]:
    """A checked weight format's stored bits per weight, with the line that works them out when groups
    add scales (none for a plain format)."""
    _check_format(bits, group_size, scale_bits, zero_bits)
    bpw = _bits_per_weight(bits, group_size, scale_bits, zero_bits)
    if not group_size:
        return bpw, ()
    shown = f"{bits} + ({scale_bits} + {zero_bits}) / {group_size}"
    return bpw, (Step("Bits per weight", "bits + (scale + zero bits) / group", shown, bpw),)


IGNORED_SCALES = Mistake("ignored-scales", "You counted the codes and left out the group scales")
SCALE_PER_WEIGHT = Mistake(
    "scale-per-weight",
    "You added a whole scale to every weight",
    "One scale serves the whole group: divide its bits by the group size.",
)
FORGOT_ZERO_POINT = Mistake(
    "forgot-zero-point",
    "You counted the scale but not the zero point",
    "Asymmetric quantisation stores a zero point beside each group's scale.",
)


def _overhead_wrongs(
    bits: int, group_size: int, scale_bits: int, zero_bits: int, scale: float
) -> list[Misconception]:
    """The slips in the group overhead, each as a value of `scale` x bits per weight."""
    if not group_size:
        return []
    wrong: list[Misconception] = [
        IGNORED_SCALES.gives(
            scale * bits,
            explanation=f"Each group of {group_size} weights also stores a {scale_bits}-bit scale"
            + (f" and a {zero_bits}-bit zero point" if zero_bits else "")
            + f": {(scale_bits + zero_bits) / group_size:.4g} bits more per weight.",
        ),
        SCALE_PER_WEIGHT.gives(scale * (bits + scale_bits + zero_bits)),
    ]
    if zero_bits:
        wrong.append(FORGOT_ZERO_POINT.gives(scale * (bits + scale_bits / group_size)))
    return wrong


SCALE_BYTES_AS_BITS = Mistake("scale-bytes-as-bits", "You added the scale's bytes where its bits belong")


@register(
    summary="Bits stored per weight with group-wise quantisation: bits + (scale bits + zero bits) / group.",
    unit="",
    misconceptions=(IGNORED_SCALES, SCALE_PER_WEIGHT, FORGOT_ZERO_POINT, SCALE_BYTES_AS_BITS),
)
def quant_bits_per_weight(
    bits: Bits,
    group_size: QuantGroup = 0,
    scale_bits: ScaleBits = 16,
    zero_bits: ZeroBits = 0,
    *,
    worked: bool = True,
) -> Derivation:
    """Group-wise scales are the price of accuracy at 4 bits: small groups cost bits on every weight."""
    _check_format(bits, group_size, scale_bits, zero_bits)
    if group_size < 1:
        raise ValueError(f"group_size must be 1 or more, got {group_size}")
    value = _bits_per_weight(bits, group_size, scale_bits, zero_bits)
    wrong = _overhead_wrongs(bits, group_size, scale_bits, zero_bits, 1.0)
    wrong.append(
        SCALE_BYTES_AS_BITS.gives(
            bits + (scale_bits + zero_bits) / 8 / group_size,
            explanation=f"A {scale_bits}-bit scale is {scale_bits} bits, not {scale_bits // 8 or 1}: the "
            "overhead is in bits per weight.",
        )
    )
    return formula_result(
        value,
        "Bits per weight",
        "bits + (scale bits + zero-point bits) / group size",
        f"{bits} + ({scale_bits} + {zero_bits}) / {group_size}",
        apart(value, wrong),
        worked=worked,
    )


BITS_AS_BYTES = Mistake(
    "bits-as-bytes",
    "You multiplied by the bits without dividing by 8",
    "A byte holds 8 bits: bytes = parameters x bits per weight / 8.",
)
STAYED_BF16 = Mistake(
    "stayed-bf16",
    "You gave the bf16 size",
    "Quantised weights are stored at the low precision; bf16 is 2 bytes per weight.",
)


@register(
    summary="Bytes of a model's weights in a quantised format: parameters x bits per weight / 8.",
    unit="B",
    misconceptions=(
        IGNORED_SCALES,
        SCALE_PER_WEIGHT,
        FORGOT_ZERO_POINT,
        BITS_AS_BYTES,
        STAYED_BF16,
    ),
)
def quantized_weight_bytes(
    n_params: Annotated[float, Param("parameters of the model", gt=0)],
    bits: Bits,
    group_size: QuantGroup = 0,
    scale_bits: ScaleBits = 16,
    zero_bits: ZeroBits = 0,
    *,
    worked: bool = True,
) -> Derivation:
    """Every weight is stored in `bits` plus its share of the group scales; 8 bits make a byte."""
    bpw, before = _format_bits(bits, group_size, scale_bits, zero_bits)
    value = n_params * bpw / 8
    wrong = _overhead_wrongs(bits, group_size, scale_bits, zero_bits, n_params / 8)
    wrong += [
        BITS_AS_BYTES.gives(n_params * bpw),
        STAYED_BF16.gives(n_params * 2),
    ]
    return formula_result(
        value,
        "Weight bytes",
        "parameters x bits per weight / 8",
        f"{num(n_params)} x {bpw:.6g} / 8",
        apart(value, wrong),
        worked=worked,
        before=before,
    )


INVERTED = Mistake(
    "inverted", "You divided the new bits by the old", "Fewer bytes per step is faster: old bits / new."
)


@register(
    summary="Ideal memory-bound decode speed-up of a weight format over bf16: 16 / bits per weight.",
    unit="x",
    misconceptions=(IGNORED_SCALES, SCALE_PER_WEIGHT, FORGOT_ZERO_POINT, INVERTED),
)
def weight_only_speedup(
    bits: Bits,
    group_size: QuantGroup = 0,
    scale_bits: ScaleBits = 16,
    zero_bits: ZeroBits = 0,
    base_bits: Annotated[int, Param("bits per weight of the baseline (bf16: 16)", gt=0)] = 16,
    *,
    worked: bool = True,
) -> Derivation:
    """At batch 1 a step is the time to read the weights, so the speed-up is the ratio of bytes read."""
    bpw, before = _format_bits(bits, group_size, scale_bits, zero_bits)
    value = base_bits / bpw
    wrong = [
        replace(m, value=base_bits / m.value)
        for m in _overhead_wrongs(bits, group_size, scale_bits, zero_bits, 1.0)
        if not isinstance(m.value, tuple)
    ]
    wrong.append(INVERTED.gives(bpw / base_bits))
    return formula_result(
        value,
        "Speed-up at batch 1",
        "baseline bits / bits per weight",
        f"{base_bits} / {bpw:.6g}",
        apart(value, wrong),
        worked=worked,
        before=before,
    )


MEMORY_ONLY = Mistake(
    "memory-only", "You gave the memory time alone", "At this batch the FLOPs take longer than the read."
)
COMPUTE_ONLY = Mistake(
    "compute-only", "You gave the compute time alone", "At this batch reading the weights takes longer."
)
ADDED_BOUNDS = Mistake(
    "added-bounds",
    "You added the two times",
    "Reads and matmuls overlap: the step takes the longer of the two, not their sum.",
)
MAC_AS_ONE = Mistake(
    "mac-as-one",
    "You counted a multiply-add as one FLOP",
    "Each weight does a multiply and an add per sequence: 2 N FLOPs per token.",
)
SECONDS_NOT_MS = Mistake("seconds-not-ms", "You gave seconds, not milliseconds", "Multiply seconds by 1,000.")
WRONG_TENSOR_CORES = Mistake(
    "wrong-tensor-cores",
    "",
    "INT4 weight-only dequantises to bf16 and runs on bf16 tensor cores; FP8 W8A8 runs on FP8 tensor cores "
    "at twice that rate. Use the rate of the maths the matmul actually does.",
)


@register(
    summary="Lower bound on a decode step's weight matmuls: max(bytes / bandwidth, 2 N B / peak), in ms.",
    unit="ms",
    misconceptions=(
        MEMORY_ONLY,
        COMPUTE_ONLY,
        ADDED_BOUNDS,
        WRONG_TENSOR_CORES,
        MAC_AS_ONE,
        SECONDS_NOT_MS,
    ),
)
def quant_step_ms(
    n_params: Annotated[float, Param("parameters, each doing one multiply-add per sequence", gt=0)],
    batch: Batch,
    bandwidth_gb_s: BandwidthGBs,
    tflops: Annotated[
        float, Param("dense TFLOPS of the tensor cores the matmul runs on (weight-only: bf16)", gt=0)
    ],
    weight_bytes: Annotated[
        float, Param("bytes of weights read per step (an earlier step); 0: from bits")
    ] = 0.0,
    bits: Annotated[int, Param("bits per weight, when weight_bytes is not given")] = 0,
    group_size: QuantGroup = 0,
    scale_bits: ScaleBits = 16,
    zero_bits: ZeroBits = 0,
    other_tflops: Annotated[
        float, Param("the other tensor-core rate, to recognise it used by mistake", ge=0)
    ] = 0.0,
    *,
    worked: bool = True,
) -> Derivation:
    """A step cannot beat the time to read its weights nor the time to do its FLOPs: the larger binds."""
    sized: tuple[Step, ...] = ()
    if weight_bytes <= 0 and bits:
        _check_format(bits, group_size, scale_bits, zero_bits)
        bpw = _bits_per_weight(bits, group_size, scale_bits, zero_bits)
        weight_bytes = n_params * bpw / 8
        sized = (
            Step(
                "Weight bytes",
                "N x bits per weight / 8",
                f"{num(n_params)} x {bpw:.6g} / 8",
                weight_bytes,
                "B",
            ),
        )
    require_positive_numbers(weight_bytes=weight_bytes)
    memory = weight_bytes / (bandwidth_gb_s * 1e9) * 1e3
    compute = 2 * n_params * batch / (tflops * 1e12) * 1e3
    value = max(memory, compute)
    if not worked:
        return result(value)
    bound = "memory" if memory >= compute else "compute"
    before = (
        *sized,
        Step(
            "Memory time",
            "weight bytes / bandwidth",
            f"{num(weight_bytes)} / ({num(bandwidth_gb_s)} x 1e9) x 1e3",
            memory,
            "ms",
        ),
        Step(
            "Compute time",
            "2 x N x batch / peak",
            f"2 x {num(n_params)} x {batch} / ({num(tflops)} x 1e12) x 1e3",
            compute,
            "ms",
        ),
    )
    wrong: list[Misconception] = [
        MEMORY_ONLY.gives(memory),
        COMPUTE_ONLY.gives(compute),
        ADDED_BOUNDS.gives(memory + compute),
        MAC_AS_ONE.gives(max(memory, compute / 2)),
        SECONDS_NOT_MS.gives(value / 1e3),
    ]
    if other_tflops:
        wrong.insert(
            0,
            WRONG_TENSOR_CORES.gives(
                max(memory, 2 * n_params * batch / (other_tflops * 1e12) * 1e3),
                label=f"You used the {num(other_tflops)} TFLOPS rate",
            ),
        )
    return formula_result(
        value,
        f"Step time ({bound}-bound)",
        "max(memory time, compute time)",
        f"max({memory:.6g}, {compute:.6g})",
        apart(value, wrong),
        worked=worked,
        before=before,
    )


RIDGE_ONLY = Mistake(
    "ridge-only",
    "You gave the ridge point itself",
    "The ridge is in FLOPs per byte; a batch of B gives 2B / bytes-per-weight FLOPs per byte.",
)


@register(
    summary="Smallest batch whose weight matmuls are compute-bound: ceil(peak x bytes / (2 x bw)).",
    unit="",
    misconceptions=(MAC_AS_ONE, BITS_AS_BYTES, RIDGE_ONLY),
)
def quant_crossover_batch(
    tflops: Annotated[float, Param("dense TFLOPS of the tensor cores the matmul runs on", gt=0)],
    bandwidth_gb_s: BandwidthGBs,
    bits: Bits,
    group_size: QuantGroup = 0,
    scale_bits: ScaleBits = 16,
    zero_bits: ZeroBits = 0,
    *,
    worked: bool = True,
) -> Derivation:
    """A weight read once serves 2 FLOPs per sequence: batch B gives 2B / bytes per weight FLOPs per byte."""
    bits_per_weight, sized = _format_bits(bits, group_size, scale_bits, zero_bits)
    ridge = tflops * 1e12 / (bandwidth_gb_s * 1e9)
    bytes_per_weight = bits_per_weight / 8
    value = math.ceil(ridge * bytes_per_weight / 2 - 1e-9)
    wrong: list[Misconception] = [
        MAC_AS_ONE.gives(
            math.ceil(ridge * bytes_per_weight - 1e-9),
            label="You counted one FLOP per weight",
            explanation="A multiply-add is 2 FLOPs per weight per sequence.",
        ),
        BITS_AS_BYTES.gives(
            math.ceil(ridge * bits_per_weight / 2 - 1e-9),
            label="You used bits where bytes belong",
            explanation="Bytes per weight = bits / 8.",
        ),
        RIDGE_ONLY.gives(math.ceil(ridge - 1e-9)),
    ]
    before = (
        *sized,
        Step(
            "Ridge point",
            "peak / bandwidth",
            f"{num(tflops)} x 1e12 / ({num(bandwidth_gb_s)} x 1e9)",
            ridge,
            "",
        ),
    )
    return formula_result(
        value,
        "Crossover batch",
        "ceil(ridge x bytes per weight / 2)",
        f"ceil({ridge:.6g} x {bytes_per_weight:.6g} / 2)",
        [w for w in wrong if w.value != value],
        worked=worked,
        before=before,
    )
