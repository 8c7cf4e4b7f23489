"""Provides KV-cache admission: how much cache a request may grow to, how many fit, the replicas a load needs.

Rates are in requests per second and times in milliseconds, as in engine.calculators.queueing.
"""

from __future__ import annotations

from typing import Annotated

from engine.calculator import Param, register
from engine.calculators.case_common import formula_result, num
from engine.calculators.common import PromptTokens, ceil_exact, floor_exact
from engine.derivation import Derivation, Misconception, Step

# --------------------------------------------------------------------------- admission and the KV cache

GIB = 2**30
CapacityGib = Annotated[float, Param("KV-cache memory of one replica, GiB", gt=0)]
MaxNewTokens = Annotated[int, Param("the request's cap on generated tokens", gt=0)]
PerRequestBytes = Annotated[float, Param("KV cache one request holds, bytes", gt=0)]
PerTokenBytes = Annotated[float, Param("KV-cache bytes of one token across all layers", gt=0)]


@register(
    summary="KV cache an admitted request may grow to: bytes per token x (prompt + max new tokens).",
    unit="B",
    misconceptions=("prompt-only", "new-tokens-only"),
)
def admission_kv_bytes(
    per_token_bytes: PerTokenBytes,
    prompt_tokens: PromptTokens,
    max_new_tokens: MaxNewTokens,
    *,
    worked: bool = True,
) -> Derivation:
    """A request admitted on its prompt alone can run out of cache mid-answer and be preempted."""
    tokens = prompt_tokens + max_new_tokens
    value = per_token_bytes * tokens
    return formula_result(
        value,
        "KV cache at its longest",
        "bytes per token x (prompt + max new tokens)",
        f"{num(per_token_bytes)} x ({num(prompt_tokens)} + {num(max_new_tokens)})",
        [
            Misconception(
                "prompt-only",
                "You sized the cache for the prompt alone",
                "Every generated token is cached too; the request can grow to prompt + max new tokens.",
                per_token_bytes * prompt_tokens,
            ),
            Misconception(
                "new-tokens-only",
                "You left out the prompt",
                "The prompt's keys and values stay cached for the whole answer.",
                per_token_bytes * max_new_tokens,
            ),
        ],
        worked=worked,
    )


@register(
    summary="Requests admitted at once when each reserves its longest cache: "
    "floor(free KV bytes / (bytes per token x (prompt + max new tokens))).",
    unit="",
    misconceptions=("prompt-only", "rounded-up", "gib-as-gb"),
)
def admission_count(
    capacity_gib: Annotated[float, Param("KV-cache memory of the replica, GiB", gt=0)],
    per_token_bytes: PerTokenBytes,
    prompt_tokens: PromptTokens,
    max_new_tokens: MaxNewTokens,
    *,
    worked: bool = True,
) -> Derivation:
    """A request either has room for its whole answer or waits: the count rounds down."""
    capacity = capacity_gib * GIB
    per_request = per_token_bytes * (prompt_tokens + max_new_tokens)
    exact = capacity / per_request
    value = floor_exact(exact)
    before = (
        Step("KV memory", "GiB x 2^30", f"{num(capacity_gib)} x 2^30", capacity, "B"),
        Step(
            "Cache one request reserves",
            "bytes per token x (prompt + max new tokens)",
            f"{num(per_token_bytes)} x ({num(prompt_tokens)} + {num(max_new_tokens)})",
            per_request,
            "B",
        ),
    )
    return formula_result(
        value,
        "Requests admitted",
        "floor(KV memory / per request)",
        f"floor({num(capacity)} / {num(per_request)}) = floor({exact:.4g})",
        [
            Misconception(
                "prompt-only",
                "You reserved only the prompt's cache",
                "Admitting on the prompt alone over-admits: the answers grow and requests get preempted.",
                floor_exact(capacity / (per_token_bytes * prompt_tokens)),
            ),
            Misconception(
                "rounded-up",
                "You rounded up",
                "The last, partial request has no room for its whole answer: round down.",
                ceil_exact(exact),
            ),
            Misconception(
                "gib-as-gb",
                "You took GiB as 10^9 bytes",
                "A GiB is 2^30 bytes, about 7% more than a GB.",
                floor_exact(capacity_gib * 1e9 / per_request),
            ),
        ],
        worked=worked,
        before=before,
    )


