"""Provides head_dim and attention_shape: the d_k arithmetic and the tensor shapes at each step."""

from __future__ import annotations

from engine.calculator import Arg, register
from engine.calculators.common import distinct, require_divisible, require_positive
from engine.derivation import Derivation, Misconception, Step

_D = Arg("d_model", "int", "model width d_model")
_H = Arg("n_heads", "int", "number of query heads h")


def split(calculator: str, d_model: int, n_heads: int) -> int:
    """d_k = d_model / h, refusing widths that do not split evenly."""
    require_positive(calculator, d_model=d_model, n_heads=n_heads)
    require_divisible(calculator, "d_model", d_model, "n_heads", n_heads)
    return d_model // n_heads


@register(
    "head_dim",
    summary="Width of one head: d_k = d_v = d_model / h.",
    unit="",
    args=(_D, _H),
    misconceptions=("multiplied", "no-split"),
)
def head_dim(d_model: int, n_heads: int) -> Derivation:
    d_k = split("head_dim", d_model, n_heads)
    step = "Split d_model across the heads"
    return Derivation(
        calculator="head_dim",
        value=d_k,
        unit="",
        steps=(Step(step, "d_k = d_model / h", f"{d_model} / {n_heads}", d_k),),
        misconceptions=distinct(
            d_k,
            [
                Misconception(
                    "multiplied",
                    "You multiplied by h instead of dividing",
                    "Each head gets a slice of d_model: d_k = d_model / h, not d_model x h.",
                    d_model * n_heads,
                    step,
                ),
                Misconception(
                    "no-split",
                    "You gave each head the full d_model",
                    "Multi-head attention splits d_model into h slices of width d_model / h.",
                    d_model,
                    step,
                ),
            ],
        ),
    )


STAGES = (
    "input",
    "q",
    "q_heads",
    "k_heads",
    "scores",
    "context",
    "merged",
    "output",
    "w_q",
    "w_k",
    "w_qkv",
    "w_o",
)


@register(
    "attention_shape",
    summary="The shape of a tensor or weight at one stage of multi-head attention.",
    unit="shape",
    args=(
        Arg("batch", "int", "batch size B"),
        Arg("seq_len", "int", "query length T"),
        _D,
        _H,
        Arg("stage", "str", "which tensor", choices=STAGES),
        Arg("n_kv_heads", "int", "number of key/value heads (default: h)", required=False),
        Arg("kv_len", "int", "key/value length S (default: T)", required=False),
    ),
    misconceptions=(
        "no-head-split",
        "heads-before-transpose",
        "d-model-per-head",
        "kv-used-n-heads",
        "scores-used-d-k",
        "scores-no-heads",
        "merged-kept-heads",
        "torch-layout",
        "per-head-weight",
    ),
)
def attention_shape(
    batch: int,
    seq_len: int,
    d_model: int,
    n_heads: int,
    stage: str,
    n_kv_heads: int | None = None,
    kv_len: int | None = None,
) -> Derivation:
    calc = "attention_shape"
    d_k = split(calc, d_model, n_heads)
    g = n_heads if n_kv_heads is None else n_kv_heads
    s = seq_len if kv_len is None else kv_len
    require_positive(calc, batch=batch, seq_len=seq_len, n_kv_heads=g, kv_len=s)
    require_divisible(calc, "n_heads", n_heads, "n_kv_heads", g)
    b, t, d, h = batch, seq_len, d_model, n_heads
    chain: dict[str, tuple[str, str, tuple[int, ...]]] = {
        "input": ("Input x", "(B, T, d_model)", (b, t, d)),
        "q": ("Project: Q = x W_Q", "(B, T, d_model) @ (d_model, d_model)", (b, t, d)),
        "q_heads": (
            "Split heads: reshape then transpose",
            "(B, T, h, d_k) -> (B, h, T, d_k)",
            (b, h, t, d_k),
        ),
        "k_heads": ("Keys per KV head", "(B, S, n_kv, d_k) -> (B, n_kv, S, d_k)", (b, g, s, d_k)),
        "scores": ("Scores: Q K^T / sqrt(d_k)", "(B, h, T, d_k) @ (B, h, d_k, S)", (b, h, t, s)),
        "context": ("Weighted sum: A V", "(B, h, T, S) @ (B, h, S, d_k)", (b, h, t, d_k)),
        "merged": ("Merge heads: transpose then reshape", "(B, T, h, d_k) -> (B, T, h d_k)", (b, t, h * d_k)),
        "output": ("Output projection: merged W_O", "(B, T, h d_k) @ (h d_k, d_model)", (b, t, d)),
        "w_q": ("Weight W_Q", "(d_model, h d_k)", (d, h * d_k)),
        "w_k": ("Weight W_K (one slice per KV head)", "(d_model, n_kv d_k)", (d, g * d_k)),
        "w_qkv": ("Fused QKV weight", "(d_model, 3 d_model)", (d, 3 * d)),
        "w_o": ("Weight W_O", "(h d_v, d_model)", (h * d_k, d)),
    }
    order = ("input", "q", "q_heads", "k_heads", "scores", "context", "merged", "output")
    names = order[: order.index(stage) + 1] if stage in order else ("input", stage)
    steps = [Step("Head width", "d_k = d_model / h", f"{d} / {h}", d_k)]
    for name in names:
        label, formula, shape = chain[name]
        steps.append(Step(label, formula, formula, shape, "shape"))
    label, _, answer = chain[stage]
    wrong: list[Misconception] = []

    def add(mid: str, text: str, why: str, value: tuple[int, ...]) -> None:
        wrong.append(Misconception(mid, text, why, value, label))

    if stage in ("q_heads", "context"):
        add("no-head-split", "You did not split the heads", "Heads live in their own axis.", (b, t, d))
        add(
            "heads-before-transpose",
            "You stopped before the transpose",
            "After the reshape to (B, T, h, d_k), transpose T and h so each head is a batch of T x d_k.",
            (b, t, h, d_k),
        )
        add("d-model-per-head", "You gave each head width d_model", "Each head has width d_k.", (b, h, t, d))
    if stage == "k_heads":
        add("kv-used-n-heads", "You used h for the KV heads", "K and V have n_kv heads.", (b, h, s, d_k))
        add(
            "heads-before-transpose",
            "You stopped before the transpose",
            "Transpose S and heads.",
            (b, s, g, d_k),
        )
    if stage == "scores":
        add("scores-used-d-k", "You wrote d_k for the key axis", "Q K^T contracts d_k away.", (b, h, t, d_k))
        add("scores-no-heads", "You dropped the head axis", "Every head has its own T x S scores.", (b, t, s))
    if stage == "merged":
        add(
            "merged-kept-heads", "You kept the head axis", "Merging folds h and d_k into one.", (b, h, t, d_k)
        )
    if stage == "w_qkv":
        add("torch-layout", "That is torch's (3d, d) storage", "Acting as x @ W it is (d, 3d).", (3 * d, d))
    if stage == "w_k":
        add("kv-used-n-heads", "You used h for the KV heads", "W_K maps to n_kv d_k.", (d, d))
    if stage in ("w_q", "w_o"):
        per = (d, d_k) if stage == "w_q" else (d_k, d)
        add("per-head-weight", "That is one head's slice", "The full weight covers all heads.", per)
    return Derivation(calc, answer, "shape", tuple(steps), distinct(answer, wrong))
