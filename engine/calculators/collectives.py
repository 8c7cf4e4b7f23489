"""Provides the alpha-beta cost of messages and all-reduces: ring and tree times, the latency-bound
size, and the tensor-parallel all-reduces of a forward pass.
"""

from __future__ import annotations

import math
from typing import Annotated, Literal

from engine.calculator import Param, register, result
from engine.calculators.case_common import formula_result, num
from engine.calculators.common import DModel
from engine.calculators.pipeline_comms import MicroBatches, Stages, require_pipeline
from engine.derivation import Derivation, Misconception, Mistake, Step

_BYTES_PER_MS = 1e6
"""Bytes one GB/s moves in a millisecond: n / (beta x 1e6) is a time in ms."""
_US_PER_MS = 1000
AlphaUs = Annotated[float, Param("start-up latency of one message (one ring step), microseconds", gt=0)]
LinkBandwidth = Annotated[float, Param("bandwidth one GPU sends at, decimal GB/s", gt=0)]
RingGpus = Annotated[int, Param("GPUs in the all-reduce")]


FORGOT_ALPHA = Mistake(
    "forgot-alpha",
    "You left out the latency alpha",
    "Every message pays alpha before its first byte arrives; for small messages that is most of it.",
)
FORGOT_BANDWIDTH = Mistake(
    "forgot-bandwidth", "You counted only the latency", "The bytes still take n / beta to cross the link."
)
ALPHA_AS_MS = Mistake(
    "alpha-as-ms",
    "You read alpha in ms instead of microseconds",
    "Alpha is a few microseconds: divide by 1,000 for ms.",
)
ONE_ALPHA = Mistake(
    "one-alpha",
    "You paid alpha once for all the messages",
    "Each message is sent and started on its own, so each pays alpha.",
)


@register(
    summary="Alpha-beta cost of messages: count x (alpha + n / beta), in ms.",
    unit="ms",
    misconceptions=(FORGOT_ALPHA, FORGOT_BANDWIDTH, ONE_ALPHA, ALPHA_AS_MS),
)
def alpha_beta_time(
    n_bytes: Annotated[float, Param("bytes in one message", gt=0)],
    alpha_us: AlphaUs,
    bandwidth_gb_s: LinkBandwidth,
    messages: Annotated[int, Param("messages sent one after another", gt=0)] = 1,
    *,
    worked: bool = True,
) -> Derivation:
    """Every message pays the start-up latency once, however small it is."""
    alpha = alpha_us / _US_PER_MS
    wire = n_bytes / (bandwidth_gb_s * _BYTES_PER_MS)
    value = messages * (alpha + wire)
    wrong: list[Misconception] = [
        FORGOT_ALPHA.gives(messages * wire),
        FORGOT_BANDWIDTH.gives(messages * alpha),
        ALPHA_AS_MS.gives(messages * (alpha_us + wire)),
    ]
    if messages > 1:
        wrong.append(ONE_ALPHA.gives(alpha + messages * wire))
    return formula_result(
        value,
        "Time of the messages",
        "count x (alpha + n / beta)",
        f"{messages} x ({num(alpha_us)} / 1000 + {num(n_bytes)} / ({num(bandwidth_gb_s)} x 1e6))",
        wrong,
        worked=worked,
    )


def _hops(p: int, algorithm: str) -> int:
    """Latency steps of an all-reduce: 2 (p - 1) around a ring, 2 ceil(log2 p) up and down a tree."""
    return 2 * (p - 1) if algorithm == "ring" else 2 * math.ceil(math.log2(p))


RING_HOPS = Mistake(
    "ring-hops",
    "You used the ring's 2 (p - 1) hops",
    "A tree pays 2 ceil(log2 p) hops of alpha: it stays bandwidth-bound to smaller messages.",
)
TREE_HOPS = Mistake(
    "tree-hops",
    "You used a tree's log2 p hops for the ring",
    "A ring passes each chunk around every GPU: 2 (p - 1) hops.",
)
RING_NO_X2 = Mistake(
    "ring-no-x2",
    "You counted only the reduce-scatter half",
    "An all-reduce is a reduce-scatter then an all-gather: each moves (p - 1) / p of the message.",
)
WHOLE_MESSAGE_PER_HOP = Mistake(
    "whole-message-per-hop",
    "You sent the whole message at every step",
    "Each of the 2 (p - 1) steps moves one 1/p chunk, not the whole message.",
)


