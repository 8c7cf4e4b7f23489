"""The mixture-of-experts calculators against identities a learner can derive by hand: limit cases,
sums over GPUs, a brute-force enumeration of routings and the published totals of Mixtral and DeepSeek-V3."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from engine.calculator import calculate

MIXTRAL = {"d_model": 4096, "d_ff": 14336, "n_experts": 8, "top_k": 2, "n_moe_layers": 32}
DSV3 = {"d_model": 7168, "d_ff": 2048, "n_experts": 256, "top_k": 8, "n_moe_layers": 58, "n_shared": 1}


def _value(name: str, **args: object) -> float:
    value = calculate(name, **args).value
    assert isinstance(value, (int, float))
    return float(value)


def test_mixtral_adds_up_to_the_papers_47b_total_and_13b_active() -> None:
    # attention (GQA: 8 KV heads of 128) per layer, embeddings and the output head, routers
    attention = 32 * (2 * 4096 * 4096 + 2 * 4096 * 1024)
    other = attention + 2 * 32000 * 4096 + 32 * 8 * 4096
    total = _value("moe_expert_params", **MIXTRAL, which="total") + other
    active = _value("moe_expert_params", **MIXTRAL, which="active") + other
    assert total == pytest.approx(46.7e9, rel=0.005)
    assert active == pytest.approx(12.9e9, rel=0.005)


def test_deepseek_v3_adds_up_to_the_reports_671b_total_and_37b_active() -> None:
    # MLA attention in all 61 layers: q down/up, kv down (latent + rope key), kv up, output
    mla = 7168 * 1536 + 1536 * 128 * 192 + 7168 * (512 + 64) + 512 * 128 * 256 + 128 * 128 * 7168
    dense_ffn = 3 * 3 * 7168 * 18432  # the first three layers keep a dense FFN
    other = 61 * mla + dense_ffn + 2 * 129280 * 7168 + 58 * 256 * 7168
    total = _value("moe_expert_params", **DSV3, which="total") + other
    active = _value("moe_expert_params", **DSV3, which="active") + other
    assert total == pytest.approx(671e9, rel=0.005)
    assert 37e9 <= active <= 38e9


def test_routing_to_every_expert_makes_active_equal_total_and_flops_twice_the_parameters() -> None:
    dense = {**MIXTRAL, "top_k": 8}
    assert _value("moe_expert_params", **dense, which="active") == _value("moe_expert_params", **dense)
    flops = _value("moe_token_flops", dense_params=1e9, **MIXTRAL, tokens=3)
    params = 1e9 + _value("moe_expert_params", **MIXTRAL, which="active")
    assert flops == pytest.approx(2 * params * 3)


def test_alltoall_is_linear_in_tokens_and_tends_to_every_copy_as_ep_grows() -> None:
    base = {"d_model": 7168, "top_k": 8, "bytes_per_element": 2, "n_moe_layers": 58}
    every = _value("moe_alltoall_bytes", tokens=64, **base)
    assert _value("moe_alltoall_bytes", tokens=128, **base) == 2 * every
    assert every == 2 * 64 * 8 * 7168 * 2 * 58  # dispatch and combine carry the same vectors
    ratios = [_value("moe_alltoall_bytes", tokens=64, **base, ep=ep) / every for ep in (2, 8, 64, 1024)]
    assert ratios == sorted(ratios) and ratios[0] == 0.5 and ratios[-1] == pytest.approx(1, abs=1e-3)


def test_experts_touched_matches_an_enumeration_of_every_routing() -> None:
    n_experts, top_k, batch = 5, 2, 3
    choices = list(itertools.combinations(range(n_experts), top_k))
    counts = [len(set().union(*picks)) for picks in itertools.product(choices, repeat=batch)]
    assert _value("moe_experts_touched", n_experts=n_experts, top_k=top_k, batch=batch) == pytest.approx(
        np.mean(counts)
    )


def test_experts_touched_starts_at_k_and_approaches_every_expert() -> None:
    assert _value("moe_experts_touched", n_experts=256, top_k=8, batch=1) == pytest.approx(8)
    seen = [_value("moe_experts_touched", n_experts=256, top_k=8, batch=b) for b in (1, 16, 64, 512)]
    assert seen == sorted(seen) and seen[-1] == pytest.approx(256, rel=1e-6)


def test_capacity_with_factor_one_is_the_even_share_and_never_rounds_up() -> None:
    assert _value("moe_expert_capacity", tokens=4096, n_experts=64, top_k=2, capacity_factor=1.0) == 128
    cap = _value("moe_expert_capacity", tokens=1000, n_experts=64, top_k=2, capacity_factor=1.25)
    assert cap <= 1.25 * 1000 * 2 / 64 < cap + 1


def test_dropped_tokens_match_a_brute_force_overflow_of_the_loads() -> None:
    args = {"tokens": 4096, "n_experts": 64, "top_k": 2, "capacity_factor": 1.25}
    mean = 4096 * 2 // 64
    loads = np.full(64, mean)
    loads[:3] = 2 * mean  # three hot experts at twice the even share
    loads[3:] -= (3 * mean) // 61  # the others give up what the hot ones take (staying under capacity)
    cap = int(1.25 * mean)
    brute = int(np.maximum(loads - cap, 0).sum())
    assert _value("moe_dropped_tokens", **args, hot_experts=3, hot_ratio=2) == brute
    assert _value("moe_dropped_tokens", **args, hot_experts=3, hot_ratio=1.25) == 0


def test_the_hottest_expert_sets_the_time_and_an_even_load_is_the_mean() -> None:
    args = {"tokens": 8192, "n_experts": 64, "top_k": 8, "d_model": 7168, "d_ff": 2048, "tflops": 989.5}
    even = _value("moe_hot_expert_ms", **args, hot_ratio=1)
    assert even == pytest.approx(8192 * 8 / 64 * 2 * 3 * 7168 * 2048 / 989.5e12 * 1e3)
    assert _value("moe_hot_expert_ms", **args, hot_ratio=3) == pytest.approx(3 * even)


def test_weights_over_every_gpu_are_one_copy_of_the_experts_and_ep_copies_of_the_rest() -> None:
    dense, experts, ep, tp = 12e9, 380e9, 4, 8
    per_gpu = _value(
        "moe_weights_per_gpu", dense_params=dense, expert_params=experts, ep=ep, tp=tp, bytes_per_param=1
    )
    assert per_gpu * ep * tp == pytest.approx(ep * dense + experts)
    one_group = _value(
        "moe_weights_per_gpu", dense_params=dense, expert_params=experts, ep=1, tp=tp, bytes_per_param=1
    )
    assert one_group == pytest.approx((dense + experts) / tp)


def test_at_the_ridge_batch_an_experts_intensity_is_the_gpus_ridge() -> None:
    tflops, bw, e, k, nbytes = 989.5, 3350.0, 256, 8, 1
    batch = _value(
        "moe_ridge_batch", tflops=tflops, bandwidth_gb_s=bw, n_experts=e, top_k=k, bytes_per_param=nbytes
    )
    tokens_per_expert = batch * k / e
    intensity = 2 * tokens_per_expert / nbytes  # FLOPs per byte of expert weight read
    assert intensity == pytest.approx(tflops * 1e12 / (bw * 1e9))


def test_bad_routing_is_refused_with_a_message() -> None:
    with pytest.raises(ValueError, match="top_k"):
        calculate("moe_experts_touched", n_experts=4, top_k=8, batch=2)
    with pytest.raises(ValueError, match="evenly"):
        calculate(
            "moe_dropped_tokens",
            tokens=7,
            n_experts=8,
            top_k=1,
            capacity_factor=1,
            hot_experts=1,
            hot_ratio=2,
        )
    with pytest.raises(ValueError, match="ep"):
        calculate("moe_alltoall_bytes", tokens=8, d_model=64, top_k=2, bytes_per_element=2, ep=1)
