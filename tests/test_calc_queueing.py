"""The queueing calculators checked against what they model: a simulated single-server queue (Lindley's
recursion), a time-average count of requests in flight, brute-force sets of SLO misses, and each formula's
limits and inverses. Nothing here types in an expected answer."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import calculate


def _v(name: str, **args: object) -> float:
    """A calculator's value as a number (every queueing calculator gives one)."""
    value = calculate(name, **args).value
    assert not isinstance(value, tuple)
    return float(value)


def _simulate_queue(
    rate_per_ms: float, service_ms: float, service: str, n: int = 200_000, seed: int = 7
) -> tuple[np.ndarray, np.ndarray]:
    """Waits and times in system of n Poisson arrivals at one FIFO server, by Lindley's recursion."""
    rng = np.random.default_rng(seed)
    gaps = rng.exponential(1 / rate_per_ms, n)  # (n,) interarrival times, ms
    exponential = service == "exponential"
    services = rng.exponential(service_ms, n) if exponential else np.full(n, service_ms)  # (n,)
    waits = np.empty(n)
    w = 0.0
    for i in range(n):
        waits[i] = w
        w = max(0.0, w + services[i] - (gaps[i + 1] if i + 1 < n else 0.0))
    return waits, waits + services


@pytest.mark.parametrize("service", ["exponential", "deterministic"])
@pytest.mark.parametrize("rho", [0.5, 0.8])
def test_the_wait_a_learner_computes_is_the_wait_a_simulated_queue_shows(service: str, rho: float) -> None:
    service_ms = 100.0
    waits, stays = _simulate_queue(rho / service_ms, service_ms, service)
    burn = len(waits) // 10
    queue = _v("queue_wait_ms", service_ms=service_ms, utilisation=rho, service=service)
    system = _v("queue_wait_ms", service_ms=service_ms, utilisation=rho, service=service, part="system")
    assert waits[burn:].mean() == pytest.approx(queue, rel=0.08)
    assert stays[burn:].mean() == pytest.approx(system, rel=0.08)


def test_m_m_1_time_in_system_is_one_over_mu_minus_lambda_and_m_d_1_waits_half_as_long() -> None:
    for rho in (0.1, 0.5, 0.9):
        s = 40.0
        mu, lam = 1 / s, rho / s
        w = _v("queue_wait_ms", service_ms=s, utilisation=rho, part="system")
        assert w == pytest.approx(1 / (mu - lam))
        mm1 = _v("queue_wait_ms", service_ms=s, utilisation=rho)
        md1 = _v("queue_wait_ms", service_ms=s, utilisation=rho, service="deterministic")
        assert md1 == pytest.approx(mm1 / 2)
    assert _v("queue_wait_ms", service_ms=s, utilisation=0.0) == 0


def test_a_full_server_is_refused_rather_than_given_a_finite_wait() -> None:
    with pytest.raises(ValueError, match="without bound"):
        calculate("queue_wait_ms", service_ms=100, utilisation=1.0)


def test_the_dangerous_mistakes_are_named_at_high_load() -> None:
    d = calculate("queue_wait_ms", service_ms=100, utilisation=0.9)
    wait = _v("queue_wait_ms", service_ms=100, utilisation=0.9)
    assert d.misconception("no-blowup").value == pytest.approx(0.9 * 100)
    assert d.misconception("added-service").value == pytest.approx(wait + 100)
    assert d.misconception("deterministic-for-exponential").value == pytest.approx(wait / 2)


@settings(max_examples=60)
@given(st.floats(0.01, 0.9), st.floats(0.01, 0.98))
def test_the_blowup_ratio_is_the_ratio_of_two_latencies(a: float, b: float) -> None:
    ratio = _v("latency_blowup", rho_before=a, rho_after=b)
    w = [_v("queue_wait_ms", service_ms=50, utilisation=r, part="system") for r in (a, b)]
    assert ratio == pytest.approx(w[1] / w[0])


def test_running_at_the_max_rate_gives_exactly_the_target_latency() -> None:
    lam = _v("max_rate_for_latency", service_ms=80, latency_ms=500)
    rho = lam * 80 / 1000
    assert _v("queue_wait_ms", service_ms=80, utilisation=rho, part="system") == pytest.approx(500)


