"""Provides attention_entry: one entry of a small worked attention example, computed by the engine."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from engine.attention import causal_mask, softmax
from engine.calculator import Arg, register
from engine.calculators.common import distinct
from engine.derivation import Derivation, Heatmap, Misconception, Step

Matrix = npt.NDArray[np.float64]
WHICH = ("score", "weight", "output")


def _vec(v: Matrix) -> str:
    return "[" + ", ".join(_num(x) for x in v) + "]"


def _num(x: float) -> str:
    if np.isneginf(x):
        return "-inf"
    return f"{x:.4g}"


def _weights(scaled: Matrix, allowed: npt.NDArray[np.bool_], axis: int) -> Matrix:
    masked = np.where(allowed, scaled, -np.inf)  # (T, S)
    return np.asarray(softmax(masked, axis=axis), dtype=np.float64)  # (T, S)


@register(
    "attention_entry",
    summary="One entry of the scaled scores, the softmax weights or the output of a small attention example.",
    unit="",
    args=(
        Arg("q", "matrix", "queries Q, one row per query token (T, d_k)"),
        Arg("k", "matrix", "keys K, one row per key token (S, d_k)"),
        Arg("v", "matrix", "values V, one row per key token (S, d_v)"),
        Arg("row", "int", "query index (0-based)"),
        Arg(
            "col",
            "int",
            "key index for score/weight, value column for output (0-based)",
            default=0,
            required=False,
        ),
        Arg(
            "which",
            "str",
            "which matrix the entry comes from",
            default="weight",
            required=False,
            choices=WHICH,
        ),
        Arg("causal", "bool", "whether query i may only see keys j <= i", default=False, required=False),
        Arg("tokens", "tokens", "labels for the tokens", required=False),
    ),
    misconceptions=(
        "no-scaling",
        "no-causal-mask",
        "softmax-over-queries",
        "forgot-softmax",
        "unweighted-mean",
    ),
)
def attention_entry(
    q: Matrix,
    k: Matrix,
    v: Matrix,
    row: int,
    col: int = 0,
    which: str = "weight",
    causal: bool = False,
    tokens: tuple[str, ...] | None = None,
) -> Derivation:
    calc = "attention_entry"
    T, d_k = q.shape
    S = k.shape[0]
    if k.shape[1] != d_k or v.shape[0] != S:
        raise ValueError(
            f"{calc}: q {q.shape}, k {k.shape} and v {v.shape} do not fit (need (T,d), (S,d), (S,d_v))"
        )
    width = v.shape[1] if which == "output" else S
    if not (0 <= row < T and 0 <= col < width):
        raise ValueError(
            f"{calc}: entry ({row}, {col}) is outside the {which} matrix of shape ({T}, {width})"
        )
    allowed = causal_mask(T, S) if causal else np.ones((T, S), dtype=bool)  # (T, S)
    raw = q @ k.T  # (T, d_k) @ (d_k, S) -> (T, S)
    scaled = raw / np.sqrt(d_k)  # (T, S)
    weights = _weights(scaled, allowed, axis=-1)  # (T, S)
    out = weights @ v  # (T, S) @ (S, d_v) -> (T, d_v)
    pick = {"score": scaled, "weight": weights, "output": out}
    value = float(pick[which][row, col])
    r = row
    dots = "; ".join(
        f"q{r}.k{j} = " + " + ".join(f"({_num(a)})({_num(b)})" for a, b in zip(q[r], k[j], strict=True))
        for j in range(S)
    )
    steps = [
        Step(
            f"Dot products of query {r} with every key",
            f"q{r} . k_j",
            dots,
            float(raw[r, col if which != "output" else 0]),
        ),
        Step(
            "Scale by 1/sqrt(d_k)",
            f"s = (q . k) / sqrt({d_k})",
            f"{_vec(raw[r])} / {np.sqrt(d_k):.4g} = {_vec(scaled[r])}",
            float(scaled[r, min(col, S - 1)]),
        ),
    ]
    if causal:
        masked_row = np.where(allowed[r], scaled[r], -np.inf)  # (S,)
        steps.append(
            Step(
                "Causal mask", f"keys j > {r} get -inf", _vec(masked_row), float(masked_row[min(col, S - 1)])
            )
        )
    if which != "score":
        steps.append(
            Step(
                "Softmax over the row",
                "a_j = exp(s_j - max) / sum exp(s - max)",
                f"softmax({_vec(np.where(allowed[r], scaled[r], -np.inf))}) = {_vec(weights[r])}",
                float(weights[r, min(col, S - 1)]),
            )
        )
    if which == "output":
        terms = " + ".join(f"{weights[r, j]:.4g} x {_num(v[j, col])}" for j in range(S))
        steps.append(Step(f"Weighted sum of value column {col}", f"o = sum_j a_j v_j[{col}]", terms, value))
    label = steps[-1].label
    wrong: list[Misconception] = []

    def alt(mid: str, text: str, why: str, matrix: Matrix, step: str) -> None:
        wrong.append(Misconception(mid, text, why, float(matrix[row, col]), step))

    unscaled_w = _weights(raw, allowed, axis=-1)  # (T, S)
    alt_pick = {"score": raw, "weight": unscaled_w, "output": unscaled_w @ v}
    alt(
        "no-scaling",
        "You skipped the 1/sqrt(d_k) scaling",
        "Scores are divided by sqrt(d_k) before the softmax.",
        alt_pick[which],
        "Scale by 1/sqrt(d_k)",
    )
    if causal and which != "score":
        free = _weights(scaled, np.ones((T, S), dtype=bool), axis=-1)  # (T, S)
        alt(
            "no-causal-mask",
            "You forgot the causal mask",
            "Query i may only attend to keys j <= i.",
            free if which == "weight" else free @ v,
            "Causal mask",
        )
    if which != "score" and T == S:
        cols = _weights(scaled, allowed, axis=0)  # (T, S), normalised down each column
        alt(
            "softmax-over-queries",
            "You normalised down the column",
            "Softmax runs over the keys in each row.",
            cols if which == "weight" else cols @ v,
            "Softmax over the row",
        )
    if which == "weight":
        alt(
            "forgot-softmax",
            "You gave the scaled score, not the weight",
            "Weights are the softmax of the scores.",
            scaled,
            label,
        )
    if which == "output":
        uniform = np.where(allowed, 1.0, 0.0) / np.maximum(allowed.sum(axis=-1, keepdims=True), 1)  # (T, S)
        alt(
            "unweighted-mean",
            "You averaged the values evenly",
            "Each value is weighted by its softmax weight.",
            uniform @ v,
            label,
        )
    labels = tuple(tokens) if tokens else tuple(f"t{i}" for i in range(T))
    rows = labels[:T] if len(labels) >= T else tuple(f"t{i}" for i in range(T))
    cols_l = (
        labels[:S] if (len(labels) >= S and S == T) else tuple(f"k{j}" for j in range(S)) if S != T else rows
    )
    heat = Heatmap(weights[None], rows, cols_l, ("weights",))  # (1, T, S)
    return Derivation(calc, value, "", tuple(steps), distinct(value, wrong), heatmap=heat)
