"""Provides the mixture-of-experts calculators: total against active parameters, FLOPs per token under
top-k routing, the all-to-all of expert parallelism, capacity and dropped tokens, the hottest expert's
time, weights per GPU under EP x TP, and why small-batch decode reads every expert.

An MoE layer replaces one FFN with `n_experts` FFNs and a router that sends each token to `top_k` of
them (plus `n_shared` experts every token uses). Memory pays for all experts; compute pays only for the
chosen ones. Each calculator returns a worked Derivation and the slips an interviewer sees most often.
"""

from __future__ import annotations

import math

from engine.calculator import Arg, register
from engine.calculators.case_common import Wrong, formula_result, num, require_positive_numbers
from engine.derivation import Derivation, Step

_MATRICES = Arg(
    "matrices",
    "int",
    "weight matrices per expert FFN (SwiGLU: gate, up and down, 3; a plain MLP: 2)",
    3,
    False,
)


def _per_expert(d_model: int, d_ff: int, matrices: int) -> int:
    """Weights of one expert FFN: `matrices` matrices of d_model x d_ff (no biases: Mixtral, DeepSeek)."""
    return matrices * d_model * d_ff


def _require_top_k(calc: str, n_experts: int, top_k: int) -> None:
    if top_k > n_experts:
        raise ValueError(f"{calc}: top_k={top_k} cannot exceed n_experts={n_experts}")


# --------------------------------------------------------------------------- parameters


@register(
    "moe_expert_params",
    summary="Parameters in the experts of an MoE model: all of them (memory) or the ones a token uses "
    "(compute), layers x experts x matrices x d_model x d_ff.",
    unit="params",
    args=(
        Arg("d_model", "int", "model width"),
        Arg("d_ff", "int", "hidden width of one expert FFN"),
        Arg("n_experts", "int", "routed experts per MoE layer"),
        Arg("top_k", "int", "routed experts each token uses"),
        Arg("n_moe_layers", "int", "layers whose FFN is an MoE layer"),
        Arg("n_shared", "int", "shared experts every token uses", 0, False),
        _MATRICES,
        Arg(
            "which",
            "str",
            "total (all experts) or active (what one token uses)",
            "total",
            False,
            ("total", "active"),
        ),
    ),
    misconceptions=("active-for-total", "total-for-active", "two-matrices", "forgot-shared", "forgot-layers"),
)
def moe_expert_params(
    d_model: int,
    d_ff: int,
    n_experts: int,
    top_k: int,
    n_moe_layers: int,
    n_shared: int = 0,
    matrices: int = 3,
    which: str = "total",
    *,
    worked: bool = True,
) -> Derivation:
    """Every expert must sit in memory, but a token multiplies only through top_k (+ shared) of them."""
    calc = "moe_expert_params"
    require_positive_numbers(
        calc,
        d_model=d_model,
        d_ff=d_ff,
        n_experts=n_experts,
        top_k=top_k,
        n_moe_layers=n_moe_layers,
        matrices=matrices,
    )
    _require_top_k(calc, n_experts, top_k)
    if n_shared < 0:
        raise ValueError(f"{calc}: n_shared must be 0 or more, got {n_shared}")
    if which not in ("total", "active"):
        raise ValueError(f"{calc}: which must be 'total' or 'active', got {which!r}")
    one = _per_expert(d_model, d_ff, matrices)
    total = n_moe_layers * (n_experts + n_shared) * one
    active = n_moe_layers * (top_k + n_shared) * one
    used = n_experts if which == "total" else top_k
    value = total if which == "total" else active
    plain = 2 if matrices == 3 else 3
    wrong: list[Wrong] = [
        (
            "active-for-total" if which == "total" else "total-for-active",
            "You counted only the experts a token uses" if which == "total" else "You counted every expert",
            "Memory holds every expert, used or not: count all of them."
            if which == "total"
            else "A token multiplies only through the experts its router picks: count top_k (and shared).",
            active if which == "total" else total,
        ),
        (
            "two-matrices",
            f"You counted {plain} matrices per expert instead of {matrices}",
            "A SwiGLU expert has three matrices (gate, up, down); a plain MLP has two.",
            value // matrices * plain,
        ),
        (
            "forgot-layers",
            "You counted one layer",
            f"Every one of the {n_moe_layers} MoE layers has its own experts.",
            value // n_moe_layers,
        ),
    ]
    if n_shared:
        wrong.append(
            (
                "forgot-shared",
                "You left out the shared expert(s)",
                "Shared experts are in every MoE layer and every token uses them.",
                n_moe_layers * used * one,
            )
        )
    experts = f"({num(used)} + {num(n_shared)})" if n_shared else num(used)
    return formula_result(
        calc,
        value,
        "params",
        "Expert parameters" if which == "total" else "Active expert parameters per token",
        "MoE layers x experts x matrices x d_model x d_ff",
        f"{num(n_moe_layers)} x {experts} x {matrices} x {num(d_model)} x {num(d_ff)}",
        wrong,
        worked=worked,
        before=(
            Step(
                "One expert",
                "matrices x d_model x d_ff",
                f"{matrices} x {num(d_model)} x {num(d_ff)}",
                one,
                "params",
            ),
        ),
    )


