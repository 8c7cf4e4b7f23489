"""Provides the queueing arithmetic of serving design: Little's law, the latency of a busy server, goodput
under an SLO, admission against the KV cache, and how many replicas or instances a load needs.

An interviewer at the staff round expects three models and where each breaks: Little's law (L = lambda W,
true for any stable system), the single-server queue (the wait grows like rho / (1 - rho), so latency
explodes as utilisation nears 100%), and the KV cache as the resource that caps concurrency. Rates are in
requests per second and times in milliseconds, so every "forgot to turn ms into s" slip is a factor of 1000.
"""

from __future__ import annotations

import math

from engine.calculator import Arg, register
from engine.calculators.case_common import Wrong, formula_result, num, require_positive_numbers
from engine.calculators.common import distinct
from engine.derivation import Derivation, Misconception, Step

GIB = 2**30
SERVICES = ("exponential", "deterministic")
"""M/M/1 (service times vary like an exponential) or M/D/1 (every service the same length)."""
PARTS = ("queue", "system")
"""The wait before service starts, or the whole time in the system (wait + service)."""


def _ceil(x: float) -> int:
    """Rounds up, blind to float noise: 70 x 0.28 / 0.7 is 28.000000000000004 in binary; 28 instances do."""
    return math.ceil(x - 1e-9 * max(1.0, abs(x)))


def _floor(x: float) -> int:
    """Rounds down, blind to float noise, so an exact fit of n requests is never read as n - 1."""
    return math.floor(x + 1e-9 * max(1.0, abs(x)))


def _require_fraction(calc: str, name: str, value: float, *, closed: bool = False) -> None:
    """A utilisation or an attainment lies in [0, 1): at 1 the queue grows without bound."""
    top_ok = value <= 1 if closed else value < 1
    if not (value >= 0 and top_ok):
        bound = "[0, 1]" if closed else "[0, 1) (at 1 or more the queue grows without bound)"
        raise ValueError(f"{calc}: {name} must lie in {bound}, got {value}")


# --------------------------------------------------------------------------- Little's law


@register(
    "little_concurrency",
    summary="Little's law: requests in flight = arrival rate x time each spends in the system.",
    unit="",
    args=(
        Arg("arrival_rate", "float", "requests arriving per second"),
        Arg("latency_ms", "float", "mean time a request spends in the system, ms"),
    ),
    misconceptions=("ms-not-converted", "divided-by-latency", "inverted"),
)
def little_concurrency(arrival_rate: float, latency_ms: float, *, worked: bool = True) -> Derivation:
    """L = lambda W holds for any stable system, whatever the arrival or service distributions."""
    calc = "little_concurrency"
    require_positive_numbers(calc, arrival_rate=arrival_rate, latency_ms=latency_ms)
    seconds = latency_ms / 1000
    value = arrival_rate * seconds
    return formula_result(
        calc,
        value,
        "",
        "Requests in flight",
        "L = arrival rate x latency (s)",
        f"{num(arrival_rate)} x {num(seconds)}",
        [
            (
                "ms-not-converted",
                "You multiplied by the latency in milliseconds",
                "The rate is per second, so the latency must be in seconds: divide the ms by 1000.",
                arrival_rate * latency_ms,
            ),
            (
                "divided-by-latency",
                "You divided the rate by the latency",
                "More time in the system means more requests inside it at once: L grows with W.",
                arrival_rate / seconds,
            ),
            (
                "inverted",
                "You divided the latency by the rate",
                "More arrivals per second means more requests in flight: multiply, L = lambda W.",
                seconds / arrival_rate,
            ),
        ],
        worked=worked,
    )


