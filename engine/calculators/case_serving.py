"""Provides the serving steps case studies chain: memory per GPU, what fits, and time bounds.

Each takes plain quantities (bytes, FLOPs, GB/s, TFLOPS) so a step can build on an earlier answer. Times
are in milliseconds, throughputs in dense TFLOPS, bandwidths in decimal GB/s (as datasheets give them);
memory capacity in GiB as the device reports it (nvidia-smi), never the product name's nominal GB.
"""

from __future__ import annotations

import math
from typing import Annotated

from engine.calculator import Param, register
from engine.calculators.case_common import formula_result, num
from engine.calculators.common import BandwidthGBs, Batch, Share, Tflops
from engine.derivation import Derivation, Misconception, Mistake

GIB_OVER_GB = 1024**3 / 1e9
GIB = 2**30
"""Bytes in a GiB: GPU memory is reported in MiB / GiB (powers of 2), not in the name's decimal GB."""


FORGOT_TP = Mistake(
    "forgot-tp",
    "You did not divide by the TP degree",
    "Tensor parallelism shards every matrix: each GPU holds 1/tp of the weights.",
)
FP32_WEIGHTS = Mistake(
    "fp32-weights",
    "You counted 4 bytes per weight",
    "Served weights are bf16 (2 bytes) or fp8 (1 byte); fp32 master weights belong to training.",
)


@register(
    summary="Weight bytes on one GPU when tensor parallelism splits every matrix: N x bytes / tp.",
    unit="B",
    misconceptions=(FORGOT_TP, FP32_WEIGHTS),
)
def sharded_weight_bytes(
    n_params: Annotated[float, Param("parameters in the model", gt=0)],
    bytes_per_param: Annotated[float, Param("bytes per weight (bf16: 2, fp8: 1, int4: 0.5)", gt=0)],
    tp: Annotated[int, Param("tensor-parallel degree (GPUs sharing every layer)", gt=0)],
    *,
    worked: bool = True,
) -> Derivation:
    """Tensor parallelism shards every weight matrix, so each GPU holds 1/tp of the bytes."""
    value = n_params * bytes_per_param / tp
    return formula_result(
        value,
        "Weights on one GPU",
        "N x bytes per weight / tp",
        f"{num(n_params)} x {num(bytes_per_param)} / {tp}",
        [
            FORGOT_TP.gives(n_params * bytes_per_param),
            FP32_WEIGHTS.gives(n_params * 4 / tp),
        ],
        worked=worked,
    )


GB_AS_GIB = Mistake(
    "gb-as-gib",
    "You read the GiB the GPU reports as decimal GB",
    "nvidia-smi reports MiB (2^20 bytes), so its GiB are 2^30 bytes: an H100 80GB shows 81,559 MiB = "
    "79.6 GiB = 85.5e9 bytes. Multiply GiB by 2^30, not 10^9.",
)
FORGOT_RESERVE = Mistake(
    "forgot-reserve",
    "You left no room for activations and workspace",
    "A server keeps a reserve for activations, CUDA graphs and fragmentation.",
)
FORGOT_WEIGHTS = Mistake(
    "forgot-weights",
    "You did not take the weights out",
    "The weight shard lives in the same memory as the cache.",
)
NOMINAL_CAPACITY = Mistake(
    "nominal-capacity",
    "You took the name's capacity as the device's",
    "The 80 in 'H100 80GB' is a nominal name, not a byte count: budget from what the device "
    "reports (nvidia-smi's MiB total).",
)