@register(
    summary="Replicas an autoscaler needs to hold the in-flight requests' KV cache at a target occupancy: "
    "ceil(concurrency x KV per request / (target x KV memory per replica)).",
    unit="",
    misconceptions=("full-occupancy", "rounded-down", "times-target", "gib-as-gb"),
)
def replicas_for_occupancy(
    concurrency: Annotated[float, Param("requests in flight across the tier (Little's law)", gt=0)],
    per_request_bytes: PerRequestBytes,
    capacity_gib: CapacityGib,
    target_occupancy: Annotated[
        float, Param("the share of that memory the autoscaler aims for (0.7 for 70%)", gt=0, ge=0, le=1)
    ],
    *,
    worked: bool = True,
) -> Derivation:
    """Scaling on KV occupancy leaves headroom for bursts and for answers still growing."""
    demand = concurrency * per_request_bytes
    usable = target_occupancy * capacity_gib * GIB
    exact = demand / usable
    value = ceil_exact(exact)
    before = (
        Step(
            "KV cache in flight",
            "concurrency x per request",
            f"{num(concurrency)} x {num(per_request_bytes)}",
            demand,
            "B",
        ),
        Step(
            "Usable per replica",
            "target x GiB x 2^30",
            f"{num(target_occupancy)} x {num(capacity_gib)} x 2^30",
            usable,
            "B",
        ),
    )
    return formula_result(
        value,
        "Replicas",
        "ceil(in flight / usable per replica)",
        f"ceil({num(demand)} / {num(usable)}) = ceil({exact:.4g})",
        [
            Misconception(
                "full-occupancy",
                "You filled every replica to 100%",
                "The target occupancy is the headroom: size for target x capacity, not the whole cache.",
                ceil_exact(demand / (capacity_gib * GIB)),
            ),
            Misconception(
                "rounded-down",
                "You rounded down",
                "A fraction of a replica still needs a whole one: round up.",
                floor_exact(exact),
            ),
            Misconception(
                "times-target",
                "You multiplied the demand by the target",
                "The target shrinks what each replica may hold, so it divides the capacity.",
                ceil_exact(demand * target_occupancy / (capacity_gib * GIB)),
            ),
            Misconception(
                "gib-as-gb",
                "You took GiB as 10^9 bytes",
                "A GiB is 2^30 bytes.",
                ceil_exact(demand / (target_occupancy * capacity_gib * 1e9)),
            ),
        ],
        worked=worked,
        before=before,
    )


@register(
    summary="Share of the tier's KV-cache memory the in-flight requests hold: "
    "concurrency x KV per request / (replicas x KV memory per replica).",
    unit="",
    misconceptions=("one-replica", "gib-as-gb", "inverted"),
)
def kv_occupancy(
    concurrency: Annotated[float, Param("requests in flight across the tier", gt=0)],
    per_request_bytes: PerRequestBytes,
    capacity_gib: CapacityGib,
    replicas: Annotated[float, Param("replicas sharing the load", gt=0)],
    *,
    worked: bool = True,
) -> Derivation:
    """The fraction the cache is full: what an autoscaler on KV occupancy reads (vLLM's usage gauge)."""
    demand = concurrency * per_request_bytes
    capacity = replicas * capacity_gib * GIB
    value = demand / capacity
    return formula_result(
        value,
        "KV occupancy",
        "in flight x per request / (replicas x GiB x 2^30)",
        f"{num(concurrency)} x {num(per_request_bytes)} / ({num(replicas)} x {num(capacity_gib)} x 2^30)",
        [
            Misconception(
                "one-replica",
                "You compared the whole tier's cache with one replica",
                "The requests spread over every replica: divide by their combined memory.",
                demand / (capacity_gib * GIB),
            ),
            Misconception(
                "gib-as-gb",
                "You took GiB as 10^9 bytes",
                "A GiB is 2^30 bytes.",
                demand / (replicas * capacity_gib * 1e9),
            ),
            Misconception(
                "inverted",
                "You divided the memory by the demand",
                "Occupancy is what is used over what there is.",
                capacity / demand,
            ),
        ],
        worked=worked,
    )
