"""Provides multi-head attention in NumPy, written to be read: parameters, softmax, masks, forward pass.

    Q = x W_Q,  K = kv W_K,  V = kv W_V          project the tokens (kv = x for self-attention)
    split Q into h heads, K and V into n_kv       each head works in d_head = d_model / h dims
    scores  = Q_i K_j^T / sqrt(d_head) (+ mask)   how well each query matches each key
    weights = softmax(scores) over the keys       each row sums to 1
    heads   = weights V_j                         a weighted average of the values
    output  = concat(heads) W_O                   W_O mixes what the heads found

Shape letters: B batch, T queries, S keys/values, d d_model, h query heads, n_kv key/value heads,
g = h // n_kv query heads per key/value head (1 for MHA, h for MQA), d_head per-head width.
This is the engine's reference, the one the app uses; engine.fast computes the same thing faster for
long sequences and is tested against this file.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

FloatArray = npt.NDArray[np.floating[Any]]
BoolArray = npt.NDArray[np.bool_]
FloatType = type[np.floating[Any]]
WEIGHTS = ("w_q", "w_k", "w_v", "w_o", "b_q", "b_k", "b_v", "b_o")


@dataclass(frozen=True, eq=False)
class AttentionParams:
    """One layer's weights, each applied as `x @ W` (torch stores the transpose); columns
    `i*d_head:(i+1)*d_head` of W_Q belong to head i. Biases are optional. Arrays are private read-only
    copies, so nothing derived from them can go stale."""

    w_q: FloatArray  # (d, h*d_head)
    w_k: FloatArray  # (d, n_kv*d_head)
    w_v: FloatArray  # (d, n_kv*d_head)
    w_o: FloatArray  # (h*d_head, d)
    n_heads: int
    n_kv_heads: int
    b_q: FloatArray | None = None  # (h*d_head,)
    b_k: FloatArray | None = None  # (n_kv*d_head,)
    b_v: FloatArray | None = None  # (n_kv*d_head,)
    b_o: FloatArray | None = None  # (d,)

    def __post_init__(self) -> None:
        h, n_kv = self.n_heads, self.n_kv_heads
        if h < 1 or n_kv < 1:
            raise ValueError(f"n_heads={h} and n_kv_heads={n_kv} must both be at least 1")
        if h % n_kv:
            raise ValueError(f"n_heads={h} is not divisible by n_kv_heads={n_kv}")
        for name in WEIGHTS:
            if getattr(self, name) is not None:
                copy = np.array(getattr(self, name))  # same shape, our own copy
                copy.flags.writeable = False
                object.__setattr__(self, name, copy)
        if self.w_q.ndim != 2 or self.w_q.shape[1] % h:
            raise ValueError(
                f"w_q has shape {self.w_q.shape}; expected (d_model, n_heads*d_head), n_heads={h}"
            )
        d, dh = self.d_model, self.d_head
        shapes = {"w_q": (d, h * dh), "w_k": (d, n_kv * dh), "w_v": (d, n_kv * dh), "w_o": (h * dh, d),
                  "b_q": (h * dh,), "b_k": (n_kv * dh,), "b_v": (n_kv * dh,), "b_o": (d,)}  # fmt: skip
        for name, shape in shapes.items():
            array = getattr(self, name)
            if array is not None and array.shape != shape:
                raise ValueError(
                    f"{name} has shape {array.shape}; expected {shape} for d_model={d}, n_heads={h}, "
                    f"n_kv_heads={n_kv}, d_head={dh}"
                )
            if array is not None and not np.isfinite(array).all():
                raise ValueError(f"{name} contains NaN or infinite values")

    @property
    def d_model(self) -> int:
        return int(self.w_q.shape[0])

    @property
    def d_head(self) -> int:
        return int(self.w_q.shape[1]) // self.n_heads

    @property
    def group_size(self) -> int:
        """Query heads sharing one key/value head: 1 for MHA, n_heads for MQA."""
        return self.n_heads // self.n_kv_heads


@dataclass(frozen=True, eq=False)
class AttentionResult:
    """Every stage of one forward pass, so a learner can look inside; (T, d) input drops the B axis."""

    output: FloatArray  # (B, T, d), or (B, T, h*d_head) without W_O
    weights: FloatArray  # (B, h, T, S): softmax rows sum to 1 (0 where every key is masked)
    heads: FloatArray  # (B, h, T, d_head): each head's weighted average of the values
    scores: FloatArray  # (B, h, T, S): scaled scores plus the mask (-inf where masked)


def init_attention(
    d_model: int,
    n_heads: int,
    n_kv_heads: int | None = None,
    seed: int = 0,
    bias: bool = False,
    dtype: npt.DTypeLike = np.float32,
) -> AttentionParams:
    """Random weights with std 1/sqrt(d_model), so scores start neither flat nor saturated.
    n_kv_heads=None is standard MHA (n_kv = h); 1 is MQA."""
    n_kv = n_heads if n_kv_heads is None else n_kv_heads
    if min(d_model, n_heads, n_kv) < 1:
        raise ValueError(f"d_model={d_model}, n_heads={n_heads}, n_kv_heads={n_kv} must all be at least 1")
    if d_model % n_heads:
        raise ValueError(f"d_model={d_model} is not divisible by n_heads={n_heads}")
    rng, dh = np.random.default_rng(seed), d_model // n_heads

    def draw(*shape: int) -> FloatArray:
        return rng.normal(0.0, 1.0 / math.sqrt(d_model), size=shape).astype(dtype)  # shape

    w = {"w_q": draw(d_model, n_heads * dh), "w_k": draw(d_model, n_kv * dh),  # (d, h*dh), (d, n_kv*dh)
         "w_v": draw(d_model, n_kv * dh), "w_o": draw(n_heads * dh, d_model)}  # fmt: skip
    if bias:
        w |= {"b_q": draw(n_heads * dh), "b_k": draw(n_kv * dh), "b_v": draw(n_kv * dh), "b_o": draw(d_model)}
    return AttentionParams(n_heads=n_heads, n_kv_heads=n_kv, **w)


def softmax(x: npt.ArrayLike, axis: int = -1) -> FloatArray:
    """Positive weights that sum to 1 along `axis`; a row that is all -inf gives zeros, never NaN.

    The row maximum is subtracted first: softmax(x) = softmax(x - c), and exp can then never overflow.
    """
    a = np.asarray(x)  # (..., n)
    a = a if np.issubdtype(a.dtype, np.floating) else a.astype(np.float64)  # (..., n)
    if np.isnan(a).any() or (a == np.inf).any():
        raise ValueError("softmax input contains NaN or +inf")
    return _softmax(a, axis)


def _softmax(x: FloatArray, axis: int = -1) -> FloatArray:
    lowest = np.finfo(x.dtype).min  # a fully masked row subtracts this finite number, not -inf
    row_max: FloatArray = x.max(axis=axis, keepdims=True, initial=lowest)  # (..., 1)
    e: FloatArray = np.exp(x - row_max)  # (..., n): every exponent <= 0, so nothing overflows
    total = e.sum(axis=axis, keepdims=True)  # (..., 1): >= 1 (the max gives exp(0)), 0 if fully masked
    e /= np.maximum(total, 1.0)  # (..., n): rows sum to 1; a fully masked row stays 0, never 0/0
    return e


@functools.lru_cache(maxsize=64)
def causal_mask(T: int, S: int | None = None) -> BoolArray:
    """True where query t may attend to key s: s <= t. Aligned top-left when S != T, like torch's
    `is_causal` (`torch.ones(T, S).tril()`)."""
    S = T if S is None else S
    if T < 1 or S < 1:
        raise ValueError(f"causal_mask needs T={T} and S={S} to be at least 1")
    mask = np.tri(T, S, dtype=bool)  # (T, S): made once per size, shared read-only
    mask.flags.writeable = False
    return mask


def check_mask(mask: str | npt.ArrayLike | None, shape: tuple[int, int, int, int]) -> Any:
    """The mask made ready for scores of `shape` (B, h, T, S): None, "causal", or an array that
    broadcasts to it, boolean (True = may attend) or additive float (-inf blocks)."""
    if mask is None or isinstance(mask, str):
        if mask not in (None, "causal"):
            raise ValueError(f"mask={mask!r} is not understood; use 'causal', a bool array or a float array")
        return mask
    m = np.asarray(mask)  # broadcastable to (B, h, T, S)
    try:
        fits = m.ndim <= 4 and np.broadcast_shapes(m.shape, shape) == shape
    except ValueError:
        fits = False
    if not fits:
        raise ValueError(
            f"mask of shape {m.shape} does not broadcast to the scores' shape {shape} (B, H, T, S)"
        )
    if m.dtype != np.bool_ and not np.issubdtype(m.dtype, np.floating):
        raise ValueError(f"mask has dtype {m.dtype}; use a bool array (True = may attend) or a float array")
    if m.dtype != np.bool_ and (np.isnan(m).any() or (m == np.inf).any()):
        raise ValueError("additive mask contains NaN or +inf; use -inf (or a large negative number) to block")
    return m


def multi_head_attention(
    x: npt.ArrayLike,
    p: AttentionParams,
    mask: str | npt.ArrayLike | None = None,
    kv: npt.ArrayLike | None = None,
    drop_output_projection: bool = False,
    tie_heads: bool = False,
) -> AttentionResult:
    """Multi-head, grouped-query or multi-query attention on x (T, d) or (B, T, d).

    `kv` (S, d) or (B, S, d) gives cross-attention. `mask` is "causal" or an array (see check_mask).
    `tie_heads` gives every head head 0's projections ("all heads the same"). `drop_output_projection`
    returns concat(heads) with no W_O: each output slice then comes from one head only. float64 input
    computes in float64, anything else in float32.
    """
    xb, kvb, unbatched = as_batches(x, kv, p.d_model)  # (B, T, d), (B, S, d)
    dtype: FloatType = np.float64 if xb.dtype == np.float64 else np.float32
    h, n_kv, dh = p.n_heads, p.n_kv_heads, p.d_head
    B, T, S = xb.shape[0], xb.shape[1], kvb.shape[1]
    m = check_mask(mask, (B, h, T, S))
    w = _compute_weights(p, dtype, tie_heads)

    def heads_of(tokens: FloatArray, name: str, n: int) -> FloatArray:
        projected: FloatArray = tokens.astype(dtype, copy=False) @ w["w_" + name]  # (B, n_tok, n'*dh)
        if "b_" + name in w:
            projected += w["b_" + name]  # (B, n_tok, n'*dh)
        split = projected.reshape(B, -1, projected.shape[-1] // dh, dh)  # (B, n_tok, n', dh)
        split = split.transpose(0, 2, 1, 3)  # (B, n', n_tok, dh)
        copies = n // split.shape[1]  # 1, or n for tied heads: head 0's projection n times over
        return split if copies == 1 else np.repeat(split, copies, axis=1)  # (B, n, n_tok, dh)

    q = heads_of(xb, "q", h)  # (B, h, T, dh)
    k, v = heads_of(kvb, "k", n_kv), heads_of(kvb, "v", n_kv)  # (B, n_kv, S, dh) each
    if n_kv < h:  # GQA/MQA: query head i reads K/V head i // g, as torch's repeat_interleave lays them out
        k, v = np.repeat(k, h // n_kv, axis=1), np.repeat(v, h // n_kv, axis=1)  # (B, h, S, dh) each
    scores = q @ k.swapaxes(-1, -2) / math.sqrt(dh)  # (B, h, T, S)
    if isinstance(m, str):
        scores = np.where(causal_mask(T, S), scores, -np.inf)  # (B, h, T, S)
    elif m is not None and m.dtype == np.bool_:
        scores = np.where(m, scores, -np.inf)  # (B, h, T, S)
    elif m is not None:
        scores = (scores + m).astype(dtype, copy=False)  # (B, h, T, S)
    weights = _softmax(scores)  # (B, h, T, S)
    heads = weights @ v  # (B, h, T, dh)
    concat = heads.transpose(0, 2, 1, 3).reshape(B, T, h * dh)  # (B, T, h*dh)
    output = concat if drop_output_projection else concat @ w["w_o"]  # (B, T, d)
    if not drop_output_projection and "b_o" in w:
        output += w["b_o"]  # (B, T, d)
    if unbatched:
        return AttentionResult(output=output[0], weights=weights[0], heads=heads[0], scores=scores[0])
    return AttentionResult(output=output, weights=weights, heads=heads, scores=scores)


def _compute_weights(p: AttentionParams, dtype: FloatType, tie_heads: bool) -> dict[str, FloatArray]:
    """The weights present, in the compute dtype; tied, only head 0's columns, which every head then
    shares (the same numbers, bit for bit)."""
    out: dict[str, FloatArray] = {}
    for name in WEIGHTS:
        given = getattr(p, name)
        if given is not None:
            a = given.astype(dtype, copy=False)  # (d, n*dh), (n*dh, d), (n*dh,) or (d,)
            out[name] = a[..., : p.d_head] if tie_heads and name[-1] != "o" else a  # head 0's columns

    return out


def as_batches(x: npt.ArrayLike, kv: npt.ArrayLike | None, d: int) -> tuple[FloatArray, FloatArray, bool]:
    """x and kv as (B, n, d) batches of finite tokens, and whether x came without a batch axis."""
    xa = np.asarray(x)  # (T, d) or (B, T, d)
    kva = xa if kv is None else np.asarray(kv)  # (S, d) or (B, S, d)
    for name, a in (("x", xa), ("kv", kva)) if kv is not None else (("x", xa),):
        if a.ndim not in (2, 3) or a.shape[-1] != d or a.shape[-2] < 1 or a.size == 0:
            raise ValueError(f"{name} has shape {a.shape}; expected (T, {d}) or (B, T, {d}) for d_model={d}")
        if a.dtype.kind not in "fiu":
            raise ValueError(f"{name} has dtype {a.dtype}; expected real numbers")
        if a.dtype.kind == "f" and not np.isfinite(a).all():
            raise ValueError(f"{name} contains NaN or infinite values")
    if kva.ndim != xa.ndim or kva.shape[:-2] != xa.shape[:-2]:
        raise ValueError(f"kv has shape {kva.shape} but x has shape {xa.shape}; their batch sizes must match")
    if xa.ndim == 3:
        return xa, kva, False
    return xa[None], kva[None], True  # (1, T, d), (1, S, d)
