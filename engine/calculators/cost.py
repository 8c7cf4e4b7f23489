"""Provides the FLOPs of an attention layer's matmuls and the memory of its score matrix.

A multiply-add counts 2 FLOPs, so an (m x k) @ (k x n) matmul costs 2 m k n. The softmax, scaling and
masking are elementwise and left out, as is usual when counting attention FLOPs.
"""

from __future__ import annotations

from typing import Annotated, Literal

from engine.calculator import Param, register, result
from engine.calculators.common import (
    Batch,
    BytesPerElement,
    DModel,
    KvLen,
    NHeads,
    QueryLen,
    require_positive,
)
from engine.calculators.dimensions import split
from engine.derivation import Derivation, Mistake, Step

PARTS = ("total", "projections", "scores", "weighted_sum", "output")
_LABELS = {
    "projections": "Q, K, V projections",
    "scores": "Scores Q K^T",
    "weighted_sum": "Weighted sum A V",
    "output": "Output projection W_O",
    "total": "Total",
}


MAC_AS_ONE = Mistake(
    "mac-as-one",
    "You counted a multiply-add as one FLOP",
    "Each multiply-add is a multiplication and an addition: an (m x k) @ (k x n) matmul is 2 m k n FLOPs.",
)
FORGOT_BATCH = Mistake(
    "forgot-batch", "You left out the batch", "Every sequence in the batch has its own scores."
)
CAUSAL_HALVED = Mistake(
    "causal-halved",
    "You halved T^2 for the causal mask",
    "A causal mask zeroes the upper triangle but the tensor is still a full T x T matrix in memory; "
    "only a kernel that never materialises it saves anything.",
)
D_MODEL_PER_HEAD = Mistake(
    "d-model-per-head",
    "You gave each head width d_model",
    "Each head works in d_k = d_model / h dimensions, so all h heads together cost what one "
    "d_model-wide head costs.",
)
FORGOT_AV = Mistake(
    "forgot-av",
    "You left out A V",
    "Attention has two T x S matmuls: the scores Q K^T and the weighted sum A V.",
)
FORGOT_WO = Mistake(
    "forgot-wo",
    "You left out the output projection W_O",
    "After the heads are concatenated, W_O (d_model x d_model) mixes them: 2 B T d^2 more.",
)
DECODE_S_SQUARED = Mistake(
    "decode-s-squared", "You took the score matmuls as S x S, as if every cached token were a query again"
)
Q_ONLY_PROJECTION = Mistake(
    "q-only-projection",
    "You counted one projection, not three",
    "Q, K and V each need their own d_model x d_model matmul.",
)
PROJECTED_CACHED_KV = Mistake("projected-cached-kv", "You projected K and V again for every cached token")
KV_AT_QUERY_LENGTH = Mistake("kv-at-query-length", "You projected K and V for the query length")


