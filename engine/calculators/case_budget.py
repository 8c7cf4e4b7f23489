"""Provides the budget steps case studies chain: the roofline batch, read time and throughput, FLOP
totals, prefix sharing and GPU counts (under ZeRO-3 data parallelism the states shard, a micro-batch's
activations do not).

Each takes plain quantities (FLOP/byte, bytes, GB/s, ms) so a step can build on an earlier answer.
"""

from __future__ import annotations

import math
from typing import Annotated

from engine.calculator import Param, register, result
from engine.calculators.case_common import formula_result, num
from engine.calculators.common import BandwidthGBs, Batch, BytesPerParam
from engine.derivation import Derivation, Mistake

GIB = 2**30
"""Bytes in a GiB: GPUs report memory in MiB / GiB, powers of 2."""


ActivationBytes = Annotated[
    float, Param("activations one micro-batch keeps for the backward pass, bytes", gt=0)
]
StateBytes = Annotated[
    float, Param("weights, gradients and optimiser states of the whole model, bytes", gt=0)
]


FLOOR_NOT_CEIL = Mistake("floor-not-ceil", "You rounded down", "The remainder still needs a GPU.")
MAC_AS_ONE = Mistake("mac-as-one", "You counted one FLOP per weight per token", "A multiply-add is 2 FLOPs.")
FORGOT_BYTES = Mistake("forgot-bytes", "You forgot the bytes per weight", "Intensity is per byte.")


@register(
    summary="Smallest decode batch whose weight GEMMs reach the ridge: ceil(ridge x bytes / 2).",
    unit="",
    misconceptions=(MAC_AS_ONE, FORGOT_BYTES, FLOOR_NOT_CEIL),
)
def crossover_batch(
    ridge: Annotated[float, Param("the GPU's ridge point, FLOP/byte", gt=0)],
    bytes_per_param: BytesPerParam,
    *,
    worked: bool = True,
) -> Derivation:
    """Each weight read serves the batch: 2 x batch FLOPs per bytes_per_param bytes."""
    exact = ridge * bytes_per_param / 2
    value = math.ceil(exact)
    return formula_result(
        value,
        "Batch at the ridge",
        "ceil(ridge x bytes per weight / 2)",
        f"ceil({num(ridge)} x {bytes_per_param:g} / 2)",
        [
            MAC_AS_ONE.gives(math.ceil(ridge * bytes_per_param)),
            FORGOT_BYTES.gives(math.ceil(ridge / 2)),
            FLOOR_NOT_CEIL.gives(
                math.floor(exact), explanation="Below the ridge the step is still memory-bound."
            ),
        ],
        worked=worked,
    )


SECONDS_NOT_MS = Mistake("seconds-not-ms", "You gave seconds", "x 1000 for milliseconds.")
GIB_BANDWIDTH = Mistake("gib-bandwidth", "You read GB/s as GiB/s", "Bandwidth is decimal.")


@register(
    summary="Time to read bytes from memory once: bytes / (GB/s x 1e9), in ms.",
    unit="ms",
    misconceptions=(SECONDS_NOT_MS, GIB_BANDWIDTH),
)
def memory_time_ms(
    n_bytes: Annotated[float, Param("bytes read", gt=0)],
    bandwidth_gb_s: BandwidthGBs,
    *,
    worked: bool = True,
) -> Derivation:
    """A memory-bound pass takes its bytes over the bandwidth."""
    value = n_bytes / (bandwidth_gb_s * 1e9) * 1e3
    return formula_result(
        value,
        "Read time (ms)",
        "bytes / (GB/s x 1e9) x 1000",
        f"{num(n_bytes)} / ({num(bandwidth_gb_s)}e9) x 1000",
        [
            SECONDS_NOT_MS.gives(value / 1000),
            GIB_BANDWIDTH.gives(n_bytes / (bandwidth_gb_s * 1024**3) * 1e3),
        ],
        worked=worked,
    )


PER_SEQUENCE = Mistake("per-sequence", "You gave one sequence's rate", "The batch makes batch tokens a step.")
MS_AS_SECONDS = Mistake("ms-as-seconds", "You treated milliseconds as seconds", "1000 ms in a second.")


