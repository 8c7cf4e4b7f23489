"""Provides MoE capacity and placement: expert capacity, dropped tokens, the hottest expert's time,
weights per GPU under EP x TP, experts touched by a decode batch and the ridge batch.
"""

from __future__ import annotations

import math
from typing import Annotated

from engine.calculator import Param, register
from engine.calculators.case_common import formula_result, num
from engine.calculators.common import BandwidthGBs, BytesPerParam, DModel, Tflops
from engine.calculators.moe import Matrices, NExperts, TopK, per_expert_params, require_top_k
from engine.derivation import Derivation, Misconception, Mistake, Step

Tokens = Annotated[int, Param("tokens in the batch routed together", gt=0)]

# --------------------------------------------------------------------------- capacity and imbalance


FORGOT_TOP_K = Mistake("forgot-top-k", "You gave each token one assignment")
FORGOT_CAPACITY_FACTOR = Mistake(
    "forgot-capacity-factor",
    "You left out the capacity factor",
    "The capacity is the even share times the factor; without it any imbalance drops tokens.",
)
ROUNDED_UP = Mistake("rounded-up", "You rounded up", "A slot is whole: round the capacity down.")


@register(
    summary="Slots per expert in a capacity-limited MoE layer: floor(capacity factor x tokens x top_k / "
    "experts).",
    unit="",
    misconceptions=(FORGOT_TOP_K, FORGOT_CAPACITY_FACTOR, ROUNDED_UP),
)
def moe_expert_capacity(
    tokens: Tokens,
    n_experts: NExperts,
    top_k: TopK,
    capacity_factor: Annotated[float, Param("slack over an even share (1.0: exactly even)", gt=0)],
    *,
    worked: bool = True,
) -> Derivation:
    """An even split gives tokens x top_k / experts assignments each; the factor adds slack for imbalance."""
    require_top_k(n_experts, top_k)
    exact = capacity_factor * tokens * top_k / n_experts
    value = math.floor(exact + 1e-9)
    wrong: list[Misconception] = [
        FORGOT_TOP_K.gives(
            math.floor(capacity_factor * tokens / n_experts + 1e-9),
            explanation=(
                f"Each token is assigned to {top_k} experts: there are tokens x top_k assignments to share."
            ),
        ),
        FORGOT_CAPACITY_FACTOR.gives(math.floor(tokens * top_k / n_experts + 1e-9)),
    ]
    if value != exact:
        wrong.append(ROUNDED_UP.gives(value + 1))
    return formula_result(
        value,
        "Expert capacity",
        "floor(capacity factor x tokens x top_k / experts)",
        f"floor({num(capacity_factor)} x {num(tokens)} x {top_k} / {num(n_experts)})",
        wrong,
        worked=worked,
    )


def _hot_loads(
    tokens: int, n_experts: int, top_k: int, hot_experts: int, hot_ratio: float
) -> tuple[int, int]:
    """(mean load, hot load): the even share tokens x top_k / experts and a hot expert's load."""
    assignments = tokens * top_k
    if assignments % n_experts:
        raise ValueError(f"moe: tokens x top_k = {assignments} do not split evenly over {n_experts} experts")
    mean = assignments // n_experts
    hot = hot_ratio * mean
    if not float(hot).is_integer():
        raise ValueError(f"moe: hot_ratio x mean load = {hot} is not a whole number of tokens")
    if hot_experts * hot > assignments:
        raise ValueError(
            f"moe: {hot_experts} hot experts at {hot} tokens exceed the {assignments} assignments"
        )
    return mean, int(hot)


DROPPED_WHOLE_LOAD = Mistake(
    "dropped-whole-load",
    "You dropped the hot experts' whole load",
    "An overflowing expert still processes its first `capacity` assignments.",
)
ONE_HOT_EXPERT = Mistake("one-hot-expert", "You counted one hot expert")


