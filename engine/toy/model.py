"""Provides the toy attention-only transformer: its config, its weights and its forward pass.

    x_0     = E[tokens] + P[:T]                  token plus learned position embedding
    x_{l+1} = x_l + attn_l(x_l)                  causal multi-head attention, no MLP, no LayerNorm
    logits  = x_L W_U                            read the residual stream out onto the vocabulary

Attention is engine.attention.multi_head_attention, the same reference the app shows learners, so the
heatmaps drawn from this model are the reference's own weights.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

import numpy as np
import numpy.typing as npt

from engine.attention import AttentionParams, AttentionResult, merge_heads, multi_head_attention

FloatArray = npt.NDArray[np.floating[Any]]
IntArray = npt.NDArray[np.integer[Any]]
LAYER_WEIGHTS = ("w_q", "w_k", "w_v", "w_o")


@dataclass(frozen=True)
class ToyConfig:
    """The toy's sizes; the defaults are the shipped model's (d_head = d_model / n_heads = 16)."""

    vocab_size: int = 48
    d_model: int = 64
    n_layers: int = 2
    n_heads: int = 4
    max_len: int = 64

    def __post_init__(self) -> None:
        sizes = {"vocab_size": self.vocab_size, "d_model": self.d_model, "n_layers": self.n_layers,
                 "n_heads": self.n_heads, "max_len": self.max_len}  # fmt: skip
        for name, value in sizes.items():
            if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < 1:
                raise ValueError(f"ToyConfig {name}={value!r} must be a positive integer")
        if self.vocab_size < 2 or self.max_len < 2:
            raise ValueError(
                f"ToyConfig vocab_size={self.vocab_size} and max_len={self.max_len} must be at least 2 "
                "(next-token prediction needs two tokens)"
            )
        if self.d_model % self.n_heads:
            raise ValueError(f"ToyConfig d_model={self.d_model} is not divisible by n_heads={self.n_heads}")

    @property
    def d_head(self) -> int:
        return self.d_model // self.n_heads

    def shapes(self) -> dict[str, tuple[int, ...]]:
        """Every parameter's name and shape; the order is the order of save files and gradients."""
        d, V = self.d_model, self.vocab_size
        out: dict[str, tuple[int, ...]] = {"embed": (V, d), "pos": (self.max_len, d)}
        for layer in range(self.n_layers):
            out |= {f"l{layer}.{name}": (d, d) for name in LAYER_WEIGHTS}
        out["unembed"] = (d, V)
        return out


@dataclass(frozen=True)
class ToyForward:
    """One sequence's forward pass: what the model predicts and where each head looked."""

    logits: FloatArray  # (T, V)
    weights: FloatArray  # (L, H, T, T)


@dataclass(frozen=True, eq=False)
class ToyModel:
    """A trained (or initial) toy; `params` holds private read-only copies, so a snapshot never changes
    under a UI that draws it while training goes on. `seed`/`steps` record how it was trained."""

    config: ToyConfig
    params: Mapping[str, FloatArray]
    seed: int | None = None
    steps: int | None = None
    _layers: tuple[AttentionParams, ...] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        expected = self.config.shapes()
        if set(self.params) != set(expected):
            missing, extra = (
                sorted(set(expected) - set(self.params)),
                sorted(set(self.params) - set(expected)),
            )
            raise ValueError(f"toy parameters do not match the config: missing {missing}, unexpected {extra}")
        copies: dict[str, FloatArray] = {}
        for name, shape in expected.items():
            array = np.array(self.params[name])  # (shape): our own copy
            if array.shape != shape:
                raise ValueError(f"toy parameter {name} has shape {array.shape}; expected {shape}")
            if array.dtype.kind != "f" or not np.isfinite(array).all():
                raise ValueError(f"toy parameter {name} must hold finite floats (dtype {array.dtype})")
            array.flags.writeable = False
            copies[name] = array
        object.__setattr__(self, "params", MappingProxyType(copies))
        h = self.config.n_heads
        layers = tuple(
            AttentionParams(n_heads=h, n_kv_heads=h, **{w: copies[f"l{i}.{w}"] for w in LAYER_WEIGHTS})
            for i in range(self.config.n_layers)
        )
        object.__setattr__(self, "_layers", layers)

    @property
    def vocab_size(self) -> int:
        return self.config.vocab_size

    @property
    def n_layers(self) -> int:
        return self.config.n_layers

    @property
    def n_heads(self) -> int:
        return self.config.n_heads

    @property
    def max_len(self) -> int:
        return self.config.max_len

    def forward(
        self,
        tokens: npt.ArrayLike,
        *,
        ablate: Iterable[tuple[int, int]] = (),
    ) -> ToyForward:
        """Logits and attention weights of one sequence; ablated (layer, head) pairs add nothing to the
        residual stream, which is how a head's job is shown: take it out and see what breaks."""
        t = check_tokens(tokens, self.config)  # (T,)
        run = run_model(self, t[None], ablate=ablate)
        return ToyForward(logits=run.logits[0], weights=run.weights[0])  # (T, V), (L, H, T, T)

    def attention_weights(
        self,
        tokens: npt.ArrayLike,
        *,
        ablate: Iterable[tuple[int, int]] = (),
    ) -> FloatArray:
        """(layers, heads, T, T): row t is where query t looked."""
        return self.forward(tokens, ablate=ablate).weights

    def loss(
        self,
        tokens: npt.ArrayLike,
        *,
        ablate: Iterable[tuple[int, int]] = (),
    ) -> FloatArray:
        """(T-1,): entry t is the cross-entropy of predicting token t+1 after reading tokens 0..t."""
        t = check_tokens(tokens, self.config, min_len=2)  # (T,)
        run = run_model(self, t[None], ablate=ablate)
        out: FloatArray = next_token_loss(run.logits, t[None])[0]  # (T-1,)
        return out


