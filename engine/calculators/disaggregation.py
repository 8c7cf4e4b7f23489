"""Provides prefill and decode pools: each replica's prefill utilisation, interference and instance counts.

Rates are in requests per second and times in milliseconds, as in engine.calculators.queueing.
"""

from __future__ import annotations

from typing import Annotated

from engine.calculator import Param, register
from engine.calculators.case_common import formula_result, num
from engine.calculators.common import Share, ceil_exact, floor_exact, require_fraction
from engine.derivation import Derivation, Mistake, Step

# --------------------------------------------------------------------------- prefill, decode and their pools

ArrivalRate = Annotated[float, Param("requests per second", gt=0)]


FORGOT_REPLICAS = Mistake(
    "forgot-replicas",
    "You gave the whole tier's load to one replica",
    "The router spreads the arrivals: each replica sees arrival rate / replicas.",
)
MS_NOT_CONVERTED = Mistake(
    "ms-not-converted",
    "You multiplied by the prefill time in milliseconds",
    "The rate is per second: take the prefill in seconds.",
)
TIMES_REPLICAS = Mistake(
    "times-replicas",
    "You multiplied by the replicas",
    "More replicas share the load, so each one is less busy.",
)


@register(
    summary="Utilisation of each replica's prefill: arrival rate per replica x prefill time.",
    unit="",
    misconceptions=(FORGOT_REPLICAS, MS_NOT_CONVERTED, TIMES_REPLICAS),
)
def prefill_utilisation(
    arrival_rate: Annotated[float, Param("requests per second across the tier", gt=0)],
    replicas: Annotated[float, Param("replicas the router spreads them over", gt=0)],
    prefill_ms: Annotated[float, Param("prefill time of one request, ms", gt=0)],
    *,
    worked: bool = True,
) -> Derivation:
    """rho = lambda x S: the share of each second a replica spends on prefills."""
    seconds = prefill_ms / 1000
    value = arrival_rate / replicas * seconds
    return formula_result(
        value,
        "Prefill utilisation per replica",
        "rho = (arrival rate / replicas) x prefill (s)",
        f"({num(arrival_rate)} / {num(replicas)}) x {num(seconds)}",
        [
            FORGOT_REPLICAS.gives(arrival_rate * seconds),
            MS_NOT_CONVERTED.gives(arrival_rate / replicas * prefill_ms),
            TIMES_REPLICAS.gives(arrival_rate * replicas * seconds),
        ],
        worked=worked,
    )


IGNORED_PREFILL = Mistake(
    "ignored-prefill",
    "You left the prefills out",
    "Colocated prefills stall every decoding request while they run: that is the interference "
    "disaggregation removes.",
)
ONE_PREFILL_PER_STEP = Mistake(
    "one-prefill-per-step",
    "You added a whole prefill to every step",
    "Prefills arrive at a rate, not once per step: on average they take a share rho of the time.",
)
LINEAR_IN_LOAD = Mistake(
    "linear-in-load",
    "You stretched the step by (1 + rho)",
    "Decode runs only in the 1 - rho of time the prefills leave: divide by (1 - rho).",
)


@register(
    summary="Mean time per output token when prefills share the GPU with decoding: the decode step over "
    "the share of time prefills leave, step / (1 - arrival rate x prefill time).",
    unit="ms",
    misconceptions=(IGNORED_PREFILL, ONE_PREFILL_PER_STEP, LINEAR_IN_LOAD),
)
def interfered_tpot_ms(
    decode_step_ms: Annotated[float, Param("one decode step with no prefill in the way, ms", gt=0)],
    prefill_ms: Annotated[float, Param("prefill time of one request on this GPU, ms", gt=0)],
    arrival_rate: Annotated[float, Param("new requests per second on this GPU", gt=0)],
    *,
    worked: bool = True,
) -> Derivation:
    """While a prefill runs every decoding request waits, so decode gets only 1 - rho of the GPU's time."""
    rho = arrival_rate * prefill_ms / 1000
    require_fraction("arrival_rate x prefill time", rho)
    value = decode_step_ms / (1 - rho)
    before = (
        Step(
            "Share of time on prefill",
            "rho = arrival rate x prefill (s)",
            f"{num(arrival_rate)} x {num(prefill_ms / 1000)}",
            rho,
            "",
        ),
    )
    return formula_result(
        value,
        "Mean TPOT",
        "decode step / (1 - rho)",
        f"{num(decode_step_ms)} / (1 - {num(rho)})",
        [
            IGNORED_PREFILL.gives(decode_step_ms),
            ONE_PREFILL_PER_STEP.gives(decode_step_ms + prefill_ms),
            LINEAR_IN_LOAD.gives(decode_step_ms * (1 + rho)),
        ],
        worked=worked,
        before=before,
    )