@register(
    "moe_token_flops",
    summary="Forward FLOPs per token of an MoE model: 2 x (dense parameters + the experts a token uses).",
    unit="FLOPs",
    args=(
        Arg(
            "dense_params", "float", "parameters every token uses outside the experts (attention, embeddings)"
        ),
        Arg("d_model", "int", "model width"),
        Arg("d_ff", "int", "hidden width of one expert FFN"),
        Arg("n_experts", "int", "routed experts per MoE layer"),
        Arg("top_k", "int", "routed experts each token uses"),
        Arg("n_moe_layers", "int", "layers whose FFN is an MoE layer"),
        Arg("n_shared", "int", "shared experts every token uses", 0, False),
        _MATRICES,
        Arg("tokens", "int", "tokens processed", 1, False),
    ),
    misconceptions=("all-experts", "top-1", "no-x2", "6n-for-inference"),
)
def moe_token_flops(
    dense_params: float,
    d_model: int,
    d_ff: int,
    n_experts: int,
    top_k: int,
    n_moe_layers: int,
    n_shared: int = 0,
    matrices: int = 3,
    tokens: int = 1,
    *,
    worked: bool = True,
) -> Derivation:
    """A weight a token does not route through costs it no FLOPs: 2 per active weight (one multiply-add)."""
    calc = "moe_token_flops"
    require_positive_numbers(
        calc,
        dense_params=dense_params,
        d_model=d_model,
        d_ff=d_ff,
        n_experts=n_experts,
        top_k=top_k,
        n_moe_layers=n_moe_layers,
        matrices=matrices,
        tokens=tokens,
    )
    _require_top_k(calc, n_experts, top_k)
    one = _per_expert(d_model, d_ff, matrices)
    active = dense_params + n_moe_layers * (top_k + n_shared) * one
    total = dense_params + n_moe_layers * (n_experts + n_shared) * one
    value = 2 * active * tokens
    wrong: list[Wrong] = [
        (
            "all-experts",
            "You charged the FLOPs of every expert",
            "Only the routed experts (and the shared ones) run for a token: that is the point of MoE.",
            2 * total * tokens,
        ),
        (
            "no-x2",
            "You counted one FLOP per weight",
            "A multiply-add is 2 FLOPs: 2 per active weight per token.",
            active * tokens,
        ),
        (
            "6n-for-inference",
            "You used the training rule 6N",
            "A forward pass is 2N; 6N adds the backward pass of training.",
            6 * active * tokens,
        ),
    ]
    if top_k > 1:
        wrong.append(
            (
                "top-1",
                "You routed each token to one expert",
                f"Each token goes to its top {top_k} experts, and each of them runs on it.",
                2 * (dense_params + n_moe_layers * (1 + n_shared) * one) * tokens,
            )
        )
    return formula_result(
        calc,
        value,
        "FLOPs",
        "Forward FLOPs",
        "2 x (dense + MoE layers x (top_k + shared) x one expert) x tokens",
        f"2 x ({num(dense_params)} + {num(n_moe_layers)} x ({top_k} + {n_shared}) x {num(one)})"
        f" x {num(tokens)}",
        wrong,
        worked=worked,
        before=(
            Step(
                "One expert",
                "matrices x d_model x d_ff",
                f"{matrices} x {num(d_model)} x {num(d_ff)}",
                one,
                "params",
            ),
        ),
    )


# --------------------------------------------------------------------------- communication


