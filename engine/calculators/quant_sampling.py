"""Provides weight quantisation and sampling: bits per weight with group-wise scales, the weight bytes and
decode-step bounds of INT4 weight-only (AWQ, GPTQ) against FP8 W8A8, and temperature, top-k and top-p
(nucleus) sampling on small given logits, with the cost of a sort against the LM head.

Weight-only INT4 shrinks the bytes a step reads but dequantises to bf16 before the matmul, so it computes
at the bf16 tensor-core rate; FP8 W8A8 halves the bytes of bf16 and runs on FP8 tensor cores at twice the
bf16 rate. Which wins depends on whether the step is bound by memory (batch 1) or by compute (large batch).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from engine.calculator import Arg, register
from engine.calculators.case_common import formula_result, num, require_positive_numbers
from engine.calculators.common import distinct
from engine.derivation import Derivation, Misconception, Step

Vector = npt.NDArray[np.float64]
Slip = tuple[str, str, str, float]
"""A wrong turn as case_common.Wrong, with a plain number for its value."""

APART = 0.01
"""A wrong value within 1% of the answer cannot be told from it: such a slip is left unnamed."""


def _apart(value: float, wrong: Sequence[Slip]) -> list[Slip]:
    """The wrong turns whose value is clearly away from the answer (a near miss is not a diagnosis)."""
    return [w for w in wrong if abs(float(w[3]) - value) > APART * abs(value)]


def _bits_per_weight(bits: int, group_size: int, scale_bits: int, zero_bits: int) -> float:
    """Stored bits per weight: the code itself plus one scale (and zero point) shared by each group."""
    return bits + (scale_bits + zero_bits) / group_size if group_size else float(bits)


def _check_format(calc: str, bits: int, group_size: int, scale_bits: int, zero_bits: int) -> None:
    if not 1 <= bits <= 16:
        raise ValueError(f"{calc}: bits must be 1 to 16, got {bits}")
    if group_size < 0 or scale_bits < 0 or zero_bits < 0:
        raise ValueError(
            f"{calc}: group_size, scale_bits and zero_bits must be 0 or more, got "
            f"{group_size}, {scale_bits}, {zero_bits}"
        )


_FORMAT_ARGS = (
    Arg("bits", "int", "bits of each quantised weight (INT4: 4, FP8/INT8: 8)"),
    Arg(
        "group_size",
        "int",
        "weights sharing one scale (0: per-channel or per-tensor, overhead ignored)",
        0,
        False,
    ),
    Arg("scale_bits", "int", "bits of each group's scale (fp16: 16)", 16, False),
    Arg("zero_bits", "int", "bits of each group's zero point (asymmetric: often 4; symmetric: 0)", 0, False),
)


def _overhead_wrongs(bits: int, group_size: int, scale_bits: int, zero_bits: int, scale: float) -> list[Slip]:
    """The slips in the group overhead, each as a value of `scale` x bits per weight."""
    if not group_size:
        return []
    wrong: list[Slip] = [
        (
            "ignored-scales",
            "You counted the codes and left out the group scales",
            f"Each group of {group_size} weights also stores a {scale_bits}-bit scale"
            + (f" and a {zero_bits}-bit zero point" if zero_bits else "")
            + f": {(scale_bits + zero_bits) / group_size:.4g} bits more per weight.",
            scale * bits,
        ),
        (
            "scale-per-weight",
            "You added a whole scale to every weight",
            "One scale serves the whole group: divide its bits by the group size.",
            scale * (bits + scale_bits + zero_bits),
        ),
    ]
    if zero_bits:
        wrong.append(
            (
                "forgot-zero-point",
                "You counted the scale but not the zero point",
                "Asymmetric quantisation stores a zero point beside each group's scale.",
                scale * (bits + scale_bits / group_size),
            )
        )
    return wrong


@register(
    "quant_bits_per_weight",
    summary="Bits stored per weight with group-wise quantisation: bits + (scale bits + zero bits) / group.",
    unit="",
    args=_FORMAT_ARGS,
    misconceptions=("ignored-scales", "scale-per-weight", "forgot-zero-point", "scale-bytes-as-bits"),
)
def quant_bits_per_weight(
    bits: int, group_size: int = 0, scale_bits: int = 16, zero_bits: int = 0, *, worked: bool = True
) -> Derivation:
    """Group-wise scales are the price of accuracy at 4 bits: small groups cost bits on every weight."""
    calc = "quant_bits_per_weight"
    _check_format(calc, bits, group_size, scale_bits, zero_bits)
    if group_size < 1:
        raise ValueError(f"{calc}: group_size must be 1 or more, got {group_size}")
    value = _bits_per_weight(bits, group_size, scale_bits, zero_bits)
    wrong = _overhead_wrongs(bits, group_size, scale_bits, zero_bits, 1.0)
    wrong.append(
        (
            "scale-bytes-as-bits",
            "You added the scale's bytes where its bits belong",
            f"A {scale_bits}-bit scale is {scale_bits} bits, not {scale_bits // 8 or 1}: the overhead is "
            "in bits per weight.",
            bits + (scale_bits + zero_bits) / 8 / group_size,
        )
    )
    return formula_result(
        calc,
        value,
        "",
        "Bits per weight",
        "bits + (scale bits + zero-point bits) / group size",
        f"{bits} + ({scale_bits} + {zero_bits}) / {group_size}",
        _apart(value, wrong),
        worked=worked,
    )


@register(
    "quantized_weight_bytes",
    summary="Bytes of a model's weights in a quantised format: parameters x bits per weight / 8.",
    unit="B",
    args=(Arg("n_params", "float", "parameters of the model"), *_FORMAT_ARGS),
    misconceptions=(
        "ignored-scales",
        "scale-per-weight",
        "forgot-zero-point",
        "bits-as-bytes",
        "stayed-bf16",
    ),
)
def quantized_weight_bytes(
    n_params: float,
    bits: int,
    group_size: int = 0,
    scale_bits: int = 16,
    zero_bits: int = 0,
    *,
    worked: bool = True,
) -> Derivation:
    """Every weight is stored in `bits` plus its share of the group scales; 8 bits make a byte."""
    calc = "quantized_weight_bytes"
    require_positive_numbers(calc, n_params=n_params)
    _check_format(calc, bits, group_size, scale_bits, zero_bits)
    bpw = _bits_per_weight(bits, group_size, scale_bits, zero_bits)
    value = n_params * bpw / 8
    before = (
        (
            Step(
                "Bits per weight",
                "bits + (scale + zero bits) / group",
                f"{bits} + ({scale_bits} + {zero_bits}) / {group_size}",
                bpw,
            ),
        )
        if group_size
        else ()
    )
    wrong = _overhead_wrongs(bits, group_size, scale_bits, zero_bits, n_params / 8)
    wrong += [
        (
            "bits-as-bytes",
            "You multiplied by the bits without dividing by 8",
            "A byte holds 8 bits: bytes = parameters x bits per weight / 8.",
            n_params * bpw,
        ),
        (
            "stayed-bf16",
            "You gave the bf16 size",
            "Quantised weights are stored at the low precision; bf16 is 2 bytes per weight.",
            n_params * 2,
        ),
    ]
    return formula_result(
        calc,
        value,
        "B",
        "Weight bytes",
        "parameters x bits per weight / 8",
        f"{num(n_params)} x {bpw:.6g} / 8",
        _apart(value, wrong),
        worked=worked,
        before=before,
    )


@register(
    "weight_only_speedup",
    summary="Ideal memory-bound decode speed-up of a weight format over bf16: 16 / bits per weight.",
    unit="x",
    args=(*_FORMAT_ARGS, Arg("base_bits", "int", "bits per weight of the baseline (bf16: 16)", 16, False)),
    misconceptions=("ignored-scales", "scale-per-weight", "forgot-zero-point", "inverted"),
)
def weight_only_speedup(
    bits: int,
    group_size: int = 0,
    scale_bits: int = 16,
    zero_bits: int = 0,
    base_bits: int = 16,
    *,
    worked: bool = True,
) -> Derivation:
    """At batch 1 a step is the time to read the weights, so the speed-up is the ratio of bytes read."""
    calc = "weight_only_speedup"
    _check_format(calc, bits, group_size, scale_bits, zero_bits)
    require_positive_numbers(calc, base_bits=base_bits)
    bpw = _bits_per_weight(bits, group_size, scale_bits, zero_bits)
    value = base_bits / bpw
    before = (
        (
            Step(
                "Bits per weight",
                "bits + (scale + zero bits) / group",
                f"{bits} + ({scale_bits} + {zero_bits}) / {group_size}",
                bpw,
            ),
        )
        if group_size
        else ()
    )
    wrong = [
        (i, label, why, base_bits / float(v))
        for i, label, why, v in _overhead_wrongs(bits, group_size, scale_bits, zero_bits, 1.0)
    ]
    wrong.append(
        (
            "inverted",
            "You divided the new bits by the old",
            "Fewer bytes per step is faster: old bits / new.",
            bpw / base_bits,
        )
    )
    return formula_result(
        calc,
        value,
        "x",
        "Speed-up at batch 1",
        "baseline bits / bits per weight",
        f"{base_bits} / {bpw:.6g}",
        _apart(value, wrong),
        worked=worked,
        before=before,
    )


@register(
    "quant_step_ms",
    summary="Lower bound on a decode step's weight matmuls: max(bytes / bandwidth, 2 N B / peak), in ms.",
    unit="ms",
    args=(
        Arg("n_params", "float", "parameters, each doing one multiply-add per sequence"),
        Arg("batch", "int", "sequences decoding together"),
        Arg("bandwidth_gb_s", "float", "memory bandwidth, GB/s"),
        Arg("tflops", "float", "dense TFLOPS of the tensor cores the matmul runs on (weight-only: bf16)"),
        Arg(
            "weight_bytes",
            "float",
            "bytes of weights read per step (an earlier step); 0: from bits",
            0.0,
            False,
        ),
        Arg("bits", "int", "bits per weight, when weight_bytes is not given", 0, False),
        *_FORMAT_ARGS[1:],
        Arg(
            "other_tflops", "float", "the other tensor-core rate, to recognise it used by mistake", 0.0, False
        ),
    ),
    misconceptions=(
        "memory-only",
        "compute-only",
        "added-bounds",
        "wrong-tensor-cores",
        "mac-as-one",
        "seconds-not-ms",
    ),
)
def quant_step_ms(
    n_params: float,
    batch: int,
    bandwidth_gb_s: float,
    tflops: float,
    weight_bytes: float = 0.0,
    bits: int = 0,
    group_size: int = 0,
    scale_bits: int = 16,
    zero_bits: int = 0,
    other_tflops: float = 0.0,
    *,
    worked: bool = True,
) -> Derivation:
    """A step cannot beat the time to read its weights nor the time to do its FLOPs: the larger binds."""
    calc = "quant_step_ms"
    sized: tuple[Step, ...] = ()
    if weight_bytes <= 0 and bits:
        _check_format(calc, bits, group_size, scale_bits, zero_bits)
        bpw = _bits_per_weight(bits, group_size, scale_bits, zero_bits)
        weight_bytes = n_params * bpw / 8
        sized = (
            Step(
                "Weight bytes",
                "N x bits per weight / 8",
                f"{num(n_params)} x {bpw:.6g} / 8",
                weight_bytes,
                "B",
            ),
        )
    require_positive_numbers(
        calc,
        weight_bytes=weight_bytes,
        n_params=n_params,
        batch=batch,
        bandwidth_gb_s=bandwidth_gb_s,
        tflops=tflops,
    )
    if other_tflops < 0:
        raise ValueError(f"{calc}: other_tflops must be 0 or more, got {other_tflops}")
    memory = weight_bytes / (bandwidth_gb_s * 1e9) * 1e3
    compute = 2 * n_params * batch / (tflops * 1e12) * 1e3
    value = max(memory, compute)
    if not worked:
        return Derivation(calc, value, "ms", ())
    bound = "memory" if memory >= compute else "compute"
    before = (
        *sized,
        Step(
            "Memory time",
            "weight bytes / bandwidth",
            f"{num(weight_bytes)} / ({num(bandwidth_gb_s)} x 1e9) x 1e3",
            memory,
            "ms",
        ),
        Step(
            "Compute time",
            "2 x N x batch / peak",
            f"2 x {num(n_params)} x {batch} / ({num(tflops)} x 1e12) x 1e3",
            compute,
            "ms",
        ),
    )
    wrong: list[Slip] = [
        (
            "memory-only",
            "You gave the memory time alone",
            "At this batch the FLOPs take longer than the read.",
            memory,
        ),
        (
            "compute-only",
            "You gave the compute time alone",
            "At this batch reading the weights takes longer.",
            compute,
        ),
        (
            "added-bounds",
            "You added the two times",
            "Reads and matmuls overlap: the step takes the longer of the two, not their sum.",
            memory + compute,
        ),
        (
            "mac-as-one",
            "You counted a multiply-add as one FLOP",
            "Each weight does a multiply and an add per sequence: 2 N FLOPs per token.",
            max(memory, compute / 2),
        ),
        ("seconds-not-ms", "You gave seconds, not milliseconds", "Multiply seconds by 1,000.", value / 1e3),
    ]
    if other_tflops:
        wrong.insert(
            0,
            (
                "wrong-tensor-cores",
                f"You used the {num(other_tflops)} TFLOPS rate",
                "INT4 weight-only dequantises to bf16 and runs on bf16 tensor cores; FP8 W8A8 runs on FP8 "
                "tensor cores at twice that rate. Use the rate of the maths the matmul actually does.",
                max(memory, 2 * n_params * batch / (other_tflops * 1e12) * 1e3),
            ),
        )
    return formula_result(
        calc,
        value,
        "ms",
        f"Step time ({bound}-bound)",
        "max(memory time, compute time)",
        f"max({memory:.6g}, {compute:.6g})",
        _apart(value, wrong),
        worked=worked,
        before=before,
    )


@register(
    "quant_crossover_batch",
    summary="Smallest batch whose weight matmuls are compute-bound: ceil(peak x bytes / (2 x bw)).",
    unit="",
    args=(
        Arg("tflops", "float", "dense TFLOPS of the tensor cores the matmul runs on"),
        Arg("bandwidth_gb_s", "float", "memory bandwidth, GB/s"),
        *_FORMAT_ARGS,
    ),
    misconceptions=("mac-as-one", "bits-as-bytes", "ridge-only"),
)
def quant_crossover_batch(
    tflops: float,
    bandwidth_gb_s: float,
    bits: int,
    group_size: int = 0,
    scale_bits: int = 16,
    zero_bits: int = 0,
    *,
    worked: bool = True,
) -> Derivation:
    """A weight read once serves 2 FLOPs per sequence: batch B gives 2B / bytes per weight FLOPs per byte."""
    calc = "quant_crossover_batch"
    require_positive_numbers(calc, tflops=tflops, bandwidth_gb_s=bandwidth_gb_s)
    _check_format(calc, bits, group_size, scale_bits, zero_bits)
    bits_per_weight = _bits_per_weight(bits, group_size, scale_bits, zero_bits)
    ridge = tflops * 1e12 / (bandwidth_gb_s * 1e9)
    bytes_per_weight = bits_per_weight / 8
    value = math.ceil(ridge * bytes_per_weight / 2 - 1e-9)
    wrong: list[Slip] = [
        (
            "mac-as-one",
            "You counted one FLOP per weight",
            "A multiply-add is 2 FLOPs per weight per sequence.",
            math.ceil(ridge * bytes_per_weight - 1e-9),
        ),
        (
            "bits-as-bytes",
            "You used bits where bytes belong",
            "Bytes per weight = bits / 8.",
            math.ceil(ridge * bits_per_weight / 2 - 1e-9),
        ),
        (
            "ridge-only",
            "You gave the ridge point itself",
            "The ridge is in FLOPs per byte; a batch of B gives 2B / bytes-per-weight FLOPs per byte.",
            math.ceil(ridge - 1e-9),
        ),
    ]
    sized = (
        (
            Step(
                "Bits per weight",
                "bits + (scale + zero bits) / group",
                f"{bits} + ({scale_bits} + {zero_bits}) / {group_size}",
                bits_per_weight,
            ),
        )
        if group_size
        else ()
    )
    before = (
        *sized,
        Step(
            "Ridge point",
            "peak / bandwidth",
            f"{num(tflops)} x 1e12 / ({num(bandwidth_gb_s)} x 1e9)",
            ridge,
            "",
        ),
    )
    return formula_result(
        calc,
        value,
        "",
        "Crossover batch",
        "ceil(ridge x bytes per weight / 2)",
        f"ceil({ridge:.6g} x {bytes_per_weight:.6g} / 2)",
        [w for w in wrong if w[3] != value],
        worked=worked,
        before=before,
    )


# ------------------------------------------------------------------------------------------ sampling


def _logits(calc: str, logits: Vector) -> Vector:
    z = np.asarray(logits, dtype=np.float64).reshape(-1)  # (V,)
    if z.size < 2:
        raise ValueError(f"{calc}: logits need at least 2 tokens, got {z.size}")
    return z


def _softmax(z: Vector, temperature: float) -> Vector:
    s = z / temperature  # (V,)
    e = np.exp(s - s.max())  # (V,): every exponent <= 0
    out: Vector = e / e.sum()
    return out


def _vec(v: Vector) -> str:
    return "[" + ", ".join(f"{x:.4g}" for x in v.tolist()) + "]"


def _check_temperature(calc: str, temperature: float) -> None:
    if not temperature > 0:
        raise ValueError(f"{calc}: temperature must be positive, got {temperature}")


@register(
    "temperature_probability",
    summary="Probability of one token after temperature: softmax(logits / T)[col].",
    unit="",
    args=(
        Arg("logits", "matrix", "the LM head's logits, one row (1, V)"),
        Arg("temperature", "float", "temperature T > 0"),
        Arg("col", "int", "the token asked about (0-based)"),
    ),
    misconceptions=("multiplied-by-t", "ignored-temperature", "forgot-normalise"),
)
def temperature_probability(
    logits: Vector, temperature: float, col: int, *, worked: bool = True
) -> Derivation:
    """Dividing logits by T < 1 sharpens the distribution toward the argmax; T > 1 flattens it."""
    calc = "temperature_probability"
    z = _logits(calc, logits)
    _check_temperature(calc, temperature)
    if not 0 <= col < z.size:
        raise ValueError(f"{calc}: col={col} is outside {z.size} logits")
    p = _softmax(z, temperature)  # (V,)
    value = float(p[col])
    if not worked:
        return Derivation(calc, value, "", ())
    s = z / temperature  # (V,)
    e = np.exp(s - s.max())  # (V,)
    steps = (
        Step(
            "Scaled logits",
            "z / T",
            f"{_vec(z)} / {temperature:g} = {_vec(s)}",
            float(s[col]),
            picks=f"s_{col}",
        ),
        Step("Exponentials", "exp(z / T - max)", _vec(e), float(e[col]), picks=f"e_{col}"),
        Step("Probability", f"exp_{col} / sum", f"{e[col]:.6g} / {e.sum():.6g}", value),
    )
    wrong: list[Slip] = [
        (
            "multiplied-by-t",
            "You multiplied the logits by T",
            "Temperature divides the logits.",
            float(_softmax(z, 1 / temperature)[col]),
        ),
        (
            "ignored-temperature",
            "You left the temperature out",
            "Divide the logits by T before the softmax.",
            float(_softmax(z, 1.0)[col]),
        ),
        (
            "forgot-normalise",
            "You did not divide by the sum",
            "Probabilities sum to 1: divide by the sum of the exponentials.",
            float(e[col]),
        ),
    ]
    return Derivation(calc, value, "", steps, _misconceptions(value, wrong, "Probability"))


def _misconceptions(value: float, wrong: list[Slip], step: str) -> tuple[Misconception, ...]:
    """The wrong turns clearly away from the answer, each pinned to the step where it goes astray."""
    found = [Misconception(i, lab, why, v, step) for i, lab, why, v in _apart(value, wrong)]
    return distinct(value, found)


def _kept_mass(p_sorted: Vector, keep: int) -> float:
    return float(p_sorted[:keep].sum())


@register(
    "top_k_probability",
    summary="Probability of the most likely token after top-k: p_max / sum of the k largest probabilities.",
    unit="",
    args=(
        Arg("logits", "matrix", "the LM head's logits, one row (1, V)"),
        Arg("k", "int", "tokens kept"),
        Arg("temperature", "float", "temperature applied first", 1.0, False),
    ),
    misconceptions=("not-renormalised", "kept-k-plus-one", "uniform-over-k"),
)
def top_k_probability(logits: Vector, k: int, temperature: float = 1.0, *, worked: bool = True) -> Derivation:
    """Top-k drops all but the k most likely tokens and renormalises the rest to sum to 1."""
    calc = "top_k_probability"
    z = _logits(calc, logits)
    _check_temperature(calc, temperature)
    if not 1 <= k <= z.size:
        raise ValueError(f"{calc}: k must be 1 to {z.size}, got {k}")
    ps = np.sort(_softmax(z, temperature))[::-1]  # (V,) largest first
    mass = _kept_mass(ps, k)
    value = float(ps[0] / mass)
    if not worked:
        return Derivation(calc, value, "", ())
    steps = (
        Step(
            "Probabilities, largest first",
            f"softmax(z / {temperature:g}), sorted",
            _vec(ps),
            float(ps[0]),
            picks="p_max",
        ),
        Step("Mass of the top k", f"sum of the {k} largest", " + ".join(f"{x:.6g}" for x in ps[:k]), mass),
        Step("Renormalised top probability", "p_max / kept mass", f"{ps[0]:.6g} / {mass:.6g}", value),
    )
    wrong: list[Slip] = [
        (
            "not-renormalised",
            "You kept the probability from before the cut",
            "The kept tokens are renormalised to sum to 1.",
            float(ps[0]),
        ),
        (
            "uniform-over-k",
            "You spread the mass evenly over the k tokens",
            "Top-k keeps the tokens' relative odds.",
            1 / k,
        ),
    ]
    if k < z.size:
        wrong.insert(
            1,
            (
                "kept-k-plus-one",
                "You kept one token too many",
                f"Exactly {k} tokens survive.",
                float(ps[0] / _kept_mass(ps, k + 1)),
            ),
        )
    return Derivation(calc, value, "", steps, _misconceptions(value, wrong, "Renormalised top probability"))


def _nucleus_size(ps: Vector, p: float) -> int:
    """Smallest count of the largest probabilities whose sum reaches p (Holtzman et al. 2019)."""
    cum = np.cumsum(ps)  # (V,)
    return int(np.searchsorted(cum, p - 1e-12) + 1)


@register(
    "top_p_probability",
    summary="Probability of the most likely token after top-p: p_max / mass of the smallest set reaching p.",
    unit="",
    args=(
        Arg("logits", "matrix", "the LM head's logits, one row (1, V)"),
        Arg("p", "float", "nucleus threshold, 0 < p <= 1"),
        Arg("temperature", "float", "temperature applied first", 1.0, False),
    ),
    misconceptions=("not-renormalised", "excluded-crossing-token", "divided-by-p", "unsorted-order"),
)
def top_p_probability(
    logits: Vector, p: float, temperature: float = 1.0, *, worked: bool = True
) -> Derivation:
    """The nucleus is the smallest set of most likely tokens whose mass reaches p, then renormalised."""
    calc = "top_p_probability"
    z = _logits(calc, logits)
    _check_temperature(calc, temperature)
    if not 0 < p <= 1:
        raise ValueError(f"{calc}: p must be in (0, 1], got {p}")
    probs = _softmax(z, temperature)  # (V,)
    ps = np.sort(probs)[::-1]  # (V,) largest first
    n = _nucleus_size(ps, p)
    mass = _kept_mass(ps, n)
    value = float(ps[0] / mass)
    if not worked:
        return Derivation(calc, value, "", ())
    cum = np.cumsum(ps)  # (V,)
    steps = (
        Step(
            "Probabilities, largest first",
            f"softmax(z / {temperature:g}), sorted",
            _vec(ps),
            float(ps[0]),
            picks="p_max",
        ),
        Step(
            "Running sums",
            f"cumulative, until >= {p:g}",
            _vec(cum[: min(n + 1, ps.size)]),
            n,
            picks="tokens kept",
        ),
        Step("Nucleus mass", f"sum of the {n} largest", " + ".join(f"{x:.6g}" for x in ps[:n]), mass),
        Step("Renormalised top probability", "p_max / nucleus mass", f"{ps[0]:.6g} / {mass:.6g}", value),
    )
    wrong: list[Slip] = [
        (
            "not-renormalised",
            "You kept the probability from before the cut",
            "The nucleus is renormalised to sum to 1.",
            float(ps[0]),
        ),
    ]
    if n > 1:
        wrong.append(
            (
                "excluded-crossing-token",
                "You stopped before the token that crosses p",
                f"The nucleus is the smallest set reaching {p:g}: the token that crosses it is kept.",
                float(ps[0] / _kept_mass(ps, n - 1)),
            )
        )
    wrong.append(
        (
            "divided-by-p",
            "You divided by p, not the nucleus mass",
            "Renormalise by the mass actually kept.",
            float(ps[0] / p),
        )
    )
    in_order = np.cumsum(probs)  # (V,) in vocabulary order
    m = int(np.searchsorted(in_order, p - 1e-12) + 1)
    top = int(np.argmax(probs))
    if top < m:
        wrong.append(
            (
                "unsorted-order",
                "You summed in vocabulary order",
                "Sort by probability first: the nucleus takes the most likely tokens.",
                float(probs[top] / in_order[m - 1]),
            )
        )
    return Derivation(calc, value, "", steps, _misconceptions(value, wrong, "Renormalised top probability"))


@register(
    "nucleus_size",
    summary="Tokens top-p keeps: the smallest count of the most likely tokens whose mass reaches p.",
    unit="",
    args=(
        Arg("logits", "matrix", "the LM head's logits, one row (1, V)"),
        Arg("p", "float", "nucleus threshold, 0 < p <= 1"),
        Arg("temperature", "float", "temperature applied first", 1.0, False),
    ),
    misconceptions=("excluded-crossing-token", "ignored-temperature", "unsorted-order"),
)
def nucleus_size(logits: Vector, p: float, temperature: float = 1.0, *, worked: bool = True) -> Derivation:
    """The nucleus widens as the temperature flattens the distribution: the count is what top-p adapts."""
    calc = "nucleus_size"
    z = _logits(calc, logits)
    _check_temperature(calc, temperature)
    if not 0 < p <= 1:
        raise ValueError(f"{calc}: p must be in (0, 1], got {p}")
    probs = _softmax(z, temperature)  # (V,)
    ps = np.sort(probs)[::-1]  # (V,) largest first
    value = _nucleus_size(ps, p)
    if not worked:
        return Derivation(calc, value, "", ())
    cum = np.cumsum(ps)  # (V,)
    steps = (
        Step(
            "Probabilities, largest first",
            f"softmax(z / {temperature:g}), sorted",
            _vec(ps),
            float(ps[0]),
            picks="p_max",
        ),
        Step(
            "Tokens kept",
            f"first running sum >= {p:g}",
            _vec(cum[: min(value + 1, ps.size)]),
            value,
        ),
    )
    wrong: list[Slip] = []
    if value > 1:
        wrong.append(
            (
                "excluded-crossing-token",
                "You stopped before the token that crosses p",
                f"The nucleus is the smallest set reaching {p:g}: the token that crosses it is kept.",
                value - 1,
            )
        )
    wrong.append(
        (
            "ignored-temperature",
            "You counted the nucleus at T = 1",
            "Top-p runs on the distribution after the temperature: apply T first, then sort and sum.",
            _nucleus_size(np.sort(_softmax(z, 1.0))[::-1], p),
        )
    )
    wrong.append(
        (
            "unsorted-order",
            "You summed in vocabulary order",
            "Sort by probability first: the nucleus takes the most likely tokens.",
            int(np.searchsorted(np.cumsum(probs), p - 1e-12) + 1),
        )
    )
    found = [Misconception(i, lab, why, v, "Tokens kept") for i, lab, why, v in wrong if v != value]
    return Derivation(calc, value, "", steps, distinct(value, found))


@register(
    "lm_head_flops",
    summary="FLOPs of the LM head per decode step: 2 x batch x vocab x d_model.",
    unit="FLOPs",
    args=(
        Arg("vocab", "int", "vocabulary size"),
        Arg("d_model", "int", "model width"),
        Arg("batch", "int", "sequences decoding together", 1, False),
    ),
    misconceptions=("mac-as-one", "forgot-batch", "squared-width"),
)
def lm_head_flops(vocab: int, d_model: int, batch: int = 1, *, worked: bool = True) -> Derivation:
    """The last hidden state times the (d_model, vocab) unembedding: one multiply-add per entry."""
    calc = "lm_head_flops"
    require_positive_numbers(calc, vocab=vocab, d_model=d_model, batch=batch)
    value = 2 * batch * vocab * d_model
    wrong: list[Slip] = [
        ("mac-as-one", "You counted a multiply-add as one FLOP", "Each multiply-add is 2 FLOPs.", value // 2),
        (
            "squared-width",
            "You used d_model x d_model",
            "The head maps d_model to the vocabulary.",
            2 * batch * d_model * d_model,
        ),
    ]
    if batch > 1:
        wrong.insert(
            1,
            (
                "forgot-batch",
                "You counted one sequence",
                "Every sequence gets its own logits.",
                value // batch,
            ),
        )
    return formula_result(
        calc,
        value,
        "FLOPs",
        "LM head FLOPs",
        "2 x batch x vocab x d_model",
        f"2 x {batch} x {num(vocab)} x {num(d_model)}",
        wrong,
        worked=worked,
    )


@register(
    "sort_to_head_ratio",
    summary="How many times the LM head's FLOPs exceed a full sort of the vocabulary: 2 V d / (V log2 V).",
    unit="x",
    args=(
        Arg("vocab", "int", "vocabulary size"),
        Arg("d_model", "int", "model width (unused when head_flops is given)", 0, False),
        Arg("batch", "int", "sequences decoding together, each sorting its own vocabulary", 1, False),
        Arg(
            "head_flops",
            "float",
            "the LM head's FLOPs at this batch (an earlier step); 0: 2 B V d",
            0.0,
            False,
        ),
    ),
    misconceptions=("mac-as-one", "quadratic-sort", "inverted", "forgot-batch"),
)
def sort_to_head_ratio(
    vocab: int, d_model: int = 0, batch: int = 1, head_flops: float = 0.0, *, worked: bool = True
) -> Derivation:
    """A comparison sort costs about V log2 V steps against 2 V d FLOPs: the ratio is 2d / log2 V, and
    a batch changes neither side's share because every sequence has its own head and its own sort."""
    calc = "sort_to_head_ratio"
    require_positive_numbers(calc, vocab=vocab - 1, batch=batch)
    log_v = math.log2(vocab)
    if head_flops > 0:
        return _head_over_sorts(calc, vocab, batch, head_flops, log_v, worked=worked)
    require_positive_numbers(calc, d_model=d_model)
    value = 2 * d_model / log_v
    before = (Step("log2 of the vocabulary", "log2 V", f"log2 {num(vocab)}", log_v),)
    wrong: list[Slip] = [
        ("mac-as-one", "You counted the head as V x d FLOPs", "A multiply-add is 2 FLOPs.", d_model / log_v),
        (
            "quadratic-sort",
            "You costed the sort as V^2",
            "A comparison sort is V log2 V, not V^2.",
            2 * d_model / vocab,
        ),
        (
            "inverted",
            "You divided the sort by the head",
            "The question asks how many times bigger the head is.",
            log_v / (2 * d_model),
        ),
    ]
    return formula_result(
        calc,
        value,
        "x",
        "Head / sort",
        "2 x d_model / log2 V",
        f"2 x {num(d_model)} / {log_v:.6g}",
        _apart(value, wrong),
        worked=worked,
        before=before,
    )