def test_goodput_rate_meets_its_attainment_in_a_simulated_queue() -> None:
    service_ms, slo_ms, p = 50.0, 600.0, 0.9
    lam = _v("slo_goodput_rate", service_ms=service_ms, slo_ms=slo_ms, attainment=p)
    _, stays = _simulate_queue(lam / 1000, service_ms, "exponential")
    met = (stays[len(stays) // 10 :] <= slo_ms).mean()
    assert met == pytest.approx(p, abs=0.02)


def test_a_mean_slo_and_a_tail_slo_agree_only_at_one_minus_one_over_e() -> None:
    p = 1 - math.exp(-1)
    d = calculate("slo_goodput_rate", service_ms=50, slo_ms=600, attainment=p)
    assert d.value == pytest.approx(1000 / 50 - 1000 / 600)
    assert "mean-not-tail" not in {m.id for m in d.misconceptions}  # the same number: not a mistake here


def test_littles_law_matches_the_time_average_of_requests_in_flight() -> None:
    rng = np.random.default_rng(3)
    rate, latency_ms, horizon_s = 25.0, 2400.0, 4000.0
    arrivals = np.cumsum(rng.exponential(1 / rate, int(rate * horizon_s * 1.2)))
    arrivals = arrivals[arrivals < horizon_s]  # (n,) seconds
    grid = np.linspace(100, horizon_s - 10, 20_000)  # (g,) sample times past the warm-up
    in_flight = np.searchsorted(arrivals, grid) - np.searchsorted(arrivals, grid - latency_ms / 1000)
    concurrency = _v("little_concurrency", arrival_rate=rate, latency_ms=latency_ms)
    assert in_flight.mean() == pytest.approx(concurrency, rel=0.03)


@settings(max_examples=60)
@given(st.floats(0.5, 500), st.floats(50, 60_000))
def test_littles_law_solved_for_the_rate_inverts_it(rate: float, latency_ms: float) -> None:
    slots = _v("little_concurrency", arrival_rate=rate, latency_ms=latency_ms)
    back = _v("little_arrival_rate", concurrency=slots, latency_ms=latency_ms)
    assert back == pytest.approx(rate)


@settings(max_examples=80)
@given(st.integers(1, 3000), st.data())
def test_goodput_counts_the_requests_that_met_every_slo(completed: int, data: st.DataObject) -> None:
    ids = np.arange(completed)
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    late_first = set(rng.choice(ids, data.draw(st.integers(0, completed)), replace=False).tolist())
    slow_tokens = set(rng.choice(ids, data.draw(st.integers(0, completed)), replace=False).tolist())
    good = [i for i in ids if i not in late_first and i not in slow_tokens]
    d = calculate(
        "goodput_from_counts",
        completed=completed,
        ttft_misses=len(late_first),
        tpot_misses=len(slow_tokens),
        both_misses=len(late_first & slow_tokens),
        window_s=60,
    )
    assert d.value == pytest.approx(len(good) / 60)


def test_admission_is_the_fit_of_the_longest_cache() -> None:
    per_request = calculate(
        "admission_kv_bytes", per_token_bytes=131072, prompt_tokens=2500, max_new_tokens=700
    )
    assert per_request.value == _v("bytes_for_tokens", per_token_bytes=131072, tokens=3200)
    n = _v(
        "admission_count", capacity_gib=30.5, per_token_bytes=131072, prompt_tokens=2500, max_new_tokens=700
    )
    assert n == _v("fit_count", capacity=30.5 * 2**30, per_item=per_request.value)


@settings(max_examples=80)
@given(st.floats(5, 900), st.floats(1e8, 3e9), st.floats(8, 150), st.floats(0.3, 1.0))
def test_the_replica_count_is_the_fewest_that_keep_occupancy_at_or_below_target(
    conc: float, per_req: float, cap: float, target: float
) -> None:
    n = _v(
        "replicas_for_occupancy",
        concurrency=conc,
        per_request_bytes=per_req,
        capacity_gib=cap,
        target_occupancy=target,
    )

    def occ(k: float) -> float:
        return _v("kv_occupancy", concurrency=conc, per_request_bytes=per_req, capacity_gib=cap, replicas=k)

    assert occ(n) <= target * (1 + 1e-12)
    assert n == 1 or occ(n - 1) > target


@settings(max_examples=80)
@given(st.floats(0.5, 200), st.floats(10, 900), st.floats(0.3, 1.0))
def test_prefill_instances_are_the_fewest_that_stay_under_the_target(
    rate: float, ms: float, target: float
) -> None:
    n = _v("prefill_instances", arrival_rate=rate, prefill_ms=ms, target_utilisation=target)

    def util(k: float) -> float:
        return _v("prefill_utilisation", arrival_rate=rate, replicas=k, prefill_ms=ms)

    assert util(n) <= target * (1 + 1e-12)
    assert n == 1 or util(n - 1) > target


def test_decode_instances_apply_littles_law_to_the_decode_pool() -> None:
    args = {"arrival_rate": 30.0, "output_tokens": 500, "tpot_ms": 35.0}
    decoding = _v("little_concurrency", arrival_rate=30.0, latency_ms=500 * 35.0)
    for batch in (16, 64, 256):
        assert _v("decode_instances", **args, max_batch=batch) == math.ceil(decoding / batch)


def test_prefill_interference_vanishes_with_no_prefills_and_explodes_near_saturation() -> None:
    quiet = _v("interfered_tpot_ms", decode_step_ms=30, prefill_ms=200, arrival_rate=1e-9)
    assert quiet == pytest.approx(30)
    busy = _v("interfered_tpot_ms", decode_step_ms=30, prefill_ms=200, arrival_rate=4.99)
    assert busy > 100 * 30
    with pytest.raises(ValueError):
        calculate("interfered_tpot_ms", decode_step_ms=30, prefill_ms=200, arrival_rate=5)


def test_an_exact_fit_is_not_rounded_to_one_more_instance_by_float_noise() -> None:
    # 70 req/s x 0.28 s = 19.6 busy instances; at 70% that is exactly 28 (in floats, 28.000000000000004)
    assert _v("prefill_instances", arrival_rate=70, prefill_ms=280, target_utilisation=0.7) == 28
    # 216 x 256 MiB is exactly 5 x (60% of 18 GiB)
    exact = {"concurrency": 216, "per_request_bytes": 2**28, "capacity_gib": 18, "target_occupancy": 0.6}
    assert _v("replicas_for_occupancy", **exact) == 5
    assert _v("kv_occupancy", concurrency=216, per_request_bytes=2**28, capacity_gib=18, replicas=5) == (
        pytest.approx(0.6)
    )
