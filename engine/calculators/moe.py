"""Provides the mixture-of-experts calculators: total against active parameters, FLOPs per token under
top-k routing, the all-to-all of expert parallelism, capacity and dropped tokens, the hottest expert's
time, weights per GPU under EP x TP, and why small-batch decode reads every expert.

An MoE layer replaces one FFN with `n_experts` FFNs and a router that sends each token to `top_k` of
them (plus `n_shared` experts every token uses). Memory pays for all experts; compute pays only for the
chosen ones. Each calculator returns a worked Derivation and the slips an interviewer sees most often.
"""

from __future__ import annotations

from typing import Annotated, Literal

from engine.calculator import Param, register
from engine.calculators.case_common import formula_result, num
from engine.calculators.common import DModel
from engine.derivation import Derivation, Misconception, Mistake, Step

DFF = Annotated[int, Param("hidden width of one expert FFN", gt=0)]
Matrices = Annotated[
    int, Param("weight matrices per expert FFN (SwiGLU: gate, up and down, 3; a plain MLP: 2)", gt=0)
]
NExperts = Annotated[int, Param("routed experts per MoE layer", gt=0)]
NMoeLayers = Annotated[int, Param("layers whose FFN is an MoE layer", gt=0)]
TopK = Annotated[int, Param("experts per token", gt=0)]


def per_expert_params(d_model: int, d_ff: int, matrices: int) -> int:
    """Weights of one expert FFN: `matrices` matrices of d_model x d_ff (no biases: Mixtral, DeepSeek)."""
    return matrices * d_model * d_ff


def _one_expert_step(d_model: int, d_ff: int, matrices: int, one: int) -> Step:
    """The line both MoE totals start from: the weights of one expert."""
    shown = f"{matrices} x {num(d_model)} x {num(d_ff)}"
    return Step("One expert", "matrices x d_model x d_ff", shown, one, "params")


def require_top_k(n_experts: int, top_k: int) -> None:
    if top_k > n_experts:
        raise ValueError(f"top_k={top_k} cannot exceed n_experts={n_experts}")


# --------------------------------------------------------------------------- parameters


ACTIVE_FOR_TOTAL = Mistake(
    "active-for-total",
    "You counted only the experts a token uses",
    "Memory holds every expert, used or not: count all of them.",
)
TOTAL_FOR_ACTIVE = Mistake(
    "total-for-active",
    "You counted every expert",
    "A token multiplies only through the experts its router picks: count top_k (and shared).",
)
TWO_MATRICES = Mistake(
    "two-matrices", "", "A SwiGLU expert has three matrices (gate, up, down); a plain MLP has two."
)
FORGOT_LAYERS = Mistake("forgot-layers", "You counted one layer")
FORGOT_SHARED = Mistake(
    "forgot-shared",
    "You left out the shared expert(s)",
    "Shared experts are in every MoE layer and every token uses them.",
)


@register(
    summary="Parameters in the experts of an MoE model: all of them (memory) or the ones a token uses "
    "(compute), layers x experts x matrices x d_model x d_ff.",
    unit="params",
    misconceptions=(ACTIVE_FOR_TOTAL, TOTAL_FOR_ACTIVE, TWO_MATRICES, FORGOT_SHARED, FORGOT_LAYERS),
)
def moe_expert_params(
    d_model: DModel,
    d_ff: DFF,
    n_experts: NExperts,
    top_k: TopK,
    n_moe_layers: NMoeLayers,
    n_shared: Annotated[int, Param("shared experts every token uses", ge=0)] = 0,
    matrices: Matrices = 3,
    which: Annotated[
        Literal["total", "active"], Param("total (all experts) or active (what one token uses)")
    ] = "total",
    *,
    worked: bool = True,
) -> Derivation:
    """Every expert must sit in memory, but a token multiplies only through top_k (+ shared) of them."""
    require_top_k(n_experts, top_k)
    one = per_expert_params(d_model, d_ff, matrices)
    total = n_moe_layers * (n_experts + n_shared) * one
    active = n_moe_layers * (top_k + n_shared) * one
    used = n_experts if which == "total" else top_k
    value = total if which == "total" else active
    plain = 2 if matrices == 3 else 3
    wrong: list[Misconception] = [
        ACTIVE_FOR_TOTAL.gives(active) if which == "total" else TOTAL_FOR_ACTIVE.gives(total),
        TWO_MATRICES.gives(
            value // matrices * plain,
            label=f"You counted {plain} matrices per expert instead of {matrices}",
        ),
        FORGOT_LAYERS.gives(
            value // n_moe_layers,
            explanation=f"Every one of the {n_moe_layers} MoE layers has its own experts.",
        ),
    ]
    if n_shared:
        wrong.append(FORGOT_SHARED.gives(n_moe_layers * used * one))
    experts = f"({num(used)} + {num(n_shared)})" if n_shared else num(used)
    return formula_result(
        value,
        "Expert parameters" if which == "total" else "Active expert parameters per token",
        "MoE layers x experts x matrices x d_model x d_ff",
        f"{num(n_moe_layers)} x {experts} x {matrices} x {num(d_model)} x {num(d_ff)}",
        wrong,
        worked=worked,
        before=(_one_expert_step(d_model, d_ff, matrices, one),),
    )


ALL_EXPERTS = Mistake(
    "all-experts",
    "You charged the FLOPs of every expert",
    "Only the routed experts (and the shared ones) run for a token: that is the point of MoE.",
)
NO_X2 = Mistake(
    "no-x2", "You counted one FLOP per weight", "A multiply-add is 2 FLOPs: 2 per active weight per token."
)
N6N_FOR_INFERENCE = Mistake(
    "6n-for-inference",
    "You used the training rule 6N",
    "A forward pass is 2N; 6N adds the backward pass of training.",
)
TOP_1 = Mistake("top-1", "You routed each token to one expert")


