"""Provides the budget steps case studies chain: the roofline batch, read time and throughput, FLOP
totals, prefix sharing and GPU counts (under ZeRO-3 data parallelism the states shard, a micro-batch's
activations do not).

Each takes plain quantities (FLOP/byte, bytes, GB/s, ms) so a step can build on an earlier answer.
"""

from __future__ import annotations

import math

from engine.calculator import Arg, register
from engine.calculators.case_common import formula_result, num, require_positive_numbers
from engine.derivation import Derivation

GIB = 2**30
"""Bytes in a GiB: GPUs report memory in MiB / GiB, powers of 2."""


@register(
    "crossover_batch",
    summary="Smallest decode batch whose weight GEMMs reach the ridge: ceil(ridge x bytes / 2).",
    unit="",
    args=(
        Arg("ridge", "float", "the GPU's ridge point, FLOP/byte"),
        Arg("bytes_per_param", "float", "bytes per weight"),
    ),
    misconceptions=("mac-as-one", "forgot-bytes", "floor-not-ceil"),
)
def crossover_batch(ridge: float, bytes_per_param: float, *, worked: bool = True) -> Derivation:
    """Each weight read serves the batch: 2 x batch FLOPs per bytes_per_param bytes."""
    calc = "crossover_batch"
    require_positive_numbers(calc, ridge=ridge, bytes_per_param=bytes_per_param)
    exact = ridge * bytes_per_param / 2
    value = math.ceil(exact)
    return formula_result(
        calc,
        value,
        "",
        "Batch at the ridge",
        "ceil(ridge x bytes per weight / 2)",
        f"ceil({num(ridge)} x {bytes_per_param:g} / 2)",
        [
            (
                "mac-as-one",
                "You counted one FLOP per weight per token",
                "A multiply-add is 2 FLOPs.",
                math.ceil(ridge * bytes_per_param),
            ),
            (
                "forgot-bytes",
                "You forgot the bytes per weight",
                "Intensity is per byte.",
                math.ceil(ridge / 2),
            ),
            (
                "floor-not-ceil",
                "You rounded down",
                "Below the ridge the step is still memory-bound.",
                math.floor(exact),
            ),
        ],
        worked=worked,
    )


@register(
    "memory_time_ms",
    summary="Time to read bytes from memory once: bytes / (GB/s x 1e9), in ms.",
    unit="ms",
    args=(
        Arg("n_bytes", "float", "bytes read"),
        Arg("bandwidth_gb_s", "float", "memory bandwidth, decimal GB/s"),
    ),
    misconceptions=("seconds-not-ms", "gib-bandwidth"),
)
def memory_time_ms(n_bytes: float, bandwidth_gb_s: float, *, worked: bool = True) -> Derivation:
    """A memory-bound pass takes its bytes over the bandwidth."""
    calc = "memory_time_ms"
    require_positive_numbers(calc, n_bytes=n_bytes, bandwidth_gb_s=bandwidth_gb_s)
    value = n_bytes / (bandwidth_gb_s * 1e9) * 1e3
    return formula_result(
        calc,
        value,
        "ms",
        "Read time (ms)",
        "bytes / (GB/s x 1e9) x 1000",
        f"{num(n_bytes)} / ({num(bandwidth_gb_s)}e9) x 1000",
        [
            ("seconds-not-ms", "You gave seconds", "x 1000 for milliseconds.", value / 1000),
            (
                "gib-bandwidth",
                "You read GB/s as GiB/s",
                "Bandwidth is decimal.",
                n_bytes / (bandwidth_gb_s * 1024**3) * 1e3,
            ),
        ],
        worked=worked,
    )


@register(
    "tokens_per_second",
    summary="Tokens a batch generates per second: batch / step time.",
    unit="",
    args=(Arg("batch", "int", "sequences decoded together"), Arg("step_ms", "float", "time of one step, ms")),
    misconceptions=("per-sequence", "ms-as-seconds"),
)
def tokens_per_second(batch: int, step_ms: float, *, worked: bool = True) -> Derivation:
    """Every sequence in the batch gains one token per step."""
    calc = "tokens_per_second"
    require_positive_numbers(calc, batch=batch, step_ms=step_ms)
    value = batch * 1000 / step_ms
    return formula_result(
        calc,
        value,
        "",
        "Tokens per second",
        "batch x 1000 / step ms",
        f"{batch} x 1000 / {num(step_ms)}",
        [
            (
                "per-sequence",
                "You gave one sequence's rate",
                "The batch makes batch tokens a step.",
                1000 / step_ms,
            ),
            ("ms-as-seconds", "You treated milliseconds as seconds", "1000 ms in a second.", batch / step_ms),
        ],
        worked=worked,
    )