@register(
    summary="Memory left for the KV cache on one GPU: reported capacity (GiB) - weights - reserve (GiB).",
    unit="B",
    misconceptions=(GB_AS_GIB, NOMINAL_CAPACITY, FORGOT_RESERVE, FORGOT_WEIGHTS),
)
def free_memory_bytes(
    memory_gib: Annotated[
        float, Param("the GPU's memory as the device reports it (nvidia-smi MiB / 1024), GiB", gt=0)
    ],
    used_bytes: Annotated[float, Param("bytes already used on the GPU (its weight shard)", gt=0)],
    reserve_gib: Annotated[float, Param("GiB kept for activations, workspace and fragmentation", ge=0)],
    nominal_gb: Annotated[
        float | None,
        Param("the capacity in the product's name (the 80 of 'H100 80GB'), to recognise it used as bytes"),
    ] = None,
    *,
    worked: bool = True,
) -> Derivation:
    """What is left once weights and a working reserve are taken out; negative means nothing fits.

    The capacity is what the device reports in MiB/GiB (powers of 2): an H100 80GB shows 81,559 MiB, 79.6
    GiB, 85.5e9 bytes. The name's "80GB" is nominal, so neither it nor the GiB figure is read as 10^9 bytes.
    """
    value = (memory_gib - reserve_gib) * GIB - used_bytes
    if value <= 0:
        raise ValueError(f"nothing is left: {memory_gib} GiB - weights - reserve = {value:.4g} B")
    wrong: list[Misconception] = [
        GB_AS_GIB.gives((memory_gib - reserve_gib) * 1e9 - used_bytes),
    ]
    if nominal_gb is not None:
        wrong.append(NOMINAL_CAPACITY.gives(nominal_gb * 1e9 - reserve_gib * GIB - used_bytes))
    wrong += [
        FORGOT_RESERVE.gives(memory_gib * GIB - used_bytes),
        FORGOT_WEIGHTS.gives((memory_gib - reserve_gib) * GIB),
    ]
    return formula_result(
        value,
        "Memory left for the KV cache",
        "(capacity GiB - reserve GiB) x 2^30 - weights",
        f"({num(memory_gib)} - {num(reserve_gib)}) x 2^30 - {num(used_bytes)}",
        wrong,
        worked=worked,
    )


ROUNDED_UP = Mistake("rounded-up", "You rounded up", "The last, partial item does not fit: round down.")
NOT_FLOORED = Mistake("not-floored", "You kept the fraction", "Only whole items fit: round down.")


@register(
    summary="How many whole items fit in a capacity: floor(capacity / size of one).",
    unit="",
    misconceptions=(ROUNDED_UP, NOT_FLOORED),
)
def fit_count(
    capacity: Annotated[float, Param("what is available (bytes, tokens...)", gt=0)],
    per_item: Annotated[float, Param("what one item needs, in the same unit", gt=0)],
    *,
    worked: bool = True,
) -> Derivation:
    """A sequence either fits whole or does not: the count rounds down."""
    exact = capacity / per_item
    value = math.floor(exact)
    return formula_result(
        value,
        "Whole items that fit",
        "floor(capacity / per item)",
        f"floor({num(capacity)} / {num(per_item)}) = floor({exact:.4g})",
        [
            ROUNDED_UP.gives(math.ceil(exact)),
            NOT_FLOORED.gives(exact),
        ],
        worked=worked,
    )


GIB_BANDWIDTH = Mistake(
    "gib-bandwidth", "You read GB/s as GiB/s", "Link bandwidth is quoted in decimal GB/s."
)
SECONDS_NOT_MS = Mistake(
    "seconds-not-ms", "You gave seconds, not milliseconds", "bytes / (bytes/s) is seconds; x 1000 for ms."
)
FORGOT_KV_CACHE = Mistake(
    "forgot-kv-cache", "You counted the weights only", "Every step also reads each sequence's whole KV cache."
)
ONE_SEQUENCE_KV = Mistake(
    "one-sequence-kv",
    "You read one sequence's cache, not the batch's",
    "Each sequence has its own cache; the batch reads all of them.",
)


