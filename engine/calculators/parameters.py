"""Provides parameter counts for MHA, GQA and MQA layers, and the one-wide-head comparison.

As in nanoGPT's `get_num_params`, the count says what it includes: the four projection matrices
W_Q (d x h d_k), W_K and W_V (d x n_kv d_k each) and W_O (h d_v x d), plus one bias vector per
projection when the model has them. Layer norms, embeddings and the MLP are not attention parameters.
Checked against published totals: 4 x 512^2 = 1,048,576 (Transformer base), 2,362,368 per GPT-2 layer.
"""

from __future__ import annotations

from typing import Annotated, Literal

from engine.calculator import Param, register, result
from engine.calculators.common import DModel, NHeads, NLayers, ratio, require_divisible, require_positive
from engine.calculators.dimensions import split
from engine.derivation import Derivation, Misconception, Mistake, Step

Bias = Annotated[bool, Param("whether the projections have bias vectors")]


def count(
    d: int, kv_dim: int, *, bias: bool, output: bool, q_dim: int | None = None, o_bias: bool | None = None
) -> int:
    """W_Q (d x q_dim) + W_K and W_V (d x kv_dim each) + W_O (q_dim x d), plus one bias per projection
    that has one (`o_bias` defaults to `bias`; Qwen2 has biases on Q, K, V only)."""
    q = d if q_dim is None else q_dim
    with_o_bias = bias if o_bias is None else o_bias
    weights = d * q + 2 * d * kv_dim + (q * d if output else 0)
    biases = ((q + 2 * kv_dim) if bias else 0) + (d if output and with_o_bias else 0)
    return weights + biases


QKV_ONE_MATRIX = Mistake(
    "qkv-one-matrix",
    "You counted Q, K and V as one d_model x d_model matrix",
    "Queries, keys and values each have their own projection: that is 3 d_model^2 for MHA, not d_model^2.",
)
ONE_HEAD_ONLY = Mistake(
    "one-head-only",
    "You counted one head's Q, K and V only",
    "One head has 3 x d_model x d_k weights; the layer has h query heads of them plus W_O.",
)
DIVIDED_BY_H = Mistake(
    "divided-by-h",
    "You divided the layer by the number of heads",
    "The per-layer count already covers all heads; the heads split d_model, they do not share "
    "one head's worth of weights.",
)
FULL_WIDTH_HEADS = Mistake(
    "full-width-heads",
    "You gave every head full d_model x d_model matrices",
    "Heads split d_model: together the h heads are exactly as wide as one d_model-wide head.",
)
FORGOT_WO = Mistake(
    "forgot-wo",
    "You left out W_O",
    "The output projection is a (h d_v) x d_model matrix applied after the heads are merged.",
)
COUNTED_WO = Mistake(
    "counted-wo",
    "You counted W_O, which this layer does not have",
    "The question removes the output projection: only W_Q, W_K and W_V remain.",
)
ONE_BIAS_MISSING = Mistake(
    "one-bias-missing",
    "You left out one bias vector",
    "There is a bias on each of the four projections: b_Q, b_K, b_V and b_O. The output bias "
    "(d_model numbers) is the one most often forgotten.",
)
COUNTED_O_BIAS = Mistake(
    "counted-o-bias",
    "You gave W_O a bias this model does not have",
    "Here only the Q, K and V projections carry biases (as in Qwen2); o_proj has none.",
)
KV_BIAS_FULL_WIDTH = Mistake("kv-bias-full-width", "You made the K and V biases d_model wide")
BIASES_PER_HEAD = Mistake(
    "biases-per-head",
    "You counted the biases as 4 x d_k, one head's worth",
    "Each bias covers its projection's whole output (all heads): b_Q is h d_k long, b_K and b_V "
    "n_kv d_k, b_O d_model; 4 d_k is one head's slice of them.",
)
HEAD_DIM_FROM_D_MODEL = Mistake("head-dim-from-d-model", "You took the head width as d_model / h")
KV_USED_N_HEADS = Mistake(
    "kv-used-n-heads",
    "You gave K and V all h heads",
    "With grouped-query or multi-query attention W_K and W_V only produce n_kv heads, so each is "
    "d_model x (n_kv d_k), not d_model x (h d_k).",
)
FORGOT_LAYERS = Mistake(
    "forgot-layers",
    "You counted one layer",
    "Every layer has its own attention weights: multiply by the number of layers.",
)
FORGOT_BIASES = Mistake(
    "forgot-biases",
    "You left out the biases",
    "Each projection with a bias adds one vector as long as its output width.",
)
ADDED_BIASES = Mistake(
    "added-biases",
    "You added biases the layer does not have",
    "Each projection with a bias adds one vector as long as its output width.",
)