FULL_UTILISATION = Mistake(
    "full-utilisation",
    "You ran every instance at 100%",
    "At full utilisation the prefill queue, and so TTFT, grows without bound.",
)
ROUNDED_DOWN = Mistake(
    "rounded-down", "You rounded down", "A fraction of an instance still needs a whole one."
)
TIMES_TARGET = Mistake(
    "times-target", "You multiplied by the target", "A lower target means more instances: divide by it."
)


@register(
    summary="Prefill instances of a disaggregated tier at a target utilisation: "
    "ceil(arrival rate x prefill time / target).",
    unit="",
    misconceptions=(FULL_UTILISATION, ROUNDED_DOWN, TIMES_TARGET),
)
def prefill_instances(
    arrival_rate: ArrivalRate,
    prefill_ms: Annotated[float, Param("prefill time of one request on one instance, ms", gt=0)],
    target_utilisation: Annotated[Share, Param("utilisation each instance may run at (0.7 for 70%)")],
    *,
    worked: bool = True,
) -> Derivation:
    """Busy instance-seconds per second, divided by the share each may be busy, rounded up."""
    load = arrival_rate * prefill_ms / 1000
    exact = load / target_utilisation
    value = ceil_exact(exact)
    before = (
        Step(
            "Busy instances",
            "arrival rate x prefill (s)",
            f"{num(arrival_rate)} x {num(prefill_ms / 1000)}",
            load,
            "",
        ),
    )
    return formula_result(
        value,
        "Prefill instances",
        "ceil(busy instances / target)",
        f"ceil({num(load)} / {num(target_utilisation)}) = ceil({exact:.4g})",
        [
            FULL_UTILISATION.gives(ceil_exact(load)),
            ROUNDED_DOWN.gives(floor_exact(exact)),
            TIMES_TARGET.gives(ceil_exact(load * target_utilisation)),
        ],
        worked=worked,
        before=before,
    )


FORGOT_OUTPUT_TOKENS = Mistake(
    "forgot-output-tokens",
    "You held each request for one token's time",
    "A request stays in the decode pool for every token it generates.",
)


@register(
    summary="Decode instances of a disaggregated tier: requests decoding at once (Little's law, each "
    "decodes for output tokens x TPOT) over the batch one instance runs, rounded up.",
    unit="",
    misconceptions=(FORGOT_OUTPUT_TOKENS, ROUNDED_DOWN, MS_NOT_CONVERTED),
)
def decode_instances(
    arrival_rate: ArrivalRate,
    output_tokens: Annotated[int, Param("tokens each request generates", gt=0)],
    tpot_ms: Annotated[float, Param("time per output token, ms", gt=0)],
    max_batch: Annotated[int, Param("requests one decode instance runs at once", gt=0)],
    *,
    worked: bool = True,
) -> Derivation:
    """Little's law on the decode pool: each request stays output tokens x TPOT."""
    stay_s = output_tokens * tpot_ms / 1000
    decoding = arrival_rate * stay_s
    exact = decoding / max_batch
    value = ceil_exact(exact)
    before = (
        Step(
            "Time decoding",
            "output tokens x TPOT (s)",
            f"{num(output_tokens)} x {num(tpot_ms / 1000)}",
            stay_s,
            "",
        ),
        Step(
            "Requests decoding at once",
            "L = arrival rate x time decoding",
            f"{num(arrival_rate)} x {num(stay_s)}",
            decoding,
            "",
        ),
    )
    return formula_result(
        value,
        "Decode instances",
        "ceil(L / batch per instance)",
        f"ceil({num(decoding)} / {num(max_batch)}) = ceil({exact:.4g})",
        [
            FORGOT_OUTPUT_TOKENS.gives(ceil_exact(arrival_rate * tpot_ms / 1000 / max_batch)),
            ROUNDED_DOWN.gives(floor_exact(exact)),
            MS_NOT_CONVERTED.gives(
                ceil_exact(arrival_rate * output_tokens * tpot_ms / max_batch),
                label="You kept the TPOT in milliseconds",
                explanation="The rate is per second: take the time decoding in seconds.",
            ),
        ],
        worked=worked,
        before=before,
    )