@register(
    summary="Lower bound on one decode step: every weight byte and every cached K/V byte read once.",
    unit="ms",
    misconceptions=(FORGOT_KV_CACHE, ONE_SEQUENCE_KV, SECONDS_NOT_MS, GIB_BANDWIDTH),
)
def decode_step_ms(
    weight_bytes: Annotated[float, Param("weight bytes read per step on one GPU", gt=0)],
    kv_bytes_per_seq: Annotated[float, Param("KV-cache bytes of one sequence on one GPU", gt=0)],
    batch: Batch,
    bandwidth_gb_s: BandwidthGBs,
    *,
    worked: bool = True,
) -> Derivation:
    """A decode step reads the weights once for the whole batch and each sequence's cache once."""
    total = weight_bytes + batch * kv_bytes_per_seq
    value = total / (bandwidth_gb_s * 1e9) * 1e3
    return formula_result(
        value,
        "Decode step lower bound (ms)",
        "(weights + batch x KV per sequence) / bandwidth x 1000",
        f"({num(weight_bytes)} + {batch} x {num(kv_bytes_per_seq)}) / {num(bandwidth_gb_s)}e9 x 1000",
        [
            FORGOT_KV_CACHE.gives(weight_bytes / (bandwidth_gb_s * 1e9) * 1e3),
            ONE_SEQUENCE_KV.gives((weight_bytes + kv_bytes_per_seq) / (bandwidth_gb_s * 1e9) * 1e3),
            SECONDS_NOT_MS.gives(total / (bandwidth_gb_s * 1e9)),
            GIB_BANDWIDTH.gives(
                total / (bandwidth_gb_s * 1024**3) * 1e3, explanation="Bandwidth is quoted in decimal GB/s."
            ),
        ],
        worked=worked,
    )


FORGOT_MFU = Mistake(
    "forgot-mfu",
    "You assumed peak throughput",
    "Real kernels reach a fraction of peak; divide by the MFU given.",
)
FORGOT_GPUS = Mistake("forgot-gpus", "You used one GPU's throughput", "The work is split over all the GPUs.")
SPARSE_THROUGHPUT = Mistake(
    "sparse-throughput",
    "You used the 2:4-sparsity throughput",
    "Datasheet headline numbers assume sparsity; dense maths gets half.",
)


@register(
    summary="Time for a FLOP count on n GPUs at a utilisation: FLOPs / (n x TFLOPS x 1e12 x MFU), in ms.",
    unit="ms",
    misconceptions=(FORGOT_MFU, FORGOT_GPUS, SPARSE_THROUGHPUT, SECONDS_NOT_MS),
)
def compute_time_ms(
    flops: Annotated[float, Param("floating-point operations to do", gt=0)],
    tflops: Annotated[float, Param("dense throughput of one GPU, TFLOPS", gt=0)],
    n_gpus: Annotated[int, Param("GPUs sharing the work", gt=0)],
    mfu: Annotated[Share, Param("fraction of peak reached (model FLOPs utilisation)")],
    *,
    worked: bool = True,
) -> Derivation:
    """Compute-bound work takes FLOPs over the throughput actually reached."""
    rate = n_gpus * tflops * 1e12 * mfu
    value = flops / rate * 1e3
    return formula_result(
        value,
        "Compute time (ms)",
        "FLOPs / (n_gpus x TFLOPS x 1e12 x MFU) x 1000",
        f"{num(flops)} / ({n_gpus} x {num(tflops)}e12 x {mfu:g}) x 1000",
        [
            FORGOT_MFU.gives(flops / (n_gpus * tflops * 1e12) * 1e3),
            FORGOT_GPUS.gives(flops / (tflops * 1e12 * mfu) * 1e3),
            SPARSE_THROUGHPUT.gives(flops / (2 * rate) * 1e3),
            SECONDS_NOT_MS.gives(flops / rate, explanation="FLOPs / (FLOP/s) is seconds; x 1000 for ms."),
        ],
        worked=worked,
    )


USED_BIDIRECTIONAL = Mistake(
    "used-bidirectional",
    "You used the both-directions figure for one direction",
    "NVLink's quoted bandwidth sums both directions; one way gets half.",
)