@register(
    summary="Token assignments dropped when hot experts overflow their capacity: hot experts x (hot load - "
    "capacity), capacity = floor(factor x tokens x top_k / experts).",
    unit="",
    misconceptions=(FORGOT_CAPACITY_FACTOR, ONE_HOT_EXPERT, DROPPED_WHOLE_LOAD, FORGOT_TOP_K),
)
def moe_dropped_tokens(
    tokens: Tokens,
    n_experts: NExperts,
    top_k: TopK,
    capacity_factor: Annotated[float, Param("slack over an even share", gt=0)],
    hot_experts: Annotated[int, Param("experts that receive hot_ratio times the even share", gt=0)],
    hot_ratio: Annotated[
        float, Param("a hot expert's load over the even share (the others stay under capacity)", gt=0)
    ],
    *,
    worked: bool = True,
) -> Derivation:
    """An expert processes at most `capacity` assignments; what arrives beyond that skips the expert."""
    require_top_k(n_experts, top_k)
    if hot_experts >= n_experts:
        raise ValueError(f"hot_experts={hot_experts} must be fewer than n_experts={n_experts}")
    mean, hot = _hot_loads(tokens, n_experts, top_k, hot_experts, hot_ratio)
    cap = math.floor(capacity_factor * mean + 1e-9)
    value = hot_experts * max(0, hot - cap)
    wrong: list[Misconception] = [
        FORGOT_CAPACITY_FACTOR.gives(
            hot_experts * max(0, hot - mean),
            label="You took the capacity as the even share",
            explanation="Each expert has factor x even share slots: only the load above that is dropped.",
        ),
        DROPPED_WHOLE_LOAD.gives(hot_experts * hot),
        FORGOT_TOP_K.gives(
            hot_experts
            * max(
                0,
                round(hot_ratio * tokens / n_experts)
                - math.floor(capacity_factor * tokens / n_experts + 1e-9),
            ),
            label="You shared tokens, not tokens x top_k, among the experts",
            explanation=f"Each token makes {top_k} assignments: the even share is tokens x top_k / experts.",
        ),
    ]
    if hot_experts > 1:
        wrong.append(
            ONE_HOT_EXPERT.gives(
                max(0, hot - cap), explanation=f"{hot_experts} experts overflow, each by the same amount."
            )
        )
    return formula_result(
        value,
        "Dropped assignments",
        "hot experts x (hot load - capacity)",
        f"{hot_experts} x ({num(hot)} - {num(cap)})",
        wrong,
        worked=worked,
        before=(
            Step(
                "Even share",
                "tokens x top_k / experts",
                f"{num(tokens)} x {top_k} / {num(n_experts)}",
                mean,
                "",
            ),
            Step("Hot load", "hot ratio x even share", f"{num(hot_ratio)} x {num(mean)}", hot, ""),
            Step(
                "Capacity",
                "floor(capacity factor x even share)",
                f"floor({num(capacity_factor)} x {num(mean)})",
                cap,
                "",
            ),
        ),
    )


USED_MEAN_LOAD = Mistake(
    "used-mean-load",
    "You timed the average expert",
    "The layer ends when its busiest expert ends: time the hot load, not the mean.",
)
NO_X2 = Mistake("no-x2", "You counted one FLOP per weight", "A multiply-add is 2 FLOPs.")