@register(
    "little_arrival_rate",
    summary="Little's law solved for the rate: sustainable requests per second = slots in flight / latency.",
    unit="",
    args=(
        Arg("concurrency", "float", "requests that can be in flight at once"),
        Arg("latency_ms", "float", "mean time each request holds its slot, ms"),
    ),
    misconceptions=("ms-not-converted", "multiplied", "inverted"),
)
def little_arrival_rate(concurrency: float, latency_ms: float, *, worked: bool = True) -> Derivation:
    """lambda = L / W: a fixed number of slots, each held for W, turns over L / W times per second."""
    calc = "little_arrival_rate"
    require_positive_numbers(calc, concurrency=concurrency, latency_ms=latency_ms)
    seconds = latency_ms / 1000
    value = concurrency / seconds
    return formula_result(
        calc,
        value,
        "",
        "Requests per second",
        "lambda = L / latency (s)",
        f"{num(concurrency)} / {num(seconds)}",
        [
            (
                "ms-not-converted",
                "You divided by the latency in milliseconds",
                "A rate per second needs the latency in seconds: divide the ms by 1000 first.",
                concurrency / latency_ms,
            ),
            (
                "multiplied",
                "You multiplied the slots by the latency",
                "Longer requests hold their slots longer, so fewer requests per second fit: divide.",
                concurrency * seconds,
            ),
            (
                "inverted",
                "You divided the latency by the slots",
                "More slots carry more requests per second: lambda = L / W.",
                seconds / concurrency,
            ),
        ],
        worked=worked,
    )


# --------------------------------------------------------------------------- one busy server


@register(
    "queue_wait_ms",
    summary="Mean wait of a single-server queue with Poisson arrivals (Pollaczek-Khinchine): "
    "rho x S x (1 + c^2) / (2 (1 - rho)), c^2 = 1 for M/M/1 and 0 for M/D/1; plus S for the whole stay.",
    unit="ms",
    args=(
        Arg("service_ms", "float", "mean service time S, ms (a prefill, say)"),
        Arg("utilisation", "float", "rho = arrival rate x S, below 1"),
        Arg("service", "str", "exponential (M/M/1) or deterministic (M/D/1)", "exponential", False, SERVICES),
        Arg("part", "str", "queue (wait before service) or system (wait + service)", "queue", False, PARTS),
    ),
    misconceptions=(
        "no-blowup",
        "added-service",
        "forgot-service",
        "exponential-for-deterministic",
        "deterministic-for-exponential",
    ),
)
def queue_wait_ms(
    service_ms: float,
    utilisation: float,
    service: str = "exponential",
    part: str = "queue",
    *,
    worked: bool = True,
) -> Derivation:
    """The wait is the work already queued; it grows like rho / (1 - rho), so it explodes as rho -> 1."""
    calc = "queue_wait_ms"
    require_positive_numbers(calc, service_ms=service_ms)
    _require_fraction(calc, "utilisation", utilisation)
    c2 = 1.0 if service == "exponential" else 0.0
    other_c2 = 1.0 - c2

    def wait(c: float) -> float:
        return utilisation * service_ms * (1 + c) / (2 * (1 - utilisation))

    wq = wait(c2)
    value = wq + service_ms if part == "system" else wq
    if not worked:
        return Derivation(calc, value, "ms", ())
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
    plain = "M/M/1" if service == "exponential" else "M/D/1"
    other = "exponential" if c2 == 0 else "deterministic"
    wrong: list[Wrong] = [
        (
            "no-blowup",
            "You took the wait as rho x S, with no 1 / (1 - rho)",
            "A request waits for the work ahead of it, and near full load that queue is long: the wait is "
            "divided by (1 - rho), which explodes as rho approaches 1.",
            utilisation * service_ms * (1 + c2) / 2 + (service_ms if part == "system" else 0.0),
        ),
        (
            f"{other}-for-{service}",
            f"You used the {('M/D/1' if other == 'deterministic' else 'M/M/1')} formula for an {plain} queue",
            "Pollaczek-Khinchine: the wait scales with (1 + c^2) / 2, where c is the coefficient of "
            "variation of the service time: 1 for exponential service, 0 when every service takes S.",
            wait(other_c2) + (service_ms if part == "system" else 0.0),
        ),
    ]
    if part == "queue":
        wrong.append(
            (
                "added-service",
                "You added the service time",
                "The question asks for the wait before service starts: the time in service comes after.",
                wq + service_ms,
            )
        )
    else:
        wrong.append(
            (
                "forgot-service",
                "You gave the wait in the queue only",
                "The time in the system is the wait plus the service itself.",
                wq,
            )
        )
    found = [Misconception(i, lab, why, v, last) for i, lab, why, v in wrong]
    return Derivation(calc, value, "ms", tuple(steps), distinct(value, found))


