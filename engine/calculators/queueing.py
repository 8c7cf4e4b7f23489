"""Provides the queueing arithmetic of serving design: Little's law, the latency of a busy server, goodput
under an SLO, admission against the KV cache, and how many replicas or instances a load needs.

An interviewer at the staff round expects three models and where each breaks: Little's law (L = lambda W,
true for any stable system), the single-server queue (the wait grows like rho / (1 - rho), so latency
explodes as utilisation nears 100%), and the KV cache as the resource that caps concurrency. Rates are in
requests per second and times in milliseconds, so every "forgot to turn ms into s" slip is a factor of 1000.
"""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Annotated, Literal

from engine.calculator import Param, register, result
from engine.calculators.case_common import formula_result, num
from engine.calculators.common import OpenShare, Utilisation
from engine.derivation import Derivation, Misconception, Mistake, Step

SERVICES = ("exponential", "deterministic")
"""M/M/1 (service times vary like an exponential) or M/D/1 (every service the same length)."""
PARTS = ("queue", "system")
"""The wait before service starts, or the whole time in the system (wait + service)."""


ServiceMs = Annotated[float, Param("mean service time S = 1 / mu, ms", gt=0)]


# --------------------------------------------------------------------------- Little's law


MS_NOT_CONVERTED = Mistake(
    "ms-not-converted",
    "You multiplied by the latency in milliseconds",
    "The rate is per second, so the latency must be in seconds: divide the ms by 1000.",
)
DIVIDED_BY_LATENCY = Mistake(
    "divided-by-latency",
    "You divided the rate by the latency",
    "More time in the system means more requests inside it at once: L grows with W.",
)
INVERTED = Mistake(
    "inverted",
    "You divided the latency by the rate",
    "More arrivals per second means more requests in flight: multiply, L = lambda W.",
)


@register(
    summary="Little's law: requests in flight = arrival rate x time each spends in the system.",
    unit="",
    misconceptions=(MS_NOT_CONVERTED, DIVIDED_BY_LATENCY, INVERTED),
)
def little_concurrency(
    arrival_rate: Annotated[float, Param("requests arriving per second", gt=0)],
    latency_ms: Annotated[float, Param("mean time a request spends in the system, ms", gt=0)],
    *,
    worked: bool = True,
) -> Derivation:
    """L = lambda W holds for any stable system, whatever the arrival or service distributions."""
    seconds = latency_ms / 1000
    value = arrival_rate * seconds
    return formula_result(
        value,
        "Requests in flight",
        "L = arrival rate x latency (s)",
        f"{num(arrival_rate)} x {num(seconds)}",
        [
            MS_NOT_CONVERTED.gives(arrival_rate * latency_ms),
            DIVIDED_BY_LATENCY.gives(arrival_rate / seconds),
            INVERTED.gives(seconds / arrival_rate),
        ],
        worked=worked,
    )


MULTIPLIED = Mistake(
    "multiplied",
    "You multiplied the slots by the latency",
    "Longer requests hold their slots longer, so fewer requests per second fit: divide.",
)


@register(
    summary="Little's law solved for the rate: sustainable requests per second = slots in flight / latency.",
    unit="",
    misconceptions=(MS_NOT_CONVERTED, MULTIPLIED, INVERTED),
)
def little_arrival_rate(
    concurrency: Annotated[float, Param("requests that can be in flight at once", gt=0)],
    latency_ms: Annotated[float, Param("mean time each request holds its slot, ms", gt=0)],
    *,
    worked: bool = True,
) -> Derivation:
    """lambda = L / W: a fixed number of slots, each held for W, turns over L / W times per second."""
    seconds = latency_ms / 1000
    value = concurrency / seconds
    return formula_result(
        value,
        "Requests per second",
        "lambda = L / latency (s)",
        f"{num(concurrency)} / {num(seconds)}",
        [
            MS_NOT_CONVERTED.gives(
                concurrency / latency_ms,
                label="You divided by the latency in milliseconds",
                explanation="A rate per second needs the latency in seconds: divide the ms by 1000 first.",
            ),
            MULTIPLIED.gives(concurrency * seconds),
            INVERTED.gives(
                seconds / concurrency,
                label="You divided the latency by the slots",
                explanation="More slots carry more requests per second: lambda = L / W.",
            ),
        ],
        worked=worked,
    )