@register(
    summary="Time of an MoE layer's expert compute set by its hottest expert: hot load x 2 x one expert's "
    "parameters / throughput.",
    unit="ms",
    misconceptions=(USED_MEAN_LOAD, FORGOT_TOP_K, NO_X2),
)
def moe_hot_expert_ms(
    tokens: Annotated[int, Param("tokens in the step", gt=0)],
    n_experts: NExperts,
    top_k: TopK,
    hot_ratio: Annotated[float, Param("the hottest expert's load over the even share", gt=0)],
    d_model: DModel,
    d_ff: Annotated[int, Param("hidden width of one expert", gt=0)],
    tflops: Annotated[float, Param("throughput of the GPU that holds the hottest expert, TFLOPS", gt=0)],
    matrices: Matrices = 3,
    *,
    worked: bool = True,
) -> Derivation:
    """Experts run in parallel and the layer waits for all of them: the busiest one sets the time."""
    require_top_k(n_experts, top_k)
    mean, hot = _hot_loads(tokens, n_experts, top_k, 1, hot_ratio)
    one = per_expert_params(d_model, d_ff, matrices)
    per_token_ms = 2 * one / (tflops * 1e12) * 1e3
    value = hot * per_token_ms
    return formula_result(
        value,
        "Expert time of the layer",
        "hot load x 2 x one expert / (TFLOPS x 10^12) x 10^3",
        f"{num(hot)} x 2 x {num(one)} / ({num(tflops)} x 10^12) x 10^3",
        [
            USED_MEAN_LOAD.gives(mean * per_token_ms),
            FORGOT_TOP_K.gives(
                hot_ratio * tokens / n_experts * per_token_ms,
                label="You shared tokens, not tokens x top_k, among the experts",
                explanation=(
                    f"Each token makes {top_k} assignments: the even share is tokens x top_k / experts."
                ),
            ),
            NO_X2.gives(value / 2),
        ],
        worked=worked,
        before=(
            Step(
                "Even share",
                "tokens x top_k / experts",
                f"{num(tokens)} x {top_k} / {num(n_experts)}",
                mean,
                "",
            ),
            Step("Hot load", "hot ratio x even share", f"{num(hot_ratio)} x {num(mean)}", hot, ""),
        ),
    )


# --------------------------------------------------------------------------- placement and decode


EXPERTS_SPLIT_BY_TP_ONLY = Mistake(
    "experts-split-by-tp-only",
    "You split the experts over one group's GPUs",
    "The experts are spread over every GPU of every group, ep x tp of them.",
)
FORGOT_TP = Mistake(
    "forgot-tp",
    "You split the experts over the groups only",
    "Within a group the experts are split again over its tp GPUs: 1 / (ep x tp) each.",
)
DENSE_SPLIT_BY_EP = Mistake(
    "dense-split-by-ep",
    "You split the dense weights over all ep x tp GPUs",
    "Each EP group runs its own attention: the dense part is copied in every group, split by tp.",
)


@register(
    summary="Weight bytes per GPU under EP x TP: dense weights split by TP (copied in each EP group), "
    "experts split over all ep x tp GPUs.",
    unit="B",
    misconceptions=(DENSE_SPLIT_BY_EP, EXPERTS_SPLIT_BY_TP_ONLY, FORGOT_TP),
)
def moe_weights_per_gpu(
    dense_params: Annotated[
        float, Param("parameters outside the routed experts (attention, embeddings, shared)", gt=0)
    ],
    expert_params: Annotated[float, Param("parameters of all routed experts", gt=0)],
    ep: Annotated[int, Param("expert-parallel degree (groups)", gt=0)],
    tp: Annotated[int, Param("tensor-parallel degree inside each group", gt=0)],
    bytes_per_param: Annotated[float, Param("bytes per weight (bf16: 2, fp8: 1)", gt=0)],
    *,
    worked: bool = True,
) -> Derivation:
    """Each EP group keeps a full tensor-parallel copy of the dense part; experts exist once over all GPUs."""
    value = (dense_params / tp + expert_params / (ep * tp)) * bytes_per_param
    wrong: list[Misconception] = [
        EXPERTS_SPLIT_BY_TP_ONLY.gives((dense_params + expert_params) / tp * bytes_per_param),
    ]
    if tp > 1:
        wrong.append(FORGOT_TP.gives((dense_params / tp + expert_params / ep) * bytes_per_param))
    if ep > 1:
        wrong.insert(
            0,
            DENSE_SPLIT_BY_EP.gives((dense_params + expert_params) / (ep * tp) * bytes_per_param),
        )
    return formula_result(
        value,
        "Weights per GPU",
        "(dense / tp + experts / (ep x tp)) x bytes",
        f"({num(dense_params)} / {tp} + {num(expert_params)} / ({ep} x {tp})) x {num(bytes_per_param)}",
        wrong,
        worked=worked,
    )


