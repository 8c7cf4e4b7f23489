"""Provides training: Adam on repeated random sequences, reporting head scores as the heads form."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from engine.blas import blas_on_one_thread
from engine.toy.backward import loss_and_grads
from engine.toy.data import training_batch
from engine.toy.metrics import head_scores
from engine.toy.model import ToyConfig, ToyModel

FloatArray = npt.NDArray[np.floating[Any]]

DEFAULT_SEED = 0
DEFAULT_STEPS = 1200
DEFAULT_LR = 3e-3
DEFAULT_BATCH = 32
DEFAULT_SEQ_LEN = 48
EMBED_STD = 1.0
"""Unit-scale embeddings: q.k scores start near unit size, so attention is neither flat nor saturated."""
UNEMBED_STD = 0.02
"""Near-zero logits at the start: the loss starts at ln(vocab), not above it."""


@dataclass(frozen=True, eq=False)
class TrainProgress:
    """One report during training; `model` is a snapshot, safe to draw while training goes on."""

    step: int
    steps: int
    loss: float
    prev_token: float  # best layer-0 previous-token score
    induction: float  # best layer-1 induction score
    model: ToyModel


def init_params(config: ToyConfig, rng: np.random.Generator) -> dict[str, FloatArray]:
    """Normal weights in float32, std 1/sqrt(d_model) for maps out of the residual stream so scores and
    logits start near flat, and a smaller std for the embeddings so no position or token starts loud."""
    d = config.d_model
    params: dict[str, FloatArray] = {}
    for name, shape in config.shapes().items():
        std = (
            EMBED_STD if name in ("embed", "pos") else UNEMBED_STD if name == "unembed" else 1.0 / np.sqrt(d)
        )
        params[name] = (rng.standard_normal(shape) * std).astype(np.float32)  # (shape)
    return params


def train(
    config: ToyConfig | None = None,
    *,
    seed: int = DEFAULT_SEED,
    steps: int = DEFAULT_STEPS,
    on_progress: Callable[[TrainProgress], bool | None] | None = None,
    progress_every: int = 50,
    lr: float = DEFAULT_LR,
    batch_size: int = DEFAULT_BATCH,
    seq_len: int = DEFAULT_SEQ_LEN,
) -> ToyModel:
    """Trains from `seed` (same seed, same weights, bit for bit). on_progress runs every
    `progress_every` steps and after the last; returning False stops early with the model so far."""
    config = ToyConfig() if config is None else config
    if steps < 0 or progress_every < 1 or batch_size < 1 or not lr > 0:
        raise ValueError(
            f"train needs steps={steps} >= 0, progress_every={progress_every} >= 1, "
            f"batch_size={batch_size} >= 1 and lr={lr} > 0"
        )
    if not 4 <= seq_len <= config.max_len:
        raise ValueError(f"train needs 4 <= seq_len={seq_len} <= max_len={config.max_len}")
    rng = np.random.default_rng(seed)
    params = init_params(config, rng)
    adam = _Adam(params, lr)
    with blas_on_one_thread():  # BLAS's own threads would fight any other busy thread: 10x slower
        done = _steps(
            config, params, adam, rng, steps, seed, batch_size, seq_len, on_progress, progress_every
        )
    return ToyModel(config, params, seed=seed, steps=done)


def _steps(
    config: ToyConfig,
    params: dict[str, FloatArray],
    adam: _Adam,
    rng: np.random.Generator,
    steps: int,
    seed: int,
    batch_size: int,
    seq_len: int,
    on_progress: Callable[[TrainProgress], bool | None] | None,
    progress_every: int,
) -> int:
    """Runs the Adam steps; returns how many ran (fewer when on_progress stopped it)."""
    done = 0
    for step in range(1, steps + 1):
        tokens = training_batch(
            rng, batch_size, seq_len, config.vocab_size, min_repeat=max(1, seq_len // 4)
        )  # (B, T)
        loss, grads = loss_and_grads(config, params, tokens)
        adam.update(params, grads)
        done = step
        if on_progress is not None and (step % progress_every == 0 or step == steps):
            snapshot = ToyModel(config, params, seed=seed, steps=step)
            scores = head_scores(snapshot)
            report = TrainProgress(
                step, steps, loss, scores.best_prev_token[2], scores.best_induction[2], snapshot
            )
            if on_progress(report) is False:
                break
    return done


class _Adam:
    """Adam (Kingma & Ba 2015) with bias correction, updating the weight arrays in place."""

    def __init__(self, params: dict[str, FloatArray], lr: float, b1: float = 0.9, b2: float = 0.999) -> None:
        self.lr, self.b1, self.b2, self.eps, self.t = lr, b1, b2, 1e-8, 0
        self.m = {k: np.zeros_like(v) for k, v in params.items()}  # (shape) per parameter
        self.v = {k: np.zeros_like(v) for k, v in params.items()}  # (shape) per parameter

    def update(self, params: dict[str, FloatArray], grads: dict[str, FloatArray]) -> None:
        self.t += 1
        step = self.lr * np.sqrt(1 - self.b2**self.t) / (1 - self.b1**self.t)
        for name, g in grads.items():
            m, v = self.m[name], self.v[name]
            m *= self.b1
            m += (1 - self.b1) * g  # (shape)
            v *= self.b2
            v += (1 - self.b2) * g * g  # (shape)
            params[name] -= (step * m / (np.sqrt(v) + self.eps)).astype(params[name].dtype)  # (shape)