@register(
    summary="Parameters of one attention layer (MHA, GQA or MQA), times the number of layers.",
    unit="params",
    misconceptions=(
        FORGOT_WO,
        COUNTED_WO,
        FORGOT_BIASES,
        ADDED_BIASES,
        ONE_BIAS_MISSING,
        COUNTED_O_BIAS,
        KV_BIAS_FULL_WIDTH,
        BIASES_PER_HEAD,
        HEAD_DIM_FROM_D_MODEL,
        KV_USED_N_HEADS,
        QKV_ONE_MATRIX,
        ONE_HEAD_ONLY,
        DIVIDED_BY_H,
        FULL_WIDTH_HEADS,
        FORGOT_LAYERS,
    ),
)
def attention_parameters(
    d_model: DModel,
    n_heads: NHeads,
    n_kv_heads: Annotated[int | None, Param("number of key/value heads (default: h, plain MHA)")] = None,
    bias: Bias = False,
    output_projection: Annotated[bool, Param("whether W_O is counted")] = True,
    n_layers: NLayers = 1,
    d_head: Annotated[
        int | None,
        Param("head width when it is not d_model / h (Gemma 7B: 256 with d_model 3072 and 16 heads)"),
    ] = None,
    o_bias: Annotated[
        bool | None,
        Param("whether W_O has a bias (default: same as `bias`; Qwen2 has biases on Q, K, V only)"),
    ] = None,
    *,
    worked: bool = True,
) -> Derivation:
    """W_Q + W_K + W_V (+ W_O) (+ biases), per layer, times the layers."""
    d, h = d_model, n_heads
    g = h if n_kv_heads is None else n_kv_heads
    if d_head is None or d_head * h == d:
        d_k = split(d, h)
    else:
        require_positive(d_model=d, n_heads=h, d_head=d_head)
        d_k = d_head
    require_positive(n_kv_heads=g)
    require_divisible("n_heads", h, "n_kv_heads", g)
    q_dim, kv_dim, out = h * d_k, g * d_k, output_projection
    ob = bias if o_bias is None else o_bias
    has_o_bias = out and ob

    def wrong_count(
        kv: int, *, with_bias: bool = bias, with_out: bool = out, with_o_bias: bool = ob, q: int = q_dim
    ) -> int:
        return count(d, kv, bias=with_bias, output=with_out, q_dim=q, o_bias=with_o_bias) * n_layers

    per_layer = count(d, kv_dim, bias=bias, output=out, q_dim=q_dim, o_bias=ob)
    total = per_layer * n_layers
    if not worked:
        return result(total)

    q_label, kv_label, o_label = "Query weights W_Q", "Key and value weights W_K, W_V", "Output weights W_O"
    b_label, per_label, all_label = "Bias vectors", "Per layer", "All layers"
    head = (
        Step("Head width", "d_k = d_model / h", f"{d} / {h}", d_k)
        if d_k * h == d
        else Step("Head width (set by the config, not d_model / h)", "d_k = head_dim", f"{d_k}", d_k)
    )
    steps = [
        head,
        Step(q_label, "d_model x (h d_k)", f"{d} x ({h} x {d_k})", d * q_dim, "params"),
        Step(kv_label, "2 x d_model x (n_kv d_k)", f"2 x {d} x ({g} x {d_k})", 2 * d * kv_dim, "params"),
    ]
    if out:
        steps.append(Step(o_label, "(h d_v) x d_model", f"({h} x {d_k}) x {d}", q_dim * d, "params"))
    nb = (q_dim + 2 * kv_dim if bias else 0) + (d if has_o_bias else 0)
    if nb:
        terms = (["h d_k + 2 n_kv d_k"] if bias else []) + (["d_model"] if has_o_bias else [])
        numbers = ([f"{q_dim} + 2 x {kv_dim}"] if bias else []) + ([f"{d}"] if has_o_bias else [])
        steps.append(Step(b_label, " + ".join(terms), " + ".join(numbers), nb, "params"))
    parts = " + ".join(f"{s.value:,}" for s in steps[1:])
    steps.append(Step(per_label, "sum of the above", parts, per_layer, "params"))
    if n_layers > 1:
        steps.append(Step(all_label, "per layer x n_layers", f"{per_layer:,} x {n_layers}", total, "params"))

    wrong: list[Misconception] = []
    if out:
        wrong.append(FORGOT_WO.gives(wrong_count(kv_dim, with_out=False), o_label))
    else:
        wrong.append(COUNTED_WO.gives(wrong_count(kv_dim, with_out=True), per_label))
    any_bias = bias or has_o_bias
    wrong.append(
        (FORGOT_BIASES if any_bias else ADDED_BIASES).gives(
            wrong_count(kv_dim, with_bias=not any_bias, with_o_bias=not any_bias),
            b_label if any_bias else per_label,
        )
    )
    if bias and has_o_bias:
        wrong.append(ONE_BIAS_MISSING.gives(total - d * n_layers, b_label))
    if bias and out and not has_o_bias:
        wrong.append(COUNTED_O_BIAS.gives(total + d * n_layers, b_label))
    if bias and g != h:
        wrong.append(
            KV_BIAS_FULL_WIDTH.gives(
                (per_layer - 2 * kv_dim + 2 * q_dim) * n_layers,
                b_label,
                explanation="A bias is as long as its projection's output: under GQA or MQA b_K and b_V "
                f"have n_kv d_k = {kv_dim} entries each, not d_model = {d}.",
            )
        )
    if any_bias:
        wrong.append(
            BIASES_PER_HEAD.gives((per_layer - nb + (4 if has_o_bias else 3) * d_k) * n_layers, b_label)
        )
    if q_dim != d:
        wrong.append(
            HEAD_DIM_FROM_D_MODEL.gives(
                count(d, ratio_int(d, h) * g, bias=bias, output=out, q_dim=d, o_bias=ob) * n_layers,
                head.label,
                explanation=(
                    f"This model sets head_dim = {d_k} in its config, so h x d_k = {q_dim} is not "
                    f"d_model = {d}."
                ),
            )
        )
    if g != h:
        wrong.append(KV_USED_N_HEADS.gives(wrong_count(q_dim), kv_label))
    one_matrix = (
        d * q_dim + (q_dim * d if out else 0) + ((q_dim if bias else 0) + (d if has_o_bias else 0))
    ) * n_layers
    wrong.append(QKV_ONE_MATRIX.gives(one_matrix, kv_label))
    wrong.append(ONE_HEAD_ONLY.gives(3 * d * d_k * n_layers, q_label))
    wrong.append(DIVIDED_BY_H.gives(ratio(total, h), per_label))
    full = (
        3 * d * d * h + (d * d if out else 0) + ((3 * d * h if bias else 0) + (d if has_o_bias else 0))
    ) * n_layers
    wrong.append(FULL_WIDTH_HEADS.gives(full, q_label))
    if n_layers > 1:
        wrong.append(FORGOT_LAYERS.gives(per_layer, all_label))
    return result(total, tuple(steps), wrong)


