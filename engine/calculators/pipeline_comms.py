"""Provides pipeline parallelism and the alpha-beta model of communication: the 1F1B bubble, interleaved
stages, micro-batches in flight, and the time of a message, a ring or tree all-reduce and TP's all-reduces.

Pipeline schedules follow Narayanan et al. 2021, Efficient Large-Scale Language Model Training on GPU
Clusters Using Megatron-LM (arXiv:2104.04473), section 2.2: with p stages and m micro-batches the bubble
is (p - 1) micro-batch slots, so it is (p - 1) / m of the ideal time and (p - 1) / (m + p - 1) of the step;
v virtual stages per GPU divide it by v; 1F1B keeps at most p micro-batches in flight on the first stage.

A message of n bytes costs alpha + n / beta (a fixed start-up latency plus the bytes over the bandwidth).
A ring all-reduce over p GPUs is a reduce-scatter then an all-gather, 2 (p - 1) steps each moving n / p:
2 (p - 1) alpha + 2 (p - 1) / p x n / beta, the bus-bandwidth factor of NVIDIA's nccl-tests. A tree pays
2 ceil(log2 p) hops of alpha instead (modelled here at the same bus bandwidth). Times are in ms, alpha in
microseconds, bandwidths in decimal GB/s.
"""

from __future__ import annotations

import math
from fractions import Fraction

from engine.calculator import Arg, register
from engine.calculators.case_common import Wrong, formula_result, num, require_positive_numbers
from engine.calculators.common import distinct
from engine.derivation import Derivation, Misconception, Step

_P = Arg("p", "int", "pipeline stages (GPUs in the pipeline)")
_M = Arg("m", "int", "micro-batches per step")
_V = Arg("v", "int", "virtual stages (model chunks) per GPU; 1 is plain 1F1B", 1, False)
_ALPHA = Arg("alpha_us", "float", "start-up latency of one message (one ring step), microseconds")
_BW = Arg("bandwidth_gb_s", "float", "bandwidth one GPU sends at, decimal GB/s")
_US_PER_MS = 1000
_BYTES_PER_MS = 1e6
"""Bytes one GB/s moves in a millisecond: n / (beta x 1e6) is a time in ms."""


def _require_pipeline(calc: str, p: int, m: int, v: int) -> None:
    require_positive_numbers(calc, p=p, m=m, v=v)
    if p < 2:
        raise ValueError(f"{calc}: a pipeline needs p >= 2 stages, got p={p}")


@register(
    "pipeline_bubble_fraction",
    summary="Pipeline bubble: (p - 1) / (v m + p - 1) of the step, or (p - 1) / (v m) of the ideal time.",
    unit="",
    args=(
        _P,
        _M,
        _V,
        Arg(
            "relative_to",
            "str",
            "step (share of the whole step) or ideal (over the bubble-free compute time, as the paper)",
            "step",
            False,
            ("step", "ideal"),
        ),
    ),
    misconceptions=(
        "bubble-over-ideal",
        "share-of-step",
        "p-not-p-minus-1",
        "forgot-interleave",
        "busy-share",
    ),
)
def pipeline_bubble_fraction(
    p: int, m: int, v: int = 1, relative_to: str = "step", *, worked: bool = True
) -> Derivation:
    """The first stage waits p - 1 slots for the pipe to fill and the last p - 1 for it to drain."""
    calc = "pipeline_bubble_fraction"
    _require_pipeline(calc, p, m, v)
    ideal = Fraction(p - 1, v * m)
    step = Fraction(p - 1, v * m + p - 1)
    value = float(step if relative_to == "step" else ideal)
    if not worked:
        return Derivation(calc, value, "", ())
    wrong: list[Wrong] = []
    if relative_to == "step":
        label, formula = "Bubble share of the step", "(p - 1) / (v m + p - 1)"
        shown = f"{p - 1} / ({v} x {m} + {p - 1})"
        wrong += [
            (
                "bubble-over-ideal",
                "You gave the bubble over the ideal time, (p - 1) / (v m)",
                "(p - 1) / (v m) compares the bubble with the useful work; the step also contains the bubble "
                "itself, so its share is (p - 1) / (v m + p - 1).",
                float(ideal),
            ),
            (
                "p-not-p-minus-1",
                "You counted p idle slots instead of p - 1",
                "The pipe fills in p - 1 slots: micro-batch 1 reaches the last stage after p - 1 hops.",
                p / (v * m + p),
            ),
            (
                "busy-share",
                "You gave the busy share, not the idle one",
                "v m slots of the step are useful work; the bubble is the other p - 1.",
                float(1 - step),
            ),
        ]
        if v > 1:
            wrong.append(
                (
                    "forgot-interleave",
                    "You left out the virtual stages",
                    "With v chunks per GPU each slot is 1/v as long, so the bubble shrinks v-fold.",
                    (p - 1) / (m + p - 1),
                )
            )
    else:
        label, formula = "Bubble over the ideal time", "(p - 1) / (v m)"
        shown = f"{p - 1} / ({v} x {m})"
        wrong += [
            (
                "share-of-step",
                "You gave the bubble's share of the whole step",
                "Narayanan et al. compare the bubble with the ideal (bubble-free) time: (p - 1) / (v m).",
                float(step),
            ),
            (
                "p-not-p-minus-1",
                "You counted p idle slots instead of p - 1",
                "The pipe fills in p - 1 slots: micro-batch 1 reaches the last stage after p - 1 hops.",
                p / (v * m),
            ),
        ]
        if v > 1:
            wrong.append(
                (
                    "forgot-interleave",
                    "You left out the virtual stages",
                    "With v chunks per GPU each slot is 1/v as long, so the bubble shrinks v-fold.",
                    (p - 1) / m,
                )
            )
    return formula_result(calc, value, "", label, formula, shown, wrong, worked=worked)