def _head_over_sorts(
    calc: str, vocab: int, batch: int, head_flops: float, log_v: float, *, worked: bool
) -> Derivation:
    """The head's FLOPs for the whole batch (as given) against one sort of the vocabulary per sequence."""
    sorts = batch * vocab * log_v
    value = head_flops / sorts
    before = (
        Step("log2 of the vocabulary", "log2 V", f"log2 {num(vocab)}", log_v),
        Step("Sort work", "batch x V x log2 V", f"{batch} x {num(vocab)} x {log_v:.6g}", sorts),
    )
    wrong: list[Slip] = [
        (
            "forgot-batch",
            "You compared the whole batch's head with a single sort",
            f"Each of the {batch} sequences sorts its own vocabulary: the sort work grows with the batch.",
            head_flops / (vocab * log_v),
        ),
        (
            "mac-as-one",
            "You halved the head's FLOPs",
            "The head's count already has 2 FLOPs per multiply-add; use it as it is.",
            value / 2,
        ),
        (
            "quadratic-sort",
            "You costed the sort as V^2",
            "A comparison sort is V log2 V, not V^2.",
            head_flops / (batch * float(vocab) ** 2),
        ),
        (
            "inverted",
            "You divided the sort by the head",
            "The question asks how many times bigger the head is.",
            sorts / head_flops,
        ),
    ]
    return formula_result(
        calc,
        value,
        "x",
        "Head / sort",
        "head FLOPs / sort work",
        f"{num(head_flops)} / {num(sorts)}",
        _apart(value, wrong),
        worked=worked,
        before=before,
    )
