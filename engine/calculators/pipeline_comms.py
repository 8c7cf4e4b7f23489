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
from typing import Annotated, Literal

from engine.calculator import Param, register, result
from engine.calculators.case_common import formula_result, num, require_positive_numbers
from engine.calculators.common import OpenShare
from engine.derivation import Derivation, Misconception, Mistake, Step

MicroBatches = Annotated[int, Param("micro-batches per step")]
Stages = Annotated[int, Param("pipeline stages (GPUs in the pipeline)")]
VirtualStages = Annotated[int, Param("virtual stages (model chunks) per GPU; 1 is plain 1F1B")]


def require_pipeline(p: int, m: int, v: int) -> None:
    require_positive_numbers(p=p, m=m, v=v)
    if p < 2:
        raise ValueError(f"a pipeline needs p >= 2 stages, got p={p}")


BUBBLE_OVER_IDEAL = Mistake(
    "bubble-over-ideal",
    "You gave the bubble over the ideal time, (p - 1) / (v m)",
    "(p - 1) / (v m) compares the bubble with the useful work; the step also contains the bubble "
    "itself, so its share is (p - 1) / (v m + p - 1).",
)
P_NOT_P_MINUS_1 = Mistake(
    "p-not-p-minus-1",
    "You counted p idle slots instead of p - 1",
    "The pipe fills in p - 1 slots: micro-batch 1 reaches the last stage after p - 1 hops.",
)
BUSY_SHARE = Mistake(
    "busy-share",
    "You gave the busy share, not the idle one",
    "v m slots of the step are useful work; the bubble is the other p - 1.",
)
SHARE_OF_STEP = Mistake(
    "share-of-step",
    "You gave the bubble's share of the whole step",
    "Narayanan et al. compare the bubble with the ideal (bubble-free) time: (p - 1) / (v m).",
)
FORGOT_INTERLEAVE = Mistake(
    "forgot-interleave",
    "You left out the virtual stages",
    "v chunks per GPU divide the bubble by v, so v times fewer micro-batches reach the target.",
)


@register(
    summary="Pipeline bubble: (p - 1) / (v m + p - 1) of the step, or (p - 1) / (v m) of the ideal time.",
    unit="",
    misconceptions=(
        BUBBLE_OVER_IDEAL,
        SHARE_OF_STEP,
        P_NOT_P_MINUS_1,
        FORGOT_INTERLEAVE,
        BUSY_SHARE,
    ),
)
def pipeline_bubble_fraction(
    p: Stages,
    m: MicroBatches,
    v: VirtualStages = 1,
    relative_to: Annotated[
        Literal["step", "ideal"],
        Param("step (share of the whole step) or ideal (over the bubble-free compute time, as the paper)"),
    ] = "step",
    *,
    worked: bool = True,
) -> Derivation:
    """The first stage waits p - 1 slots for the pipe to fill and the last p - 1 for it to drain."""
    require_pipeline(p, m, v)
    ideal = Fraction(p - 1, v * m)
    step = Fraction(p - 1, v * m + p - 1)
    value = float(step if relative_to == "step" else ideal)
    if not worked:
        return result(value)
    wrong: list[Misconception] = []
    if relative_to == "step":
        label, formula = "Bubble share of the step", "(p - 1) / (v m + p - 1)"
        shown = f"{p - 1} / ({v} x {m} + {p - 1})"
        wrong += [
            BUBBLE_OVER_IDEAL.gives(float(ideal)),
            P_NOT_P_MINUS_1.gives(p / (v * m + p)),
            BUSY_SHARE.gives(float(1 - step)),
        ]
        if v > 1:
            wrong.append(
                FORGOT_INTERLEAVE.gives(
                    (p - 1) / (m + p - 1),
                    explanation=(
                        "With v chunks per GPU each slot is 1/v as long, so the bubble shrinks v-fold."
                    ),
                )
            )
    else:
        label, formula = "Bubble over the ideal time", "(p - 1) / (v m)"
        shown = f"{p - 1} / ({v} x {m})"
        wrong += [
            SHARE_OF_STEP.gives(float(step)),
            P_NOT_P_MINUS_1.gives(p / (v * m)),
        ]
        if v > 1:
            wrong.append(
                FORGOT_INTERLEAVE.gives(
                    (p - 1) / m,
                    explanation=(
                        "With v chunks per GPU each slot is 1/v as long, so the bubble shrinks v-fold."
                    ),
                )
            )
    return formula_result(value, label, formula, shown, wrong, worked=worked)


