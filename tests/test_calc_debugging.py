"""The debugging calculators checked against independent computations: the decode-step and prefill
calculators they refine, populations of requests counted one by one, a simulated M/M/1 queue, simulated
speculative rounds, and RoPE wavelengths pair by pair."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine import calculate


def _value(name: str, **args: float) -> float:
    value = calculate(name, **args).value
    assert not isinstance(value, tuple)
    return float(value)


# ---------------------------------------------------------------------------- decode step terms


@given(
    w=st.floats(1e9, 2e11),
    kv=st.floats(1e7, 5e9),
    batch=st.integers(1, 256),
)
def test_the_kv_share_is_the_part_of_the_step_that_the_weights_alone_do_not_explain(
    w: float, kv: float, batch: int
) -> None:
    d = calculate("decode_step_ms", weight_bytes=w, kv_bytes_per_seq=kv, batch=batch, bandwidth_gb_s=3350)
    weights_only = d.misconception("forgot-kv-cache")
    assert weights_only is not None
    share = _value("kv_read_share", weight_bytes=w, kv_bytes_per_seq=kv, batch=batch)
    step, alone = float(d.value), float(weights_only.value)  # type: ignore[arg-type]
    assert share == pytest.approx((step - alone) / step)
    assert 1 - share == pytest.approx(alone / step)  # the rest is the weights' read


def test_the_kv_share_tends_to_one_as_the_batch_grows_and_to_zero_as_the_cache_shrinks() -> None:
    assert _value("kv_read_share", weight_bytes=16e9, kv_bytes_per_seq=1e9, batch=10**7) > 0.9999
    assert _value("kv_read_share", weight_bytes=16e9, kv_bytes_per_seq=1.0, batch=1) < 1e-9


@given(w=st.floats(1e9, 2e11), kv=st.floats(1e7, 5e9), b1=st.integers(1, 128), k=st.integers(2, 4))
def test_step_growth_is_the_ratio_of_the_two_bandwidth_bound_steps(
    w: float, kv: float, b1: int, k: int
) -> None:
    def step(batch: int) -> float:
        return _value("decode_step_ms", weight_bytes=w, kv_bytes_per_seq=kv, batch=batch, bandwidth_gb_s=4800)

    growth = _value(
        "step_time_growth", weight_bytes=w, kv_bytes_per_seq=kv, batch_before=b1, batch_after=k * b1
    )
    assert growth == pytest.approx(step(k * b1) / step(b1))
    assert 1 < growth < k  # the shared weights keep it below the batch ratio


def test_step_growth_reaches_the_batch_ratio_only_when_the_weights_vanish() -> None:
    assert _value(
        "step_time_growth", weight_bytes=1.0, kv_bytes_per_seq=1e12, batch_before=32, batch_after=64
    ) == (pytest.approx(2))
    with pytest.raises(ValueError, match="must exceed"):
        calculate("step_time_growth", weight_bytes=1e9, kv_bytes_per_seq=1e9, batch_before=64, batch_after=32)


# ---------------------------------------------------------------------------- prefix cache and the tail


@given(p=st.integers(1024, 131072), frac=st.floats(0.01, 0.99), mfu=st.sampled_from([0.3, 0.5]))
def test_a_hit_costs_the_prefill_of_its_uncached_tokens_alone(p: int, frac: float, mfu: float) -> None:
    cached = max(1, min(p - 1, int(p * frac)))

    def ttft(tokens: int) -> float:
        return _value("request_latency", n_params=8.03e9, prompt_tokens=tokens, peak_tflops=989.5, mfu=mfu)

    hit = _value("hit_prefill_ms", miss_ms=ttft(p), prompt_tokens=p, cached_tokens=cached)
    assert hit == pytest.approx(ttft(p - cached))


@given(hit_rate=st.sampled_from([0.1, 0.25, 0.5, 0.8, 0.9]), hit=st.floats(1, 100), miss=st.floats(200, 5000))
def test_the_mean_of_a_mixed_population_counted_request_by_request(
    hit_rate: float, hit: float, miss: float
) -> None:
    n = 1000
    population = [hit] * round(hit_rate * n) + [miss] * round((1 - hit_rate) * n)
    assert _value("mixed_mean_ms", hit_ms=hit, miss_ms=miss, hit_rate=hit_rate) == pytest.approx(
        float(np.mean(population))
    )


@pytest.mark.parametrize(
    ("hit_rate", "percentile"), [(0.8, 99), (0.7, 99), (0.9, 95), (0.5, 99.5), (0.85, 90)]
)
def test_the_tail_percentile_sits_where_a_sorted_population_puts_it_among_the_misses(
    hit_rate: float, percentile: float
) -> None:
    rng = np.random.default_rng(7)
    n = 200_000
    n_hits = round(hit_rate * n)
    hits = rng.uniform(0, 1, n_hits)  # (n_hits,) all faster than any miss
    misses = rng.uniform(10, 20, n - n_hits)  # (n_misses,)
    tail_value = np.quantile(np.concatenate([hits, misses]), percentile / 100)
    among_misses = 100 * float(np.mean(misses < tail_value))
    got = _value("tail_percentile_of_misses", hit_rate=hit_rate, percentile=percentile)
    assert got == pytest.approx(among_misses, abs=0.05)


def test_a_percentile_that_falls_among_the_hits_is_refused() -> None:
    with pytest.raises(ValueError, match="falls among the hits"):
        calculate("tail_percentile_of_misses", hit_rate=0.995, percentile=99)


def _mm1_waits(rho: float, service_ms: float, n: int, seed: int) -> np.ndarray:
    """Waits before service of n customers of an M/M/1 queue, by Lindley's recursion."""
    rng = np.random.default_rng(seed)
    gaps = rng.exponential(service_ms / rho, n)  # (n,) inter-arrival times
    services = rng.exponential(service_ms, n)  # (n,)
    waits = np.zeros(n)  # (n,)
    for k in range(1, n):
        waits[k] = max(0.0, waits[k - 1] + services[k - 1] - gaps[k])
    return waits[n // 10 :]  # warm-up dropped


@pytest.mark.parametrize(("rho", "percentile"), [(0.5, 95), (0.75, 99), (0.85, 99)])
def test_the_mm1_tail_wait_agrees_with_a_simulated_queue(rho: float, percentile: float) -> None:
    waits = _mm1_waits(rho, 100.0, 400_000, seed=3)
    d = calculate("mm1_wait_percentile_ms", utilisation=rho, service_ms=100.0, percentile=percentile)
    assert d.value == pytest.approx(float(np.quantile(waits, percentile / 100)), rel=0.08)
    mean = d.misconception("mean-for-tail")
    assert mean is not None and mean.value == pytest.approx(float(np.mean(waits)), rel=0.08)


def test_the_mm1_tail_wait_explodes_as_the_utilisation_nears_one() -> None:
    waits = [
        _value("mm1_wait_percentile_ms", utilisation=r, service_ms=100, percentile=99)
        for r in (0.5, 0.9, 0.99)
    ]
    assert waits[0] < waits[1] < waits[2] and waits[2] > 10 * waits[1]
    with pytest.raises(ValueError, match="never wait"):
        calculate("mm1_wait_percentile_ms", utilisation=0.005, service_ms=100, percentile=99)


# ---------------------------------------------------------------------------- speculation at load


def test_a_verify_pass_costs_one_step_at_batch_one_and_grows_with_the_tokens_when_compute_bound() -> None:
    args = {"n_params": 8.03e9, "tflops": 989.5, "mfu": 0.5}
    assert _value("verify_pass_ms", step_ms=5.0, batch=1, tokens_per_seq=5, **args) == 5.0
    four = _value("verify_pass_ms", step_ms=5.0, batch=256, tokens_per_seq=4, **args)
    eight = _value("verify_pass_ms", step_ms=5.0, batch=256, tokens_per_seq=8, **args)
    assert eight == pytest.approx(2 * four) and four > 5.0


@given(
    alpha=st.sampled_from([0.3, 0.6, 0.85]),
    gamma=st.integers(1, 6),
    cost=st.sampled_from([0.05, 0.2]),
)
def test_with_a_free_verification_the_tpot_is_the_step_over_the_published_speedup(
    alpha: float, gamma: int, cost: float
) -> None:
    tokens = _value("spec_expected_tokens", alpha=alpha, gamma=gamma)
    speedup = _value("spec_speedup", tokens_per_round=tokens, gamma=gamma, draft_cost=cost)
    tpot = _value(
        "spec_tpot_ms", verify_ms=10, step_ms=10, gamma=gamma, draft_cost=cost, tokens_per_round=tokens
    )
    assert tpot == pytest.approx(10 / speedup)


def test_the_tpot_matches_simulated_rounds_of_drafting_and_verifying() -> None:
    rng = np.random.default_rng(11)
    alpha, gamma, cost, step, verify = 0.35, 4, 0.1, 8.0, 19.0
    rounds = 200_000
    accepted = rng.random((rounds, gamma)) < alpha  # (rounds, gamma)
    kept = np.cumprod(accepted, axis=1).sum(axis=1) + 1  # (rounds,) drafts up to the first rejection + 1
    simulated = rounds * (verify + gamma * cost * step) / kept.sum()
    tokens = _value("spec_expected_tokens", alpha=alpha, gamma=gamma)
    tpot = _value(
        "spec_tpot_ms", verify_ms=verify, step_ms=step, gamma=gamma, draft_cost=cost, tokens_per_round=tokens
    )
    assert tpot == pytest.approx(simulated, rel=0.01)


# ---------------------------------------------------------------------------- RoPE against the context


@given(
    d=st.sampled_from([16, 64, 128, 256]),
    base=st.sampled_from([10000.0, 500000.0, 1e6]),
    context=st.integers(8, 10**6),
)
def test_slow_pairs_are_counted_pair_by_pair_from_the_wavelength_calculator(
    d: int, base: float, context: int
) -> None:
    waves = [_value("rope_wavelength", pair=i, d_head=d, base=base) for i in range(d // 2)]
    expected = sum(w > context for w in waves)
    assert _value("rope_slow_pairs", d_head=d, base=base, context=context) == expected
    # closed form: i > d ln(context / 2 pi) / (2 ln base), for i < d/2
    cut = d * math.log(context / (2 * math.pi)) / (2 * math.log(base))
    closed = sum(1 for i in range(d // 2) if i > cut)
    assert abs(expected - closed) <= 1  # they differ only when a wavelength equals the context to rounding


def test_a_larger_base_keeps_more_pairs_slow_and_tiny_or_huge_contexts_reach_the_limits() -> None:
    small = _value("rope_slow_pairs", d_head=128, base=10000.0, context=32768)
    large = _value("rope_slow_pairs", d_head=128, base=500000.0, context=32768)
    assert small < large
    assert _value("rope_slow_pairs", d_head=128, base=10000.0, context=6) == 64  # below 2 pi: none turns
    assert _value("rope_slow_pairs", d_head=128, base=10000.0, context=10**9) == 0


@given(
    d=st.sampled_from([64, 128, 256]),
    trained=st.sampled_from([500000.0, 1e6]),
    served=st.sampled_from([10000.0, 50000.0]),
)
def test_a_smaller_base_speeds_the_slowest_pair_by_the_ratio_of_bases_to_the_power_2i_over_d(
    d: int, trained: float, served: float
) -> None:
    last = d // 2 - 1
    before = _value("rope_wavelength", pair=last, d_head=d, base=trained)
    after = _value("rope_wavelength", pair=last, d_head=d, base=served)
    faster = _value("quantity_ratio", numerator=before, denominator=after)
    assert faster == pytest.approx((trained / served) ** (2 * last / d))
    assert 1 < faster < trained / served  # every pair but the first speeds up, none by the full ratio


@given(d=st.sampled_from([64, 128]), base=st.sampled_from([10000.0, 500000.0]), context=st.integers(8, 10**7))
def test_no_pair_stays_slow_exactly_when_the_context_reaches_the_slowest_wavelength(
    d: int, base: float, context: int
) -> None:
    slowest = _value("rope_wavelength", pair=d // 2 - 1, d_head=d, base=base)
    none_slow = _value("rope_slow_pairs", d_head=d, base=base, context=context) == 0
    assert none_slow == (context >= slowest)