NO_OVERLAP = Mistake(
    "no-overlap",
    "You assumed no two tokens share an expert",
    "Tokens pick experts independently, so their choices overlap; B x k also overshoots E.",
)
ONLY_TOP_K = Mistake(
    "only-top-k",
    "You read only top_k experts",
    "Different tokens pick different experts; the step reads the union of their choices.",
)
ALL_EXPERTS = Mistake(
    "all-experts",
    "You read every expert",
    "Some experts are picked by no token in the step and are not read.",
)


@register(
    summary="Expected distinct experts a decode step reads per layer when B tokens each pick top_k of E "
    "uniformly: E x (1 - (1 - k/E)^B).",
    unit="",
    misconceptions=(NO_OVERLAP, ONLY_TOP_K, ALL_EXPERTS),
)
def moe_experts_touched(
    n_experts: NExperts,
    top_k: TopK,
    batch: Annotated[int, Param("tokens in the step", gt=0)],
    *,
    worked: bool = True,
) -> Derivation:
    """An expert is skipped only if every token passes it by, each with chance 1 - k/E."""
    require_top_k(n_experts, top_k)
    miss = (1 - top_k / n_experts) ** batch
    value = n_experts * (1 - miss)
    return formula_result(
        value,
        "Experts read per layer",
        "E x (1 - (1 - k / E)^B)",
        f"{num(n_experts)} x (1 - (1 - {top_k} / {num(n_experts)})^{num(batch)})",
        [
            NO_OVERLAP.gives(batch * top_k),
            ONLY_TOP_K.gives(top_k),
            ALL_EXPERTS.gives(n_experts),
        ],
        worked=worked,
        before=(
            Step(
                "Chance an expert is skipped",
                "(1 - k / E)^B",
                f"(1 - {top_k} / {num(n_experts)})^{num(batch)}",
                miss,
                "",
            ),
        ),
    )


DENSE_RIDGE = Mistake("dense-ridge", "You used a dense model's batch")
FORGOT_BYTES = Mistake(
    "forgot-bytes",
    "You left out the bytes per weight",
    "Intensity is FLOPs per byte: each weight costs `bytes` bytes to read.",
)
INVERTED_K = Mistake(
    "inverted-k",
    "You multiplied by k / E instead of E / k",
    "Fewer tokens per expert means a larger batch is needed, not a smaller one.",
)


@register(
    summary="Tokens per step at which expert matmuls reach the GPU's ridge point: ridge x bytes x E / (2 k).",
    unit="",
    misconceptions=(DENSE_RIDGE, FORGOT_BYTES, INVERTED_K),
)
def moe_ridge_batch(
    tflops: Tflops,
    bandwidth_gb_s: BandwidthGBs,
    n_experts: NExperts,
    top_k: TopK,
    bytes_per_param: BytesPerParam,
    *,
    worked: bool = True,
) -> Derivation:
    """Each expert weight read serves B k / E tokens (2 FLOPs each): MoE needs E / k times a dense batch."""
    require_top_k(n_experts, top_k)
    ridge = tflops * 1e12 / (bandwidth_gb_s * 1e9)
    value = ridge * bytes_per_param * n_experts / (2 * top_k)
    return formula_result(
        value,
        "Tokens per step at the ridge",
        "ridge x bytes x E / (2 x k)",
        f"{num(ridge)} x {num(bytes_per_param)} x {num(n_experts)} / (2 x {top_k})",
        [
            DENSE_RIDGE.gives(
                ridge * bytes_per_param / 2,
                explanation=(
                    f"Each expert sees only k / E = {top_k}/{num(n_experts)} of the tokens: "
                    "multiply by E / k."
                ),
            ),
            FORGOT_BYTES.gives(ridge * n_experts / (2 * top_k)),
            INVERTED_K.gives(ridge * bytes_per_param * top_k / (2 * n_experts)),
        ],
        worked=worked,
        before=(
            Step(
                "Ridge point",
                "TFLOPS x 10^12 / (GB/s x 10^9)",
                f"{num(tflops)} x 10^12 / ({num(bandwidth_gb_s)} x 10^9)",
                ridge,
                "FLOP/B",
            ),
        ),
    )
