"""Provides attention_entry: one entry of a small worked attention example, computed by the engine.

The scores, the causal mask and the softmax come from engine.attention (the same `causal_mask` and
`softmax` the multi-head forward pass uses), so a worked example can never disagree with the engine.
"""

from __future__ import annotations

from typing import Annotated, Literal

import numpy as np
import numpy.typing as npt

from engine.attention import causal_mask, softmax
from engine.calculator import Param, register, result
from engine.calculators.common import Row
from engine.derivation import Derivation, Heatmap, Misconception, Mistake, Step

Matrix = npt.NDArray[np.float64]
Mask = npt.NDArray[np.bool_]
WHICH = ("score", "weight", "output")

_SCALE = "Scale by 1/sqrt(d_k)"
_MASK = "Causal mask"
_SOFTMAX = "Softmax over the row"


def _vec(v: Matrix) -> str:
    return "[" + ", ".join([f"{x:.4g}" for x in v.tolist()]) + "]"  # (n,) as plain floats


def _weights(scores: Matrix, allowed: Mask, axis: int) -> Matrix:
    """Masked entries become -inf, then the engine's softmax (a fully masked line gives zeros)."""
    masked = np.where(allowed, scores, -np.inf)  # (T, S)
    return np.asarray(softmax(masked, axis=axis), dtype=np.float64)  # (T, S)