@register(
    "add_flops",
    summary="The total of two FLOP counts: a + b.",
    unit="FLOPs",
    args=(Arg("first", "float", "the first part"), Arg("second", "float", "the second part")),
    misconceptions=("forgot-second", "forgot-first"),
)
def add_flops(first: float, second: float, *, worked: bool = True) -> Derivation:
    """Both parts run: the work is the sum."""
    calc = "add_flops"
    require_positive_numbers(calc, first=first, second=second)
    return formula_result(
        calc,
        first + second,
        "FLOPs",
        "Total FLOPs",
        "first + second",
        f"{num(first)} + {num(second)}",
        [
            ("forgot-second", "You left the second part out", "Both parts run.", first),
            ("forgot-first", "You left the first part out", "Both parts run.", second),
        ],
        worked=worked,
    )


@register(
    "shared_prefix_saving",
    summary="Bytes saved when n requests share one cached prefix: (n - 1) x prefix bytes.",
    unit="B",
    args=(
        Arg("prefix_bytes", "float", "KV bytes of the prefix once"),
        Arg("requests", "int", "requests sharing it"),
    ),
    misconceptions=("counted-all", "forgot-requests"),
)
def shared_prefix_saving(prefix_bytes: float, requests: int, *, worked: bool = True) -> Derivation:
    """One copy stays; the other n - 1 are saved."""
    calc = "shared_prefix_saving"
    require_positive_numbers(calc, prefix_bytes=prefix_bytes, requests=requests)
    if requests < 2:
        raise ValueError(f"{calc}: sharing needs at least 2 requests, got {requests}")
    value = (requests - 1) * prefix_bytes
    return formula_result(
        calc,
        value,
        "B",
        "Bytes saved",
        "(n - 1) x prefix bytes",
        f"({requests} - 1) x {num(prefix_bytes)}",
        [
            (
                "counted-all",
                "You saved every copy",
                "One copy must stay in the cache.",
                requests * prefix_bytes,
            ),
            (
                "forgot-requests",
                "You saved one copy",
                "Every request after the first reuses it.",
                prefix_bytes,
            ),
        ],
        worked=worked,
    )


@register(
    "zero3_gpus_needed",
    summary="Data-parallel GPUs that fit ZeRO-3-sharded states beside one micro-batch's activations: "
    "ceil(states / (memory - activations)).",
    unit="",
    args=(
        Arg("state_bytes", "float", "weights, gradients and optimiser states of the whole model, bytes"),
        Arg("activation_bytes", "float", "activations one micro-batch keeps for the backward pass, bytes"),
        Arg("memory_gib", "float", "one GPU's memory as the device reports it, GiB (2^30 bytes)"),
    ),
    misconceptions=("floor-not-ceil", "sharded-activations", "gb-as-gib"),
)
def zero3_gpus_needed(
    state_bytes: float, activation_bytes: float, memory_gib: float, *, worked: bool = True
) -> Derivation:
    """ZeRO-3 splits the states over G GPUs, but each GPU runs its own micro-batch and keeps all of its
    activations: a GPU needs states / G + activations <= memory, so only the states shrink with G."""
    calc = "zero3_gpus_needed"
    require_positive_numbers(
        calc, state_bytes=state_bytes, activation_bytes=activation_bytes, memory_gib=memory_gib
    )
    memory = memory_gib * GIB
    room = memory - activation_bytes
    if room <= 0:
        raise ValueError(
            f"{calc}: one micro-batch's activations ({activation_bytes:.4g} B) fill the GPU's "
            f"{memory_gib:g} GiB on their own: no number of data-parallel GPUs fits them; recompute, or "
            "split the micro-batch with tensor + sequence or context parallelism"
        )
    exact = state_bytes / room
    value = math.ceil(exact)
    wrong = [
        ("floor-not-ceil", "You rounded down", "The remainder still needs a GPU.", max(math.floor(exact), 1)),
        (
            "sharded-activations",
            "You split the activations over the GPUs too",
            "Data parallelism gives each GPU its own micro-batch: the activations of that micro-batch all "
            "stay on it. Only the ZeRO-3-sharded states shrink as GPUs are added.",
            math.ceil((state_bytes + activation_bytes) / memory),
        ),
    ]
    if memory_gib * 1e9 > activation_bytes:
        wrong.append(
            (
                "gb-as-gib",
                "You read the GiB the GPU reports as decimal GB",
                "nvidia-smi reports MiB and GiB (powers of 2): multiply GiB by 2^30, not 10^9.",
                math.ceil(state_bytes / (memory_gib * 1e9 - activation_bytes)),
            )
        )
    return formula_result(
        calc,
        value,
        "",
        "GPUs",
        "ceil(states / (memory GiB x 2^30 - activations))",
        f"ceil({num(state_bytes)} / ({num(memory_gib)} x 2^30 - {num(activation_bytes)}))",
        wrong,
        worked=worked,
    )