# --------------------------------------------------------------------------- one busy server


NO_BLOWUP = Mistake(
    "no-blowup",
    "You took the wait as rho x S, with no 1 / (1 - rho)",
    "A request waits for the work ahead of it, and near full load that queue is long: the wait is "
    "divided by (1 - rho), which explodes as rho approaches 1.",
)
ADDED_SERVICE = Mistake(
    "added-service",
    "You added the service time",
    "The question asks for the wait before service starts: the time in service comes after.",
)
FORGOT_SERVICE = Mistake(
    "forgot-service",
    "You gave the wait in the queue only",
    "The time in the system is the wait plus the service itself.",
)
_PK = (
    "Pollaczek-Khinchine: the wait scales with (1 + c^2) / 2, where c is the coefficient of variation of "
    "the service time: 1 for exponential service, 0 when every service takes S."
)
EXPONENTIAL_FOR_DETERMINISTIC = Mistake(
    "exponential-for-deterministic", "You used the M/M/1 formula for an M/D/1 queue", _PK
)
DETERMINISTIC_FOR_EXPONENTIAL = Mistake(
    "deterministic-for-exponential", "You used the M/D/1 formula for an M/M/1 queue", _PK
)


@register(
    summary="Mean wait of a single-server queue with Poisson arrivals (Pollaczek-Khinchine): "
    "rho x S x (1 + c^2) / (2 (1 - rho)), c^2 = 1 for M/M/1 and 0 for M/D/1; plus S for the whole stay.",
    unit="ms",
    misconceptions=(
        NO_BLOWUP,
        ADDED_SERVICE,
        FORGOT_SERVICE,
        EXPONENTIAL_FOR_DETERMINISTIC,
        DETERMINISTIC_FOR_EXPONENTIAL,
    ),
)
def queue_wait_ms(
    service_ms: Annotated[float, Param("mean service time S, ms (a prefill, say)", gt=0)],
    utilisation: Utilisation,
    service: Annotated[
        Literal["exponential", "deterministic"], Param("exponential (M/M/1) or deterministic (M/D/1)")
    ] = "exponential",
    part: Annotated[
        Literal["queue", "system"], Param("queue (wait before service) or system (wait + service)")
    ] = "queue",
    *,
    worked: bool = True,
) -> Derivation:
    """The wait is the work already queued; it grows like rho / (1 - rho), so it explodes as rho -> 1."""
    c2 = 1.0 if service == "exponential" else 0.0
    other_c2 = 1.0 - c2

    def wait(c: float) -> float:
        return utilisation * service_ms * (1 + c) / (2 * (1 - utilisation))

    wq = wait(c2)
    value = wq + service_ms if part == "system" else wq
    if not worked:
        return result(value)
    factor = "1" if service == "exponential" else "1/2"
    steps = [
        Step(
            "Wait in the queue",
            f"Wq = rho x S x {factor} / (1 - rho)",
            f"{num(utilisation)} x {num(service_ms)} x {(1 + c2) / 2:g} / (1 - {num(utilisation)})",
            wq,
            "ms",
        )
    ]
    if part == "system":
        steps.append(Step("Time in the system", "W = Wq + S", f"{num(wq)} + {num(service_ms)}", value, "ms"))
    last = steps[-1].label
    wrong: list[Misconception] = [
        NO_BLOWUP.gives(utilisation * service_ms * (1 + c2) / 2 + (service_ms if part == "system" else 0.0)),
        (DETERMINISTIC_FOR_EXPONENTIAL if service == "exponential" else EXPONENTIAL_FOR_DETERMINISTIC).gives(
            wait(other_c2) + (service_ms if part == "system" else 0.0)
        ),
    ]
    if part == "queue":
        wrong.append(ADDED_SERVICE.gives(wq + service_ms))
    else:
        wrong.append(FORGOT_SERVICE.gives(wq))
    return result(value, tuple(steps), [replace(m, step=last) for m in wrong])