def _labels(tokens: tuple[str, ...] | None, t: int, s: int) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Row (query) and column (key) labels: T tokens for self-attention, T + S for cross-attention."""
    if tokens is None:
        rows = tuple(f"t{i}" for i in range(t))
        return rows, rows if s == t else tuple(f"k{j}" for j in range(s))
    if len(tokens) == t:
        return tokens, tokens if s == t else tuple(f"k{j}" for j in range(s))
    if len(tokens) == t + s and s != t:
        return tokens[:t], tokens[t:]
    raise ValueError(
        f"tokens has {len(tokens)} labels but there are T={t} queries and S={s} keys "
        f"(give T labels, or T + S labels for cross-attention)"
    )


NO_SCALING = Mistake(
    "no-scaling",
    "You skipped the 1/sqrt(d_k) scaling",
    "Scores are divided by sqrt(d_k) before the softmax, so their spread does not grow with d_k.",
)
RAW_SCORE = Mistake(
    "raw-score", "You gave the raw dot product q . k", "A weight is softmax(q . k / sqrt(d_k))."
)
NO_CAUSAL_MASK = Mistake(
    "no-causal-mask",
    "You forgot the causal mask",
    "Query i may only attend to keys j <= i; later keys get weight 0.",
)
SOFTMAX_OVER_QUERIES = Mistake(
    "softmax-over-queries",
    "You normalised down the column, not across the row",
    "Each query's weights over the keys sum to 1: softmax runs along a row.",
)
FORGOT_SOFTMAX = Mistake(
    "forgot-softmax",
    "You used the scaled scores as the weights",
    "The weights are the softmax of the scaled scores: positive and summing to 1 along the row.",
)
UNWEIGHTED_MEAN = Mistake(
    "unweighted-mean",
    "You averaged the values evenly",
    "Each value row is weighted by its softmax weight, not by 1/S.",
)


@register(
    summary="One entry of the scaled scores, the softmax weights or the output of a small attention example.",
    unit="",
    misconceptions=(
        NO_SCALING,
        RAW_SCORE,
        NO_CAUSAL_MASK,
        SOFTMAX_OVER_QUERIES,
        FORGOT_SOFTMAX,
        UNWEIGHTED_MEAN,
    ),
)
def attention_entry(
    q: Annotated[Matrix, Param("queries Q, one row per query token (T, d_k)")],
    k: Annotated[Matrix, Param("keys K, one row per key token (S, d_k)")],
    v: Annotated[Matrix, Param("values V, one row per key token (S, d_v)")],
    row: Row,
    col: Annotated[int, Param("key index for score/weight, value column for output (0-based)")] = 0,
    which: Annotated[
        Literal["score", "weight", "output"],
        Param("which matrix the entry comes from: score (scaled, before the mask), weight or output"),
    ] = "weight",
    causal: Annotated[bool, Param("whether query i may only see keys j <= i")] = False,
    tokens: Annotated[
        tuple[str, ...] | None, Param("labels for the tokens (T, or T + S for cross-attention)")
    ] = None,
    *,
    worked: bool = True,
) -> Derivation:
    """Scores, scaling, mask, softmax and weighted sum for one query row, as a learner would do them."""
    if which not in WHICH:
        raise ValueError(f"which={which!r} must be one of {', '.join(WHICH)}")
    q, k, v = (np.asarray(m, dtype=np.float64) for m in (q, k, v))  # (T, d_k), (S, d_k), (S, d_v)
    if q.ndim != 2 or k.ndim != 2 or v.ndim != 2 or min(*q.shape, *k.shape, *v.shape) < 1:
        raise ValueError(f"q {q.shape}, k {k.shape} and v {v.shape} must be non-empty 2-D matrices")
    T, d_k = q.shape
    S, d_v = v.shape
    if k.shape != (S, d_k):
        raise ValueError(
            f"q {q.shape}, k {k.shape} and v {v.shape} do not fit; they must be (T, d_k), (S, d_k), (S, d_v)"
        )
    width = d_v if which == "output" else S
    if not (0 <= row < T and 0 <= col < width):
        raise ValueError(
            f"entry (row={row}, col={col}) is outside the {which} matrix of shape ({T}, {width})"
        )
    rows, cols = _labels(tokens, T, S)

    allowed = causal_mask(T, S) if causal else np.ones((T, S), dtype=bool)  # (T, S)
    raw = q @ k.T  # (T, d_k) @ (d_k, S) -> (T, S)
    scaled = raw / np.sqrt(d_k)  # (T, S)
    masked = np.where(allowed, scaled, -np.inf)  # (T, S)
    weights = _weights(scaled, allowed, axis=-1)  # (T, S): each row sums to 1
    out = weights @ v  # (T, S) @ (S, d_v) -> (T, d_v)
    value = float({"score": scaled, "weight": weights, "output": out}[which][row, col])  # scalar
    if not worked:
        return result(value)

    r = row
    # The key whose numbers the vector steps report: the one asked about, or for an output entry the
    # key with the largest weight (the one that contributes most).
    j = col if which != "output" else int(np.argmax(weights[r]))  # scalar: a key index
    at = "" if which != "output" else f" (key {j}, the largest weight)"
    q_row, k_rows, raw_row = q[r].tolist(), k.tolist(), raw[r].tolist()  # (d_k,), (S, d_k), (S,) floats
    dots = "; ".join(
        [
            f"q{r}.k{i} = "
            + " + ".join([f"({a:.4g})({b:.4g})" for a, b in zip(q_row, k_rows[i], strict=True)])
            + f" = {raw_row[i]:.4g}"
            for i in range(S)
        ]
    )
    steps = [
        Step(
            f"Dot products of query {r} with every key",
            f"q{r} . k_j{at}",
            dots,
            float(raw[r, j]),
            picks=f"q{r}.k{j}",
        ),
        Step(
            _SCALE,
            f"s_{r}j = q{r} . k_j / sqrt(d_k), d_k = {d_k}{at}",
            f"{_vec(raw[r])} / {np.sqrt(d_k):.4g} = {_vec(scaled[r])}",
            float(scaled[r, j]),
            picks=f"s_{r},{j}",
        ),
    ]
    notes: list[str] = []
    if causal and which != "score":
        steps.append(
            Step(
                _MASK, f"keys j > {r} get -inf{at}", _vec(masked[r]), float(masked[r, j]), picks=f"s_{r},{j}"
            )
        )
    if causal and which == "score":
        notes.append(
            "The score is taken before the causal mask, which would set keys after the query to -inf."
        )
    if which != "score":
        steps.append(
            Step(
                _SOFTMAX,
                f"a_{r}j = exp(s_{r}j) / sum_j' exp(s_{r}j'){at}",
                f"softmax({_vec(masked[r])}) = {_vec(weights[r])}",
                float(weights[r, j]),
                picks=f"a_{r},{j}",
            )
        )
    if which == "output":
        w_row, v_col = weights[r].tolist(), v[:, col].tolist()  # (S,), (S,) as plain floats
        terms = " + ".join([f"({w:.4g})({x:.4g})" for w, x in zip(w_row, v_col, strict=True)])
        steps.append(
            Step(
                f"Weighted sum of value column {col}",
                f"o_{r}[{col}] = sum over j of a_{r}j v_j[{col}]",
                terms,
                value,
            )
        )
    last = steps[-1].label

    wrong: list[Misconception] = []

    def alt(m: Mistake, matrix: Matrix, step: str, **text: str) -> None:
        wrong.append(m.gives(float(matrix[row, col]), step, **text))

    if which == "score":
        no_scaling = raw  # (T, S)
    else:
        unscaled = _weights(raw, allowed, axis=-1)  # (T, S)
        no_scaling = unscaled if which == "weight" else unscaled @ v  # (T, S) or (T, d_v)
    alt(NO_SCALING, no_scaling, _SCALE)
    if which == "weight":
        alt(RAW_SCORE, raw, _SCALE)
    if causal and which != "score":
        free = _weights(scaled, np.ones((T, S), dtype=bool), axis=-1)  # (T, S)
        alt(NO_CAUSAL_MASK, free if which == "weight" else free @ v, _MASK)
    if which != "score" and T == S:
        down = _weights(scaled, allowed, axis=0)  # (T, S), normalised down each column
        alt(SOFTMAX_OVER_QUERIES, down if which == "weight" else down @ v, _SOFTMAX)
    if which != "score":
        plain = np.where(allowed, scaled, 0.0)  # (T, S): scaled scores, masked ones zeroed
        alt(FORGOT_SOFTMAX, plain if which == "weight" else plain @ v, _SOFTMAX)
    if which == "output":
        uniform = allowed / np.maximum(allowed.sum(axis=-1, keepdims=True), 1)  # (T, S)
        alt(UNWEIGHTED_MEAN, uniform @ v, last)
    asked = (r, None) if which == "output" else (r, j)
    heat = Heatmap(weights[None], rows, cols, ("weights",), allowed=allowed[None], asked=asked)  # (1, T, S)
    return result(value, tuple(steps), wrong, heatmap=heat, notes=tuple(notes))