@register(
    "pipeline_step_ms",
    summary="One pipelined step: (m + (p - 1) / v) x (stage time + ops x time per op), in ms.",
    unit="ms",
    args=(
        Arg("stage_ms", "float", "compute time of one micro-batch on one stage (forward + backward), ms"),
        _P,
        _M,
        _V,
        Arg(
            "comm_ms",
            "float",
            "time of one blocking collective inside the stage (an earlier step), ms",
            0.0,
            False,
        ),
        Arg("comm_ops", "int", "blocking collectives per micro-batch per stage", 0, False),
    ),
    misconceptions=("no-bubble", "stages-serial", "forgot-interleave", "forgot-comm", "one-comm"),
)
def pipeline_step_ms(
    stage_ms: float,
    p: int,
    m: int,
    v: int = 1,
    comm_ms: float = 0.0,
    comm_ops: int = 0,
    *,
    worked: bool = True,
) -> Derivation:
    """Blocking collectives lengthen every slot, and the step is m slots of work plus the bubble."""
    calc = "pipeline_step_ms"
    _require_pipeline(calc, p, m, v)
    require_positive_numbers(calc, stage_ms=stage_ms)
    if comm_ms < 0 or comm_ops < 0:
        raise ValueError(f"{calc}: comm_ms and comm_ops must be 0 or more, got {comm_ms}, {comm_ops}")
    slot = stage_ms + comm_ops * comm_ms
    slots = m + (p - 1) / v
    value = slots * slot
    if not worked:
        return Derivation(calc, value, "ms", ())
    steps: list[Step] = []
    if comm_ops and comm_ms:
        steps.append(
            Step(
                "One micro-batch on one stage",
                "stage compute + ops x time per op",
                f"{num(stage_ms)} + {comm_ops} x {num(comm_ms)}",
                slot,
                "ms",
            )
        )
    label = "Step time"
    shown = f"({m} + {p - 1} / {v}) x {num(slot)}"
    wrong: list[Misconception] = []

    def add(i: str, lab: str, why: str, v_: float) -> None:
        wrong.append(Misconception(i, lab, why, v_, label))

    add(
        "no-bubble",
        "You left out the bubble",
        "The pipe fills and drains once per step: (p - 1) / v idle slots come on top of the m busy ones.",
        m * slot,
    )
    add(
        "stages-serial",
        "You ran every stage one after another for every micro-batch",
        "Stages work on different micro-batches at the same time; only the fill and drain are idle.",
        m * p * slot,
    )
    if v > 1:
        add(
            "forgot-interleave",
            "You left out the virtual stages",
            "With v chunks per GPU the bubble is (p - 1) / v slots, not p - 1.",
            (m + p - 1) * slot,
        )
    if comm_ops and comm_ms:
        add(
            "forgot-comm",
            "You left out the blocking collectives",
            "Tensor-parallel all-reduces sit inside every layer and the next layer waits for them.",
            slots * stage_ms,
        )
        if comm_ops > 1:
            add(
                "one-comm",
                "You counted one collective per micro-batch",
                f"Each stage runs {comm_ops} of them per micro-batch, one after another.",
                slots * (stage_ms + comm_ms),
            )
    steps.append(Step(label, "(m + (p - 1) / v) x slot time", shown, value, "ms"))
    return Derivation(calc, value, "ms", tuple(steps), distinct(value, wrong))


