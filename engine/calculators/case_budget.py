"""Provides the budget steps case studies chain: the roofline batch, read time and throughput, FLOP
totals, prefix sharing and GPU counts.

Each takes plain quantities (FLOP/byte, bytes, GB/s, ms) so a step can build on an earlier answer.
"""

from __future__ import annotations

import math

from engine.calculator import Arg, register
from engine.calculators.case_common import formula_result, num, require_positive_numbers
from engine.derivation import Derivation


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
    unit="",
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
        "",
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
    "gpus_needed",
    summary="GPUs needed to hold a total evenly sharded: ceil(bytes / (GB x 1e9)).",
    unit="",
    args=(
        Arg("n_bytes", "float", "bytes to hold"),
        Arg("memory_gb", "float", "one GPU's memory, decimal GB"),
    ),
    misconceptions=("floor-not-ceil", "gb-as-gib"),
)
def gpus_needed(n_bytes: float, memory_gb: float, *, worked: bool = True) -> Derivation:
    """A partial GPU is a whole GPU."""
    calc = "gpus_needed"
    require_positive_numbers(calc, n_bytes=n_bytes, memory_gb=memory_gb)
    exact = n_bytes / (memory_gb * 1e9)
    value = math.ceil(exact)
    return formula_result(
        calc,
        value,
        "",
        "GPUs",
        "ceil(bytes / (GB x 1e9))",
        f"ceil({num(n_bytes)} / {num(memory_gb)}e9)",
        [
            ("floor-not-ceil", "You rounded down", "The remainder still needs a GPU.", math.floor(exact)),
            (
                "gb-as-gib",
                "You read GB as GiB",
                "Datasheets state decimal GB.",
                math.ceil(n_bytes / (memory_gb * 1024**3)),
            ),
        ],
        worked=worked,
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