@register(
    summary="Tokens a batch generates per second: batch / step time.",
    unit="",
    misconceptions=(PER_SEQUENCE, MS_AS_SECONDS),
)
def tokens_per_second(
    batch: Batch,
    step_ms: Annotated[float, Param("time of one step, ms", gt=0)],
    *,
    worked: bool = True,
) -> Derivation:
    """Every sequence in the batch gains one token per step."""
    value = batch * 1000 / step_ms
    return formula_result(
        value,
        "Tokens per second",
        "batch x 1000 / step ms",
        f"{batch} x 1000 / {num(step_ms)}",
        [
            PER_SEQUENCE.gives(1000 / step_ms),
            MS_AS_SECONDS.gives(batch / step_ms),
        ],
        worked=worked,
    )


FORGOT_SECOND = Mistake("forgot-second", "You left the second part out", "Both parts run.")
FORGOT_FIRST = Mistake("forgot-first", "You left the first part out", "Both parts run.")


@register(
    summary="The total of two FLOP counts: a + b.",
    unit="FLOPs",
    misconceptions=(FORGOT_SECOND, FORGOT_FIRST),
)
def add_flops(
    first: Annotated[float, Param("the first part", gt=0)],
    second: Annotated[float, Param("the second part", gt=0)],
    *,
    worked: bool = True,
) -> Derivation:
    """Both parts run: the work is the sum."""
    return formula_result(
        first + second,
        "Total FLOPs",
        "first + second",
        f"{num(first)} + {num(second)}",
        [
            FORGOT_SECOND.gives(first),
            FORGOT_FIRST.gives(second),
        ],
        worked=worked,
    )


COUNTED_ALL = Mistake("counted-all", "You saved every copy", "One copy must stay in the cache.")
FORGOT_REQUESTS = Mistake("forgot-requests", "You saved one copy", "Every request after the first reuses it.")


@register(
    summary="Bytes saved when n requests share one cached prefix: (n - 1) x prefix bytes.",
    unit="B",
    misconceptions=(COUNTED_ALL, FORGOT_REQUESTS),
)
def shared_prefix_saving(
    prefix_bytes: Annotated[float, Param("KV bytes of the prefix once", gt=0)],
    requests: Annotated[int, Param("requests sharing it", gt=0)],
    *,
    worked: bool = True,
) -> Derivation:
    """One copy stays; the other n - 1 are saved."""
    if requests < 2:
        raise ValueError(f"sharing needs at least 2 requests, got {requests}")
    value = (requests - 1) * prefix_bytes
    return formula_result(
        value,
        "Bytes saved",
        "(n - 1) x prefix bytes",
        f"({requests} - 1) x {num(prefix_bytes)}",
        [
            COUNTED_ALL.gives(requests * prefix_bytes),
            FORGOT_REQUESTS.gives(prefix_bytes),
        ],
        worked=worked,
    )


SHARDED_ACTIVATIONS = Mistake(
    "sharded-activations",
    "You split the activations over the GPUs too",
    "Data parallelism gives each GPU its own micro-batch: the activations of that micro-batch all "
    "stay on it. Only the ZeRO-3-sharded states shrink as GPUs are added.",
)
GB_AS_GIB = Mistake(
    "gb-as-gib",
    "You read the GiB the GPU reports as decimal GB",
    "nvidia-smi reports MiB and GiB (powers of 2): multiply GiB by 2^30, not 10^9.",
)


@register(
    summary="Data-parallel GPUs that fit ZeRO-3-sharded states beside one micro-batch's activations: "
    "ceil(states / (memory - activations)).",
    unit="",
    misconceptions=(FLOOR_NOT_CEIL, SHARDED_ACTIVATIONS, GB_AS_GIB),
)
def zero3_gpus_needed(
    state_bytes: StateBytes,
    activation_bytes: ActivationBytes,
    memory_gib: Annotated[float, Param("one GPU's memory as the device reports it, GiB (2^30 bytes)", gt=0)],
    *,
    worked: bool = True,
) -> Derivation:
    """ZeRO-3 splits the states over G GPUs, but each GPU runs its own micro-batch and keeps all of its
    activations: a GPU needs states / G + activations <= memory, so only the states shrink with G."""
    memory = memory_gib * GIB
    room = memory - activation_bytes
    if room <= 0:
        raise ValueError(
            f"one micro-batch's activations ({activation_bytes:.4g} B) fill the GPU's "
            f"{memory_gib:g} GiB on their own: no number of data-parallel GPUs fits them; recompute, or "
            "split the micro-batch with tensor + sequence or context parallelism"
        )
    exact = state_bytes / room
    value = math.ceil(exact)
    wrong = [
        FLOOR_NOT_CEIL.gives(max(math.floor(exact), 1)),
        SHARDED_ACTIVATIONS.gives(math.ceil((state_bytes + activation_bytes) / memory)),
    ]
    if memory_gib * 1e9 > activation_bytes:
        wrong.append(GB_AS_GIB.gives(math.ceil(state_bytes / (memory_gib * 1e9 - activation_bytes))))
    return formula_result(
        value,
        "GPUs",
        "ceil(states / (memory GiB x 2^30 - activations))",
        f"ceil({num(state_bytes)} / ({num(memory_gib)} x 2^30 - {num(activation_bytes)}))",
        wrong,
        worked=worked,
    )