@register(
    "latency_blowup",
    summary="How many times longer the M/M/1 mean latency gets when utilisation rises: "
    "(1 - rho_before) / (1 - rho_after).",
    unit="x",
    args=(
        Arg("rho_before", "float", "utilisation before, below 1"),
        Arg("rho_after", "float", "utilisation after, below 1"),
    ),
    misconceptions=("linear-in-load", "queue-wait-ratio", "inverted"),
)
def latency_blowup(rho_before: float, rho_after: float, *, worked: bool = True) -> Derivation:
    """W = S / (1 - rho): the same service time S cancels, leaving the ratio of the idle fractions."""
    calc = "latency_blowup"
    _require_fraction(calc, "rho_before", rho_before)
    _require_fraction(calc, "rho_after", rho_after)
    require_positive_numbers(calc, rho_before=rho_before)
    value = (1 - rho_before) / (1 - rho_after)
    return formula_result(
        calc,
        value,
        "x",
        "Latency ratio",
        "(1 - rho before) / (1 - rho after)",
        f"(1 - {num(rho_before)}) / (1 - {num(rho_after)})",
        [
            (
                "linear-in-load",
                "You scaled the latency with the load",
                "Latency is not proportional to utilisation: W = S / (1 - rho), so it is the idle share "
                "(1 - rho) that sets it.",
                rho_after / rho_before,
            ),
            (
                "queue-wait-ratio",
                "You compared the waits in the queue, not the whole latency",
                "The latency a user sees is wait plus service: W = S / (1 - rho).",
                rho_after * (1 - rho_before) / (rho_before * (1 - rho_after)),
            ),
            (
                "inverted",
                "You divided the other way up",
                "Higher load means a longer latency, so the ratio is above 1 when the load rises.",
                (1 - rho_after) / (1 - rho_before),
            ),
        ],
        worked=worked,
    )


@register(
    "max_rate_for_latency",
    summary="The highest arrival rate one M/M/1 server takes while its mean latency stays within a target: "
    "mu - 1 / W.",
    unit="",
    args=(
        Arg("service_ms", "float", "mean service time S = 1 / mu, ms"),
        Arg("latency_ms", "float", "target mean latency W, ms (more than S)"),
    ),
    misconceptions=("no-queueing", "one-over-latency"),
)
def max_rate_for_latency(service_ms: float, latency_ms: float, *, worked: bool = True) -> Derivation:
    """W = 1 / (mu - lambda) solved for lambda: the headroom mu - lambda must be at least 1 / W."""
    calc = "max_rate_for_latency"
    require_positive_numbers(calc, service_ms=service_ms, latency_ms=latency_ms)
    if latency_ms <= service_ms:
        raise ValueError(
            f"{calc}: the target latency {latency_ms} ms must exceed the service time {service_ms} ms"
        )
    mu = 1000 / service_ms
    value = mu - 1000 / latency_ms
    before = (Step("Service rate", "mu = 1 / S", f"1,000 / {num(service_ms)}", mu, ""),)
    return formula_result(
        calc,
        value,
        "",
        "Highest arrival rate",
        "lambda = mu - 1 / W",
        f"{num(mu)} - 1,000 / {num(latency_ms)}",
        [
            (
                "no-queueing",
                "You ran the server at 100%",
                "At lambda = mu the queue grows without bound; the target latency leaves 1 / W of headroom.",
                mu,
            ),
            (
                "one-over-latency",
                "You took 1 / W as the rate",
                "1 / W is the headroom mu - lambda, not the rate itself: subtract it from mu.",
                1000 / latency_ms,
            ),
        ],
        worked=worked,
        before=before,
    )


