"""Provides the long-context calculators beyond one sliding window: local-global layer interleaving
(Gemma 2/3), ring attention's overlap condition, NTK-aware and Llama 3.1 RoPE scaling, and the
Differential Transformer's lambda schedule.
"""

from __future__ import annotations

import math
from typing import Annotated

from engine.calculator import Param, register, result
from engine.calculators.common import Batch, BytesPerElement, DHead, NKvHeads, NLayers, OriginalContext
from engine.derivation import Derivation, Mistake, Step

# --------------------------------------------------------------------------- local-global interleaving


RotaryDims = Annotated[int, Param("rotary dimensions d", gt=0)]


ALL_GLOBAL = Mistake(
    "all-global",
    "You cached every token in every layer",
    "Local layers never look further back than the window, so they keep at most window tokens.",
)
ALL_LOCAL = Mistake(
    "all-local",
    "You capped every layer at the window",
    "The global layers attend to the whole sequence and must cache all of it.",
)
RATIO_INVERTED = Mistake("ratio-inverted", "You swapped the counts of local and global layers")
NO_X2_KV = Mistake("no-x2-kv", "You cached keys only", "Every layer caches a key and a value per KV head.")


@register(
    summary="KV cache of a model whose layers alternate local (sliding-window) and global attention: "
    "global layers cache every token, local ones at most the window.",
    unit="B",
    misconceptions=(ALL_GLOBAL, ALL_LOCAL, RATIO_INVERTED, NO_X2_KV),
)
def local_global_kv_bytes(
    n_layers: NLayers,
    local_per_global: Annotated[int, Param("local layers per global layer (Gemma 2: 1, Gemma 3: 5)", gt=0)],
    window: Annotated[int, Param("sliding window of the local layers", gt=0)],
    seq_len: Annotated[int, Param("tokens per sequence", gt=0)],
    n_kv_heads: NKvHeads,
    d_head: DHead,
    bytes_per_element: BytesPerElement,
    batch: Batch = 1,
    *,
    worked: bool = True,
) -> Derivation:
    """One global layer closes each group of local_per_global + 1 layers; the rest are local."""
    n_global = n_layers // (local_per_global + 1)
    n_local = n_layers - n_global
    per_tok = 2 * n_kv_heads * d_head * bytes_per_element * batch  # bytes per token per layer
    kept = min(seq_len, window)
    value = per_tok * (n_global * seq_len + n_local * kept)
    if not worked:
        return result(value)
    g_label, l_label, p_label, t_label = "Global layers", "Local layers", "Bytes per token per layer", "Cache"
    steps = [
        Step(
            g_label, "n_layers // (local_per_global + 1)", f"{n_layers} // ({local_per_global} + 1)", n_global
        ),
        Step(l_label, "n_layers - global", f"{n_layers} - {n_global}", n_local),
        Step(
            p_label,
            "2 x n_kv x d_head x bytes x batch",
            f"2 x {n_kv_heads} x {d_head} x {bytes_per_element} x {batch}",
            per_tok,
            "B",
        ),
        Step(
            t_label,
            "per token x (global x seq_len + local x min(seq_len, window))",
            f"{per_tok:,} x ({n_global} x {seq_len:,} + {n_local} x {kept:,})",
            value,
            "B",
        ),
    ]
    inv_global = n_layers - n_layers // (local_per_global + 1) if local_per_global > 1 else n_global
    wrong = [
        ALL_GLOBAL.gives(per_tok * n_layers * seq_len, t_label),
        ALL_LOCAL.gives(per_tok * n_layers * kept, t_label),
        RATIO_INVERTED.gives(
            per_tok * (inv_global * seq_len + (n_layers - inv_global) * kept),
            g_label,
            explanation=f"{local_per_global}:1 means {local_per_global} local layers for each global one.",
        ),
        NO_X2_KV.gives(value // 2, p_label),
    ]
    return result(value, tuple(steps), wrong)


# --------------------------------------------------------------------------- ring attention


ONLY_K_SENT = Mistake(
    "only-k-sent",
    "You sent only the keys",
    "Each step passes a K block and a V block to the next device: 2 c d_kv b bytes.",
)
MAC_AS_ONE = Mistake(
    "mac-as-one",
    "You counted a multiply-add as one FLOP",
    "Q K^T and A V are 2 c^2 d FLOPs each, 4 c^2 d per block pair.",
)
GB_FOR_TB = Mistake(
    "gb-for-tb",
    "You mixed GB/s and TB/s",
    "The link is quoted in GB/s (10^9), the compute in TFLOP/s (10^12).",
)


@register(
    summary="Smallest per-device chunk c for which ring attention hides the K/V transfer behind compute: "
    "4 c^2 d / F >= 2 c d_kv b / B, so c >= F d_kv b / (2 d B).",
    unit="",
    misconceptions=(ONLY_K_SENT, MAC_AS_ONE, GB_FOR_TB),
)
def ring_min_chunk(
    d_model: Annotated[int, Param("query width d (all heads)", gt=0)],
    d_kv: Annotated[int, Param("width of K (and of V) per token: n_kv_heads x d_head", gt=0)],
    bytes_per_element: Annotated[int, Param("bytes per K/V number", gt=0)],
    peak_tflops: Annotated[float, Param("dense throughput F in TFLOP/s")],
    link_gb_s: Annotated[float, Param("bandwidth B of the link to the next device, in GB/s")],
    *,
    worked: bool = True,
) -> Derivation:
    """Each step multiplies a c x c block (Q K^T and A V: 4 c^2 d FLOPs) while the next K/V block moves."""
    if peak_tflops <= 0 or link_gb_s <= 0:
        raise ValueError(f"peak_tflops={peak_tflops} and link_gb_s={link_gb_s} must be positive")
    f, b = peak_tflops * 1e12, link_gb_s * 1e9
    value = math.ceil(f * d_kv * bytes_per_element / (2 * d_model * b))
    if not worked:
        return result(value)
    r_label, c_label = "FLOPs per byte the link must feed", "Smallest chunk (tokens)"
    per_byte = f / b
    steps = [
        Step(r_label, "F / B", f"{peak_tflops:g}e12 / {link_gb_s:g}e9", per_byte),
        Step(
            c_label,
            "ceil(F / B x d_kv x b / (2 d))",
            f"ceil({per_byte:.4g} x {d_kv} x {bytes_per_element} / (2 x {d_model}))",
            value,
        ),
    ]
    exact = f * d_kv * bytes_per_element / (2 * d_model * b)
    wrong = [
        ONLY_K_SENT.gives(math.ceil(exact / 2), c_label),
        MAC_AS_ONE.gives(math.ceil(exact * 2), c_label),
        GB_FOR_TB.gives(math.ceil(exact / 1000), r_label),
    ]
    return result(value, tuple(steps), wrong)


# --------------------------------------------------------------------------- RoPE scaling


BASE_TIMES_S = Mistake(
    "base-times-s",
    "You multiplied the base by s",
    "The slowest pair's frequency is base^(-(d-2)/d): to divide it by s the base grows by "
    "s^(d/(d-2)), slightly more than s.",
)
EXPONENT_INVERTED = Mistake(
    "exponent-inverted",
    "You raised s to (d - 2) / d",
    "Solve base'^((d-2)/d) = s base^((d-2)/d): the exponent on s is d / (d - 2).",
)


@register(
    summary="NTK-aware RoPE scaling: base' = base x s^(d / (d - 2)), so the lowest frequency is "
    "interpolated by s while the highest is left alone.",
    unit="",
    misconceptions=(BASE_TIMES_S, EXPONENT_INVERTED),
)
def ntk_scaled_base(
    base: Annotated[float, Param("RoPE base (theta)")],
    scale: Annotated[float, Param("context extension factor s")],
    d_head: RotaryDims,
    *,
    worked: bool = True,
) -> Derivation:
    """The slowest pair's angle m base^(-(d-2)/d) must shrink by s: solve for the new base."""
    if d_head < 4 or d_head % 2:
        raise ValueError(f"d_head={d_head} must be even and at least 4")
    if not (1 < base <= 1e9 and 1 < scale <= 1e4) or d_head > 4096:
        raise ValueError(
            f"base={base} must lie in (1, 1e9], scale={scale} in (1, 1e4] and d_head={d_head} <= 4096"
        )
    exponent = d_head / (d_head - 2)
    value = base * scale**exponent
    if not worked:
        return result(value)
    e_label, b_label = "Exponent", "New base"
    steps = [
        Step(e_label, "d / (d - 2)", f"{d_head} / ({d_head} - 2)", exponent),
        Step(b_label, "base x s^(d / (d - 2))", f"{base:g} x {scale:g}^{exponent:.4g}", value),
    ]
    wrong = [
        BASE_TIMES_S.gives(base * scale, b_label),
        EXPONENT_INVERTED.gives(base * scale ** ((d_head - 2) / d_head), e_label),
    ]
    return result(value, tuple(steps), wrong)


ALL_SCALED = Mistake(
    "all-scaled",
    "You divided every frequency by the factor",
    "That is plain position interpolation. Llama 3.1 leaves wavelengths shorter than orig / "
    "high_freq_factor untouched and blends between the two band edges.",
)
NONE_SCALED = Mistake(
    "none-scaled",
    "You left the frequency unscaled",
    "Wavelengths longer than orig / low_freq_factor are divided by the full factor, and those in "
    "between by a blend.",
)
BLEND_INVERTED = Mistake(
    "blend-inverted",
    "You swapped the blend weights",
    "w weighs the unscaled frequency: w = 1 at the short edge, 0 at the long edge.",
)


@register(
    summary="Llama 3.1 RoPE scaling: the factor a pair's frequency is divided by (1 for wavelengths below "
    "orig / high_freq_factor, `factor` above orig / low_freq_factor, a smooth blend between).",
    unit="",
    misconceptions=(ALL_SCALED, NONE_SCALED, BLEND_INVERTED),
)
def llama31_rope_factor(
    pair: Annotated[int, Param("rotary pair index i (0-based)")],
    d_head: RotaryDims,
    base: Annotated[float, Param("rope_theta")] = 500000.0,
    factor: Annotated[float, Param("scale factor for the low frequencies")] = 8.0,
    low_freq_factor: Annotated[float, Param("low_freq_factor")] = 1.0,
    high_freq_factor: Annotated[float, Param("high_freq_factor")] = 4.0,
    original_context: OriginalContext = 8192,
    *,
    worked: bool = True,
) -> Derivation:
    """Short wavelengths (local detail) are kept; long ones are interpolated by `factor`."""
    if not 0 <= pair < d_head // 2:
        raise ValueError(f"pair={pair} must be between 0 and d_head / 2 - 1 = {d_head // 2 - 1}")
    if not (factor > 1 and 0 < low_freq_factor < high_freq_factor):
        raise ValueError("need factor > 1 and 0 < low_freq_factor < high_freq_factor")
    freq = base ** (-2 * pair / d_head)
    wavelen = 2 * math.pi / freq
    high_wl = original_context / high_freq_factor
    low_wl = original_context / low_freq_factor
    if wavelen < high_wl:
        value, smooth = 1.0, None
    elif wavelen > low_wl:
        value, smooth = float(factor), None
    else:
        smooth = (original_context / wavelen - low_freq_factor) / (high_freq_factor - low_freq_factor)
        value = 1 / ((1 - smooth) / factor + smooth)
    if not worked:
        return result(value)
    w_label, f_label = "Wavelength (tokens)", "Frequency divided by"
    steps = [
        Step(w_label, "2 pi base^(2i / d)", f"2 pi x {base:g}^(2 x {pair} / {d_head})", wavelen),
        Step(
            "Short band edge",
            "orig / high_freq_factor",
            f"{original_context} / {high_freq_factor:g}",
            high_wl,
        ),
        Step("Long band edge", "orig / low_freq_factor", f"{original_context} / {low_freq_factor:g}", low_wl),
    ]
    if smooth is not None:
        steps.append(
            Step(
                "Blend weight",
                "(orig / wavelength - low) / (high - low)",
                f"({original_context} / {wavelen:.4g} - {low_freq_factor:g}) / "
                f"({high_freq_factor:g} - {low_freq_factor:g})",
                smooth,
            )
        )
        steps.append(
            Step(
                f_label,
                "1 / ((1 - w) / factor + w)",
                f"1 / ((1 - {smooth:.4g}) / {factor:g} + {smooth:.4g})",
                value,
            )
        )
    else:
        steps.append(
            Step(
                f_label,
                "1 below orig / high, factor above orig / low",
                "1" if value == 1.0 else f"{factor:g}",
                value,
            )
        )
    wrong = [
        ALL_SCALED.gives(float(factor), f_label),
        NONE_SCALED.gives(1.0, f_label),
    ]
    if smooth is not None:
        wrong.append(BLEND_INVERTED.gives(1 / (smooth / factor + (1 - smooth)), f_label))
    return result(value, tuple(steps), wrong)


# --------------------------------------------------------------------------- Differential Transformer


ZERO_BASED_LAYER = Mistake(
    "zero-based-layer",
    "You counted layers from 0",
    "The schedule uses l starting at 1, so the first layer gets 0.8 - 0.6 = 0.2.",
)
POSITIVE_EXPONENT = Mistake(
    "positive-exponent",
    "You dropped the minus sign in the exponent",
    "exp(-0.3 (l - 1)) decays with depth, so lambda_init rises towards 0.8.",
)


@register(
    summary="Differential Transformer: lambda_init = 0.8 - 0.6 exp(-0.3 (l - 1)) for layer l (1-based).",
    unit="",
    misconceptions=(ZERO_BASED_LAYER, POSITIVE_EXPONENT),
)
def diff_attention_lambda_init(
    layer: Annotated[int, Param("layer index l, counted from 1", gt=0)],
    *,
    worked: bool = True,
) -> Derivation:
    """Deeper layers start by subtracting more of the second softmax map."""
    if layer > 1000:
        raise ValueError(f"layer={layer} is past any real model's depth (at most 1000)")
    value = 0.8 - 0.6 * math.exp(-0.3 * (layer - 1))
    if not worked:
        return result(value)
    label = "lambda_init"
    steps = [Step(label, "0.8 - 0.6 exp(-0.3 (l - 1))", f"0.8 - 0.6 x exp(-0.3 x ({layer} - 1))", value)]
    wrong = [
        ZERO_BASED_LAYER.gives(0.8 - 0.6 * math.exp(-0.3 * layer), label),
        POSITIVE_EXPONENT.gives(0.8 - 0.6 * math.exp(0.3 * (layer - 1)), label),
    ]
    return result(value, tuple(steps), wrong)