@register(
    summary="Time to move bytes over a link in one direction: bytes / (link GB/s one way) in ms.",
    unit="ms",
    misconceptions=(USED_BIDIRECTIONAL, GIB_BANDWIDTH, SECONDS_NOT_MS),
)
def transfer_time_ms(
    n_bytes: Annotated[float, Param("bytes to move", gt=0)],
    link_gb_s: Annotated[float, Param("link bandwidth as quoted, decimal GB/s", gt=0)],
    bidirectional: Annotated[bool, Param("the quoted figure sums both directions (NVLink)")] = True,
    *,
    worked: bool = True,
) -> Derivation:
    """A ring sends one way at a time, so a both-directions figure gives half of it per direction."""
    one_way = link_gb_s / 2 if bidirectional else link_gb_s
    value = n_bytes / (one_way * 1e9) * 1e3
    wrong = [
        GIB_BANDWIDTH.gives(n_bytes / (one_way * 1024**3) * 1e3),
        SECONDS_NOT_MS.gives(n_bytes / (one_way * 1e9)),
    ]
    if bidirectional:
        wrong.insert(
            0,
            USED_BIDIRECTIONAL.gives(n_bytes / (link_gb_s * 1e9) * 1e3),
        )
    return formula_result(
        value,
        "Transfer time (ms)",
        "bytes / (one-way GB/s x 1e9) x 1000",
        f"{num(n_bytes)} / ({num(one_way)}e9) x 1000",
        wrong,
        worked=worked,
    )


INVERTED = Mistake(
    "inverted",
    "You divided bandwidth by throughput",
    "Intensity is FLOPs per byte: throughput over bandwidth.",
)
TB_FOR_GB = Mistake(
    "tb-for-gb",
    "You mixed TFLOPS with TB/s and GB/s",
    "Put both in base units: 1e12 FLOP/s per TFLOPS, 1e9 B/s per GB/s.",
)


@register(
    summary="The roofline's ridge: FLOPs per byte where compute and bandwidth limits meet.",
    unit="",
    misconceptions=(SPARSE_THROUGHPUT, INVERTED, TB_FOR_GB),
)
def ridge_point(tflops: Tflops, bandwidth_gb_s: BandwidthGBs, *, worked: bool = True) -> Derivation:
    """Below this intensity a kernel waits on memory; above it, on the tensor cores."""
    value = tflops * 1e12 / (bandwidth_gb_s * 1e9)
    return formula_result(
        value,
        "Ridge point (FLOP/byte)",
        "peak FLOP/s / bandwidth B/s",
        f"{num(tflops)}e12 / {num(bandwidth_gb_s)}e9",
        [
            SPARSE_THROUGHPUT.gives(
                2 * value,
                label="You used the sparsity throughput",
                explanation="The headline number assumes 2:4 sparsity; dense maths gets half.",
            ),
            INVERTED.gives(1 / value),
            TB_FOR_GB.gives(value / 1000),
        ],
        worked=worked,
    )


DIFFERENCE = Mistake("difference", "You subtracted instead of dividing", "A factor is a quotient.")


@register(
    summary="How many times larger one quantity is than another: a / b.",
    unit="x",
    misconceptions=(INVERTED, DIFFERENCE),
)
def quantity_ratio(
    numerator: Annotated[float, Param("the larger quantity (before)", gt=0)],
    denominator: Annotated[float, Param("the smaller quantity (after)", gt=0)],
    *,
    worked: bool = True,
) -> Derivation:
    """A saving or a speed-up is a ratio, not a difference."""
    value = numerator / denominator
    return formula_result(
        value,
        "Ratio",
        "a / b",
        f"{num(numerator)} / {num(denominator)}",
        [
            INVERTED.gives(
                denominator / numerator,
                label="You inverted the ratio",
                explanation="Compare before over after.",
            ),
            DIFFERENCE.gives(numerator - denominator),
        ],
        worked=worked,
    )


FORGOT_SECOND = Mistake("forgot-second", "You left the second part out", "Both parts are there at once.")
FORGOT_FIRST = Mistake("forgot-first", "You left the first part out", "Both parts are there at once.")


@register(
    summary="The total of two memory parts: a + b bytes.",
    unit="B",
    misconceptions=(FORGOT_SECOND, FORGOT_FIRST),
)
def add_bytes(
    first: Annotated[float, Param("the first part, bytes", gt=0)],
    second: Annotated[float, Param("the second part, bytes", gt=0)],
    *,
    worked: bool = True,
) -> Derivation:
    """Both parts sit in memory at once: a budget is the sum."""
    value = first + second
    return formula_result(
        value,
        "Total",
        "first + second",
        f"{num(first)} + {num(second)}",
        [
            FORGOT_SECOND.gives(first),
            FORGOT_FIRST.gives(second),
        ],
        worked=worked,
    )