def ratio_int(n: int, d: int) -> int:
    """n // d, for a what-if head width that need not divide evenly."""
    return max(1, n // d)


H_TIMES = Mistake(
    "h-times",
    "You thought h heads cost h times as much as one",
    "Each head has width d_model / h, so h heads have exactly the weights of one wide head.",
)
FULL_WIDTH_HEAD = Mistake(
    "full-width-head",
    "You gave the head the full d_model width",
    "One of h heads projects to d_k = d_model / h dimensions, not d_model.",
)


@register(
    summary="Parameters of h heads, of one head as wide as d_model, or of one head's Q, K, V.",
    unit="params",
    misconceptions=(H_TIMES, FORGOT_WO, FULL_WIDTH_HEAD, DIVIDED_BY_H),
)
def single_vs_multi_head_parameters(
    d_model: DModel,
    n_heads: NHeads,
    bias: Bias = False,
    which: Annotated[
        Literal["multi", "single", "per_head"],
        Param(
            "what to count: multi (h heads + W_O), single (one d_model-wide head + W_O) or per_head "
            "(one head's Q, K, V)"
        ),
    ] = "multi",
    *,
    worked: bool = True,
) -> Derivation:
    """Shows that h heads of width d/h cost exactly what one d-wide head costs: 4 d^2 (+ 4 d)."""
    d, h = d_model, n_heads
    d_k = split(d, h)
    per_head = 3 * d * d_k + (3 * d_k if bias else 0)
    w_o = d * d + (d if bias else 0)
    layer = h * per_head + w_o
    wide = 3 * d * d + (3 * d if bias else 0) + w_o
    value = {"multi": layer, "single": wide, "per_head": per_head}[which]
    if not worked:
        return result(value)
    b3, b1 = (" + 3 d_k", " + d_model") if bias else ("", "")
    per_label, o_label = "One head's Q, K, V", "Output projection W_O"
    multi_label, single_label = "h heads plus W_O", "One head of width d_model plus W_O"
    head = Step("Head width", "d_k = d_model / h", f"{d} / {h}", d_k)
    one = Step(
        per_label,
        "3 x d_model x d_k" + b3,
        f"3 x {d} x {d_k}" + (f" + 3 x {d_k}" if bias else ""),
        per_head,
        "params",
    )
    out = Step(o_label, "d_model x d_model" + b1, f"{d} x {d}" + (f" + {d}" if bias else ""), w_o, "params")
    multi = Step(multi_label, "h x (one head) + W_O", f"{h} x {per_head:,} + {w_o:,}", layer, "params")
    single = Step(
        single_label,
        "3 x d_model x d_model" + (" + 3 d_model" if bias else "") + " + W_O",
        f"3 x {d} x {d}" + (f" + 3 x {d}" if bias else "") + f" + {w_o:,}",
        wide,
        "params",
    )
    steps = {"per_head": (head, one), "multi": (head, one, out, multi), "single": (out, single)}[which]
    notes: tuple[str, ...] = ()
    if which != "per_head":
        qkv = 3 * d * d + (3 * d if bias else 0)
        notes = (
            f"h heads plus W_O and one d_model-wide head plus W_O both come to {layer:,}: the heads only "
            "slice the same three d_model x d_model matrices.",
            f"Read the other way: one wide head needs no W_O at all, because W_V followed by W_O is a "
            f"single d_model x d_model map, so a lone head can do with {qkv:,}; multi-head attention needs "
            "W_O to mix what the separate heads found.",
        )
    label = {"multi": multi_label, "single": single_label, "per_head": per_label}[which]
    wrong: list[Misconception] = []
    if which == "multi":
        wrong.append(H_TIMES.gives(wide * h, label))
    if which in ("multi", "single"):
        wrong.append(
            FORGOT_WO.gives(
                value - w_o,
                o_label,
                explanation="Both layouts end with the d_model x d_model output projection.",
            )
        )
    if which == "per_head":
        wrong.append(FULL_WIDTH_HEAD.gives(3 * d * d + (3 * d if bias else 0), label))
    if which in ("single", "per_head"):
        wrong.append(
            DIVIDED_BY_H.gives(
                ratio(layer, h),
                label,
                label="You divided the whole layer by h",
                explanation="The wide head is not 1/h of the multi-head layer (they are equal), and a "
                "single head's Q, K, V exclude W_O, which all heads share.",
            )
        )
    return result(value, steps, wrong, notes=notes)