@register(
    "pipeline_microbatches_for_bubble",
    summary="Fewest micro-batches keeping the bubble's share of the step at or below a target.",
    unit="",
    args=(
        _P,
        Arg("target", "float", "largest bubble share of the step allowed (0.05 for 5%)"),
        _V,
    ),
    misconceptions=("ideal-definition", "rounded-down", "forgot-interleave"),
)
def pipeline_microbatches_for_bubble(p: int, target: float, v: int = 1, *, worked: bool = True) -> Derivation:
    """(p - 1) / (v m + p - 1) <= f solves to m >= (p - 1)(1 - f) / (f v); m is a whole count, so round up."""
    calc = "pipeline_microbatches_for_bubble"
    _require_pipeline(calc, p, 1, v)
    if not 0 < target < 1:
        raise ValueError(f"{calc}: target must be between 0 and 1, got {target}")
    f = Fraction(target).limit_denominator(10**6)
    exact = (p - 1) * (1 - f) / (f * v)
    value = max(1, math.ceil(exact))
    if not worked:
        return Derivation(calc, value, "", ())
    label = "Micro-batches needed"
    before = (
        Step(
            "Bound on m",
            "(p - 1) (1 - f) / (f v)",
            f"{p - 1} x (1 - {num(target)}) / ({num(target)} x {v})",
            float(exact),
        ),
    )
    wrong: list[Wrong] = [
        (
            "ideal-definition",
            "You solved (p - 1) / (v m) <= f, the bubble over the ideal time",
            "The target is the bubble's share of the step, which has the bubble in its denominator too.",
            max(1, math.ceil(Fraction(p - 1) / (f * v))),
        ),
        (
            "rounded-down",
            "You rounded down",
            "One micro-batch fewer leaves the bubble above the target: round a minimum up.",
            max(1, math.floor(exact)) if exact != math.floor(exact) else value,
        ),
    ]
    if v > 1:
        wrong.append(
            (
                "forgot-interleave",
                "You left out the virtual stages",
                "v chunks per GPU divide the bubble by v, so v times fewer micro-batches reach the target.",
                max(1, math.ceil((p - 1) * (1 - f) / f)),
            )
        )
    return formula_result(
        calc,
        value,
        "",
        label,
        "ceil(bound)",
        f"ceil({num(float(exact))})",
        wrong,
        worked=worked,
        before=before,
    )