@dataclass(frozen=True, eq=False)
class ModelRun:
    """A batch's forward pass with what the backward pass needs: each layer's input and attention."""

    logits: FloatArray  # (B, T, V)
    inputs: tuple[FloatArray, ...]  # L+1 residual streams (B, T, d): x_0 .. x_L
    attention: tuple[AttentionResult, ...]  # per layer; output is concat(heads) (B, T, h*dh)

    @property
    def weights(self) -> FloatArray:
        """Every layer's attention, stacked only when asked (training never needs the copy)."""
        out: FloatArray = np.stack([a.weights for a in self.attention], axis=1)  # (B, L, H, T, T)
        return out


def check_tokens(tokens: npt.ArrayLike, config: ToyConfig, *, min_len: int = 1) -> IntArray:
    """One sequence of token ids, refused with the offending values named."""
    t = np.asarray(tokens)  # (T,)
    if t.ndim != 1:
        raise ValueError(f"tokens has shape {t.shape}; expected one sequence (T,)")
    if t.size and t.dtype.kind not in "iu":
        raise ValueError(f"tokens has dtype {t.dtype}; expected integer token ids")
    if not min_len <= t.size <= config.max_len:
        raise ValueError(f"tokens has length {t.size}; expected {min_len} to max_len={config.max_len}")
    low, high = int(t.min()), int(t.max())
    if low < 0 or high >= config.vocab_size:
        raise ValueError(
            f"tokens range from {low} to {high}; ids must lie in 0..{config.vocab_size - 1} "
            f"(vocab_size={config.vocab_size})"
        )
    return t.astype(np.int64, copy=False)


def check_ablate(ablate: Iterable[tuple[int, int]], config: ToyConfig) -> frozenset[tuple[int, int]]:
    """The (layer, head) pairs to silence, each checked against the config."""
    pairs = frozenset((int(layer), int(head)) for layer, head in ablate)
    for layer, head in sorted(pairs):
        if not (0 <= layer < config.n_layers and 0 <= head < config.n_heads):
            raise ValueError(
                f"ablate pair (layer={layer}, head={head}) is outside n_layers={config.n_layers}, "
                f"n_heads={config.n_heads}"
            )
    return pairs


def run_model(
    model: ToyModel,
    tokens: IntArray,
    *,
    ablate: Iterable[tuple[int, int]] = (),
) -> ModelRun:
    """The forward pass of a batch of checked token rows (B, T)."""
    return run_params(model.config, model._layers, model.params, tokens, ablate=ablate)


def run_params(
    config: ToyConfig,
    layers: tuple[AttentionParams, ...],
    params: Mapping[str, FloatArray],
    tokens: IntArray,
    *,
    ablate: Iterable[tuple[int, int]] = (),
) -> ModelRun:
    """The forward pass on raw weights, so training can run it without building a ToyModel each step.

    W_O is applied here to concat(heads), after ablated heads' slices of it are zeroed: every head's
    output then really is removed.
    """
    dead = check_ablate(ablate, config)
    dh = config.d_head
    T = tokens.shape[1]
    x = params["embed"][tokens] + params["pos"][:T]  # (B, T, d)
    inputs, attention = [x], []
    for i, layer in enumerate(layers):
        result = multi_head_attention(x, layer, mask="causal")
        concat = merge_heads(result.heads)  # (B, h, T, dh) -> (B, T, h*dh)
        heads = [head for (lay, head) in dead if lay == i]
        if heads:
            concat = concat.copy()  # (B, T, h*dh)
            for head in heads:
                concat[..., head * dh : (head + 1) * dh] = 0.0  # (B, T, dh)
        x = x + concat @ params[f"l{i}.w_o"]  # (B, T, d)
        inputs.append(x)
        attention.append(_with_output(result, concat))
    logits = x @ params["unembed"]  # (B, T, V)
    return ModelRun(logits=logits, inputs=tuple(inputs), attention=tuple(attention))


def _with_output(result: AttentionResult, concat: FloatArray) -> AttentionResult:
    return AttentionResult(output=concat, weights=result.weights, heads=result.heads, scores=result.scores)


def log_softmax(logits: FloatArray) -> FloatArray:
    """Log-probabilities over the last axis, computed stably."""
    shifted = logits - logits.max(axis=-1, keepdims=True)  # (..., V)
    out: FloatArray = shifted - np.log(np.exp(shifted).sum(axis=-1, keepdims=True))  # (..., V)
    return out


def next_token_loss(logits: FloatArray, tokens: IntArray) -> FloatArray:
    """(B, T-1): cross-entropy of each next token; the last position predicts nothing we can check."""
    logp = log_softmax(logits[:, :-1])  # (B, T-1, V)
    picked = np.take_along_axis(logp, tokens[:, 1:, None], axis=-1)[..., 0]  # (B, T-1)
    out: FloatArray = -picked  # (B, T-1)
    return out