LINEAR_IN_LOAD = Mistake(
    "linear-in-load",
    "You scaled the latency with the load",
    "Latency is not proportional to utilisation: W = S / (1 - rho), so it is the idle share "
    "(1 - rho) that sets it.",
)
QUEUE_WAIT_RATIO = Mistake(
    "queue-wait-ratio",
    "You compared the waits in the queue, not the whole latency",
    "The latency a user sees is wait plus service: W = S / (1 - rho).",
)


@register(
    summary="How many times longer the M/M/1 mean latency gets when utilisation rises: "
    "(1 - rho_before) / (1 - rho_after).",
    unit="x",
    misconceptions=(LINEAR_IN_LOAD, QUEUE_WAIT_RATIO, INVERTED),
)
def latency_blowup(
    rho_before: Annotated[OpenShare, Param("utilisation before, below 1")],
    rho_after: Annotated[float, Param("utilisation after, below 1", ge=0, lt=1)],
    *,
    worked: bool = True,
) -> Derivation:
    """W = S / (1 - rho): the same service time S cancels, leaving the ratio of the idle fractions."""
    value = (1 - rho_before) / (1 - rho_after)
    return formula_result(
        value,
        "Latency ratio",
        "(1 - rho before) / (1 - rho after)",
        f"(1 - {num(rho_before)}) / (1 - {num(rho_after)})",
        [
            LINEAR_IN_LOAD.gives(rho_after / rho_before),
            QUEUE_WAIT_RATIO.gives(rho_after * (1 - rho_before) / (rho_before * (1 - rho_after))),
            INVERTED.gives(
                (1 - rho_after) / (1 - rho_before),
                label="You divided the other way up",
                explanation=(
                    "Higher load means a longer latency, so the ratio is above 1 when the load rises."
                ),
            ),
        ],
        worked=worked,
    )


NO_QUEUEING = Mistake(
    "no-queueing",
    "You ran the server at 100%",
    "At lambda = mu the queue grows without bound; the target latency leaves 1 / W of headroom.",
)
ONE_OVER_LATENCY = Mistake(
    "one-over-latency",
    "You took 1 / W as the rate",
    "1 / W is the headroom mu - lambda, not the rate itself: subtract it from mu.",
)


@register(
    summary="The highest arrival rate one M/M/1 server takes while its mean latency stays within a target: "
    "mu - 1 / W.",
    unit="",
    misconceptions=(NO_QUEUEING, ONE_OVER_LATENCY),
)
def max_rate_for_latency(
    service_ms: ServiceMs,
    latency_ms: Annotated[float, Param("target mean latency W, ms (more than S)", gt=0)],
    *,
    worked: bool = True,
) -> Derivation:
    """W = 1 / (mu - lambda) solved for lambda: the headroom mu - lambda must be at least 1 / W."""
    if latency_ms <= service_ms:
        raise ValueError(f"the target latency {latency_ms} ms must exceed the service time {service_ms} ms")
    mu = 1000 / service_ms
    value = mu - 1000 / latency_ms
    before = (Step("Service rate", "mu = 1 / S", f"1,000 / {num(service_ms)}", mu, ""),)
    return formula_result(
        value,
        "Highest arrival rate",
        "lambda = mu - 1 / W",
        f"{num(mu)} - 1,000 / {num(latency_ms)}",
        [
            NO_QUEUEING.gives(mu),
            ONE_OVER_LATENCY.gives(1000 / latency_ms),
        ],
        worked=worked,
        before=before,
    )


MEAN_NOT_TAIL = Mistake(
    "mean-not-tail",
    "You held the mean latency to the SLO",
    "The SLO is on a share of requests, a tail: P(T > t) = exp(-(mu - lambda) t) must fall to "
    "1 - p, which needs ln(1 / (1 - p)) / t of headroom, not 1 / t.",
)
LOG_OF_P = Mistake(
    "log-of-p",
    "You took ln(1 / p) for the headroom",
    "It is the share that misses, 1 - p, that must be exp(-(mu - lambda) t).",
)


