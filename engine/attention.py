"""Provides multi-head attention in NumPy, written to be read top to bottom, as picoGPT's gpt2.py is.

    Q = x W_Q,  K = kv W_K,  V = kv W_V          project the tokens (kv = x for self-attention)
    split Q into h heads, K and V into n_kv       each head works in d_head = d_model / h dims
    scores  = Q_i K_j^T / sqrt(d_head) (+ mask)   how well each query matches each key
    weights = softmax(scores) over the keys       each row sums to 1
    heads   = weights V_j                         a weighted average of the values
    output  = concat(heads) W_O                   W_O mixes what the heads found

Shape letters: B batch, T queries, S keys/values, d d_model, h query heads, n_kv key/value heads,
g = h // n_kv query heads per key/value head (1 for MHA, h for MQA), dh = d_head per-head width.
The building blocks come first (softmax, causal_mask, linear, split_heads, merge_heads,
scaled_dot_product_attention), then multi_head_attention puts them together. Checks of the input live
in engine/validation.py, called once at each entry point. This is the engine's reference, the one the
app uses; benchmarks/fast/ computes the same thing faster for long sequences and is tested against this
file.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from engine import validation

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
        validation.check_head_counts(self.n_heads, self.n_kv_heads)
        for name in WEIGHTS:
            if getattr(self, name) is not None:
                copy = np.array(getattr(self, name))  # same shape, our own copy
                copy.flags.writeable = False
                object.__setattr__(self, name, copy)
        validation.check_params(self)

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

    output: FloatArray  # (B, T, d)
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
    validation.check_sizes(d_model, n_heads, n_kv)
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
    The maximum starts from the lowest finite float, so a fully masked row subtracts a number, not -inf.
    """
    x = validation.check_softmax_input(x)  # floats, no NaN or +inf
    x_max = x.max(axis=axis, keepdims=True, initial=np.finfo(x.dtype).min)  # [..., n] -> [..., 1]
    e: FloatArray = np.exp(x - x_max)  # [..., n] -> [..., n]: every exponent <= 0, exp(-inf) = 0
    e /= np.maximum(e.sum(axis=axis, keepdims=True), 1.0)  # [..., n] -> [..., n]: a row of 0s stays 0
    return e


@functools.lru_cache(maxsize=64)
def causal_mask(T: int, S: int | None = None) -> BoolArray:
    """True where query t may attend to key s: s <= t. Aligned top-left when S != T, like torch's
    `is_causal` (`torch.ones(T, S).tril()`). Made once per size and shared, read-only."""
    S = T if S is None else S
    validation.check_causal_sizes(T, S)
    mask = np.tri(T, S, dtype=bool)  # [] -> [T, S]: ones on and below the diagonal
    mask.flags.writeable = False
    return mask


def linear(x: FloatArray, w: FloatArray, b: FloatArray | None = None) -> FloatArray:
    """x @ w + b in x's dtype (the weights are cast to it)."""
    y: FloatArray = x @ w.astype(x.dtype, copy=False)  # [..., n_in] @ [n_in, n_out] -> [..., n_out]
    return y if b is None else y + b.astype(x.dtype, copy=False)  # [..., n_out] + [n_out] -> [..., n_out]


def split_heads(x: FloatArray, n_heads: int) -> FloatArray:
    """Cuts the feature axis into n_heads slices of d_head and moves the heads in front of the tokens."""
    B, T, width = x.shape
    return x.reshape(B, T, n_heads, width // n_heads).transpose(0, 2, 1, 3)  # [B, T, n*dh] -> [B, n, T, dh]


def merge_heads(x: FloatArray) -> FloatArray:
    """The inverse of split_heads: the heads' results side by side, concat(heads)."""
    B, h, T, d_head = x.shape
    return x.transpose(0, 2, 1, 3).reshape(B, T, h * d_head)  # [B, h, T, dh] -> [B, T, h*dh]


def scaled_dot_product_attention(
    q: FloatArray, k: FloatArray, v: FloatArray, mask: npt.NDArray[Any] | None = None
) -> tuple[FloatArray, FloatArray, FloatArray]:
    """(heads, weights, scores) of queries [..., T, dh] against keys and values [..., S, dh].

    `mask` broadcasts to [..., T, S]: bool (True = may attend, False gets -inf) or additive float.
    """
    scores = q @ k.swapaxes(-1, -2) / math.sqrt(q.shape[-1])  # [.., T, dh] @ [.., dh, S] -> [.., T, S]
    if mask is not None and mask.dtype == np.bool_:
        scores = np.where(mask, scores, -np.inf)  # [.., T, S] -> [.., T, S]: blocked keys -inf
    elif mask is not None:
        scores = (scores + mask).astype(scores.dtype, copy=False)  # [.., T, S] + [.., T, S] -> [.., T, S]
    weights = softmax(scores)  # [.., T, S] -> [.., T, S]: each row sums to 1 (0 if fully masked)
    return weights @ v, weights, scores  # [.., T, S] @ [.., S, dh] -> [.., T, dh]


def multi_head_attention(
    x: npt.ArrayLike,
    p: AttentionParams,
    mask: str | npt.ArrayLike | None = None,
    kv: npt.ArrayLike | None = None,
) -> AttentionResult:
    """Multi-head, grouped-query or multi-query attention of x [T, d] or [B, T, d] over kv (x if None).

    `mask` is None, "causal", a bool array (True = may attend) or an additive float array, broadcast to
    [B, h, T, S]; `kv` [S, d] or [B, S, d] gives cross-attention. float64 x computes in float64,
    anything else in float32. A [T, d] x gives results without the B axis.
    """
    x, kv, mask = validation.check_call(x, p, mask, kv)  # shapes, dtypes, finite values, the mask
    dtype: FloatType = np.float64 if x.dtype == np.float64 else np.float32  # f64 -> f64, other -> f32
    xb = x.astype(dtype, copy=False).reshape(-1, *x.shape[-2:])  # [T, d] or [B, T, d] -> [B, T, d]
    kvb = kv.astype(dtype, copy=False).reshape(-1, *kv.shape[-2:])  # [S, d] or [B, S, d] -> [B, S, d]

    q = split_heads(linear(xb, p.w_q, p.b_q), p.n_heads)  # [B, T, d] -> [B, h, T, dh]
    k = split_heads(linear(kvb, p.w_k, p.b_k), p.n_kv_heads)  # [B, S, d] -> [B, n_kv, S, dh]
    v = split_heads(linear(kvb, p.w_v, p.b_v), p.n_kv_heads)  # [B, S, d] -> [B, n_kv, S, dh]
    # GQA/MQA: query head i reads K/V head i // g (kv0 kv0 kv1 kv1), as torch's repeat_interleave.
    k = np.repeat(k, p.group_size, axis=1)  # [B, n_kv, S, dh] -> [B, h, S, dh]
    v = np.repeat(v, p.group_size, axis=1)  # [B, n_kv, S, dh] -> [B, h, S, dh]

    if isinstance(mask, str):
        mask = causal_mask(xb.shape[1], kvb.shape[1])  # "causal" -> [T, S]
    heads, weights, scores = scaled_dot_product_attention(q, k, v, mask)  # -> [B, h, T, dh], [B, h, T, S] x2
    output = linear(merge_heads(heads), p.w_o, p.b_o)  # [B, h, T, dh] -> [B, T, h*dh] -> [B, T, d]

    if x.ndim == 2:  # no batch axis came in, so none goes out
        return AttentionResult(output=output[0], weights=weights[0], heads=heads[0], scores=scores[0])
    return AttentionResult(output=output, weights=weights, heads=heads, scores=scores)
