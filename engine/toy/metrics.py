"""Provides the head scores of Olsson et al. (2022), "In-context learning and induction heads".

previous-token score: mean attention from position t to t-1 (t >= 1) on random tokens.
induction score:      on [A, A] with |A| = n, mean attention from each t in the second copy to t - n + 1,
                      the token right after the previous occurrence of the current token.
in-context loss:      mean loss on the second copy minus the first; negative = the model uses context.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from engine.toy.model import ToyModel, check_tokens, next_token_loss, run_model

FloatArray = npt.NDArray[np.floating[Any]]
IntArray = npt.NDArray[np.integer[Any]]


@dataclass(frozen=True, eq=False)
class HeadScores:
    """Per-head scores (layers, heads); the best previous-token head is sought in layer 0 and the best
    induction head in layer 1 (the last layer for a one-layer model), where the circuit puts them."""

    prev_token: FloatArray  # (L, H)
    induction: FloatArray  # (L, H)

    @property
    def best_prev_token(self) -> tuple[int, int, float]:
        head = int(np.argmax(self.prev_token[0]))
        return 0, head, float(self.prev_token[0, head])

    @property
    def best_induction(self) -> tuple[int, int, float]:
        layer = min(1, self.induction.shape[0] - 1)
        head = int(np.argmax(self.induction[layer]))
        return layer, head, float(self.induction[layer, head])


def head_scores(
    model: ToyModel,
    *,
    seed: int = 0,
    n_sequences: int = 16,
    length: int | None = None,
    ablate: Iterable[tuple[int, int]] = (),
) -> HeadScores:
    """Scores every head on `n_sequences` random sequences of 2*length tokens drawn from `seed`; with
    heads ablated, later layers' scores show what those heads fed them (the two-head circuit).
    length=None is min(24, max_len // 2)."""
    length = min(24, model.max_len // 2) if length is None else length
    if n_sequences < 1 or length < 2 or 2 * length > model.max_len:
        raise ValueError(
            f"head_scores needs n_sequences={n_sequences} >= 1 and 2 <= length={length} <= "
            f"max_len/2 = {model.max_len // 2}"
        )
    rng = np.random.default_rng(seed)
    V = model.vocab_size
    random = rng.integers(0, V, size=(n_sequences, 2 * length))  # (N, 2n)
    block = rng.integers(0, V, size=(n_sequences, length))  # (N, n)
    repeated = np.concatenate([block, block], axis=1)  # (N, 2n)
    prev, _ = scores_on(run_model(model, random, ablate=ablate).weights, length)  # (N, L, H)
    _, induction = scores_on(run_model(model, repeated, ablate=ablate).weights, length)  # (N, L, H)
    return HeadScores(prev_token=prev.mean(axis=0), induction=induction.mean(axis=0))


def scores_on(weights: FloatArray, period: int) -> tuple[FloatArray, FloatArray]:
    """(previous-token, induction) scores of every head on one pattern (..., T, T) of a sequence [A, A]
    with |A| = period: the mean of the stripe one below the diagonal (t >= 1), and of the stripe
    period - 1 below it over the second copy's queries. Shapes (...) each."""
    T = weights.shape[-1]
    if weights.shape[-2] != T or not period >= 1 or 2 * period != T:
        raise ValueError(
            f"scores_on needs weights (..., T, T) with T = 2 * period; got {weights.shape}, period={period}"
        )
    prev = np.diagonal(weights, offset=-1, axis1=-2, axis2=-1).mean(axis=-1)  # (...,)
    stripe = np.diagonal(weights, offset=-(period - 1), axis1=-2, axis2=-1)  # (..., period+1): key t-n+1
    induction = stripe[..., 1:].mean(axis=-1)  # (...,): queries t = n .. 2n-1 only
    return prev, induction


def in_context_loss(
    model: ToyModel,
    tokens_or_batch: npt.ArrayLike,
    *,
    ablate: Iterable[tuple[int, int]] = (),
) -> float:
    """Mean loss on the second half of [A, A] minus the first half, over a sequence (2n,) or batch (B, 2n).

    First half: predicting tokens 1..n-1. Second half: predicting tokens n+1..2n-1; token n (the start of
    the copy) is left out, since nothing before it says the copy begins.
    """
    t = np.asarray(tokens_or_batch)  # (T,) or (B, T)
    rows = t[None] if t.ndim == 1 else t  # (B, T)
    if rows.ndim != 2 or rows.shape[1] % 2 or rows.shape[1] < 4:
        raise ValueError(f"in_context_loss needs [A, A] rows of even length >= 4, got shape {t.shape}")
    checked = np.stack([check_tokens(row, model.config) for row in rows])  # (B, T)
    n = rows.shape[1] // 2
    run = run_model(model, checked, ablate=ablate)
    loss = next_token_loss(run.logits, checked)  # (B, T-1)
    first, second = loss[:, : n - 1], loss[:, n:]  # (B, n-1) each
    return float(second.mean() - first.mean())