@register(
    summary="Forward FLOPs per token of an MoE model: 2 x (dense parameters + the experts a token uses).",
    unit="FLOPs",
    misconceptions=(ALL_EXPERTS, TOP_1, NO_X2, N6N_FOR_INFERENCE),
)
def moe_token_flops(
    dense_params: Annotated[
        float, Param("parameters every token uses outside the experts (attention, embeddings)", gt=0)
    ],
    d_model: DModel,
    d_ff: DFF,
    n_experts: NExperts,
    top_k: TopK,
    n_moe_layers: NMoeLayers,
    n_shared: Annotated[int, Param("shared experts every token uses")] = 0,
    matrices: Matrices = 3,
    tokens: Annotated[int, Param("tokens processed", gt=0)] = 1,
    *,
    worked: bool = True,
) -> Derivation:
    """A weight a token does not route through costs it no FLOPs: 2 per active weight (one multiply-add)."""
    require_top_k(n_experts, top_k)
    one = per_expert_params(d_model, d_ff, matrices)
    active = dense_params + n_moe_layers * (top_k + n_shared) * one
    total = dense_params + n_moe_layers * (n_experts + n_shared) * one
    value = 2 * active * tokens
    wrong: list[Misconception] = [
        ALL_EXPERTS.gives(2 * total * tokens),
        NO_X2.gives(active * tokens),
        N6N_FOR_INFERENCE.gives(6 * active * tokens),
    ]
    if top_k > 1:
        wrong.append(
            TOP_1.gives(
                2 * (dense_params + n_moe_layers * (1 + n_shared) * one) * tokens,
                explanation=f"Each token goes to its top {top_k} experts, and each of them runs on it.",
            )
        )
    return formula_result(
        value,
        "Forward FLOPs",
        "2 x (dense + MoE layers x (top_k + shared) x one expert) x tokens",
        f"2 x ({num(dense_params)} + {num(n_moe_layers)} x ({top_k} + {n_shared}) x {num(one)})"
        f" x {num(tokens)}",
        wrong,
        worked=worked,
        before=(_one_expert_step(d_model, d_ff, matrices, one),),
    )


# --------------------------------------------------------------------------- communication


FORGOT_TOP_K = Mistake("forgot-top-k", "You sent each token once")
DISPATCH_ONLY = Mistake(
    "dispatch-only",
    "You counted the dispatch but not the combine",
    "The expert outputs travel back to the token's GPU: a second all-to-all of the same size.",
)
COUNTED_LOCAL = Mistake("counted-local", "You counted copies that stay on this GPU")


@register(
    summary="Bytes the all-to-all of expert parallelism sends: tokens x top_k x d_model x bytes, once to "
    "dispatch and once to combine, per MoE layer, for the share routed off the GPU.",
    unit="B",
    misconceptions=(FORGOT_TOP_K, DISPATCH_ONLY, FORGOT_LAYERS, COUNTED_LOCAL),
)
def moe_alltoall_bytes(
    tokens: Annotated[int, Param("tokens in the step on this GPU", gt=0)],
    d_model: Annotated[int, Param("model width (the hidden vector each copy carries)", gt=0)],
    top_k: Annotated[int, Param("routed experts each token uses (copies sent)", gt=0)],
    bytes_per_element: Annotated[float, Param("bytes per activation number (bf16: 2, fp8: 1)", gt=0)],
    n_moe_layers: Annotated[int, Param("MoE layers the step passes through", gt=0)] = 1,
    ep: Annotated[
        int, Param("expert-parallel degree: (ep - 1) / ep of copies leave the GPU; 0 counts every copy")
    ] = 0,
    *,
    worked: bool = True,
) -> Derivation:
    """Each token's hidden vector is copied to each of its experts and each result is sent back."""
    if ep < 0 or ep == 1:
        raise ValueError(f"ep must be 0 (every copy) or 2 or more, got {ep}")
    remote = (ep - 1) / ep if ep else 1.0
    one_way = tokens * top_k * d_model * bytes_per_element
    value = 2 * one_way * n_moe_layers * remote
    wrong: list[Misconception] = [
        FORGOT_TOP_K.gives(
            value / top_k,
            explanation=f"A token goes to {top_k} experts: its hidden vector is copied to each of them.",
        ),
        DISPATCH_ONLY.gives(value / 2),
    ]
    if n_moe_layers > 1:
        wrong.append(
            FORGOT_LAYERS.gives(
                value / n_moe_layers,
                label="You counted one MoE layer",
                explanation=f"Every one of the {n_moe_layers} MoE layers does its own dispatch and combine.",
            )
        )
    if ep > 1:
        wrong.append(
            COUNTED_LOCAL.gives(
                2 * one_way * n_moe_layers,
                explanation=(
                    f"With routing spread evenly over {ep} GPUs, 1 in {ep} copies finds its expert locally."
                ),
            )
        )
    local = f" x ({ep} - 1) / {ep}" if ep > 1 else ""
    return formula_result(
        value,
        "All-to-all bytes (dispatch + combine)",
        "2 x tokens x top_k x d_model x bytes x MoE layers" + (" x (ep - 1) / ep" if ep > 1 else ""),
        f"2 x {num(tokens)} x {top_k} x {num(d_model)} x {num(bytes_per_element)}"
        f" x {num(n_moe_layers)}{local}",
        wrong,
        worked=worked,
    )
