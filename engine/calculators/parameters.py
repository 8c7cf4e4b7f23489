"""Provides parameter counts for MHA, GQA and MQA layers, and the one-wide-head comparison."""

from __future__ import annotations

from engine.calculator import Arg, register
from engine.calculators.common import distinct, require_divisible, require_positive
from engine.calculators.dimensions import split
from engine.derivation import Derivation, Misconception, Step

_D = Arg("d_model", "int", "model width d_model")
_H = Arg("n_heads", "int", "number of query heads h")
_BIAS = Arg("bias", "bool", "whether the projections have bias vectors", default=False, required=False)


def _count(d: int, kv_dim: int, *, bias: bool, output: bool) -> int:
    """W_Q (d x d) + W_K and W_V (d x kv_dim each) + W_O (d x d), plus their biases."""
    weights = d * d + 2 * d * kv_dim + (d * d if output else 0)
    biases = (d + 2 * kv_dim + (d if output else 0)) if bias else 0
    return weights + biases


@register(
    "attention_parameters",
    summary="Parameters of one attention layer (MHA, GQA or MQA), times the number of layers.",
    unit="params",
    args=(
        _D,
        _H,
        Arg("n_kv_heads", "int", "number of key/value heads (default: h, plain MHA)", required=False),
        _BIAS,
        Arg("output_projection", "bool", "whether W_O is counted", default=True, required=False),
        Arg("n_layers", "int", "number of layers", default=1, required=False),
    ),
    misconceptions=(
        "forgot-wo",
        "counted-wo",
        "forgot-biases",
        "added-biases",
        "kv-used-n-heads",
        "one-head-only",
        "full-width-heads",
        "forgot-layers",
    ),
)
def attention_parameters(
    d_model: int,
    n_heads: int,
    n_kv_heads: int | None = None,
    bias: bool = False,
    output_projection: bool = True,
    n_layers: int = 1,
) -> Derivation:
    calc = "attention_parameters"
    d, h = d_model, n_heads
    g = h if n_kv_heads is None else n_kv_heads
    d_k = split(calc, d, h)
    require_positive(calc, n_kv_heads=g, n_layers=n_layers)
    require_divisible(calc, "n_heads", h, "n_kv_heads", g)
    kv_dim = g * d_k
    per_layer = _count(d, kv_dim, bias=bias, output=output_projection)
    total = per_layer * n_layers
    steps = [
        Step("Head width", "d_k = d_model / h", f"{d} / {h}", d_k),
        Step("Query weights W_Q", "d_model x (h d_k)", f"{d} x {h * d_k}", d * d, "params"),
        Step(
            "Key and value weights W_K, W_V",
            "2 x d_model x (n_kv d_k)",
            f"2 x {d} x {kv_dim}",
            2 * d * kv_dim,
            "params",
        ),
    ]
    if output_projection:
        steps.append(Step("Output weights W_O", "(h d_v) x d_model", f"{d} x {d}", d * d, "params"))
    if bias:
        nb = d + 2 * kv_dim + (d if output_projection else 0)
        formula = "d + 2 n_kv d_k + d" if output_projection else "d + 2 n_kv d_k"
        steps.append(
            Step(
                "Bias vectors",
                formula,
                f"{d} + 2 x {kv_dim}" + (f" + {d}" if output_projection else ""),
                nb,
                "params",
            )
        )
    per_label = "Per layer"
    steps.append(Step(per_label, "sum of the above", f"{per_layer:,}", per_layer, "params"))
    if n_layers > 1:
        steps.append(
            Step("All layers", "per layer x n_layers", f"{per_layer:,} x {n_layers}", total, "params")
        )
    wo_step = "Output weights W_O"
    wrong = []
    if output_projection:
        wrong.append(
            Misconception(
                "forgot-wo",
                "You left out W_O",
                "The output projection is a d_model x d_model matrix after the heads are merged.",
                _count(d, kv_dim, bias=bias, output=False) * n_layers,
                wo_step,
            )
        )
    else:
        wrong.append(
            Misconception(
                "counted-wo",
                "You counted W_O, which this layer does not have",
                "The question removes the output projection.",
                _count(d, kv_dim, bias=bias, output=True) * n_layers,
                per_label,
            )
        )
    wrong.append(
        Misconception(
            "forgot-biases" if bias else "added-biases",
            "You left out the biases" if bias else "You added biases the layer does not have",
            "Each projection with a bias adds one vector as long as its output width.",
            _count(d, kv_dim, bias=not bias, output=output_projection) * n_layers,
            "Bias vectors" if bias else per_label,
        )
    )
    if g != h:
        wrong.append(
            Misconception(
                "kv-used-n-heads",
                "You gave K and V all h heads",
                "With grouped or multi-query attention, W_K and W_V only produce n_kv heads.",
                _count(d, d, bias=bias, output=output_projection) * n_layers,
                "Key and value weights W_K, W_V",
            )
        )
    wrong.append(
        Misconception(
            "one-head-only",
            "You counted one head's Q, K and V only",
            "A single head has 3 d_model d_k weights; the layer has h of them plus W_O.",
            3 * d * d_k * n_layers,
            "Query weights W_Q",
        )
    )
    wrong.append(
        Misconception(
            "full-width-heads",
            "You gave every head full d_model x d_model matrices",
            "Heads split d_model; together they are as wide as one big head.",
            (3 * d * d * h + (d * d if output_projection else 0)) * n_layers,
            "Query weights W_Q",
        )
    )
    if n_layers > 1:
        wrong.append(
            Misconception(
                "forgot-layers", "You counted one layer", "Multiply by the layers.", per_layer, "All layers"
            )
        )
    return Derivation(calc, total, "params", tuple(steps), distinct(total, wrong))