@register(
    "pipeline_activation_bytes",
    summary="Stashed activations on one stage: micro-batches in flight x layers per stage x bytes per layer.",
    unit="B",
    args=(
        Arg("act_bytes_per_layer", "float", "activation bytes one layer stashes for one micro-batch"),
        Arg("n_layers", "int", "layers in the model (split evenly over the p stages)"),
        _P,
        _M,
        Arg("schedule", "str", "1f1b or gpipe", "1f1b", False, ("1f1b", "gpipe")),
        Arg("stage", "int", "which stage, from 1 (the first holds the most under 1F1B)", 1, False),
    ),
    misconceptions=("gpipe-count", "one-microbatch", "all-layers", "p-for-gpipe"),
)
def pipeline_activation_bytes(
    act_bytes_per_layer: float,
    n_layers: int,
    p: int,
    m: int,
    schedule: str = "1f1b",
    stage: int = 1,
    *,
    worked: bool = True,
) -> Derivation:
    """A micro-batch's activations stay stashed until its backward pass: 1F1B starts that backward after
    p - stage + 1 forwards, GPipe only after all m."""
    calc = "pipeline_activation_bytes"
    _require_pipeline(calc, p, m, 1)
    require_positive_numbers(calc, act_bytes_per_layer=act_bytes_per_layer, n_layers=n_layers, stage=stage)
    if stage > p:
        raise ValueError(f"{calc}: stage must be 1..p, got stage={stage} with p={p}")
    if n_layers % p:
        raise ValueError(f"{calc}: n_layers={n_layers} is not divisible by p={p}")
    per_stage = n_layers // p
    in_flight = min(p - stage + 1, m) if schedule == "1f1b" else m
    value = in_flight * per_stage * act_bytes_per_layer
    if not worked:
        return Derivation(calc, value, "B", ())
    count_formula = "min(p - stage + 1, m)" if schedule == "1f1b" else "m"
    count_shown = f"min({p} - {stage} + 1, {m})" if schedule == "1f1b" else f"{m}"
    steps = (
        Step("Layers per stage", "n_layers / p", f"{n_layers} / {p}", per_stage),
        Step("Micro-batches in flight", count_formula, count_shown, in_flight),
    )
    wrong: list[Wrong] = [
        (
            "one-microbatch",
            "You stashed one micro-batch",
            "A stage keeps every micro-batch whose backward has not run yet.",
            per_stage * act_bytes_per_layer,
        ),
        (
            "all-layers",
            "You counted every layer of the model",
            "A stage holds only its own n_layers / p layers.",
            in_flight * n_layers * act_bytes_per_layer,
        ),
    ]
    if schedule == "1f1b":
        wrong.insert(
            0,
            (
                "gpipe-count",
                "You kept all m micro-batches in flight, as GPipe does",
                "1F1B starts a backward as soon as the pipe is full, so the first stage holds at most p.",
                m * per_stage * act_bytes_per_layer,
            ),
        )
    else:
        wrong.insert(
            0,
            (
                "p-for-gpipe",
                "You used 1F1B's p in flight for GPipe",
                "GPipe runs every forward before any backward, so all m micro-batches are stashed at once.",
                min(p, m) * per_stage * act_bytes_per_layer,
            ),
        )
    return formula_result(
        calc,
        value,
        "B",
        "Stashed activations on the stage",
        "in flight x layers per stage x bytes per layer",
        f"{in_flight} x {per_stage} x {num(act_bytes_per_layer)}",
        wrong,
        worked=worked,
        before=steps,
    )


@register(
    "alpha_beta_time",
    summary="Alpha-beta cost of messages: count x (alpha + n / beta), in ms.",
    unit="ms",
    args=(
        Arg("n_bytes", "float", "bytes in one message"),
        _ALPHA,
        _BW,
        Arg("messages", "int", "messages sent one after another", 1, False),
    ),
    misconceptions=("forgot-alpha", "forgot-bandwidth", "one-alpha", "alpha-as-ms"),
)
def alpha_beta_time(
    n_bytes: float, alpha_us: float, bandwidth_gb_s: float, messages: int = 1, *, worked: bool = True
) -> Derivation:
    """Every message pays the start-up latency once, however small it is."""
    calc = "alpha_beta_time"
    require_positive_numbers(calc, n_bytes=n_bytes, alpha_us=alpha_us, bandwidth_gb_s=bandwidth_gb_s)
    require_positive_numbers(calc, messages=messages)
    alpha = alpha_us / _US_PER_MS
    wire = n_bytes / (bandwidth_gb_s * _BYTES_PER_MS)
    value = messages * (alpha + wire)
    wrong: list[Wrong] = [
        (
            "forgot-alpha",
            "You left out the latency alpha",
            "Every message pays alpha before its first byte arrives; for small messages that is most of it.",
            messages * wire,
        ),
        (
            "forgot-bandwidth",
            "You counted only the latency",
            "The bytes still take n / beta to cross the link.",
            messages * alpha,
        ),
        (
            "alpha-as-ms",
            "You read alpha in ms instead of microseconds",
            "Alpha is a few microseconds: divide by 1,000 for ms.",
            messages * (alpha_us + wire),
        ),
    ]
    if messages > 1:
        wrong.append(
            (
                "one-alpha",
                "You paid alpha once for all the messages",
                "Each message is sent and started on its own, so each pays alpha.",
                alpha + messages * wire,
            )
        )
    return formula_result(
        calc,
        value,
        "ms",
        "Time of the messages",
        "count x (alpha + n / beta)",
        f"{messages} x ({num(alpha_us)} / 1000 + {num(n_bytes)} / ({num(bandwidth_gb_s)} x 1e6))",
        wrong,
        worked=worked,
    )