@register(
    "slo_goodput_rate",
    summary="Goodput of one M/M/1 server: the highest arrival rate at which a share p of requests finish "
    "within t. Time in system is exponential with rate mu - lambda, so lambda = mu - ln(1 / (1 - p)) / t.",
    unit="",
    args=(
        Arg("service_ms", "float", "mean service time S = 1 / mu, ms"),
        Arg("slo_ms", "float", "the latency SLO t, ms"),
        Arg("attainment", "float", "share of requests that must meet it (0.9 for 90%)"),
    ),
    misconceptions=("mean-not-tail", "no-queueing", "log-of-p"),
)
def slo_goodput_rate(
    service_ms: float, slo_ms: float, attainment: float, *, worked: bool = True
) -> Derivation:
    """A tail SLO needs more headroom than a mean one: ln(1 / (1 - p)) > 1 once p > 63%."""
    calc = "slo_goodput_rate"
    require_positive_numbers(calc, service_ms=service_ms, slo_ms=slo_ms, attainment=attainment)
    _require_fraction(calc, "attainment", attainment)
    mu = 1000 / service_ms
    nines = math.log(1 / (1 - attainment))
    value = mu - nines * 1000 / slo_ms
    if value <= 0:
        raise ValueError(
            f"{calc}: even an idle server misses an SLO of {slo_ms} ms for {attainment:.0%} of requests "
            f"with a {service_ms} ms service"
        )
    before = (
        Step("Service rate", "mu = 1 / S", f"1,000 / {num(service_ms)}", mu, ""),
        Step("Headroom factor", "ln(1 / (1 - p))", f"ln(1 / (1 - {num(attainment)}))", nines, ""),
    )
    return formula_result(
        calc,
        value,
        "",
        "Goodput",
        "lambda = mu - ln(1 / (1 - p)) / t",
        f"{num(mu)} - {num(nines)} x 1,000 / {num(slo_ms)}",
        [
            (
                "mean-not-tail",
                "You held the mean latency to the SLO",
                "The SLO is on a share of requests, a tail: P(T > t) = exp(-(mu - lambda) t) must fall to "
                "1 - p, which needs ln(1 / (1 - p)) / t of headroom, not 1 / t.",
                mu - 1000 / slo_ms,
            ),
            (
                "no-queueing",
                "You gave the service rate",
                "At full load the queue grows without bound and almost no request meets the SLO.",
                mu,
            ),
            (
                "log-of-p",
                "You took ln(1 / p) for the headroom",
                "It is the share that misses, 1 - p, that must be exp(-(mu - lambda) t).",
                mu - math.log(1 / attainment) * 1000 / slo_ms,
            ),
        ],
        worked=worked,
        before=before,
    )


# --------------------------------------------------------------------------- goodput from a log


@register(
    "goodput_from_counts",
    summary="Goodput from a load test: requests that met both the TTFT and the TPOT SLO, per second "
    "(completed - missed TTFT - missed TPOT + missed both) / window.",
    unit="",
    args=(
        Arg("completed", "int", "requests completed in the window"),
        Arg("ttft_misses", "int", "requests over the TTFT SLO"),
        Arg("tpot_misses", "int", "requests over the TPOT SLO"),
        Arg("both_misses", "int", "requests over both (counted in each of the two above)"),
        Arg("window_s", "float", "length of the window, s"),
    ),
    misconceptions=("throughput-not-goodput", "double-counted-both", "ttft-only"),
)
def goodput_from_counts(
    completed: int,
    ttft_misses: int,
    tpot_misses: int,
    both_misses: int,
    window_s: float,
    *,
    worked: bool = True,
) -> Derivation:
    """A request counts only if it met every SLO; one that missed both must not be subtracted twice."""
    calc = "goodput_from_counts"
    require_positive_numbers(calc, completed=completed, window_s=window_s)
    if min(ttft_misses, tpot_misses, both_misses) < 0 or both_misses > min(ttft_misses, tpot_misses):
        raise ValueError(f"{calc}: the misses must be 0 or more, and both_misses at most either count")
    if ttft_misses + tpot_misses - both_misses > completed:
        raise ValueError(f"{calc}: more requests missed an SLO than were completed")
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
        calc,
        value,
        "",
        "Goodput",
        "good requests / window",
        f"{num(good)} / {num(window_s)}",
        [
            (
                "throughput-not-goodput",
                "You gave the throughput",
                "Goodput counts only the requests that met their SLOs; a late answer is served but not good.",
                completed / window_s,
            ),
            (
                "double-counted-both",
                "You subtracted the requests that missed both SLOs twice",
                "They are in both miss counts: add them back once (inclusion-exclusion).",
                (completed - ttft_misses - tpot_misses) / window_s,
            ),
            (
                "ttft-only",
                "You checked only the TTFT SLO",
                "A request that streamed its first token on time but then crawled missed its TPOT SLO.",
                (completed - ttft_misses) / window_s,
            ),
        ],
        worked=worked,
        before=before,
    )


