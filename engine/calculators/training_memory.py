"""Provides training-memory sizes: attention activations, whole-layer activations under recomputation,
the softmax Jacobian and its backward pass, and the bytes per parameter of weights, gradients and Adam.

Anchors: softmax backward needs only its output p, since d softmax / d s = diag(p) - p p^T; FlashAttention
keeps the output O and one logsumexp per row (B x h x T) instead of the T x T probabilities (Dao et al.
2022, arXiv:2205.14135, section 3.1); per-layer activations of s b h (34 + 5 a s / h) bytes with 16-bit
activations, 34 s b h with selective recomputation and 2 s b h with full recomputation (Korthikanti et
al. 2022, arXiv:2205.05198, section 4); mixed-precision Adam holds 2 + 2 + 12 = 16 bytes per parameter
(Rajbhandari et al. 2019, ZeRO, arXiv:1910.02054, section 3.1).
"""

from __future__ import annotations

from typing import Annotated, Literal

from engine.calculator import Param, register, result
from engine.calculators.common import Batch, CachedLen, NHeads, NLayers
from engine.derivation import Derivation, Misconception, Mistake, Step

SAVED = ("softmax", "scores_and_softmax", "logsumexp")


FORGOT_HEADS = Mistake("forgot-heads", "You left out the heads", "Every head keeps its own tensor.")
FORGOT_LAYERS = Mistake(
    "forgot-layers",
    "You left out the layers",
    "Every layer saves its own attention tensors until the backward pass reaches it.",
)
FORGOT_BATCH = Mistake(
    "forgot-batch", "You left out the batch", "Every sequence in the batch has its own tensors."
)
FORGOT_BYTES = Mistake(
    "forgot-bytes",
    "You counted numbers, not bytes",
    "Multiply the number of saved values by the bytes per value.",
)
QUADRATIC_LSE = Mistake(
    "quadratic-lse",
    "You kept a T x T matrix per head",
    "FlashAttention saves one logsumexp per query row, B x h x T numbers, and recomputes the "
    "T x T probabilities block by block in the backward pass.",
)
LINEAR_IN_T = Mistake(
    "linear-in-t",
    "You used T instead of T^2",
    "Each head keeps one weight per (query, key) pair: T x T numbers, not T.",
)
ONE_MATRIX = Mistake(
    "one-matrix",
    "You counted only the softmax output",
    "Without a fused kernel, autograd also keeps the scaled scores S, a second T x T tensor.",
)