def _hops(p: int, algorithm: str) -> int:
    """Latency steps of an all-reduce: 2 (p - 1) around a ring, 2 ceil(log2 p) up and down a tree."""
    return 2 * (p - 1) if algorithm == "ring" else 2 * math.ceil(math.log2(p))


@register(
    "allreduce_time",
    summary="All-reduce under alpha-beta: hops x alpha + 2 (p - 1) / p x n / beta (ring or tree), in ms.",
    unit="ms",
    args=(
        Arg("n_bytes", "float", "bytes each GPU contributes (the message)"),
        Arg("p", "int", "GPUs in the all-reduce"),
        _ALPHA,
        _BW,
        Arg(
            "algorithm",
            "str",
            "ring (2 (p - 1) hops) or tree (2 ceil(log2 p) hops)",
            "ring",
            False,
            ("ring", "tree"),
        ),
        Arg(
            "term",
            "str",
            "total, latency (the alpha part) or bandwidth (the bytes part)",
            "total",
            False,
            ("total", "latency", "bandwidth"),
        ),
    ),
    misconceptions=(
        "forgot-alpha",
        "one-alpha",
        "ring-no-x2",
        "whole-message-per-hop",
        "ring-hops",
        "tree-hops",
        "alpha-as-ms",
    ),
)
def allreduce_time(
    n_bytes: float,
    p: int,
    alpha_us: float,
    bandwidth_gb_s: float,
    algorithm: str = "ring",
    term: str = "total",
    *,
    worked: bool = True,
) -> Derivation:
    """Each GPU sends 2 (p - 1) / p of the message whatever the algorithm; the hop count sets the latency."""
    calc = "allreduce_time"
    require_positive_numbers(calc, n_bytes=n_bytes, alpha_us=alpha_us, bandwidth_gb_s=bandwidth_gb_s)
    if p < 2:
        raise ValueError(f"{calc}: an all-reduce needs p >= 2 GPUs, got p={p}")
    alpha = alpha_us / _US_PER_MS
    wire = n_bytes / (bandwidth_gb_s * _BYTES_PER_MS)
    hops = _hops(p, algorithm)
    lat = hops * alpha
    bw = 2 * (p - 1) / p * wire
    value = {"total": lat + bw, "latency": lat, "bandwidth": bw}[term]
    if not worked:
        return Derivation(calc, value, "ms", ())
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

    def add(i: str, lab: str, why: str, v_: float) -> None:
        wrong.append(Misconception(i, lab, why, v_, last))

    other_hops = _hops(p, "tree" if algorithm == "ring" else "ring")
    if term != "bandwidth":
        add(
            "one-alpha",
            "You paid alpha once",
            f"The {algorithm} all-reduce has {hops} steps that wait on each other, each paying alpha.",
            value - lat + alpha,
        )
        if other_hops != hops:
            if algorithm == "ring":
                add(
                    "tree-hops",
                    "You used a tree's log2 p hops for the ring",
                    "A ring passes each chunk around every GPU: 2 (p - 1) hops.",
                    value - lat + other_hops * alpha,
                )
            else:
                add(
                    "ring-hops",
                    "You used the ring's 2 (p - 1) hops for the tree",
                    "A tree reduces up and broadcasts down its depth: 2 ceil(log2 p) hops.",
                    value - lat + other_hops * alpha,
                )
        add(
            "alpha-as-ms",
            "You read alpha in ms instead of microseconds",
            "Alpha is a few microseconds: divide by 1,000 for ms.",
            value - lat + hops * alpha_us,
        )
    if term != "latency":
        add(
            "ring-no-x2",
            "You counted only the reduce-scatter half",
            "An all-reduce is a reduce-scatter then an all-gather: each moves (p - 1) / p of the message.",
            value - bw / 2 if term == "total" else bw / 2,
        )
        add(
            "whole-message-per-hop",
            "You sent the whole message at every step",
            "Each of the 2 (p - 1) steps moves one 1/p chunk, not the whole message.",
            value - bw + 2 * (p - 1) * wire,
        )
    if term == "total":
        add(
            "forgot-alpha",
            "You left out the latency term",
            "Every step pays alpha; for small messages that term is most of the time.",
            bw,
        )
    return Derivation(calc, value, "ms", tuple(steps), distinct(value, wrong))