@register(
    "zero3_bytes_per_gpu",
    summary="What one data-parallel GPU holds under ZeRO-3: states / G + its own micro-batch's activations.",
    unit="B",
    args=(
        Arg("state_bytes", "float", "weights, gradients and optimiser states of the whole model, bytes"),
        Arg("activation_bytes", "float", "activations one micro-batch keeps for the backward pass, bytes"),
        Arg("n_gpus", "int", "data-parallel GPUs the states are sharded over"),
        Arg("memory_gib", "float", "one GPU's memory as the device reports it, GiB (for the verdict note)"),
    ),
    misconceptions=("sharded-activations", "forgot-states", "forgot-sharding"),
)
def zero3_bytes_per_gpu(
    state_bytes: float, activation_bytes: float, n_gpus: int, memory_gib: float, *, worked: bool = True
) -> Derivation:
    """The states divide by G; the activations do not, since each GPU keeps its whole micro-batch's."""
    calc = "zero3_bytes_per_gpu"
    require_positive_numbers(
        calc, state_bytes=state_bytes, activation_bytes=activation_bytes, n_gpus=n_gpus, memory_gib=memory_gib
    )
    value = state_bytes / n_gpus + activation_bytes
    memory = memory_gib * GIB
    wrong = [
        (
            "sharded-activations",
            "You split the activations over the GPUs too",
            "Each data-parallel GPU runs its own micro-batch and keeps all of its activations.",
            (state_bytes + activation_bytes) / n_gpus,
        ),
        (
            "forgot-states",
            "You left the sharded states out",
            "The states' shard sits beside them.",
            activation_bytes,
        ),
        (
            "forgot-sharding",
            "You did not shard the states",
            "ZeRO-3 / FSDP splits weights, gradients and optimiser states evenly over the GPUs.",
            state_bytes + activation_bytes,
        ),
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
        calc,
        value,
        "B",
        "Bytes on one GPU",
        "states / G + activations of one micro-batch",
        f"{num(state_bytes)} / {n_gpus} + {num(activation_bytes)}",
        wrong,
        worked=worked,
    )
    return (
        d
        if not worked
        else Derivation(d.calculator, d.value, d.unit, d.steps, d.misconceptions, notes=(note,))
    )


@register(
    "exact_split",
    summary="Tokens per device when a sequence is split evenly: total / parts.",
    unit="",
    args=(Arg("total", "int", "tokens in the sequence"), Arg("parts", "int", "devices")),
    misconceptions=("multiplied",),
)
def exact_split(total: int, parts: int, *, worked: bool = True) -> Derivation:
    """Context parallelism gives each device one contiguous block."""
    calc = "exact_split"
    require_positive_numbers(calc, total=total, parts=parts)
    if total % parts:
        raise ValueError(f"{calc}: total={total} is not divisible by parts={parts}")
    value = total // parts
    return formula_result(
        calc,
        value,
        "",
        "Block per device",
        "total / parts",
        f"{total} / {parts}",
        [("multiplied", "You multiplied", "Each device holds a 1/parts share.", total * parts)],
        worked=worked,
    )