@register(
    summary="All-reduce under alpha-beta: hops x alpha + 2 (p - 1) / p x n / beta (ring or tree), in ms.",
    unit="ms",
    misconceptions=(
        FORGOT_ALPHA,
        ONE_ALPHA,
        RING_NO_X2,
        WHOLE_MESSAGE_PER_HOP,
        RING_HOPS,
        TREE_HOPS,
        ALPHA_AS_MS,
    ),
)
def allreduce_time(
    n_bytes: Annotated[float, Param("bytes each GPU contributes (the message)", gt=0)],
    p: RingGpus,
    alpha_us: AlphaUs,
    bandwidth_gb_s: LinkBandwidth,
    algorithm: Annotated[
        Literal["ring", "tree"], Param("ring (2 (p - 1) hops) or tree (2 ceil(log2 p) hops)")
    ] = "ring",
    term: Annotated[
        Literal["total", "latency", "bandwidth"],
        Param("total, latency (the alpha part) or bandwidth (the bytes part)"),
    ] = "total",
    *,
    worked: bool = True,
) -> Derivation:
    """Each GPU sends 2 (p - 1) / p of the message whatever the algorithm; the hop count sets the latency."""
    if p < 2:
        raise ValueError(f"an all-reduce needs p >= 2 GPUs, got p={p}")
    alpha = alpha_us / _US_PER_MS
    wire = n_bytes / (bandwidth_gb_s * _BYTES_PER_MS)
    hops = _hops(p, algorithm)
    lat = hops * alpha
    bw = 2 * (p - 1) / p * wire
    value = {"total": lat + bw, "latency": lat, "bandwidth": bw}[term]
    if not worked:
        return result(value)
    hop_formula = "2 (p - 1)" if algorithm == "ring" else "2 ceil(log2 p)"
    steps: list[Step] = []
    lat_label, bw_label = "Latency term", "Bandwidth term"
    if term != "bandwidth":
        steps.append(Step(lat_label, f"{hop_formula} x alpha", f"{hops} x {num(alpha_us)} / 1000", lat, "ms"))
    if term != "latency":
        steps.append(
            Step(
                bw_label,
                "2 (p - 1) / p x n / beta",
                f"2 x {p - 1} / {p} x {num(n_bytes)} / ({num(bandwidth_gb_s)} x 1e6)",
                bw,
                "ms",
            )
        )
    if term == "total":
        steps.append(Step("All-reduce time", "latency + bandwidth", f"{num(lat)} + {num(bw)}", value, "ms"))
    last = steps[-1].label
    wrong: list[Misconception] = []

    def add(m: Mistake, v_: float, **text: str) -> None:
        wrong.append(m.gives(v_, last, **text))

    other_hops = _hops(p, "tree" if algorithm == "ring" else "ring")
    if term != "bandwidth":
        add(
            ONE_ALPHA,
            value - lat + alpha,
            label="You paid alpha once",
            explanation=f"The {algorithm} all-reduce has {hops} steps that wait on each other, each paying "
            "alpha.",
        )
        if other_hops != hops:
            if algorithm == "ring":
                add(TREE_HOPS, value - lat + other_hops * alpha)
            else:
                add(
                    RING_HOPS,
                    value - lat + other_hops * alpha,
                    label="You used the ring's 2 (p - 1) hops for the tree",
                    explanation="A tree reduces up and broadcasts down its depth: 2 ceil(log2 p) hops.",
                )
        add(ALPHA_AS_MS, value - lat + hops * alpha_us)
    if term != "latency":
        add(RING_NO_X2, value - bw / 2 if term == "total" else bw / 2)
        add(WHOLE_MESSAGE_PER_HOP, value - bw + 2 * (p - 1) * wire)
    if term == "total":
        add(
            FORGOT_ALPHA,
            bw,
            label="You left out the latency term",
            explanation="Every step pays alpha; for small messages that term is most of the time.",
        )
    return result(value, tuple(steps), wrong)


FORGOT_P = Mistake(
    "forgot-p",
    "You set alpha equal to n / beta for one message",
    "The all-reduce pays alpha at every hop and moves only 2 (p - 1) / p of the message per GPU.",
)


@register(
    summary="Message size where an all-reduce's latency term equals its bandwidth term (ring: p alpha beta).",
    unit="B",
    misconceptions=(FORGOT_P, ONE_ALPHA, RING_HOPS),
)
def allreduce_latency_bound_bytes(
    p: RingGpus,
    alpha_us: AlphaUs,
    bandwidth_gb_s: LinkBandwidth,
    algorithm: Annotated[Literal["ring", "tree"], Param("ring or tree")] = "ring",
    *,
    worked: bool = True,
) -> Derivation:
    """Below this size alpha costs more than the bytes: faster links barely help, fewer messages do."""
    if p < 2:
        raise ValueError(f"an all-reduce needs p >= 2 GPUs, got p={p}")
    hops = _hops(p, algorithm)
    alpha_beta = alpha_us * 1e-6 * bandwidth_gb_s * 1e9  # bytes the link could have sent during one alpha
    value = hops * alpha_beta * p / (2 * (p - 1))
    wrong: list[Misconception] = [
        FORGOT_P.gives(alpha_beta),
        ONE_ALPHA.gives(
            alpha_beta * p / (2 * (p - 1)),
            label="You paid alpha once for the whole all-reduce",
            explanation=f"Each of the {hops} hops pays alpha.",
        ),
    ]
    if algorithm == "tree" and _hops(p, "ring") != hops:
        wrong.append(RING_HOPS.gives(p * alpha_beta))
    return formula_result(
        value,
        "Latency-bound below",
        "hops x alpha x beta x p / (2 (p - 1))",
        f"{hops} x {num(alpha_us)}e-6 x {num(bandwidth_gb_s)}e9 x {p} / (2 x {p - 1})",
        wrong,
        worked=worked,
    )


