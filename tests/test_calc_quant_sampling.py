"""Weight quantisation and sampling calculators against identities a learner could check by hand: limits
of a formula, agreement with another calculator, and a brute-force search over every token subset."""

from __future__ import annotations

import itertools
import math
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest

from engine import calculate
from engine.accelerators import ACCELERATORS, Accelerator


def _num(value: object) -> float:
    assert isinstance(value, (int, float))
    return float(value)


def val(name: str, **args: Any) -> float:
    """A calculator's value as a plain number."""
    return _num(calculate(name, **args).value)


LOGITS = [[2.0, 1.0, 0.5, -1.0, -3.0]]


def _softmax(z: list[float], t: float = 1.0) -> npt.NDArray[np.float64]:
    s = np.asarray(z) / t
    e = np.exp(s - s.max())
    out: npt.NDArray[np.float64] = e / e.sum()
    return out


# ------------------------------------------------------------------ bits and bytes


def test_group_scales_add_their_bits_shared_over_the_group() -> None:
    assert val("quant_bits_per_weight", bits=4, group_size=128) == 4 + 16 / 128
    huge = val("quant_bits_per_weight", bits=4, group_size=2**30)
    assert huge == pytest.approx(4, abs=1e-6)  # one scale for a whole matrix costs nothing per weight
    one = val("quant_bits_per_weight", bits=4, group_size=1, zero_bits=4)
    assert one == 4 + 16 + 4  # a group of one pays a whole scale and zero point per weight


def test_weight_bytes_are_params_times_the_bits_per_weight_over_8() -> None:
    bpw = val("quant_bits_per_weight", bits=4, group_size=64, zero_bits=4)
    d = calculate("quantized_weight_bytes", n_params=8.03e9, bits=4, group_size=64, zero_bits=4)
    assert d.value == pytest.approx(8.03e9 * bpw / 8)
    assert d.misconception("ignored-scales").value == val("quantized_weight_bytes", n_params=8.03e9, bits=4)
    assert d.misconception("bits-as-bytes").value == pytest.approx(_num(d.value) * 8)
    # FP8 with per-channel scales is one byte per weight: half of bf16
    fp8 = val("quantized_weight_bytes", n_params=70.6e9, bits=8)
    assert fp8 * 2 == val("quantized_weight_bytes", n_params=70.6e9, bits=16)


def test_batch_one_speedup_is_the_ratio_of_bytes_read() -> None:
    d = calculate("weight_only_speedup", bits=4, group_size=128)
    bf16 = val("quantized_weight_bytes", n_params=1e9, bits=16)
    int4 = val("quantized_weight_bytes", n_params=1e9, bits=4, group_size=128)
    assert d.value == pytest.approx(bf16 / int4)
    assert d.misconception("inverted").value == pytest.approx(1 / _num(d.value))
    assert val("weight_only_speedup", bits=16) == 1


# ------------------------------------------------------------------ step bounds


def test_step_time_is_the_memory_time_at_batch_1_and_the_compute_time_at_large_batch() -> None:
    h100 = ACCELERATORS["h100-sxm"]
    w = val("quantized_weight_bytes", n_params=8.03e9, bits=4, group_size=128)
    args = {
        "weight_bytes": w,
        "n_params": 8.03e9,
        "bandwidth_gb_s": h100.bandwidth_gb_s,
        "tflops": h100.bf16_tflops,
    }
    small = val("quant_step_ms", **args, batch=1)
    from_bits = calculate("quant_step_ms", **{**args, "weight_bytes": 0.0}, bits=4, group_size=128, batch=1)
    assert from_bits.value == small
    assert small == pytest.approx(val("memory_time_ms", n_bytes=w, bandwidth_gb_s=h100.bandwidth_gb_s))
    big = val("quant_step_ms", **args, batch=4096)
    flops = 2 * 8.03e9 * 4096
    assert big == pytest.approx(
        val("compute_time_ms", flops=flops, tflops=h100.bf16_tflops, n_gpus=1, mfu=1.0)
    )