@register(
    "allreduce_latency_bound_bytes",
    summary="Message size where an all-reduce's latency term equals its bandwidth term (ring: p alpha beta).",
    unit="B",
    args=(
        Arg("p", "int", "GPUs in the all-reduce"),
        _ALPHA,
        _BW,
        Arg("algorithm", "str", "ring or tree", "ring", False, ("ring", "tree")),
    ),
    misconceptions=("forgot-p", "one-alpha", "ring-hops"),
)
def allreduce_latency_bound_bytes(
    p: int, alpha_us: float, bandwidth_gb_s: float, algorithm: str = "ring", *, worked: bool = True
) -> Derivation:
    """Below this size alpha costs more than the bytes: faster links barely help, fewer messages do."""
    calc = "allreduce_latency_bound_bytes"
    require_positive_numbers(calc, alpha_us=alpha_us, bandwidth_gb_s=bandwidth_gb_s)
    if p < 2:
        raise ValueError(f"{calc}: an all-reduce needs p >= 2 GPUs, got p={p}")
    hops = _hops(p, algorithm)
    alpha_beta = alpha_us * 1e-6 * bandwidth_gb_s * 1e9  # bytes the link could have sent during one alpha
    value = hops * alpha_beta * p / (2 * (p - 1))
    wrong: list[Wrong] = [
        (
            "forgot-p",
            "You set alpha equal to n / beta for one message",
            "The all-reduce pays alpha at every hop and moves only 2 (p - 1) / p of the message per GPU.",
            alpha_beta,
        ),
        (
            "one-alpha",
            "You paid alpha once for the whole all-reduce",
            f"Each of the {hops} hops pays alpha.",
            alpha_beta * p / (2 * (p - 1)),
        ),
    ]
    if algorithm == "tree" and _hops(p, "ring") != hops:
        wrong.append(
            (
                "ring-hops",
                "You used the ring's 2 (p - 1) hops",
                "A tree pays 2 ceil(log2 p) hops of alpha: it stays bandwidth-bound to smaller messages.",
                p * alpha_beta,
            )
        )
    return formula_result(
        calc,
        value,
        "B",
        "Latency-bound below",
        "hops x alpha x beta x p / (2 (p - 1))",
        f"{hops} x {num(alpha_us)}e-6 x {num(bandwidth_gb_s)}e9 x {p} / (2 x {p - 1})",
        wrong,
        worked=worked,
    )


def _tp_count(n_layers: int, passes: str) -> int:
    """Megatron TP all-reduces per layer: 2 forward (after attention and after the MLP), 2 more backward."""
    return (2 if passes == "forward" else 4) * n_layers


_PASSES = Arg(
    "passes",
    "str",
    "forward (inference) or training (forward and backward)",
    "forward",
    False,
    ("forward", "training"),
)