@register(
    summary="FLOPs of one attention layer's matmuls (a multiply-add counts 2); the softmax is ignored.",
    unit="FLOPs",
    misconceptions=(
        MAC_AS_ONE,
        FORGOT_BATCH,
        D_MODEL_PER_HEAD,
        FORGOT_AV,
        FORGOT_WO,
        Q_ONLY_PROJECTION,
        PROJECTED_CACHED_KV,
        KV_AT_QUERY_LENGTH,
        DECODE_S_SQUARED,
        CAUSAL_HALVED,
    ),
)
def attention_flops(
    seq_len: Annotated[int, Param("query length T (new tokens when decoding)")],
    d_model: DModel,
    n_heads: NHeads,
    batch: Annotated[int, Param("batch size B")] = 1,
    kv_len: KvLen = None,
    part: Annotated[
        Literal["total", "projections", "scores", "weighted_sum", "output"],
        Param(
            "which matmuls: projections (Q, K, V), scores (Q K^T), weighted_sum (A V), output (W_O) or total"
        ),
    ] = "total",
    cached: Annotated[
        bool,
        Param(
            "the S - T earlier keys and values come from a KV cache, so only the T new tokens are projected"
        ),
    ] = False,
    *,
    worked: bool = True,
) -> Derivation:
    """Projections grow with T d^2, scores and the weighted sum with T S d: the T^2 term at long context.

    The steps shown are those of the part asked for, ending on it; `total` adds up all four.
    """
    if part not in PARTS:
        raise ValueError(f"part={part!r} must be one of {', '.join(PARTS)}")
    d_k = split(d_model, n_heads)
    b, t, d, h = batch, seq_len, d_model, n_heads
    s = t if kv_len is None else kv_len
    require_positive(seq_len=t, batch=b, kv_len=s)
    if cached and s < t:
        raise ValueError(f"with a cache, kv_len={s} must include the seq_len={t} new tokens")
    projected = t if cached else s  # tokens whose keys and values are computed in this call
    proj_q = 2 * b * t * d * d
    proj_kv = 2 * 2 * b * projected * d * d
    scores = 2 * b * h * t * s * d_k
    av = 2 * b * h * t * s * d_k
    out = 2 * b * t * d * d
    parts = {"projections": proj_q + proj_kv, "scores": scores, "weighted_sum": av, "output": out}
    value = sum(parts.values()) if part == "total" else parts[part]
    if not worked:
        return result(value)
    per_part = {
        "projections": Step(
            _LABELS["projections"],
            f"Q: 2 B T d^2, K and V: 2 x 2 B {'T' if cached else 'S'} d^2",
            f"2 x {b} x {t:,} x {d}^2 + 2 x 2 x {b} x {projected:,} x {d}^2",
            parts["projections"],
            "FLOPs",
        ),
        "scores": Step(
            _LABELS["scores"], "2 B h T S d_k", f"2 x {b} x {h} x {t:,} x {s:,} x {d_k}", scores, "FLOPs"
        ),
        "weighted_sum": Step(
            _LABELS["weighted_sum"], "2 B h T S d_k", f"2 x {b} x {h} x {t:,} x {s:,} x {d_k}", av, "FLOPs"
        ),
        "output": Step(_LABELS["output"], "2 B T d^2", f"2 x {b} x {t:,} x {d}^2", out, "FLOPs"),
    }
    head = Step("Head width", "d_k = d_model / h", f"{d} / {h}", d_k)
    label = _LABELS[part]
    if part == "total":
        steps = [head, *per_part.values()]
        steps.append(
            Step(
                label,
                "projections + scores + weighted sum + output",
                " + ".join(f"{v:,}" for v in parts.values()),
                value,
                "FLOPs",
            )
        )
    elif part in ("scores", "weighted_sum"):
        steps = [head, per_part[part]]
    else:
        steps = [per_part[part]]
    wrong = [
        MAC_AS_ONE.gives(value // 2, label),
    ]
    if b > 1:
        wrong.append(
            FORGOT_BATCH.gives(
                value // b, label, explanation="Every sequence in the batch goes through the same matmuls."
            )
        )
    if part in ("scores", "weighted_sum", "total") and h > 1:
        extra = (scores + av) * (h - 1) if part == "total" else parts[part] * (h - 1)
        wrong.append(D_MODEL_PER_HEAD.gives(value + extra, _LABELS["scores"] if part == "total" else label))
    if part == "total":
        wrong += [
            FORGOT_AV.gives(value - av, _LABELS["weighted_sum"]),
            FORGOT_WO.gives(value - out, _LABELS["output"]),
        ]
    mix = scores + av if part == "total" else (parts[part] if part in ("scores", "weighted_sum") else 0)
    if mix and t == s:
        wrong.append(
            CAUSAL_HALVED.gives(
                value - mix // 2,
                _LABELS["scores"] if part == "total" else label,
                label="You halved the T x T products for a causal mask",
                explanation="Nothing here is masked, and even under a causal mask a plain matmul computes "
                "all T x T entries before the mask is applied: only a kernel that skips the masked blocks "
                "saves half.",
            )
        )
    if mix and t < s:
        wrong.append(
            DECODE_S_SQUARED.gives(
                value + mix * (s - t) // t,
                _LABELS["scores"] if part == "total" else label,
                explanation=f"Only the {t:,} new token(s) ask queries: Q K^T and A V are T x S = {t:,} x "
                f"{s:,} per head, not S^2; that is why a decode step's attention is linear in the context.",
            )
        )
    if part in ("projections", "total"):
        wrong.append(Q_ONLY_PROJECTION.gives(value - proj_kv, _LABELS["projections"]))
        if cached and s > t:
            wrong.append(
                PROJECTED_CACHED_KV.gives(
                    value + 2 * 2 * b * (s - t) * d * d,
                    _LABELS["projections"],
                    explanation=f"The cache holds the keys and values of the {s - t:,} earlier tokens "
                    f"already projected; only the {t:,} new token(s) go through W_K and W_V.",
                )
            )
        elif s != t:
            wrong.append(
                KV_AT_QUERY_LENGTH.gives(
                    value - proj_kv + 2 * 2 * b * t * d * d,
                    _LABELS["projections"],
                    explanation=(
                        f"Keys and values come from the S = {s:,} source positions, not the T = "
                        f"{t:,} queries."
                    ),
                )
            )
    return result(value, tuple(steps), wrong)


FORGOT_HEADS = Mistake("forgot-heads", "You left out the heads", "Every head has its own T x S matrix.")
LINEAR_IN_T = Mistake(
    "linear-in-t",
    "You made it linear in the length",
    "Each of the T queries is scored against all S keys: T x S entries per head, not T.",
)
FORGOT_BYTES = Mistake(
    "forgot-bytes",
    "You counted entries, not bytes",
    "Multiply the number of entries by the bytes per element.",
)


@register(
    summary="Memory of the attention score (or weight) matrix: B x h x T x S x bytes.",
    unit="B",
    misconceptions=(FORGOT_HEADS, FORGOT_BATCH, LINEAR_IN_T, FORGOT_BYTES, CAUSAL_HALVED),
)
def score_matrix_bytes(
    batch: Batch,
    n_heads: Annotated[int, Param("number of query heads h", gt=0)],
    seq_len: QueryLen,
    bytes_per_element: BytesPerElement,
    kv_len: Annotated[int | None, Param("key length S (default: T)")] = None,
    *,
    worked: bool = True,
) -> Derivation:
    """Every head of every sequence scores every query against every key: quadratic in length."""
    s = seq_len if kv_len is None else kv_len
    require_positive(kv_len=s)
    one = seq_len * s
    entries = batch * n_heads * one
    value = entries * bytes_per_element
    if not worked:
        return result(value)
    one_label, all_label, bytes_label = "One head's matrix", "All heads, all sequences", "Bytes"
    steps = (
        Step(one_label, "T x S", f"{seq_len:,} x {s:,}", one),
        Step(all_label, "B x h x (T x S)", f"{batch} x {n_heads} x {one:,}", entries),
        Step(bytes_label, "entries x bytes_per_element", f"{entries:,} x {bytes_per_element}", value, "B"),
    )
    wrong = [
        FORGOT_HEADS.gives(value // n_heads, all_label),
        FORGOT_BATCH.gives(value // batch, all_label),
        LINEAR_IN_T.gives(batch * n_heads * seq_len * bytes_per_element, one_label),
        FORGOT_BYTES.gives(entries, bytes_label),
        CAUSAL_HALVED.gives(value // 2, bytes_label),
    ]
    return result(value, steps, wrong)