@register(
    summary="Goodput of one M/M/1 server: the highest arrival rate at which a share p of requests finish "
    "within t. Time in system is exponential with rate mu - lambda, so lambda = mu - ln(1 / (1 - p)) / t.",
    unit="",
    misconceptions=(MEAN_NOT_TAIL, NO_QUEUEING, LOG_OF_P),
)
def slo_goodput_rate(
    service_ms: ServiceMs,
    slo_ms: Annotated[float, Param("the latency SLO t, ms", gt=0)],
    attainment: Annotated[OpenShare, Param("share of requests that must meet it (0.9 for 90%)")],
    *,
    worked: bool = True,
) -> Derivation:
    """A tail SLO needs more headroom than a mean one: ln(1 / (1 - p)) > 1 once p > 63%."""
    mu = 1000 / service_ms
    nines = math.log(1 / (1 - attainment))
    value = mu - nines * 1000 / slo_ms
    if value <= 0:
        raise ValueError(
            f"even an idle server misses an SLO of {slo_ms} ms for {attainment:.0%} of requests "
            f"with a {service_ms} ms service"
        )
    before = (
        Step("Service rate", "mu = 1 / S", f"1,000 / {num(service_ms)}", mu, ""),
        Step("Headroom factor", "ln(1 / (1 - p))", f"ln(1 / (1 - {num(attainment)}))", nines, ""),
    )
    return formula_result(
        value,
        "Goodput",
        "lambda = mu - ln(1 / (1 - p)) / t",
        f"{num(mu)} - {num(nines)} x 1,000 / {num(slo_ms)}",
        [
            MEAN_NOT_TAIL.gives(mu - 1000 / slo_ms),
            NO_QUEUEING.gives(
                mu,
                label="You gave the service rate",
                explanation="At full load the queue grows without bound and almost no request meets the SLO.",
            ),
            LOG_OF_P.gives(mu - math.log(1 / attainment) * 1000 / slo_ms),
        ],
        worked=worked,
        before=before,
    )


# --------------------------------------------------------------------------- goodput from a log


THROUGHPUT_NOT_GOODPUT = Mistake(
    "throughput-not-goodput",
    "You gave the throughput",
    "Goodput counts only the requests that met their SLOs; a late answer is served but not good.",
)
DOUBLE_COUNTED_BOTH = Mistake(
    "double-counted-both",
    "You subtracted the requests that missed both SLOs twice",
    "They are in both miss counts: add them back once (inclusion-exclusion).",
)
TTFT_ONLY = Mistake(
    "ttft-only",
    "You checked only the TTFT SLO",
    "A request that streamed its first token on time but then crawled missed its TPOT SLO.",
)


@register(
    summary="Goodput from a load test: requests that met both the TTFT and the TPOT SLO, per second "
    "(completed - missed TTFT - missed TPOT + missed both) / window.",
    unit="",
    misconceptions=(THROUGHPUT_NOT_GOODPUT, DOUBLE_COUNTED_BOTH, TTFT_ONLY),
)
def goodput_from_counts(
    completed: Annotated[int, Param("requests completed in the window", gt=0)],
    ttft_misses: Annotated[int, Param("requests over the TTFT SLO")],
    tpot_misses: Annotated[int, Param("requests over the TPOT SLO")],
    both_misses: Annotated[int, Param("requests over both (counted in each of the two above)")],
    window_s: Annotated[float, Param("length of the window, s", gt=0)],
    *,
    worked: bool = True,
) -> Derivation:
    """A request counts only if it met every SLO; one that missed both must not be subtracted twice."""
    if min(ttft_misses, tpot_misses, both_misses) < 0 or both_misses > min(ttft_misses, tpot_misses):
        raise ValueError("the misses must be 0 or more, and both_misses at most either count")
    if ttft_misses + tpot_misses - both_misses > completed:
        raise ValueError("more requests missed an SLO than were completed")
    good = completed - ttft_misses - tpot_misses + both_misses
    value = good / window_s
    before = (
        Step(
            "Requests within both SLOs",
            "completed - TTFT misses - TPOT misses + both",
            f"{num(completed)} - {num(ttft_misses)} - {num(tpot_misses)} + {num(both_misses)}",
            good,
            "",
        ),
    )
    return formula_result(
        value,
        "Goodput",
        "good requests / window",
        f"{num(good)} / {num(window_s)}",
        [
            THROUGHPUT_NOT_GOODPUT.gives(completed / window_s),
            DOUBLE_COUNTED_BOTH.gives((completed - ttft_misses - tpot_misses) / window_s),
            TTFT_ONLY.gives((completed - ttft_misses) / window_s),
        ],
        worked=worked,
        before=before,
    )