def test_the_crossover_batch_is_where_the_step_stops_being_memory_bound() -> None:
    for gpu in ACCELERATORS.values():
        for bits, group in ((4, 128), (8, 0), (16, 0)):
            w = val("quantized_weight_bytes", n_params=1e9, bits=bits, group_size=group)
            b = val(
                "quant_crossover_batch",
                tflops=gpu.bf16_tflops,
                bandwidth_gb_s=gpu.bandwidth_gb_s,
                bits=bits,
                group_size=group,
            )
            mem = w / (gpu.bandwidth_gb_s * 1e9)

            def compute(batch: float, g: Accelerator = gpu) -> float:  # seconds of matmul at the bf16 rate
                return 2 * 1e9 * batch / (g.bf16_tflops * 1e12)

            assert compute(b) >= mem * (1 - 1e-9) > compute(b - 1)


def test_int4_wins_the_latency_tier_and_fp8_the_throughput_tier_on_every_fp8_gpu() -> None:
    n = 70.6e9
    int4 = val("quantized_weight_bytes", n_params=n, bits=4, group_size=128)
    fp8 = val("quantized_weight_bytes", n_params=n, bits=8)
    for gpu in ACCELERATORS.values():
        if gpu.fp8_tflops is None:
            continue

        def step(w: float, batch: int, tflops: float, g: Accelerator = gpu) -> float:
            return val(
                "quant_step_ms",
                weight_bytes=w,
                n_params=n,
                batch=batch,
                bandwidth_gb_s=g.bandwidth_gb_s,
                tflops=tflops,
            )

        assert step(int4, 1, gpu.bf16_tflops) < step(fp8, 1, gpu.fp8_tflops)
        assert step(fp8, 1024, gpu.fp8_tflops) < step(int4, 1024, gpu.bf16_tflops)


def test_using_fp8_cores_for_weight_only_int4_is_named_when_the_step_is_compute_bound() -> None:
    d = calculate(
        "quant_step_ms",
        weight_bytes=4.14e9,
        n_params=8.03e9,
        batch=256,
        bandwidth_gb_s=3350,
        tflops=989.5,
        other_tflops=1979,
    )
    assert d.misconception("wrong-tensor-cores").value == pytest.approx(_num(d.value) / 2)
    assert _num(d.misconception("added-bounds").value) > _num(d.value)


# ------------------------------------------------------------------ sampling


def test_temperature_limits_are_the_argmax_and_the_uniform_distribution() -> None:
    cold = [val("temperature_probability", logits=LOGITS, temperature=1e-3, col=c) for c in range(5)]
    assert cold == pytest.approx([1, 0, 0, 0, 0], abs=1e-9)
    hot = [val("temperature_probability", logits=LOGITS, temperature=1e6, col=c) for c in range(5)]
    assert hot == pytest.approx([0.2] * 5, abs=1e-5)
    one = [val("temperature_probability", logits=LOGITS, temperature=1.0, col=c) for c in range(5)]
    assert sum(one) == pytest.approx(1) and one == pytest.approx(list(_softmax(LOGITS[0])))


def test_top_k_keeps_everything_at_k_equal_vocab_and_one_token_at_k_1() -> None:
    full = val("top_k_probability", logits=LOGITS, k=5)
    assert full == pytest.approx(_softmax(LOGITS[0]).max())
    assert val("top_k_probability", logits=LOGITS, k=1, temperature=3.0) == pytest.approx(1)


def _nucleus_by_search(probs: npt.NDArray[np.float64], p: float) -> float:
    """The top token's renormalised probability, from the smallest subsets reaching p, most mass first."""
    for size in range(1, len(probs) + 1):
        masses = [sum(probs[list(s)]) for s in itertools.combinations(range(len(probs)), size)]
        reaching = [m for m in masses if m >= p - 1e-12]
        if reaching:
            return float(probs.max() / max(reaching))
    raise AssertionError("p above 1")


@pytest.mark.parametrize("seed", range(30))
def test_top_p_agrees_with_a_search_over_every_token_subset(seed: int) -> None:
    rng = np.random.default_rng(seed)
    z = rng.integers(-4, 7, size=int(rng.integers(3, 8))).astype(float)
    p = float(rng.choice([0.5, 0.8, 0.9, 0.95]))
    t = float(rng.choice([0.5, 1.0, 2.0]))
    got = val("top_p_probability", logits=[z.tolist()], p=p, temperature=t)
    assert got == pytest.approx(_nucleus_by_search(_softmax(z.tolist(), t), p))