# --------------------------------------------------------------------------- admission and the KV cache


@register(
    "admission_kv_bytes",
    summary="KV cache an admitted request may grow to: bytes per token x (prompt + max new tokens).",
    unit="B",
    args=(
        Arg("per_token_bytes", "float", "KV-cache bytes of one token across all layers"),
        Arg("prompt_tokens", "int", "tokens in the prompt"),
        Arg("max_new_tokens", "int", "the request's cap on generated tokens"),
    ),
    misconceptions=("prompt-only", "new-tokens-only"),
)
def admission_kv_bytes(
    per_token_bytes: float, prompt_tokens: int, max_new_tokens: int, *, worked: bool = True
) -> Derivation:
    """A request admitted on its prompt alone can run out of cache mid-answer and be preempted."""
    calc = "admission_kv_bytes"
    require_positive_numbers(
        calc, per_token_bytes=per_token_bytes, prompt_tokens=prompt_tokens, max_new_tokens=max_new_tokens
    )
    tokens = prompt_tokens + max_new_tokens
    value = per_token_bytes * tokens
    return formula_result(
        calc,
        value,
        "B",
        "KV cache at its longest",
        "bytes per token x (prompt + max new tokens)",
        f"{num(per_token_bytes)} x ({num(prompt_tokens)} + {num(max_new_tokens)})",
        [
            (
                "prompt-only",
                "You sized the cache for the prompt alone",
                "Every generated token is cached too; the request can grow to prompt + max new tokens.",
                per_token_bytes * prompt_tokens,
            ),
            (
                "new-tokens-only",
                "You left out the prompt",
                "The prompt's keys and values stay cached for the whole answer.",
                per_token_bytes * max_new_tokens,
            ),
        ],
        worked=worked,
    )


@register(
    "admission_count",
    summary="Requests admitted at once when each reserves its longest cache: "
    "floor(free KV bytes / (bytes per token x (prompt + max new tokens))).",
    unit="",
    args=(
        Arg("capacity_gib", "float", "KV-cache memory of the replica, GiB"),
        Arg("per_token_bytes", "float", "KV-cache bytes of one token across all layers"),
        Arg("prompt_tokens", "int", "tokens in the prompt"),
        Arg("max_new_tokens", "int", "the request's cap on generated tokens"),
    ),
    misconceptions=("prompt-only", "rounded-up", "gib-as-gb"),
)
def admission_count(
    capacity_gib: float,
    per_token_bytes: float,
    prompt_tokens: int,
    max_new_tokens: int,
    *,
    worked: bool = True,
) -> Derivation:
    """A request either has room for its whole answer or waits: the count rounds down."""
    calc = "admission_count"
    require_positive_numbers(
        calc,
        capacity_gib=capacity_gib,
        per_token_bytes=per_token_bytes,
        prompt_tokens=prompt_tokens,
        max_new_tokens=max_new_tokens,
    )
    capacity = capacity_gib * GIB
    per_request = per_token_bytes * (prompt_tokens + max_new_tokens)
    exact = capacity / per_request
    value = _floor(exact)
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
        calc,
        value,
        "",
        "Requests admitted",
        "floor(KV memory / per request)",
        f"floor({num(capacity)} / {num(per_request)}) = floor({exact:.4g})",
        [
            (
                "prompt-only",
                "You reserved only the prompt's cache",
                "Admitting on the prompt alone over-admits: the answers grow and requests get preempted.",
                _floor(capacity / (per_token_bytes * prompt_tokens)),
            ),
            (
                "rounded-up",
                "You rounded up",
                "The last, partial request has no room for its whole answer: round down.",
                _ceil(exact),
            ),
            (
                "gib-as-gb",
                "You took GiB as 10^9 bytes",
                "A GiB is 2^30 bytes, about 7% more than a GB.",
                _floor(capacity_gib * 1e9 / per_request),
            ),
        ],
        worked=worked,
        before=before,
    )