NO_BUBBLE = Mistake(
    "no-bubble",
    "You left out the bubble",
    "The pipe fills and drains once per step: (p - 1) / v idle slots come on top of the m busy ones.",
)
STAGES_SERIAL = Mistake(
    "stages-serial",
    "You ran every stage one after another for every micro-batch",
    "Stages work on different micro-batches at the same time; only the fill and drain are idle.",
)
FORGOT_COMM = Mistake(
    "forgot-comm",
    "You left out the blocking collectives",
    "Tensor-parallel all-reduces sit inside every layer and the next layer waits for them.",
)
ONE_COMM = Mistake("one-comm", "You counted one collective per micro-batch")


@register(
    summary="One pipelined step: (m + (p - 1) / v) x (stage time + ops x time per op), in ms.",
    unit="ms",
    misconceptions=(NO_BUBBLE, STAGES_SERIAL, FORGOT_INTERLEAVE, FORGOT_COMM, ONE_COMM),
)
def pipeline_step_ms(
    stage_ms: Annotated[
        float, Param("compute time of one micro-batch on one stage (forward + backward), ms", gt=0)
    ],
    p: Stages,
    m: MicroBatches,
    v: VirtualStages = 1,
    comm_ms: Annotated[
        float, Param("time of one blocking collective inside the stage (an earlier step), ms")
    ] = 0.0,
    comm_ops: Annotated[int, Param("blocking collectives per micro-batch per stage")] = 0,
    *,
    worked: bool = True,
) -> Derivation:
    """Blocking collectives lengthen every slot, and the step is m slots of work plus the bubble."""
    require_pipeline(p, m, v)
    if comm_ms < 0 or comm_ops < 0:
        raise ValueError(f"comm_ms and comm_ops must be 0 or more, got {comm_ms}, {comm_ops}")
    slot = stage_ms + comm_ops * comm_ms
    slots = m + (p - 1) / v
    value = slots * slot
    if not worked:
        return result(value)
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

    def add(m: Mistake, v_: float, **text: str) -> None:
        wrong.append(m.gives(v_, label, **text))

    add(NO_BUBBLE, m * slot)
    add(STAGES_SERIAL, m * p * slot)
    if v > 1:
        add(
            FORGOT_INTERLEAVE,
            (m + p - 1) * slot,
            explanation="With v chunks per GPU the bubble is (p - 1) / v slots, not p - 1.",
        )
    if comm_ops and comm_ms:
        add(FORGOT_COMM, slots * stage_ms)
        if comm_ops > 1:
            add(
                ONE_COMM,
                slots * (stage_ms + comm_ms),
                explanation=f"Each stage runs {comm_ops} of them per micro-batch, one after another.",
            )
    steps.append(Step(label, "(m + (p - 1) / v) x slot time", shown, value, "ms"))
    return result(value, tuple(steps), wrong)


IDEAL_DEFINITION = Mistake(
    "ideal-definition",
    "You solved (p - 1) / (v m) <= f, the bubble over the ideal time",
    "The target is the bubble's share of the step, which has the bubble in its denominator too.",
)
ROUNDED_DOWN = Mistake(
    "rounded-down",
    "You rounded down",
    "One micro-batch fewer leaves the bubble above the target: round a minimum up.",
)