FORGOT_STATES = Mistake(
    "forgot-states", "You left the sharded states out", "The states' shard sits beside them."
)
FORGOT_SHARDING = Mistake(
    "forgot-sharding",
    "You did not shard the states",
    "ZeRO-3 / FSDP splits weights, gradients and optimiser states evenly over the GPUs.",
)


@register(
    summary="What one data-parallel GPU holds under ZeRO-3: states / G + its own micro-batch's activations.",
    unit="B",
    misconceptions=(SHARDED_ACTIVATIONS, FORGOT_STATES, FORGOT_SHARDING),
)
def zero3_bytes_per_gpu(
    state_bytes: StateBytes,
    activation_bytes: ActivationBytes,
    n_gpus: Annotated[int, Param("data-parallel GPUs the states are sharded over", gt=0)],
    memory_gib: Annotated[
        float, Param("one GPU's memory as the device reports it, GiB (for the verdict note)", gt=0)
    ],
    *,
    worked: bool = True,
) -> Derivation:
    """The states divide by G; the activations do not, since each GPU keeps its whole micro-batch's."""
    value = state_bytes / n_gpus + activation_bytes
    memory = memory_gib * GIB
    wrong = [
        SHARDED_ACTIVATIONS.gives(
            (state_bytes + activation_bytes) / n_gpus,
            explanation="Each data-parallel GPU runs its own micro-batch and keeps all of its activations.",
        ),
        FORGOT_STATES.gives(activation_bytes),
        FORGOT_SHARDING.gives(state_bytes + activation_bytes),
    ]
    if activation_bytes >= memory:
        note = (
            f"The activations alone ({activation_bytes / GIB:.1f} GiB) exceed the GPU's "
            f"{memory_gib:.1f} GiB: more data-parallel GPUs cannot help. Recompute, shrink the micro-batch, "
            "or split it with tensor + sequence or context parallelism."
        )
    elif value > memory:
        least = math.ceil(state_bytes / (memory - activation_bytes))
        note = (
            f"That exceeds the GPU's {memory_gib:.1f} GiB ({memory / 1e9:.1f} GB): it would take {least} "
            "GPUs, because only the states shrink as GPUs are added."
        )
    else:
        note = f"That fits in the GPU's {memory_gib:.1f} GiB ({memory / 1e9:.1f} GB)."
    d = formula_result(
        value,
        "Bytes on one GPU",
        "states / G + activations of one micro-batch",
        f"{num(state_bytes)} / {n_gpus} + {num(activation_bytes)}",
        wrong,
        worked=worked,
    )
    return d if not worked else result(d.value, d.steps, d.misconceptions, notes=(note,))


MULTIPLIED = Mistake("multiplied", "You multiplied", "Each device holds a 1/parts share.")


@register(
    summary="Tokens per device when a sequence is split evenly: total / parts.",
    unit="",
    misconceptions=(MULTIPLIED,),
)
def exact_split(
    total: Annotated[int, Param("tokens in the sequence", gt=0)],
    parts: Annotated[int, Param("devices", gt=0)],
    *,
    worked: bool = True,
) -> Derivation:
    """Context parallelism gives each device one contiguous block."""
    if total % parts:
        raise ValueError(f"total={total} is not divisible by parts={parts}")
    value = total // parts
    return formula_result(
        value,
        "Block per device",
        "total / parts",
        f"{total} / {parts}",
        [MULTIPLIED.gives(total * parts)],
        worked=worked,
    )