@register(
    "replicas_for_occupancy",
    summary="Replicas an autoscaler needs to hold the in-flight requests' KV cache at a target occupancy: "
    "ceil(concurrency x KV per request / (target x KV memory per replica)).",
    unit="",
    args=(
        Arg("concurrency", "float", "requests in flight across the tier (Little's law)"),
        Arg("per_request_bytes", "float", "KV cache one request holds, bytes"),
        Arg("capacity_gib", "float", "KV-cache memory of one replica, GiB"),
        Arg("target_occupancy", "float", "the share of that memory the autoscaler aims for (0.7 for 70%)"),
    ),
    misconceptions=("full-occupancy", "rounded-down", "times-target", "gib-as-gb"),
)
def replicas_for_occupancy(
    concurrency: float,
    per_request_bytes: float,
    capacity_gib: float,
    target_occupancy: float,
    *,
    worked: bool = True,
) -> Derivation:
    """Scaling on KV occupancy leaves headroom for bursts and for answers still growing."""
    calc = "replicas_for_occupancy"
    require_positive_numbers(
        calc,
        concurrency=concurrency,
        per_request_bytes=per_request_bytes,
        capacity_gib=capacity_gib,
        target_occupancy=target_occupancy,
    )
    _require_fraction(calc, "target_occupancy", target_occupancy, closed=True)
    demand = concurrency * per_request_bytes
    usable = target_occupancy * capacity_gib * GIB
    exact = demand / usable
    value = _ceil(exact)
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
        calc,
        value,
        "",
        "Replicas",
        "ceil(in flight / usable per replica)",
        f"ceil({num(demand)} / {num(usable)}) = ceil({exact:.4g})",
        [
            (
                "full-occupancy",
                "You filled every replica to 100%",
                "The target occupancy is the headroom: size for target x capacity, not the whole cache.",
                _ceil(demand / (capacity_gib * GIB)),
            ),
            (
                "rounded-down",
                "You rounded down",
                "A fraction of a replica still needs a whole one: round up.",
                _floor(exact),
            ),
            (
                "times-target",
                "You multiplied the demand by the target",
                "The target shrinks what each replica may hold, so it divides the capacity.",
                _ceil(demand * target_occupancy / (capacity_gib * GIB)),
            ),
            (
                "gib-as-gb",
                "You took GiB as 10^9 bytes",
                "A GiB is 2^30 bytes.",
                _ceil(demand / (target_occupancy * capacity_gib * 1e9)),
            ),
        ],
        worked=worked,
        before=before,
    )


@register(
    "kv_occupancy",
    summary="Share of the tier's KV-cache memory the in-flight requests hold: "
    "concurrency x KV per request / (replicas x KV memory per replica).",
    unit="",
    args=(
        Arg("concurrency", "float", "requests in flight across the tier"),
        Arg("per_request_bytes", "float", "KV cache one request holds, bytes"),
        Arg("capacity_gib", "float", "KV-cache memory of one replica, GiB"),
        Arg("replicas", "float", "replicas sharing the load"),
    ),
    misconceptions=("one-replica", "gib-as-gb", "inverted"),
)
def kv_occupancy(
    concurrency: float, per_request_bytes: float, capacity_gib: float, replicas: float, *, worked: bool = True
) -> Derivation:
    """The fraction the cache is full: what an autoscaler on KV occupancy reads (vLLM's usage gauge)."""
    calc = "kv_occupancy"
    require_positive_numbers(
        calc,
        concurrency=concurrency,
        per_request_bytes=per_request_bytes,
        capacity_gib=capacity_gib,
        replicas=replicas,
    )
    demand = concurrency * per_request_bytes
    capacity = replicas * capacity_gib * GIB
    value = demand / capacity
    return formula_result(
        calc,
        value,
        "",
        "KV occupancy",
        "in flight x per request / (replicas x GiB x 2^30)",
        f"{num(concurrency)} x {num(per_request_bytes)} / ({num(replicas)} x {num(capacity_gib)} x 2^30)",
        [
            (
                "one-replica",
                "You compared the whole tier's cache with one replica",
                "The requests spread over every replica: divide by their combined memory.",
                demand / (capacity_gib * GIB),
            ),
            (
                "gib-as-gb",
                "You took GiB as 10^9 bytes",
                "A GiB is 2^30 bytes.",
                demand / (replicas * capacity_gib * 1e9),
            ),
            (
                "inverted",
                "You divided the memory by the demand",
                "Occupancy is what is used over what there is.",
                capacity / demand,
            ),
        ],
        worked=worked,
    )


