"""Provides the softmax's backward pass: its Jacobian and the gradient of one score."""

from __future__ import annotations

from typing import Annotated

import numpy as np
import numpy.typing as npt

from engine.calculator import Param, register, result
from engine.derivation import Derivation, Mistake, Step

Matrix = npt.NDArray[np.float64]
ProbRow = Annotated[Matrix, Param("softmax output, one row (1, n)")]


def _probs(p: Matrix) -> Matrix:
    arr = np.asarray(p, dtype=np.float64)  # (1, n)
    if arr.ndim != 2 or arr.shape[0] != 1 or arr.shape[1] < 2:
        raise ValueError(f"p must be one row of at least 2 probabilities, shape (1, n); got {arr.shape}")
    row: Matrix = arr[0]  # (n,)
    if (row < 0).any() or abs(float(row.sum()) - 1.0) > 1e-6:
        raise ValueError(f"p={row.tolist()} must be non-negative and sum to 1 (sum {row.sum():.6g})")
    return row


def _idx(name: str, i: int, n: int) -> None:
    if not 0 <= i < n:
        raise ValueError(f"{name}={i} is outside 0..{n - 1}")


JACOBIAN_SIGN = Mistake(
    "jacobian-sign",
    "You flipped the sign: p p^T - diag(p)",
    "Raising s_i raises p_i, so the diagonal is positive, p_i (1 - p_i); off-diagonal entries are negative.",
)
DIAG_ONLY = Mistake(
    "diag-only",
    "You kept only diag(p)",
    "Every p_i shares the normaliser, so each score moves every weight: subtract p p^T.",
)
OUTER_ONLY = Mistake(
    "outer-only", "You kept only -p p^T", "The diagonal also gets + p_i from differentiating exp(s_i) itself."
)


@register(
    summary="One entry of the softmax Jacobian J = diag(p) - p p^T: p_i (1 - p_i) on the diagonal, "
    "-p_i p_j off it.",
    unit="",
    misconceptions=(JACOBIAN_SIGN, DIAG_ONLY, OUTER_ONLY),
)
def softmax_jacobian_entry(
    p: ProbRow,
    row: Annotated[int, Param("i, the output p_i being differentiated (0-based)")],
    col: Annotated[int, Param("j, the score s_j it is differentiated by (0-based)")],
    *,
    worked: bool = True,
) -> Derivation:
    """d p_i / d s_j = p_i (delta_ij - p_j): raising one score pulls every other weight down."""
    pr = _probs(p)
    n = pr.shape[0]
    _idx("row", row, n)
    _idx("col", col, n)
    jac = np.diag(pr) - np.outer(pr, pr)  # (n, n)
    value = float(jac[row, col])
    if not worked:
        return result(value)
    pi, pj = float(pr[row]), float(pr[col])
    outer_label, diag_label, entry_label = "Outer term", "Diagonal term", f"J[{row}, {col}]"
    steps = [
        Step(outer_label, f"p_{row} x p_{col}", f"{pi:.6g} x {pj:.6g}", pi * pj),
        Step(
            diag_label,
            f"diag(p)[{row}, {col}]",
            f"p_{row}" if row == col else "0 (off the diagonal)",
            float(row == col) * pi,
        ),
        Step(entry_label, "diag(p)[i, j] - p_i p_j", f"{float(row == col) * pi:.6g} - {pi * pj:.6g}", value),
    ]
    wrong = [
        JACOBIAN_SIGN.gives(-value, entry_label),
        DIAG_ONLY.gives(float(row == col) * pi, entry_label),
        OUTER_ONLY.gives(-pi * pj, diag_label),
    ]
    return result(value, tuple(steps), wrong)


UNWEIGHTED_MEAN = Mistake(
    "unweighted-mean",
    "You subtracted the plain mean of g",
    "The term comes from p p^T, so the mean of g is weighted by p.",
)


@register(
    summary="One entry of the softmax backward pass: dL/ds_j = p_j (g_j - sum_k p_k g_k), i.e. J^T g.",
    unit="",
    misconceptions=(DIAG_ONLY, JACOBIAN_SIGN, UNWEIGHTED_MEAN),
)
def softmax_grad_entry(
    p: ProbRow,
    grad: Annotated[Matrix, Param("upstream gradient g = dL/dp, one row (1, n)")],
    col: Annotated[int, Param("j, the score whose gradient is asked (0-based)")],
    *,
    worked: bool = True,
) -> Derivation:
    """The backward pass never builds J: it needs p, g and one dot product p . g per row."""
    pr = _probs(p)
    g = np.asarray(grad, dtype=np.float64)  # (1, n)
    if g.shape != (1, pr.shape[0]):
        raise ValueError(f"grad has shape {g.shape}; it must match p, shape (1, {pr.shape[0]})")
    gr = g[0]  # (n,)
    _idx("col", col, pr.shape[0])
    jac = np.diag(pr) - np.outer(pr, pr)  # (n, n)
    ds = jac.T @ gr  # (n, n) @ (n,) -> (n,)
    dot = float(pr @ gr)  # (n,) . (n,) -> scalar
    value = float(pr[col] * (gr[col] - dot))
    if not worked:
        return result(value)
    assert abs(value - float(ds[col])) <= 1e-9 * max(1.0, abs(value))
    terms = " + ".join([f"({a:.4g})({c:.4g})" for a, c in zip(pr.tolist(), gr.tolist(), strict=True)])
    dot_label, entry_label = "Weighted mean of g", f"ds[{col}]"
    pj, gj = float(pr[col]), float(gr[col])
    steps = [
        Step(dot_label, "p . g = sum_k p_k g_k", terms, dot),
        Step(entry_label, f"p_{col} x (g_{col} - p . g)", f"{pj:.6g} x ({gj:.6g} - {dot:.6g})", value),
    ]
    wrong = [
        DIAG_ONLY.gives(
            pj * gj,
            dot_label,
            label="You used only the diagonal: p_j g_j",
            explanation=(
                "The Jacobian also has -p p^T, which subtracts the p-weighted mean of g: p_j (g_j - p . g)."
            ),
        ),
        JACOBIAN_SIGN.gives(
            -value,
            entry_label,
            label="You flipped the sign",
            explanation="With J = diag(p) - p p^T the gradient is p_j (g_j - p . g), not p_j (p . g - g_j).",
        ),
        UNWEIGHTED_MEAN.gives(pj * (gj - float(gr.mean())), dot_label),
    ]
    return result(value, tuple(steps), wrong)
