"""Provides speculative decoding under load: the verify pass's time and the time per output token."""

from __future__ import annotations

from typing import Annotated

from engine.calculator import Param, register
from engine.calculators.case_common import formula_result, num
from engine.calculators.common import Batch, Gamma, Share, Tflops
from engine.derivation import Derivation, Misconception, Mistake, Step

# --------------------------------------------------------------------------- speculative decoding at load


MEMORY_ONLY = Mistake(
    "memory-only",
    "You took one plain step's time",
    "The pass does t times a decode step's FLOPs; at this batch they outlast the reads.",
)
ONE_TOKEN_PER_SEQ = Mistake(
    "one-token-per-seq",
    "You counted one token per sequence",
    "Each sequence verifies all its drafts plus one: t tokens, t times the FLOPs.",
)
SUMMED_BOUNDS = Mistake(
    "summed-bounds",
    "You added the memory and compute times",
    "Reads and matmuls overlap: the pass takes the larger of the two, not their sum.",
)


@register(
    summary="Time of a target pass verifying t tokens per sequence: max(memory-bound step, "
    "2 N B t / (TFLOPS x 1e12 x MFU) x 1000).",
    unit="ms",
    misconceptions=(MEMORY_ONLY, ONE_TOKEN_PER_SEQ, SUMMED_BOUNDS),
)
def verify_pass_ms(
    step_ms: Annotated[
        float, Param("memory-bound time of one ordinary decode step, ms (an earlier step)", gt=0)
    ],
    n_params: Annotated[float, Param("parameters whose matmuls one GPU runs (its shard)", gt=0)],
    batch: Batch,
    tokens_per_seq: Annotated[int, Param("tokens each sequence verifies in the pass (drafts + 1)", gt=0)],
    tflops: Tflops,
    mfu: Annotated[Share, Param("fraction of peak the matmuls reach")],
    *,
    worked: bool = True,
) -> Derivation:
    """Verifying t tokens reads the same bytes but does t times the FLOPs: at a large batch compute wins."""
    rate = tflops * 1e12 * mfu
    compute = 2 * n_params * batch * tokens_per_seq / rate * 1e3
    value = max(step_ms, compute)
    c_label = "Compute time of the pass (ms)"
    before = (
        Step(
            c_label,
            "2 N x B x t / (TFLOPS x 1e12 x MFU) x 1000",
            f"2 x {num(n_params)} x {batch} x {tokens_per_seq} / ({num(tflops)}e12 x {mfu:g}) x 1000",
            compute,
            "ms",
        ),
    )
    wrong: list[Misconception] = [
        MEMORY_ONLY.gives(step_ms),
        ONE_TOKEN_PER_SEQ.gives(max(step_ms, compute / tokens_per_seq)),
        SUMMED_BOUNDS.gives(step_ms + compute),
    ]
    return formula_result(
        value,
        "Verification pass (ms)",
        "max(memory-bound step, compute time)",
        f"max({num(step_ms)}, {num(compute)})",
        wrong,
        worked=worked,
        before=before,
    )


VERIFY_AS_ONE_STEP = Mistake(
    "verify-as-one-step",
    "You priced the verification as one ordinary step",
    "At this batch the verification is compute-bound: use its own time, not the decode step's.",
)
FORGOT_DRAFT_COST = Mistake(
    "forgot-draft-cost",
    "You left out the draft passes",
    "The gamma draft passes run before each verification, c of a step each.",
)
PER_ROUND = Mistake(
    "per-round",
    "You gave the time of a whole round",
    "A round yields several tokens: divide by the expected tokens per round.",
)


@register(
    summary="Time per output token with speculation: (verify pass + gamma x c x step) / tokens per round.",
    unit="ms",
    misconceptions=(VERIFY_AS_ONE_STEP, FORGOT_DRAFT_COST, PER_ROUND),
)
def spec_tpot_ms(
    verify_ms: Annotated[float, Param("time of the target's verification pass, ms (an earlier step)", gt=0)],
    step_ms: Annotated[float, Param("time of one ordinary decode step of the target, ms", gt=0)],
    gamma: Gamma,
    draft_cost: Annotated[float, Param("one draft pass as a fraction of a target decode step", gt=0)],
    tokens_per_round: Annotated[float, Param("expected tokens a round yields (an earlier step)", gt=0)],
    *,
    worked: bool = True,
) -> Derivation:
    """A round costs the drafts and one verification; it yields tokens_per_round tokens on average."""
    draft = gamma * draft_cost * step_ms
    value = (verify_ms + draft) / tokens_per_round
    return formula_result(
        value,
        "Time per output token (ms)",
        "(verify + gamma x c x step) / tokens per round",
        f"({num(verify_ms)} + {gamma} x {draft_cost:g} x {num(step_ms)}) / {num(tokens_per_round)}",
        [
            VERIFY_AS_ONE_STEP.gives((step_ms + draft) / tokens_per_round),
            FORGOT_DRAFT_COST.gives(verify_ms / tokens_per_round),
            PER_ROUND.gives(verify_ms + draft),
        ],
        worked=worked,
    )