@register(
    summary="Fewest micro-batches keeping the bubble's share of the step at or below a target.",
    unit="",
    misconceptions=(IDEAL_DEFINITION, ROUNDED_DOWN, FORGOT_INTERLEAVE),
)
def pipeline_microbatches_for_bubble(
    p: Stages,
    target: Annotated[OpenShare, Param("largest bubble share of the step allowed (0.05 for 5%)")],
    v: VirtualStages = 1,
    *,
    worked: bool = True,
) -> Derivation:
    """(p - 1) / (v m + p - 1) <= f solves to m >= (p - 1)(1 - f) / (f v); m is a whole count, so round up."""
    require_pipeline(p, 1, v)
    f = Fraction(target).limit_denominator(10**6)
    exact = (p - 1) * (1 - f) / (f * v)
    value = max(1, math.ceil(exact))
    if not worked:
        return result(value)
    label = "Micro-batches needed"
    before = (
        Step(
            "Bound on m",
            "(p - 1) (1 - f) / (f v)",
            f"{p - 1} x (1 - {num(target)}) / ({num(target)} x {v})",
            float(exact),
        ),
    )
    wrong: list[Misconception] = [
        IDEAL_DEFINITION.gives(max(1, math.ceil(Fraction(p - 1) / (f * v)))),
        ROUNDED_DOWN.gives(max(1, math.floor(exact)) if exact != math.floor(exact) else value),
    ]
    if v > 1:
        wrong.append(FORGOT_INTERLEAVE.gives(max(1, math.ceil((p - 1) * (1 - f) / f))))
    return formula_result(
        value,
        label,
        "ceil(bound)",
        f"ceil({num(float(exact))})",
        wrong,
        worked=worked,
        before=before,
    )


ONE_MICROBATCH = Mistake(
    "one-microbatch",
    "You stashed one micro-batch",
    "A stage keeps every micro-batch whose backward has not run yet.",
)
ALL_LAYERS = Mistake(
    "all-layers", "You counted every layer of the model", "A stage holds only its own n_layers / p layers."
)
GPIPE_COUNT = Mistake(
    "gpipe-count",
    "You kept all m micro-batches in flight, as GPipe does",
    "1F1B starts a backward as soon as the pipe is full, so the first stage holds at most p.",
)
P_FOR_GPIPE = Mistake(
    "p-for-gpipe",
    "You used 1F1B's p in flight for GPipe",
    "GPipe runs every forward before any backward, so all m micro-batches are stashed at once.",
)


@register(
    summary="Stashed activations on one stage: micro-batches in flight x layers per stage x bytes per layer.",
    unit="B",
    misconceptions=(GPIPE_COUNT, ONE_MICROBATCH, ALL_LAYERS, P_FOR_GPIPE),
)
def pipeline_activation_bytes(
    act_bytes_per_layer: Annotated[
        float, Param("activation bytes one layer stashes for one micro-batch", gt=0)
    ],
    n_layers: Annotated[int, Param("layers in the model (split evenly over the p stages)", gt=0)],
    p: Stages,
    m: MicroBatches,
    schedule: Annotated[Literal["1f1b", "gpipe"], Param("1f1b or gpipe")] = "1f1b",
    stage: Annotated[int, Param("which stage, from 1 (the first holds the most under 1F1B)", gt=0)] = 1,
    *,
    worked: bool = True,
) -> Derivation:
    """A micro-batch's activations stay stashed until its backward pass: 1F1B starts that backward after
    p - stage + 1 forwards, GPipe only after all m."""
    require_pipeline(p, m, 1)
    if stage > p:
        raise ValueError(f"stage must be 1..p, got stage={stage} with p={p}")
    if n_layers % p:
        raise ValueError(f"n_layers={n_layers} is not divisible by p={p}")
    per_stage = n_layers // p
    in_flight = min(p - stage + 1, m) if schedule == "1f1b" else m
    value = in_flight * per_stage * act_bytes_per_layer
    if not worked:
        return result(value)
    count_formula = "min(p - stage + 1, m)" if schedule == "1f1b" else "m"
    count_shown = f"min({p} - {stage} + 1, {m})" if schedule == "1f1b" else f"{m}"
    steps = (
        Step("Layers per stage", "n_layers / p", f"{n_layers} / {p}", per_stage),
        Step("Micro-batches in flight", count_formula, count_shown, in_flight),
    )
    wrong: list[Misconception] = [
        ONE_MICROBATCH.gives(per_stage * act_bytes_per_layer),
        ALL_LAYERS.gives(in_flight * n_layers * act_bytes_per_layer),
    ]
    if schedule == "1f1b":
        wrong.insert(
            0,
            GPIPE_COUNT.gives(m * per_stage * act_bytes_per_layer),
        )
    else:
        wrong.insert(
            0,
            P_FOR_GPIPE.gives(min(p, m) * per_stage * act_bytes_per_layer),
        )
    return formula_result(
        value,
        "Stashed activations on the stage",
        "in flight x layers per stage x bytes per layer",
        f"{in_flight} x {per_stage} x {num(act_bytes_per_layer)}",
        wrong,
        worked=worked,
        before=steps,
    )