# --------------------------------------------------------------------------- prefill, decode and their pools


@register(
    "prefill_utilisation",
    summary="Utilisation of each replica's prefill: arrival rate per replica x prefill time.",
    unit="",
    args=(
        Arg("arrival_rate", "float", "requests per second across the tier"),
        Arg("replicas", "float", "replicas the router spreads them over"),
        Arg("prefill_ms", "float", "prefill time of one request, ms"),
    ),
    misconceptions=("forgot-replicas", "ms-not-converted", "times-replicas"),
)
def prefill_utilisation(
    arrival_rate: float, replicas: float, prefill_ms: float, *, worked: bool = True
) -> Derivation:
    """rho = lambda x S: the share of each second a replica spends on prefills."""
    calc = "prefill_utilisation"
    require_positive_numbers(calc, arrival_rate=arrival_rate, replicas=replicas, prefill_ms=prefill_ms)
    seconds = prefill_ms / 1000
    value = arrival_rate / replicas * seconds
    return formula_result(
        calc,
        value,
        "",
        "Prefill utilisation per replica",
        "rho = (arrival rate / replicas) x prefill (s)",
        f"({num(arrival_rate)} / {num(replicas)}) x {num(seconds)}",
        [
            (
                "forgot-replicas",
                "You gave the whole tier's load to one replica",
                "The router spreads the arrivals: each replica sees arrival rate / replicas.",
                arrival_rate * seconds,
            ),
            (
                "ms-not-converted",
                "You multiplied by the prefill time in milliseconds",
                "The rate is per second: take the prefill in seconds.",
                arrival_rate / replicas * prefill_ms,
            ),
            (
                "times-replicas",
                "You multiplied by the replicas",
                "More replicas share the load, so each one is less busy.",
                arrival_rate * replicas * seconds,
            ),
        ],
        worked=worked,
    )


@register(
    "interfered_tpot_ms",
    summary="Mean time per output token when prefills share the GPU with decoding: the decode step over "
    "the share of time prefills leave, step / (1 - arrival rate x prefill time).",
    unit="ms",
    args=(
        Arg("decode_step_ms", "float", "one decode step with no prefill in the way, ms"),
        Arg("prefill_ms", "float", "prefill time of one request on this GPU, ms"),
        Arg("arrival_rate", "float", "new requests per second on this GPU"),
    ),
    misconceptions=("ignored-prefill", "one-prefill-per-step", "linear-in-load"),
)
def interfered_tpot_ms(
    decode_step_ms: float, prefill_ms: float, arrival_rate: float, *, worked: bool = True
) -> Derivation:
    """While a prefill runs every decoding request waits, so decode gets only 1 - rho of the GPU's time."""
    calc = "interfered_tpot_ms"
    require_positive_numbers(
        calc, decode_step_ms=decode_step_ms, prefill_ms=prefill_ms, arrival_rate=arrival_rate
    )
    rho = arrival_rate * prefill_ms / 1000
    _require_fraction(calc, "arrival_rate x prefill time", rho)
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
        calc,
        value,
        "ms",
        "Mean TPOT",
        "decode step / (1 - rho)",
        f"{num(decode_step_ms)} / (1 - {num(rho)})",
        [
            (
                "ignored-prefill",
                "You left the prefills out",
                "Colocated prefills stall every decoding request while they run: that is the interference "
                "disaggregation removes.",
                decode_step_ms,
            ),
            (
                "one-prefill-per-step",
                "You added a whole prefill to every step",
                "Prefills arrive at a rate, not once per step: on average they take a share rho of the time.",
                decode_step_ms + prefill_ms,
            ),
            (
                "linear-in-load",
                "You stretched the step by (1 + rho)",
                "Decode runs only in the 1 - rho of time the prefills leave: divide by (1 - rho).",
                decode_step_ms * (1 + rho),
            ),
        ],
        worked=worked,
        before=before,
    )