def test_top_p_of_1_keeps_every_token() -> None:
    assert val("top_p_probability", logits=LOGITS, p=1.0) == pytest.approx(_softmax(LOGITS[0]).max())


def test_sampling_frequencies_match_the_top_k_probability() -> None:
    rng = np.random.default_rng(7)
    probs = _softmax(LOGITS[0], 0.7)
    keep = np.argsort(probs)[::-1][:3]
    kept = probs[keep] / probs[keep].sum()
    draws = rng.choice(keep, size=200_000, p=kept)
    share = float(np.mean(draws == keep[0]))
    assert share == pytest.approx(val("top_k_probability", logits=LOGITS, k=3, temperature=0.7), abs=5e-3)


def test_lm_head_grows_with_batch_and_the_sort_ratio_is_head_over_v_log_v() -> None:
    one = val("lm_head_flops", vocab=128256, d_model=4096)
    assert val("lm_head_flops", vocab=128256, d_model=4096, batch=8) == 8 * one
    ratio = val("sort_to_head_ratio", vocab=128256, d_model=4096)
    assert ratio == pytest.approx(one / (128256 * math.log2(128256)))


def _smallest_subset_reaching(probs: npt.NDArray[np.float64], p: float) -> int:
    """The size of the smallest token subset, any subset, whose mass reaches p."""
    for size in range(1, len(probs) + 1):
        if any(sum(probs[list(s)]) >= p - 1e-12 for s in itertools.combinations(range(len(probs)), size)):
            return size
    raise AssertionError("p above 1")


@pytest.mark.parametrize("seed", range(30))
def test_the_nucleus_size_is_the_smallest_subset_reaching_p_and_top_k_of_it_is_top_p(seed: int) -> None:
    rng = np.random.default_rng(100 + seed)
    z = rng.integers(-4, 7, size=int(rng.integers(3, 8))).astype(float).tolist()
    p = float(rng.choice([0.5, 0.8, 0.9, 0.95, 0.99]))
    t = float(rng.choice([0.5, 1.0, 1.8]))
    n = int(val("nucleus_size", logits=[z], p=p, temperature=t))
    assert n == _smallest_subset_reaching(_softmax(z, t), p)
    assert val("top_k_probability", logits=[z], k=n, temperature=t) == pytest.approx(
        val("top_p_probability", logits=[z], p=p, temperature=t)
    )


def test_the_nucleus_widens_as_the_temperature_rises_and_keeps_everything_at_p_1() -> None:
    sizes = [val("nucleus_size", logits=LOGITS, p=0.9, temperature=t) for t in (0.3, 0.7, 1.0, 1.5, 3.0)]
    assert sizes == sorted(sizes) and sizes[0] == 1 and sizes[-1] > sizes[0]
    assert val("nucleus_size", logits=LOGITS, p=1.0, temperature=0.7) == len(LOGITS[0])
    d = calculate("nucleus_size", logits=LOGITS, p=0.9, temperature=3.0)
    assert d.misconception("excluded-crossing-token").value == _num(d.value) - 1


@pytest.mark.parametrize("batch", [1, 8, 128])
def test_the_head_over_sorts_ratio_from_a_batch_s_head_flops_does_not_depend_on_the_batch(batch: int) -> None:
    head = val("lm_head_flops", vocab=152064, d_model=8192, batch=batch)
    ratio = val("sort_to_head_ratio", vocab=152064, batch=batch, head_flops=head)
    assert ratio == pytest.approx(val("sort_to_head_ratio", vocab=152064, d_model=8192))
    d = calculate("sort_to_head_ratio", vocab=152064, batch=batch, head_flops=head)
    if batch > 1:
        assert d.misconception("forgot-batch").value == pytest.approx(batch * ratio)
    else:
        assert "forgot-batch" not in {m.id for m in d.misconceptions}


def test_bad_sampling_input_is_a_clear_error() -> None:
    with pytest.raises(ValueError, match="temperature"):
        calculate("temperature_probability", logits=LOGITS, temperature=0.0, col=0)
    with pytest.raises(ValueError, match="p must be"):
        calculate("top_p_probability", logits=LOGITS, p=1.5)
    with pytest.raises(ValueError, match="k must be"):
        calculate("top_k_probability", logits=LOGITS, k=6)