@register(
    summary="Attention tensors saved for the backward pass: P (B h T^2), S and P if unfused (2 B h T^2), "
    "or FlashAttention's logsumexp (B h T), per layer times layers.",
    unit="B",
    misconceptions=(
        LINEAR_IN_T,
        QUADRATIC_LSE,
        ONE_MATRIX,
        FORGOT_HEADS,
        FORGOT_LAYERS,
        FORGOT_BATCH,
        FORGOT_BYTES,
    ),
)
def attention_activation_bytes(
    batch: Batch,
    n_heads: NHeads,
    seq_len: CachedLen,
    bytes_per_element: Annotated[int, Param("bytes per saved number", gt=0)],
    n_layers: NLayers = 1,
    saved: Annotated[
        Literal["softmax", "scores_and_softmax", "logsumexp"],
        Param("softmax (P only), scores_and_softmax (S and P, unfused) or logsumexp (FlashAttention)"),
    ] = "softmax",
    *,
    worked: bool = True,
) -> Derivation:
    """The T x T probabilities dominate at long context; FlashAttention keeps one number per row instead."""
    if saved not in SAVED:
        raise ValueError(f"saved={saved!r} must be one of {', '.join(SAVED)}")
    b, h, t, nb, n_l = batch, n_heads, seq_len, bytes_per_element, n_layers
    per_row = 1 if saved == "logsumexp" else t
    n_mats = 2 if saved == "scores_and_softmax" else 1
    one = b * h * t * per_row * nb
    layer = n_mats * one
    value = layer * n_l
    if not worked:
        return result(value)
    if saved == "logsumexp":
        one_label = "Logsumexp per layer"
        steps = [Step(one_label, "B x h x T x bytes", f"{b} x {h} x {t:,} x {nb}", one, "B")]
    else:
        one_label = "P per layer"
        steps = [Step(one_label, "B x h x T x T x bytes", f"{b} x {h} x {t:,} x {t:,} x {nb}", one, "B")]
    pair_label = "S and P per layer"
    if n_mats == 2:
        steps.append(Step(pair_label, "2 x (B h T^2 bytes)", f"2 x {one:,}", layer, "B"))
    layers_label = "All layers"
    steps.append(Step(layers_label, "per layer x n_layers", f"{layer:,} x {n_l}", value, "B"))
    wrong: list[Misconception] = []
    if saved == "logsumexp":
        wrong.append(QUADRATIC_LSE.gives(value * t, one_label))
    else:
        wrong.append(LINEAR_IN_T.gives(value // t, one_label))
    if n_mats == 2:
        wrong.append(ONE_MATRIX.gives(value // 2, pair_label))
    wrong += [
        FORGOT_HEADS.gives(value // h, one_label),
        FORGOT_LAYERS.gives(layer, layers_label),
        FORGOT_BATCH.gives(value // b, one_label),
        FORGOT_BYTES.gives(value // nb, one_label),
    ]
    return result(value, tuple(steps), wrong)


RECOMPUTE = ("none", "selective", "full")


CORE_DROPPED_WITHOUT_RECOMPUTE = Mistake(
    "core-dropped-without-recompute",
    "You dropped the attention core, but nothing is recomputed here",
    "Only selective recomputation frees the 5 a s^2 b bytes of softmax output, dropout mask and "
    "dropout output; without recomputation backward needs them kept.",
)
IGNORED_RECOMPUTE = Mistake("ignored-recompute", "You counted every activation, as with no recomputation")
FULL_FOR_SELECTIVE = Mistake(
    "full-for-selective",
    "You kept only each layer's input, as full recomputation does",
    "Selective recomputation rebuilds only the attention core; the 34 s b h bytes of the "
    "linear parts (QKV, projections, MLP, norms) stay in memory.",
)
SELECTIVE_FOR_FULL = Mistake(
    "selective-for-full",
    "You dropped only the attention core, as selective recomputation does",
    "Full recomputation reruns the whole layer in backward, so it keeps only the layer's "
    "2 s b h-byte input, not the 34 s b h of the linear parts.",
)


@register(
    summary="Activations a transformer keeps for backward, Korthikanti et al. 2022 with 16-bit activations: "
    "s b h (34 + 5 a s / h) per layer, 34 s b h with selective recomputation, 2 s b h with full.",
    unit="B",
    misconceptions=(
        FORGOT_HEADS,
        LINEAR_IN_T,
        FORGOT_LAYERS,
        IGNORED_RECOMPUTE,
        CORE_DROPPED_WITHOUT_RECOMPUTE,
        FULL_FOR_SELECTIVE,
        SELECTIVE_FOR_FULL,
    ),
)
def layer_activation_bytes(
    batch: Annotated[int, Param("micro-batch size b", gt=0)],
    seq_len: Annotated[int, Param("sequence length s", gt=0)],
    d_model: Annotated[int, Param("hidden size h", gt=0)],
    n_heads: Annotated[int, Param("attention heads a", gt=0)],
    n_layers: Annotated[int, Param("number of layers L", gt=0)] = 1,
    recompute: Annotated[
        Literal["none", "selective", "full"],
        Param("none, selective (recompute the attention core) or full (keep only each layer's input)"),
    ] = "none",
    *,
    worked: bool = True,
) -> Derivation:
    """34 s b h for the linear parts (bytes with 16-bit values), 5 a s^2 b for the attention core."""
    if recompute not in RECOMPUTE:
        raise ValueError(f"recompute={recompute!r} must be one of {', '.join(RECOMPUTE)}")
    s, b, h, a, n_l = seq_len, batch, d_model, n_heads, n_layers
    linear = 34 * s * b * h
    core = 5 * a * s * s * b
    full_layer = 2 * s * b * h
    layer = {"none": linear + core, "selective": linear, "full": full_layer}[recompute]
    value = layer * n_l
    if not worked:
        return result(value)
    lin_label, core_label, layer_label, all_label = (
        "Linear parts, per layer",
        "Attention core (h T^2 B terms), per layer",
        "Kept per layer",
        "All layers",
    )
    steps = [
        Step(lin_label, "34 x T x B x d", f"34 x {s:,} x {b} x {h:,}", linear, "B"),
        Step(core_label, "5 x h x T^2 x B", f"5 x {a} x {s:,}^2 x {b}", core, "B"),
    ]
    if recompute == "none":
        steps.append(Step(layer_label, "34 T B d + 5 h T^2 B", f"{linear:,} + {core:,}", layer, "B"))
    elif recompute == "selective":
        steps.append(Step(layer_label, "34 T B d (core recomputed)", f"{linear:,}", layer, "B"))
    else:
        steps.append(
            Step(layer_label, "2 x T x B x d (layer input only)", f"2 x {s:,} x {b} x {h:,}", layer, "B")
        )
    steps.append(Step(all_label, "per layer x n_layers", f"{layer:,} x {n_l}", value, "B"))
    wrong: list[Misconception] = []
    if recompute == "none":
        wrong += [
            FORGOT_HEADS.gives(
                (linear + core // a) * n_l,
                core_label,
                label="You left out the heads in the attention core",
                explanation="Every head keeps its own s x s softmax output, dropout mask and dropped-out "
                "weights: 5 a s^2 b bytes.",
            ),
            LINEAR_IN_T.gives(
                (linear + core // s) * n_l,
                core_label,
                label="You used s instead of s^2 in the attention core",
                explanation="The softmax output and its dropout are s x s per head.",
            ),
            CORE_DROPPED_WITHOUT_RECOMPUTE.gives(linear * n_l, layer_label),
        ]
    else:
        wrong.append(
            IGNORED_RECOMPUTE.gives(
                (linear + core) * n_l,
                layer_label,
                explanation=(
                    "Recomputed tensors are dropped after the forward pass and rebuilt during backward; "
                )
                + (
                    "selective recomputation drops the 5 a s^2 b attention core."
                    if recompute == "selective"
                    else "full recomputation keeps only the 2 s b h bytes of each layer's input."
                ),
            )
        )
        if recompute == "selective":
            wrong.append(FULL_FOR_SELECTIVE.gives(full_layer * n_l, layer_label))
        else:
            wrong.append(SELECTIVE_FOR_FULL.gives(linear * n_l, layer_label))
    wrong.append(
        FORGOT_LAYERS.gives(
            layer,
            all_label,
            explanation="Every layer keeps its own activations until the backward pass reaches it.",
        )
    )
    return result(value, tuple(steps), wrong)


RECIPES: dict[str, tuple[int, int, int, str]] = {
    "mixed-adam": (2, 2, 12, "fp32 master weights + Adam m + Adam v, 4 bytes each"),
    "fp32-adam": (4, 4, 8, "Adam m + Adam v, 4 bytes each"),
    "mixed-sgd-momentum": (2, 2, 8, "fp32 master weights + momentum, 4 bytes each"),
}


FORGOT_OPTIMIZER = Mistake("forgot-optimizer", "You counted weights and gradients only")
WEIGHTS_ONLY = Mistake(
    "weights-only",
    "You counted only the weights",
    "Training also keeps a gradient per parameter and the optimizer states.",
)
FORGOT_MASTER_COPY = Mistake(
    "forgot-master-copy",
    "You left out the fp32 master weights",
    "Mixed-precision training updates an fp32 copy of the weights (4 bytes per parameter); the "
    "16-bit weights are only a cast of it.",
)
ONE_ADAM_MOMENT = Mistake(
    "one-adam-moment",
    "You kept only one Adam moment",
    "Adam stores both the first moment m and the second moment v, 4 bytes each in fp32.",
)
FP32_WEIGHTS_TOO = Mistake(
    "fp32-weights-too",
    "You counted the weights and gradients in fp32",
    "In mixed precision the working weights and gradients are 16-bit (2 bytes); only the master "
    "copy and the optimizer states are fp32.",
)


@register(
    summary="Weights + gradients + optimizer states per model: 2 + 2 + 12 = 16 bytes per parameter for "
    "mixed-precision Adam (ZeRO, Rajbhandari et al. 2019).",
    unit="B",
    misconceptions=(
        FORGOT_MASTER_COPY,
        ONE_ADAM_MOMENT,
        FORGOT_OPTIMIZER,
        WEIGHTS_ONLY,
        FP32_WEIGHTS_TOO,
    ),
)
def model_state_bytes(
    n_params: Annotated[int, Param("number of parameters", gt=0)],
    recipe: Annotated[
        Literal["mixed-adam", "fp32-adam", "mixed-sgd-momentum"],
        Param("mixed-adam (fp16/bf16 weights and grads, fp32 master + m + v), fp32-adam, mixed-sgd-momentum"),
    ] = "mixed-adam",
    *,
    worked: bool = True,
) -> Derivation:
    """Optimizer states, not weights, dominate: 12 of the 16 bytes per parameter with mixed-precision Adam."""
    if recipe not in RECIPES:
        raise ValueError(f"recipe={recipe!r} must be one of {', '.join(RECIPES)}")
    w, g, k, what = RECIPES[recipe]
    per = w + g + k
    value = per * n_params
    if not worked:
        return result(value)
    per_label, all_label = "Bytes per parameter", "All parameters"
    steps = [
        Step(per_label, f"weights + grads + optimizer ({what})", f"{w} + {g} + {k}", per, "B"),
        Step(all_label, "bytes per parameter x n_params", f"{per} x {n_params:,}", value, "B"),
    ]
    mixed = recipe.startswith("mixed")
    wrong: list[Misconception] = []
    if mixed:
        wrong.append(FORGOT_MASTER_COPY.gives((per - 4) * n_params, per_label))
    if "adam" in recipe:
        wrong.append(ONE_ADAM_MOMENT.gives((per - 4) * n_params, per_label))
    wrong += [
        FORGOT_OPTIMIZER.gives(
            (w + g) * n_params,
            per_label,
            explanation="The optimizer states are the largest part: " + what + ".",
        ),
        WEIGHTS_ONLY.gives(w * n_params, per_label),
    ]
    if mixed:
        wrong.append(FP32_WEIGHTS_TOO.gives((4 + 4 + k) * n_params, per_label))
    return result(value, tuple(steps), wrong)
