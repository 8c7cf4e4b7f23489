"""Provides KV-cache admission: how much cache a request may grow to, how many fit, the replicas a load needs.

Rates are in requests per second and times in milliseconds, as in engine.calculators.queueing.
"""

from __future__ import annotations

from typing import Annotated

from engine.calculator import Param, register
from engine.calculators.case_common import formula_result, num
from engine.calculators.common import PromptTokens, Share, ceil_exact, floor_exact
from engine.derivation import Derivation, Mistake, Step

# --------------------------------------------------------------------------- admission and the KV cache

GIB = 2**30
CapacityGib = Annotated[float, Param("KV-cache memory of one replica, GiB", gt=0)]
MaxNewTokens = Annotated[int, Param("the request's cap on generated tokens", gt=0)]
PerRequestBytes = Annotated[float, Param("KV cache one request holds, bytes", gt=0)]
PerTokenBytes = Annotated[float, Param("KV-cache bytes of one token across all layers", gt=0)]


PROMPT_ONLY = Mistake(
    "prompt-only",
    "You sized the cache for the prompt alone",
    "Every generated token is cached too; the request can grow to prompt + max new tokens.",
)
NEW_TOKENS_ONLY = Mistake(
    "new-tokens-only",
    "You left out the prompt",
    "The prompt's keys and values stay cached for the whole answer.",
)


@register(
    summary="KV cache an admitted request may grow to: bytes per token x (prompt + max new tokens).",
    unit="B",
    misconceptions=(PROMPT_ONLY, NEW_TOKENS_ONLY),
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
            PROMPT_ONLY.gives(per_token_bytes * prompt_tokens),
            NEW_TOKENS_ONLY.gives(per_token_bytes * max_new_tokens),
        ],
        worked=worked,
    )


ROUNDED_UP = Mistake(
    "rounded-up", "You rounded up", "The last, partial request has no room for its whole answer: round down."
)
GIB_AS_GB = Mistake(
    "gib-as-gb", "You took GiB as 10^9 bytes", "A GiB is 2^30 bytes, about 7% more than a GB."
)


@register(
    summary="Requests admitted at once when each reserves its longest cache: "
    "floor(free KV bytes / (bytes per token x (prompt + max new tokens))).",
    unit="",
    misconceptions=(PROMPT_ONLY, ROUNDED_UP, GIB_AS_GB),
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
            PROMPT_ONLY.gives(
                floor_exact(capacity / (per_token_bytes * prompt_tokens)),
                label="You reserved only the prompt's cache",
                explanation=(
                    "Admitting on the prompt alone over-admits: the answers grow and requests get preempted."
                ),
            ),
            ROUNDED_UP.gives(ceil_exact(exact)),
            GIB_AS_GB.gives(floor_exact(capacity_gib * 1e9 / per_request)),
        ],
        worked=worked,
        before=before,
    )


FULL_OCCUPANCY = Mistake(
    "full-occupancy",
    "You filled every replica to 100%",
    "The target occupancy is the headroom: size for target x capacity, not the whole cache.",
)
ROUNDED_DOWN = Mistake(
    "rounded-down", "You rounded down", "A fraction of a replica still needs a whole one: round up."
)
TIMES_TARGET = Mistake(
    "times-target",
    "You multiplied the demand by the target",
    "The target shrinks what each replica may hold, so it divides the capacity.",
)


@register(
    summary="Replicas an autoscaler needs to hold the in-flight requests' KV cache at a target occupancy: "
    "ceil(concurrency x KV per request / (target x KV memory per replica)).",
    unit="",
    misconceptions=(FULL_OCCUPANCY, ROUNDED_DOWN, TIMES_TARGET, GIB_AS_GB),
)
def replicas_for_occupancy(
    concurrency: Annotated[float, Param("requests in flight across the tier (Little's law)", gt=0)],
    per_request_bytes: PerRequestBytes,
    capacity_gib: CapacityGib,
    target_occupancy: Annotated[
        Share, Param("the share of that memory the autoscaler aims for (0.7 for 70%)")
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
            FULL_OCCUPANCY.gives(ceil_exact(demand / (capacity_gib * GIB))),
            ROUNDED_DOWN.gives(floor_exact(exact)),
            TIMES_TARGET.gives(ceil_exact(demand * target_occupancy / (capacity_gib * GIB))),
            GIB_AS_GB.gives(
                ceil_exact(demand / (target_occupancy * capacity_gib * 1e9)),
                explanation="A GiB is 2^30 bytes.",
            ),
        ],
        worked=worked,
        before=before,
    )


ONE_REPLICA = Mistake(
    "one-replica",
    "You compared the whole tier's cache with one replica",
    "The requests spread over every replica: divide by their combined memory.",
)
INVERTED = Mistake(
    "inverted", "You divided the memory by the demand", "Occupancy is what is used over what there is."
)


@register(
    summary="Share of the tier's KV-cache memory the in-flight requests hold: "
    "concurrency x KV per request / (replicas x KV memory per replica).",
    unit="",
    misconceptions=(ONE_REPLICA, GIB_AS_GB, INVERTED),
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
            ONE_REPLICA.gives(demand / (capacity_gib * GIB)),
            GIB_AS_GB.gives(demand / (replicas * capacity_gib * 1e9), explanation="A GiB is 2^30 bytes."),
            INVERTED.gives(capacity / demand),
        ],
        worked=worked,
    )