@register(
    "prefill_instances",
    summary="Prefill instances of a disaggregated tier at a target utilisation: "
    "ceil(arrival rate x prefill time / target).",
    unit="",
    args=(
        Arg("arrival_rate", "float", "requests per second"),
        Arg("prefill_ms", "float", "prefill time of one request on one instance, ms"),
        Arg("target_utilisation", "float", "utilisation each instance may run at (0.7 for 70%)"),
    ),
    misconceptions=("full-utilisation", "rounded-down", "times-target"),
)
def prefill_instances(
    arrival_rate: float, prefill_ms: float, target_utilisation: float, *, worked: bool = True
) -> Derivation:
    """Busy instance-seconds per second, divided by the share each may be busy, rounded up."""
    calc = "prefill_instances"
    require_positive_numbers(
        calc, arrival_rate=arrival_rate, prefill_ms=prefill_ms, target_utilisation=target_utilisation
    )
    _require_fraction(calc, "target_utilisation", target_utilisation, closed=True)
    load = arrival_rate * prefill_ms / 1000
    exact = load / target_utilisation
    value = _ceil(exact)
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
        calc,
        value,
        "",
        "Prefill instances",
        "ceil(busy instances / target)",
        f"ceil({num(load)} / {num(target_utilisation)}) = ceil({exact:.4g})",
        [
            (
                "full-utilisation",
                "You ran every instance at 100%",
                "At full utilisation the prefill queue, and so TTFT, grows without bound.",
                _ceil(load),
            ),
            (
                "rounded-down",
                "You rounded down",
                "A fraction of an instance still needs a whole one.",
                _floor(exact),
            ),
            (
                "times-target",
                "You multiplied by the target",
                "A lower target means more instances: divide by it.",
                _ceil(load * target_utilisation),
            ),
        ],
        worked=worked,
        before=before,
    )


@register(
    "decode_instances",
    summary="Decode instances of a disaggregated tier: requests decoding at once (Little's law, each "
    "decodes for output tokens x TPOT) over the batch one instance runs, rounded up.",
    unit="",
    args=(
        Arg("arrival_rate", "float", "requests per second"),
        Arg("output_tokens", "int", "tokens each request generates"),
        Arg("tpot_ms", "float", "time per output token, ms"),
        Arg("max_batch", "int", "requests one decode instance runs at once"),
    ),
    misconceptions=("forgot-output-tokens", "rounded-down", "ms-not-converted"),
)
def decode_instances(
    arrival_rate: float, output_tokens: int, tpot_ms: float, max_batch: int, *, worked: bool = True
) -> Derivation:
    """Little's law on the decode pool: each request stays output tokens x TPOT."""
    calc = "decode_instances"
    require_positive_numbers(
        calc, arrival_rate=arrival_rate, output_tokens=output_tokens, tpot_ms=tpot_ms, max_batch=max_batch
    )
    stay_s = output_tokens * tpot_ms / 1000
    decoding = arrival_rate * stay_s
    exact = decoding / max_batch
    value = _ceil(exact)
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
        calc,
        value,
        "",
        "Decode instances",
        "ceil(L / batch per instance)",
        f"ceil({num(decoding)} / {num(max_batch)}) = ceil({exact:.4g})",
        [
            (
                "forgot-output-tokens",
                "You held each request for one token's time",
                "A request stays in the decode pool for every token it generates.",
                _ceil(arrival_rate * tpot_ms / 1000 / max_batch),
            ),
            (
                "rounded-down",
                "You rounded down",
                "A fraction of an instance still needs a whole one.",
                _floor(exact),
            ),
            (
                "ms-not-converted",
                "You kept the TPOT in milliseconds",
                "The rate is per second: take the time decoding in seconds.",
                _ceil(arrival_rate * output_tokens * tpot_ms / max_batch),
            ),
        ],
        worked=worked,
        before=before,
    )