@register(
    "single_vs_multi_head_parameters",
    summary="Parameters of h heads, of one head as wide as d_model, or of one head's Q, K, V.",
    unit="params",
    args=(
        _D,
        _H,
        _BIAS,
        Arg(
            "which",
            "str",
            "what to count",
            default="multi",
            required=False,
            choices=("multi", "single", "per_head"),
        ),
    ),
    misconceptions=("h-times", "full-width-head", "divided-by-h"),
)
def single_vs_multi_head_parameters(
    d_model: int, n_heads: int, bias: bool = False, which: str = "multi"
) -> Derivation:
    calc = "single_vs_multi_head_parameters"
    d, h = d_model, n_heads
    d_k = split(calc, d, h)
    layer = 4 * d * d + (4 * d if bias else 0)
    per_head = 3 * d * d_k + (3 * d_k if bias else 0)
    b = " + 4 d" if bias else ""
    steps = (
        Step("Head width", "d_k = d_model / h", f"{d} / {h}", d_k),
        Step(
            "One head's Q, K, V",
            "3 d_model d_k" + (" + 3 d_k" if bias else ""),
            f"3 x {d} x {d_k}",
            per_head,
            "params",
        ),
        Step(
            "h heads plus W_O",
            "h x 3 d_model d_k + d_model^2" + b,
            f"{h} x 3 x {d} x {d_k} + {d}^2",
            layer,
            "params",
        ),
        Step(
            "One head of width d_model plus W_O", "3 d_model^2 + d_model^2" + b, f"4 x {d}^2", layer, "params"
        ),
    )
    value = per_head if which == "per_head" else layer
    label = steps[1].label if which == "per_head" else steps[2].label if which == "multi" else steps[3].label
    wrong = [
        Misconception(
            "h-times",
            "You thought h heads cost h times as much",
            "Heads split d_model; the count is the same.",
            layer * h,
            label,
        ),
        Misconception(
            "full-width-head",
            "You gave the head the full d_model width",
            "One of h heads has width d_k.",
            3 * d * d,
            label,
        ),
        Misconception(
            "divided-by-h",
            "You divided the whole layer by h",
            "Only Q, K, V split; W_O is shared.",
            layer // h,
            label,
        ),
    ]
    keep = {"multi": ("h-times",), "single": ("divided-by-h",), "per_head": ("full-width-head",)}[which]
    return Derivation(calc, value, "params", steps, distinct(value, [m for m in wrong if m.id in keep]))
