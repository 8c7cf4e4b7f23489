"""Provides the FLOPs of an attention layer and the memory of its score matrix."""

from __future__ import annotations

from engine.calculator import Arg, register
from engine.calculators.common import distinct, require_positive
from engine.calculators.dimensions import split
from engine.derivation import Derivation, Misconception, Step

PARTS = ("total", "projections", "scores", "weighted_sum", "output")


@register(
    "attention_flops",
    summary="FLOPs of one attention layer's matmuls (a multiply-add counts 2); the softmax is ignored.",
    unit="FLOPs",
    args=(
        Arg("seq_len", "int", "query length T"),
        Arg("d_model", "int", "model width d_model"),
        Arg("n_heads", "int", "number of heads h"),
        Arg("batch", "int", "batch size B", default=1, required=False),
        Arg("kv_len", "int", "key/value length S (default: T)", required=False),
        Arg("part", "str", "which matmuls to count", default="total", required=False, choices=PARTS),
    ),
    misconceptions=("mac-as-one", "forgot-batch", "d-model-per-head", "forgot-av", "q-only-projection"),
)
def attention_flops(
    seq_len: int, d_model: int, n_heads: int, batch: int = 1, kv_len: int | None = None, part: str = "total"
) -> Derivation:
    calc = "attention_flops"
    d_k = split(calc, d_model, n_heads)
    b, t, d, h = batch, seq_len, d_model, n_heads
    s = t if kv_len is None else kv_len
    require_positive(calc, seq_len=t, batch=b, kv_len=s)
    proj = 2 * b * t * d * d + 2 * 2 * b * s * d * d
    scores = 2 * b * h * t * s * d_k
    av = 2 * b * h * t * s * d_k
    out = 2 * b * t * d * d
    parts = {"projections": proj, "scores": scores, "weighted_sum": av, "output": out}
    steps = [
        Step("Head width", "d_k = d_model / h", f"{d} / {h}", d_k),
        Step(
            "Q, K, V projections",
            "2 B T d^2 + 2 x 2 B S d^2",
            f"2 x {b} x {t} x {d}^2 + 4 x {b} x {s} x {d}^2",
            proj,
            "FLOPs",
        ),
        Step("Scores Q K^T", "2 B h T S d_k", f"2 x {b} x {h} x {t} x {s} x {d_k}", scores, "FLOPs"),
        Step("Weighted sum A V", "2 B h T S d_k", f"2 x {b} x {h} x {t} x {s} x {d_k}", av, "FLOPs"),
        Step("Output projection W_O", "2 B T d^2", f"2 x {b} x {t} x {d}^2", out, "FLOPs"),
    ]
    value = sum(parts.values()) if part == "total" else parts[part]
    label = {
        "total": "Total",
        "projections": "Q, K, V projections",
        "scores": "Scores Q K^T",
        "weighted_sum": "Weighted sum A V",
        "output": "Output projection W_O",
    }[part]
    if part == "total":
        steps.append(
            Step(
                "Total",
                "projections + scores + weighted sum + output",
                " + ".join(f"{v:,}" for v in parts.values()),
                value,
                "FLOPs",
            )
        )
    wrong = [
        Misconception(
            "mac-as-one",
            "You counted a multiply-add as one FLOP",
            "A multiply-add is 2 FLOPs.",
            value // 2,
            label,
        ),
    ]
    if b > 1:
        wrong.append(
            Misconception(
                "forgot-batch", "You left out the batch", "Every sequence does the work.", value // b, label
            )
        )
    if part in ("scores", "weighted_sum", "total") and h > 1:
        extra = (scores + av) * (h - 1) if part == "total" else parts[part] * (h - 1)
        wrong.append(
            Misconception(
                "d-model-per-head",
                "You gave each head width d_model",
                "Each head works in d_k = d/h dims.",
                value + extra,
                label,
            )
        )
    if part == "total":
        wrong.append(
            Misconception(
                "forgot-av",
                "You left out A V",
                "The weighted sum is a second T x S matmul.",
                value - av,
                label,
            )
        )
    if part in ("projections", "total"):
        wrong.append(
            Misconception(
                "q-only-projection",
                "You counted one projection, not three",
                "Q, K and V each need a d x d matmul.",
                value - 4 * b * s * d * d,
                label,
            )
        )
    return Derivation(calc, value, "FLOPs", tuple(steps), distinct(value, wrong))


@register(
    "score_matrix_bytes",
    summary="Memory of the attention score (or weight) matrix: B h T S bytes.",
    unit="B",
    args=(
        Arg("batch", "int", "batch size B"),
        Arg("n_heads", "int", "number of heads h"),
        Arg("seq_len", "int", "query length T"),
        Arg("bytes_per_element", "int", "bytes per number"),
        Arg("kv_len", "int", "key length S (default: T)", required=False),
    ),
    misconceptions=("forgot-heads", "forgot-batch", "linear-in-t", "forgot-bytes"),
)
def score_matrix_bytes(
    batch: int, n_heads: int, seq_len: int, bytes_per_element: int, kv_len: int | None = None
) -> Derivation:
    calc = "score_matrix_bytes"
    s = seq_len if kv_len is None else kv_len
    require_positive(
        calc, batch=batch, n_heads=n_heads, seq_len=seq_len, bytes_per_element=bytes_per_element, kv_len=s
    )
    entries = batch * n_heads * seq_len * s
    value = entries * bytes_per_element
    label = "Bytes"
    steps = (
        Step("Entries", "B x h x T x S", f"{batch} x {n_heads} x {seq_len:,} x {s:,}", entries),
        Step(label, "entries x bytes", f"{entries:,} x {bytes_per_element}", value, "B"),
    )
    wrong = [
        Misconception(
            "forgot-heads",
            "You left out the heads",
            "Every head has its own T x S matrix.",
            value // n_heads,
            "Entries",
        ),
        Misconception(
            "forgot-batch",
            "You left out the batch",
            "Every sequence has its own scores.",
            value // batch,
            "Entries",
        ),
        Misconception(
            "linear-in-t",
            "You made it linear in length",
            "Each of T queries scores all S keys.",
            batch * n_heads * seq_len * bytes_per_element,
            "Entries",
        ),
        Misconception(
            "forgot-bytes", "You counted entries, not bytes", "Multiply by bytes per element.", entries, label
        ),
    ]
    return Derivation(calc, value, "B", steps, distinct(value, wrong))