def _tp_count(n_layers: int, passes: str) -> int:
    """Megatron TP all-reduces per layer: 2 forward (after attention and after the MLP), 2 more backward."""
    return (2 if passes == "forward" else 4) * n_layers


ONE_PER_LAYER = Mistake(
    "one-per-layer",
    "You counted one all-reduce per layer",
    "Attention's W_O and the MLP's second matrix are both row-parallel: each layer all-reduces twice "
    "in every pass through it, forward or backward.",
)
FORGOT_BACKWARD = Mistake(
    "forgot-backward",
    "You left out the backward pass",
    "The backward pass all-reduces the input gradients of the column-parallel matrices: 2 more.",
)
DIVIDED_BY_TP = Mistake(
    "divided-by-tp",
    "You divided the message by tp",
    "Each GPU's partial sum is full width: the all-reduce adds tp full-size tensors.",
)
FORGOT_LAYERS = Mistake(
    "forgot-layers",
    "You counted one layer",
    "Every layer all-reduces its attention output and its MLP output.",
)


@register(
    summary="Bytes TP all-reduces: 2 per layer forward (4 with backward) x tokens x d_model x bytes.",
    unit="B",
    misconceptions=(ONE_PER_LAYER, FORGOT_BACKWARD, DIVIDED_BY_TP, FORGOT_LAYERS),
)
def tp_allreduce_volume(
    d_model: DModel,
    bytes_per_element: Annotated[int, Param("bytes per activation (bf16: 2)", gt=0)],
    n_layers: Annotated[int, Param("transformer layers", gt=0)],
    tokens: Annotated[int, Param("tokens in the pass", gt=0)] = 1,
    passes: Annotated[
        Literal["forward", "training"], Param("forward (inference) or training (forward and backward)")
    ] = "forward",
    tp: Annotated[int, Param("tensor-parallel degree, to recognise a message divided by it", gt=0)] = 1,
    *,
    worked: bool = True,
) -> Derivation:
    """The row-parallel W_O and second MLP matrix each leave a full-width partial sum to add up."""
    count = _tp_count(n_layers, passes)
    message = tokens * d_model * bytes_per_element
    value = count * message
    if not worked:
        return result(value)
    per = 2 if passes == "forward" else 4
    steps = (
        Step("All-reduces", f"{per} x n_layers", f"{per} x {n_layers}", count),
        Step(
            "One message",
            "tokens x d_model x bytes",
            f"{tokens} x {d_model} x {bytes_per_element}",
            message,
            "B",
        ),
    )
    wrong: list[Misconception] = [ONE_PER_LAYER.gives(n_layers * message)]
    if passes == "training":
        wrong.append(FORGOT_BACKWARD.gives(_tp_count(n_layers, "forward") * message))
    if tp > 1:
        wrong.append(DIVIDED_BY_TP.gives(value / tp))
    if n_layers > 1:
        wrong.append(FORGOT_LAYERS.gives(value // n_layers))
    return formula_result(
        value,
        "Bytes all-reduced",
        "all-reduces x message",
        f"{count} x {message:,}",
        wrong,
        worked=worked,
        before=steps,
    )


ALL_LAYERS = Mistake(
    "all-layers",
    "You counted every layer of the model",
    "A pipeline stage runs only its n_layers / p layers.",
)
FORGOT_MICROBATCHES = Mistake(
    "forgot-microbatches", "You counted one micro-batch", "Every micro-batch runs the stage's layers again."
)


@register(
    summary="TP all-reduces one GPU runs per step: layers per stage x (2 or 4) x micro-batches.",
    unit="",
    misconceptions=(ONE_PER_LAYER, FORGOT_BACKWARD, ALL_LAYERS, FORGOT_MICROBATCHES),
)
def tp_allreduce_count(
    n_layers: Annotated[int, Param("transformer layers in the model", gt=0)],
    p: Stages,
    m: MicroBatches,
    passes: Annotated[
        Literal["forward", "training"], Param("training (forward and backward) or forward")
    ] = "training",
    *,
    worked: bool = True,
) -> Derivation:
    """Each micro-batch crosses the stage's layers once forward and once backward, all-reducing in each."""
    require_pipeline(p, m, 1)
    if n_layers % p:
        raise ValueError(f"n_layers={n_layers} is not divisible by p={p}")
    per_stage = n_layers // p
    per = 2 if passes == "forward" else 4
    value = per * per_stage * m
    wrong: list[Misconception] = [
        ONE_PER_LAYER.gives(
            per_stage * m, explanation="Attention and the MLP each all-reduce in every pass through a layer."
        ),
        ALL_LAYERS.gives(per * n_layers * m),
        FORGOT_MICROBATCHES.gives(per * per_stage),
    ]
    if passes == "training":
        wrong.insert(
            1,
            FORGOT_BACKWARD.gives(
                2 * per_stage * m, explanation="The backward pass all-reduces twice per layer as well."
            ),
        )
    return formula_result(
        value,
        "All-reduces per GPU per step",
        f"{per} x n_layers / p x m",
        f"{per} x {n_layers} / {p} x {m}",
        wrong,
        worked=worked,
    )