@register(
    "moe_alltoall_bytes",
    summary="Bytes the all-to-all of expert parallelism sends: tokens x top_k x d_model x bytes, once to "
    "dispatch and once to combine, per MoE layer, for the share routed off the GPU.",
    unit="B",
    args=(
        Arg("tokens", "int", "tokens in the step on this GPU"),
        Arg("d_model", "int", "model width (the hidden vector each copy carries)"),
        Arg("top_k", "int", "routed experts each token uses (copies sent)"),
        Arg("bytes_per_element", "float", "bytes per activation number (bf16: 2, fp8: 1)"),
        Arg("n_moe_layers", "int", "MoE layers the step passes through", 1, False),
        Arg(
            "ep",
            "int",
            "expert-parallel degree: (ep - 1) / ep of copies leave the GPU; 0 counts every copy",
            0,
            False,
        ),
    ),
    misconceptions=("forgot-top-k", "dispatch-only", "forgot-layers", "counted-local"),
)
def moe_alltoall_bytes(
    tokens: int,
    d_model: int,
    top_k: int,
    bytes_per_element: float,
    n_moe_layers: int = 1,
    ep: int = 0,
    *,
    worked: bool = True,
) -> Derivation:
    """Each token's hidden vector is copied to each of its experts and each result is sent back."""
    calc = "moe_alltoall_bytes"
    require_positive_numbers(
        calc,
        tokens=tokens,
        d_model=d_model,
        top_k=top_k,
        bytes_per_element=bytes_per_element,
        n_moe_layers=n_moe_layers,
    )
    if ep < 0 or ep == 1:
        raise ValueError(f"{calc}: ep must be 0 (every copy) or 2 or more, got {ep}")
    remote = (ep - 1) / ep if ep else 1.0
    one_way = tokens * top_k * d_model * bytes_per_element
    value = 2 * one_way * n_moe_layers * remote
    wrong: list[Wrong] = [
        (
            "forgot-top-k",
            "You sent each token once",
            f"A token goes to {top_k} experts: its hidden vector is copied to each of them.",
            value / top_k,
        ),
        (
            "dispatch-only",
            "You counted the dispatch but not the combine",
            "The expert outputs travel back to the token's GPU: a second all-to-all of the same size.",
            value / 2,
        ),
    ]
    if n_moe_layers > 1:
        wrong.append(
            (
                "forgot-layers",
                "You counted one MoE layer",
                f"Every one of the {n_moe_layers} MoE layers does its own dispatch and combine.",
                value / n_moe_layers,
            )
        )
    if ep > 1:
        wrong.append(
            (
                "counted-local",
                "You counted copies that stay on this GPU",
                f"With routing spread evenly over {ep} GPUs, 1 in {ep} copies finds its expert locally.",
                2 * one_way * n_moe_layers,
            )
        )
    local = f" x ({ep} - 1) / {ep}" if ep > 1 else ""
    return formula_result(
        calc,
        value,
        "B",
        "All-to-all bytes (dispatch + combine)",
        "2 x tokens x top_k x d_model x bytes x MoE layers" + (" x (ep - 1) / ep" if ep > 1 else ""),
        f"2 x {num(tokens)} x {top_k} x {num(d_model)} x {num(bytes_per_element)}"
        f" x {num(n_moe_layers)}{local}",
        wrong,
        worked=worked,
    )


# --------------------------------------------------------------------------- capacity and imbalance