@register(
    "tp_allreduce_volume",
    summary="Bytes TP all-reduces: 2 per layer forward (4 with backward) x tokens x d_model x bytes.",
    unit="B",
    args=(
        Arg("d_model", "int", "model width"),
        Arg("bytes_per_element", "int", "bytes per activation (bf16: 2)"),
        Arg("n_layers", "int", "transformer layers"),
        Arg("tokens", "int", "tokens in the pass", 1, False),
        _PASSES,
        Arg("tp", "int", "tensor-parallel degree, to recognise a message divided by it", 1, False),
    ),
    misconceptions=("one-per-layer", "forgot-backward", "divided-by-tp", "forgot-layers"),
)
def tp_allreduce_volume(
    d_model: int,
    bytes_per_element: int,
    n_layers: int,
    tokens: int = 1,
    passes: str = "forward",
    tp: int = 1,
    *,
    worked: bool = True,
) -> Derivation:
    """The row-parallel W_O and second MLP matrix each leave a full-width partial sum to add up."""
    calc = "tp_allreduce_volume"
    require_positive_numbers(
        calc, d_model=d_model, bytes_per_element=bytes_per_element, n_layers=n_layers, tokens=tokens, tp=tp
    )
    count = _tp_count(n_layers, passes)
    message = tokens * d_model * bytes_per_element
    value = count * message
    if not worked:
        return Derivation(calc, value, "B", ())
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
    wrong: list[Wrong] = [
        (
            "one-per-layer",
            "You counted one all-reduce per layer",
            "Attention's W_O and the MLP's second matrix are both row-parallel: each layer all-reduces twice "
            "in every pass through it, forward or backward.",
            n_layers * message,
        )
    ]
    if passes == "training":
        wrong.append(
            (
                "forgot-backward",
                "You left out the backward pass",
                "The backward pass all-reduces the input gradients of the column-parallel matrices: 2 more.",
                _tp_count(n_layers, "forward") * message,
            )
        )
    if tp > 1:
        wrong.append(
            (
                "divided-by-tp",
                "You divided the message by tp",
                "Each GPU's partial sum is full width: the all-reduce adds tp full-size tensors.",
                value / tp,
            )
        )
    if n_layers > 1:
        wrong.append(
            (
                "forgot-layers",
                "You counted one layer",
                "Every layer all-reduces its attention output and its MLP output.",
                value // n_layers,
            )
        )
    return formula_result(
        calc,
        value,
        "B",
        "Bytes all-reduced",
        "all-reduces x message",
        f"{count} x {message:,}",
        wrong,
        worked=worked,
        before=steps,
    )


@register(
    "tp_allreduce_count",
    summary="TP all-reduces one GPU runs per step: layers per stage x (2 or 4) x micro-batches.",
    unit="",
    args=(
        Arg("n_layers", "int", "transformer layers in the model"),
        _P,
        _M,
        Arg(
            "passes",
            "str",
            "training (forward and backward) or forward",
            "training",
            False,
            ("forward", "training"),
        ),
    ),
    misconceptions=("one-per-layer", "forgot-backward", "all-layers", "forgot-microbatches"),
)
def tp_allreduce_count(
    n_layers: int, p: int, m: int, passes: str = "training", *, worked: bool = True
) -> Derivation:
    """Each micro-batch crosses the stage's layers once forward and once backward, all-reducing in each."""
    calc = "tp_allreduce_count"
    _require_pipeline(calc, p, m, 1)
    require_positive_numbers(calc, n_layers=n_layers)
    if n_layers % p:
        raise ValueError(f"{calc}: n_layers={n_layers} is not divisible by p={p}")
    per_stage = n_layers // p
    per = 2 if passes == "forward" else 4
    value = per * per_stage * m
    wrong: list[Wrong] = [
        (
            "one-per-layer",
            "You counted one all-reduce per layer",
            "Attention and the MLP each all-reduce in every pass through a layer.",
            per_stage * m,
        ),
        (
            "all-layers",
            "You counted every layer of the model",
            "A pipeline stage runs only its n_layers / p layers.",
            per * n_layers * m,
        ),
        (
            "forgot-microbatches",
            "You counted one micro-batch",
            "Every micro-batch runs the stage's layers again.",
            per * per_stage,
        ),
    ]
    if passes == "training":
        wrong.insert(
            1,
            (
                "forgot-backward",
                "You left out the backward pass",
                "The backward pass all-reduces twice per layer as well.",
                2 * per_stage * m,
            ),
        )
    return formula_result(
        calc,
        value,
        "",
        "All-reduces per GPU per step",
        f"{per} x n_layers / p x m",
        f"{per} x {n_layers} / {p} x {m}",
        wrong,
        worked=worked,
    )