@register(
    "moe_expert_capacity",
    summary="Slots per expert in a capacity-limited MoE layer: floor(capacity factor x tokens x top_k / "
    "experts).",
    unit="",
    args=(
        Arg("tokens", "int", "tokens in the batch routed together"),
        Arg("n_experts", "int", "routed experts"),
        Arg("top_k", "int", "experts per token"),
        Arg("capacity_factor", "float", "slack over an even share (1.0: exactly even)"),
    ),
    misconceptions=("forgot-top-k", "forgot-capacity-factor", "rounded-up"),
)
def moe_expert_capacity(
    tokens: int, n_experts: int, top_k: int, capacity_factor: float, *, worked: bool = True
) -> Derivation:
    """An even split gives tokens x top_k / experts assignments each; the factor adds slack for imbalance."""
    calc = "moe_expert_capacity"
    require_positive_numbers(
        calc, tokens=tokens, n_experts=n_experts, top_k=top_k, capacity_factor=capacity_factor
    )
    _require_top_k(calc, n_experts, top_k)
    exact = capacity_factor * tokens * top_k / n_experts
    value = math.floor(exact + 1e-9)
    wrong: list[Wrong] = [
        (
            "forgot-top-k",
            "You gave each token one assignment",
            f"Each token is assigned to {top_k} experts: there are tokens x top_k assignments to share.",
            math.floor(capacity_factor * tokens / n_experts + 1e-9),
        ),
        (
            "forgot-capacity-factor",
            "You left out the capacity factor",
            "The capacity is the even share times the factor; without it any imbalance drops tokens.",
            math.floor(tokens * top_k / n_experts + 1e-9),
        ),
    ]
    if value != exact:
        wrong.append(("rounded-up", "You rounded up", "A slot is whole: round the capacity down.", value + 1))
    return formula_result(
        calc,
        value,
        "",
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


@register(
    "moe_dropped_tokens",
    summary="Token assignments dropped when hot experts overflow their capacity: hot experts x (hot load - "
    "capacity), capacity = floor(factor x tokens x top_k / experts).",
    unit="",
    args=(
        Arg("tokens", "int", "tokens in the batch routed together"),
        Arg("n_experts", "int", "routed experts"),
        Arg("top_k", "int", "experts per token"),
        Arg("capacity_factor", "float", "slack over an even share"),
        Arg("hot_experts", "int", "experts that receive hot_ratio times the even share"),
        Arg("hot_ratio", "float", "a hot expert's load over the even share (the others stay under capacity)"),
    ),
    misconceptions=("forgot-capacity-factor", "one-hot-expert", "dropped-whole-load", "forgot-top-k"),
)
def moe_dropped_tokens(
    tokens: int,
    n_experts: int,
    top_k: int,
    capacity_factor: float,
    hot_experts: int,
    hot_ratio: float,
    *,
    worked: bool = True,
) -> Derivation:
    """An expert processes at most `capacity` assignments; what arrives beyond that skips the expert."""
    calc = "moe_dropped_tokens"
    require_positive_numbers(
        calc,
        tokens=tokens,
        n_experts=n_experts,
        top_k=top_k,
        capacity_factor=capacity_factor,
        hot_experts=hot_experts,
        hot_ratio=hot_ratio,
    )
    _require_top_k(calc, n_experts, top_k)
    if hot_experts >= n_experts:
        raise ValueError(f"{calc}: hot_experts={hot_experts} must be fewer than n_experts={n_experts}")
    mean, hot = _hot_loads(tokens, n_experts, top_k, hot_experts, hot_ratio)
    cap = math.floor(capacity_factor * mean + 1e-9)
    value = hot_experts * max(0, hot - cap)
    wrong: list[Wrong] = [
        (
            "forgot-capacity-factor",
            "You took the capacity as the even share",
            "Each expert has factor x even share slots: only the load above that is dropped.",
            hot_experts * max(0, hot - mean),
        ),
        (
            "dropped-whole-load",
            "You dropped the hot experts' whole load",
            "An overflowing expert still processes its first `capacity` assignments.",
            hot_experts * hot,
        ),
        (
            "forgot-top-k",
            "You shared tokens, not tokens x top_k, among the experts",
            f"Each token makes {top_k} assignments: the even share is tokens x top_k / experts.",
            hot_experts
            * max(
                0,
                round(hot_ratio * tokens / n_experts)
                - math.floor(capacity_factor * tokens / n_experts + 1e-9),
            ),
        ),
    ]
    if hot_experts > 1:
        wrong.append(
            (
                "one-hot-expert",
                "You counted one hot expert",
                f"{hot_experts} experts overflow, each by the same amount.",
                max(0, hot - cap),
            )
        )
    return formula_result(
        calc,
        value,
        "",
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


@register(
    "moe_hot_expert_ms",
    summary="Time of an MoE layer's expert compute set by its hottest expert: hot load x 2 x one expert's "
    "parameters / throughput.",
    unit="ms",
    args=(
        Arg("tokens", "int", "tokens in the step"),
        Arg("n_experts", "int", "routed experts"),
        Arg("top_k", "int", "experts per token"),
        Arg("hot_ratio", "float", "the hottest expert's load over the even share"),
        Arg("d_model", "int", "model width"),
        Arg("d_ff", "int", "hidden width of one expert"),
        Arg("tflops", "float", "throughput of the GPU that holds the hottest expert, TFLOPS"),
        _MATRICES,
    ),
    misconceptions=("used-mean-load", "forgot-top-k", "no-x2"),
)
def moe_hot_expert_ms(
    tokens: int,
    n_experts: int,
    top_k: int,
    hot_ratio: float,
    d_model: int,
    d_ff: int,
    tflops: float,
    matrices: int = 3,
    *,
    worked: bool = True,
) -> Derivation:
    """Experts run in parallel and the layer waits for all of them: the busiest one sets the time."""
    calc = "moe_hot_expert_ms"
    require_positive_numbers(
        calc,
        tokens=tokens,
        n_experts=n_experts,
        top_k=top_k,
        hot_ratio=hot_ratio,
        d_model=d_model,
        d_ff=d_ff,
        tflops=tflops,
        matrices=matrices,
    )
    _require_top_k(calc, n_experts, top_k)
    mean, hot = _hot_loads(tokens, n_experts, top_k, 1, hot_ratio)
    one = _per_expert(d_model, d_ff, matrices)
    per_token_ms = 2 * one / (tflops * 1e12) * 1e3
    value = hot * per_token_ms
    return formula_result(
        calc,
        value,
        "ms",
        "Expert time of the layer",
        "hot load x 2 x one expert / (TFLOPS x 10^12) x 10^3",
        f"{num(hot)} x 2 x {num(one)} / ({num(tflops)} x 10^12) x 10^3",
        [
            (
                "used-mean-load",
                "You timed the average expert",
                "The layer ends when its busiest expert ends: time the hot load, not the mean.",
                mean * per_token_ms,
            ),
            (
                "forgot-top-k",
                "You shared tokens, not tokens x top_k, among the experts",
                f"Each token makes {top_k} assignments: the even share is tokens x top_k / experts.",
                hot_ratio * tokens / n_experts * per_token_ms,
            ),
            ("no-x2", "You counted one FLOP per weight", "A multiply-add is 2 FLOPs.", value / 2),
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


@register(
    "moe_weights_per_gpu",
    summary="Weight bytes per GPU under EP x TP: dense weights split by TP (copied in each EP group), "
    "experts split over all ep x tp GPUs.",
    unit="B",
    args=(
        Arg("dense_params", "float", "parameters outside the routed experts (attention, embeddings, shared)"),
        Arg("expert_params", "float", "parameters of all routed experts"),
        Arg("ep", "int", "expert-parallel degree (groups)"),
        Arg("tp", "int", "tensor-parallel degree inside each group"),
        Arg("bytes_per_param", "float", "bytes per weight (bf16: 2, fp8: 1)"),
    ),
    misconceptions=("dense-split-by-ep", "experts-split-by-tp-only", "forgot-tp"),
)
def moe_weights_per_gpu(
    dense_params: float,
    expert_params: float,
    ep: int,
    tp: int,
    bytes_per_param: float,
    *,
    worked: bool = True,
) -> Derivation:
    """Each EP group keeps a full tensor-parallel copy of the dense part; experts exist once over all GPUs."""
    calc = "moe_weights_per_gpu"
    require_positive_numbers(
        calc,
        dense_params=dense_params,
        expert_params=expert_params,
        ep=ep,
        tp=tp,
        bytes_per_param=bytes_per_param,
    )
    value = (dense_params / tp + expert_params / (ep * tp)) * bytes_per_param
    wrong: list[Wrong] = [
        (
            "experts-split-by-tp-only",
            "You split the experts over one group's GPUs",
            "The experts are spread over every GPU of every group, ep x tp of them.",
            (dense_params + expert_params) / tp * bytes_per_param,
        ),
    ]
    if tp > 1:
        wrong.append(
            (
                "forgot-tp",
                "You split the experts over the groups only",
                "Within a group the experts are split again over its tp GPUs: 1 / (ep x tp) each.",
                (dense_params / tp + expert_params / ep) * bytes_per_param,
            )
        )
    if ep > 1:
        wrong.insert(
            0,
            (
                "dense-split-by-ep",
                "You split the dense weights over all ep x tp GPUs",
                "Each EP group runs its own attention: the dense part is copied in every group, split by tp.",
                (dense_params + expert_params) / (ep * tp) * bytes_per_param,
            ),
        )
    return formula_result(
        calc,
        value,
        "B",
        "Weights per GPU",
        "(dense / tp + experts / (ep x tp)) x bytes",
        f"({num(dense_params)} / {tp} + {num(expert_params)} / ({ep} x {tp})) x {num(bytes_per_param)}",
        wrong,
        worked=worked,
    )


@register(
    "moe_experts_touched",
    summary="Expected distinct experts a decode step reads per layer when B tokens each pick top_k of E "
    "uniformly: E x (1 - (1 - k/E)^B).",
    unit="",
    args=(
        Arg("n_experts", "int", "routed experts per layer"),
        Arg("top_k", "int", "experts per token"),
        Arg("batch", "int", "tokens in the step"),
    ),
    misconceptions=("no-overlap", "only-top-k", "all-experts"),
)
def moe_experts_touched(n_experts: int, top_k: int, batch: int, *, worked: bool = True) -> Derivation:
    """An expert is skipped only if every token passes it by, each with chance 1 - k/E."""
    calc = "moe_experts_touched"
    require_positive_numbers(calc, n_experts=n_experts, top_k=top_k, batch=batch)
    _require_top_k(calc, n_experts, top_k)
    miss = (1 - top_k / n_experts) ** batch
    value = n_experts * (1 - miss)
    return formula_result(
        calc,
        value,
        "",
        "Experts read per layer",
        "E x (1 - (1 - k / E)^B)",
        f"{num(n_experts)} x (1 - (1 - {top_k} / {num(n_experts)})^{num(batch)})",
        [
            (
                "no-overlap",
                "You assumed no two tokens share an expert",
                "Tokens pick experts independently, so their choices overlap; B x k also overshoots E.",
                batch * top_k,
            ),
            (
                "only-top-k",
                "You read only top_k experts",
                "Different tokens pick different experts; the step reads the union of their choices.",
                top_k,
            ),
            (
                "all-experts",
                "You read every expert",
                "Some experts are picked by no token in the step and are not read.",
                n_experts,
            ),
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


@register(
    "moe_ridge_batch",
    summary="Tokens per step at which expert matmuls reach the GPU's ridge point: ridge x bytes x E / (2 k).",
    unit="",
    args=(
        Arg("tflops", "float", "dense throughput, TFLOPS"),
        Arg("bandwidth_gb_s", "float", "memory bandwidth, GB/s"),
        Arg("n_experts", "int", "routed experts per layer"),
        Arg("top_k", "int", "experts per token"),
        Arg("bytes_per_param", "float", "bytes per weight"),
    ),
    misconceptions=("dense-ridge", "forgot-bytes", "inverted-k"),
)
def moe_ridge_batch(
    tflops: float,
    bandwidth_gb_s: float,
    n_experts: int,
    top_k: int,
    bytes_per_param: float,
    *,
    worked: bool = True,
) -> Derivation:
    """Each expert weight read serves B k / E tokens (2 FLOPs each): MoE needs E / k times a dense batch."""
    calc = "moe_ridge_batch"
    require_positive_numbers(
        calc,
        tflops=tflops,
        bandwidth_gb_s=bandwidth_gb_s,
        n_experts=n_experts,
        top_k=top_k,
        bytes_per_param=bytes_per_param,
    )
    _require_top_k(calc, n_experts, top_k)
    ridge = tflops * 1e12 / (bandwidth_gb_s * 1e9)
    value = ridge * bytes_per_param * n_experts / (2 * top_k)
    return formula_result(
        calc,
        value,
        "",
        "Tokens per step at the ridge",
        "ridge x bytes x E / (2 x k)",
        f"{num(ridge)} x {num(bytes_per_param)} x {num(n_experts)} / (2 x {top_k})",
        [
            (
                "dense-ridge",
                "You used a dense model's batch",
                f"Each expert sees only k / E = {top_k}/{num(n_experts)} of the tokens: multiply by E / k.",
                ridge * bytes_per_param / 2,
            ),
            (
                "forgot-bytes",
                "You left out the bytes per weight",
                "Intensity is FLOPs per byte: each weight costs `bytes` bytes to read.",
                ridge * n_experts / (2 * top_k),
            ),
            (
                "inverted-k",
                "You multiplied by k / E instead of E / k",
                "Fewer tokens per expert means a larger batch is needed, not a smaller one.",
                ridge * bytes_per_param * top_k / (2 * n_experts),
            ),
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
