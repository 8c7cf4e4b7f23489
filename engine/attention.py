"""Provides multi-head attention in NumPy: parameters, softmax, masks and the forward pass.

Read this file top to bottom to learn multi-head attention. The whole computation is

    Q = x W_Q,  K = kv W_K,  V = kv W_V                 project the tokens (kv = x for self-attention)
    split Q into h heads, K and V into n_kv heads         each head works in d_head = d_model / h dims
    scores  = Q_i K_j^T / sqrt(d_head)  (+ mask)          how well each query matches each key
    weights = softmax(scores) along the keys              each row sums to 1
    heads   = weights V_j                                 a weighted average of the values
    output  = concat(heads) W_O                           W_O mixes what the heads found

Shape letters used in every shape comment:
    B batch, T query positions, S key/value positions, d d_model, h query heads,
    n_kv key/value heads, g = h // n_kv query heads per key/value head, d_head per-head width.

Grouped-query attention (GQA, 1 < n_kv < h) and multi-query attention (MQA, n_kv = 1) let g query
heads share one key/value head: query head i reads key/value head i // g, as torch's
`repeat_interleave` does. Queries are reshaped to (B, n_kv, g, T, d_head) and keys to
(B, n_kv, 1, S, d_head), so matmul broadcasts each key/value head over its g query heads and the
repeated keys and values are never built.
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

_CAUSAL_BLOCKS = 8
"""With a causal mask, keys (for the scores) and queries (for the weighted values) go in up to this many
blocks, and a block skips the pairs that no query of it can see: (1 - 9/16) = 44% of the work."""
_MIN_CAUSAL_KEYS = 128
_MIN_CAUSAL_QUERIES = 128
"""Smaller causal blocks would cost more in NumPy and BLAS calls than they skip."""
_EXP_SAFE = 64.0
"""exp(+-64) is 6e27 and 1.6e-28: inside float32's normal range with room for 10^10 keys in a sum, so
scores this small need no max subtracted before exp."""


# --------------------------------------------------------------------------------------------------
# 1. Parameters: four projection matrices, acting as x @ W
# --------------------------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class AttentionParams:
    """The learned weights of one attention layer; W_Q has h heads, W_K and W_V have n_kv heads.

    Every weight acts as `x @ W`, and its columns are laid out head by head: columns
    `i*d_head:(i+1)*d_head` of W_Q belong to head i. (torch stores the transpose and computes
    `x @ W.T`.) Biases are optional.
    """

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
        for name in ("w_q", "w_k", "w_v", "w_o", "b_q", "b_k", "b_v", "b_o"):  # accept nested lists too
            if getattr(self, name) is not None:
                object.__setattr__(self, name, np.asarray(getattr(self, name)))  # same shape, as an array
        h, n_kv = self.n_heads, self.n_kv_heads
        if h < 1 or n_kv < 1:
            raise ValueError(f"n_heads={h} and n_kv_heads={n_kv} must both be at least 1")
        if h % n_kv:
            raise ValueError(f"n_heads={h} is not divisible by n_kv_heads={n_kv}")
        if self.w_q.ndim != 2 or self.w_q.shape[1] % h:
            raise ValueError(
                f"w_q has shape {self.w_q.shape}; expected (d_model, n_heads*d_head), n_heads={h}"
            )
        d, d_head = self.w_q.shape[0], self.w_q.shape[1] // h
        expected = {
            "w_q": ((d, h * d_head), self.w_q),
            "w_k": ((d, n_kv * d_head), self.w_k),
            "w_v": ((d, n_kv * d_head), self.w_v),
            "w_o": ((h * d_head, d), self.w_o),
            "b_q": ((h * d_head,), self.b_q),
            "b_k": ((n_kv * d_head,), self.b_k),
            "b_v": ((n_kv * d_head,), self.b_v),
            "b_o": ((d,), self.b_o),
        }
        for name, (shape, array) in expected.items():
            if array is None:
                continue
            if array.shape != shape:
                raise ValueError(
                    f"{name} has shape {array.shape}; expected {shape} for d_model={d}, n_heads={h}, "
                    f"n_kv_heads={n_kv}, d_head={d_head}"
                )
            if not np.all(np.isfinite(array)):  # scalar: any NaN or inf?
                raise ValueError(f"{name} contains NaN or infinite values")

    @property
    def d_model(self) -> int:
        """Width of the tokens going in and coming out."""
        return int(self.w_q.shape[0])

    @property
    def d_head(self) -> int:
        """Width of one head: d_model / n_heads in the standard layout."""
        return int(self.w_q.shape[1]) // self.n_heads

    @property
    def group_size(self) -> int:
        """Query heads sharing one key/value head: 1 for MHA, n_heads for MQA."""
        return self.n_heads // self.n_kv_heads


@dataclass(frozen=True, eq=False)
class AttentionResult:
    """Everything one forward pass computed, so a learner can look inside every stage.

    Shapes are for batched input; with (T, d) input the leading B axis is dropped.
    """

    output: FloatArray  # (B, T, d), or (B, T, h*d_head) with drop_output_projection
    weights: FloatArray  # (B, h, T, S): softmax weights, each row sums to 1 (0 if fully masked)
    heads: FloatArray  # (B, h, T, d_head): each head's weighted average of the values
    scores: FloatArray  # (B, h, T, S): scaled scores plus the mask (-inf where masked): softmax input


def init_attention(
    d_model: int,
    n_heads: int,
    n_kv_heads: int | None = None,
    seed: int = 0,
    bias: bool = False,
    dtype: npt.DTypeLike = np.float32,
) -> AttentionParams:
    """Draws random weights with std 1/sqrt(d_model), so scores start neither flat nor saturated.

    n_kv_heads=None means standard multi-head attention (n_kv_heads = n_heads); 1 means MQA.
    """
    n_kv = n_heads if n_kv_heads is None else n_kv_heads
    if d_model < 1 or n_heads < 1 or n_kv < 1:
        raise ValueError(f"d_model={d_model}, n_heads={n_heads}, n_kv_heads={n_kv} must all be at least 1")
    if d_model % n_heads:
        raise ValueError(f"d_model={d_model} is not divisible by n_heads={n_heads}")
    if n_heads % n_kv:
        raise ValueError(f"n_heads={n_heads} is not divisible by n_kv_heads={n_kv}")
    rng = np.random.default_rng(seed)
    d_head = d_model // n_heads
    std = 1.0 / math.sqrt(d_model)

    def draw(*shape: int) -> FloatArray:
        return rng.normal(0.0, std, size=shape).astype(dtype)  # shape

    return AttentionParams(
        w_q=draw(d_model, n_heads * d_head),  # (d, h*d_head)
        w_k=draw(d_model, n_kv * d_head),  # (d, n_kv*d_head)
        w_v=draw(d_model, n_kv * d_head),  # (d, n_kv*d_head)
        w_o=draw(n_heads * d_head, d_model),  # (h*d_head, d)
        n_heads=n_heads,
        n_kv_heads=n_kv,
        b_q=draw(n_heads * d_head) if bias else None,  # (h*d_head,)
        b_k=draw(n_kv * d_head) if bias else None,  # (n_kv*d_head,)
        b_v=draw(n_kv * d_head) if bias else None,  # (n_kv*d_head,)
        b_o=draw(d_model) if bias else None,  # (d,)
    )


# --------------------------------------------------------------------------------------------------
# 2. Softmax and the causal mask
# --------------------------------------------------------------------------------------------------


def _softmax_into(x: FloatArray, out: FloatArray, axis: int = -1) -> None:
    """Writes softmax(x) into `out`; a row that is all -inf (nothing allowed) becomes all zeros."""
    row_max = x.max(axis=axis, keepdims=True)  # (..., 1)
    np.putmask(row_max, row_max == -np.inf, 0.0)  # (..., 1): a fully masked row subtracts 0, not -inf
    np.subtract(x, row_max, out=out)  # (..., n): every entry <= 0, so exp cannot overflow
    np.exp(out, out=out)  # (..., n): exp(-inf) = 0 for masked entries
    total = out.sum(axis=axis, keepdims=True)  # (..., 1)
    np.putmask(total, total == 0.0, 1.0)  # (..., 1): 0 * (1/1) = 0 for a fully masked row, never NaN
    np.reciprocal(total, out=total)  # (..., 1): one division per row ...
    np.multiply(out, total, out=out)  # (..., n): ... then a multiply per entry; rows sum to 1


def softmax(x: npt.ArrayLike, axis: int = -1) -> FloatArray:
    """Turns scores into weights that are positive and sum to 1 along `axis`.

    The row maximum is subtracted first: softmax(x) == softmax(x - c) for any c, and it keeps exp from
    overflowing. A row whose entries are all -inf gives all-zero weights, never NaN.
    """
    a = np.asarray(x)  # (..., n)
    if not np.issubdtype(a.dtype, np.floating):
        a = a.astype(np.float64)  # (..., n)
    if np.isnan(a).any() or (a == np.inf).any():  # scalar
        raise ValueError("softmax input contains NaN or +inf")
    out = np.empty_like(a)  # (..., n)
    if a.size:
        _softmax_into(a, out, axis)
    return out


def causal_mask(T: int, S: int | None = None) -> BoolArray:
    """Says which keys each query may attend to in a decoder: True = may attend.

    Query t sees keys 0..t. When S != T the triangle is aligned to the top-left, exactly like torch's
    `is_causal=True` (`torch.ones(T, S).tril()`): query t still sees keys 0..t, not the last t+1 keys.
    """
    S = T if S is None else S
    if T < 1 or S < 1:
        raise ValueError(f"causal_mask needs T={T} and S={S} to be at least 1")
    return np.tri(T, S, dtype=bool)  # (T, S): lower triangle including the diagonal


@dataclass(frozen=True)
class _Mask:
    """A mask checked and regrouped to the scores' (B, n_kv, g, T, S) layout by broadcasting."""

    causal: bool = False
    blocked: BoolArray | None = None  # (B, n_kv, g, T, S) view: True = may NOT attend
    additive: FloatArray | None = None  # (B, n_kv, g, T, S) view: added to the scores


def _prepare_mask(mask: str | npt.ArrayLike | None, B: int, h: int, n_kv: int, T: int, S: int) -> _Mask:
    """Checks the mask against the scores' shape (B, h, T, S) and splits its head axis for GQA."""
    if mask is None:
        return _Mask()
    if isinstance(mask, str):
        if mask != "causal":
            raise ValueError(f"mask={mask!r} is not understood; use 'causal', a bool array or a float array")
        return _Mask(causal=True)
    m = np.asarray(mask)  # broadcastable to (B, h, T, S)
    target = (B, h, T, S)
    try:
        fits = m.ndim <= 4 and np.broadcast_shapes(m.shape, target) == target
    except ValueError:
        fits = False
    if not fits:
        raise ValueError(
            f"mask of shape {m.shape} does not broadcast to the scores' shape {target} (B, H, T, S)"
        )
    grouped = (B, n_kv, h // n_kv, T, S)
    if m.dtype == np.bool_:
        return _Mask(blocked=np.broadcast_to(~m, target).reshape(grouped))  # (B, n_kv, g, T, S) view
    if not np.issubdtype(m.dtype, np.floating):
        raise ValueError(f"mask has dtype {m.dtype}; use a bool array (True = may attend) or a float array")
    if np.isnan(m).any() or (m == np.inf).any():  # scalar
        raise ValueError("additive mask contains NaN or +inf; use -inf (or a large negative number) to block")
    return _Mask(additive=np.broadcast_to(m, target).reshape(grouped))  # (B, n_kv, g, T, S) view


# --------------------------------------------------------------------------------------------------
# 3. The forward pass
# --------------------------------------------------------------------------------------------------


def multi_head_attention(
    x: npt.ArrayLike,
    p: AttentionParams,
    mask: str | npt.ArrayLike | None = None,
    kv: npt.ArrayLike | None = None,
    drop_output_projection: bool = False,
    tie_heads: bool = False,
) -> AttentionResult:
    """Runs multi-head (or grouped-query, or multi-query) attention on x (T, d) or (B, T, d).

    - `kv` (S, d) or (B, S, d) supplies the keys and values from another sequence (cross-attention);
      without it the sequence attends to itself (S = T).
    - `mask` is "causal", a bool array (True = may attend) or an additive float array; either array
      broadcasts to (B, H, T, S). "causal" is top-left aligned like torch's is_causal (see causal_mask).
    - A query row with no allowed key gets all-zero weights and so a zero head output, never NaN;
      W_O then maps that zero to b_o (a zero output when there is no bias).
    - `tie_heads=True` gives every head head 0's projections (K/V head 0 too): "all heads the same".
    - `drop_output_projection=True` returns the concatenated heads (B, T, h*d_head): no W_O, no b_o.
    - float64 input stays float64 (the weights are cast to it); any other input computes in float32.
    """
    h, n_kv, g, d, d_head = p.n_heads, p.n_kv_heads, p.group_size, p.d_model, p.d_head
    xb, kvb, unbatched = _as_batches(x, kv, d)  # (B, T, d), (B, S, d)
    dtype: FloatType = np.float64 if xb.dtype == np.float64 else np.float32
    xb, kvb = xb.astype(dtype, copy=False), kvb.astype(dtype, copy=False)  # (B, T, d), (B, S, d)
    B, T, S = xb.shape[0], xb.shape[1], kvb.shape[1]
    prepared = _prepare_mask(mask, B, h, n_kv, T, S)

    # Step 1. Project the tokens to queries, keys and values: one matmul each, all heads at once.
    q = _project(xb, p.w_q, p.b_q, h, d_head, tie_heads)  # (B, T, d) -> (B, T, h*d_head)
    k = _project(kvb, p.w_k, p.b_k, n_kv, d_head, tie_heads)  # (B, S, d) -> (B, S, n_kv*d_head)
    v = _project(kvb, p.w_v, p.b_v, n_kv, d_head, tie_heads)  # (B, S, d) -> (B, S, n_kv*d_head)
    q *= dtype(1.0 / math.sqrt(d_head))  # (B, T, h*d_head): scale T*d queries, not T*S scores

    # Step 2. Split the heads. Query head i = kv*g + j is member j of group kv and reads K/V head kv.
    q5 = q.reshape(B, T, n_kv, g, d_head).transpose(0, 2, 3, 1, 4)  # (B, n_kv, g, T, d_head) view
    k5 = k.reshape(B, S, n_kv, 1, d_head).transpose(0, 2, 3, 1, 4)  # (B, n_kv, 1, S, d_head) view
    v5 = v.reshape(B, S, n_kv, 1, d_head).transpose(0, 2, 3, 1, 4)  # (B, n_kv, 1, S, d_head) view

    # Steps 3 and 4. Scores, mask, softmax (see _scores_and_weights), then the weighted sum of the values.
    # Scores and weights are stored key-major, (.., S, T): the softmax then runs along a slow axis, which
    # NumPy vectorises across all queries at once, instead of one short row per call. Callers get
    # (.., T, S) views. One allocation holds both: two fresh blocks this size page-fault on every call.
    buf = np.empty((2, B, n_kv, g, S, T), dtype=dtype)  # (2, B, n_kv, g, S, T)
    scores_t, weights_t = buf[0], buf[1]  # (B, n_kv, g, S, T) each; (B, h, S, T) in memory
    _scores_and_weights(q5, k5, prepared, scores_t, weights_t)
    merged = np.empty((B, T, n_kv, g, d_head), dtype=dtype)  # (B, T, n_kv, g, d_head) is (B, T, h*d_head)
    heads5 = merged.transpose(0, 2, 3, 1, 4)  # (B, n_kv, g, T, d_head) view: heads land already merged
    _weighted_values(weights_t, v5, prepared.causal, heads5)

    # Step 5. Concatenate the heads (already done by the layout of `merged`) and let W_O mix them.
    output = merged.reshape(B, T, h * d_head)  # (B, T, h*d_head): a view, nothing copied
    if not drop_output_projection:
        output = output @ p.w_o.astype(dtype, copy=False)  # (B, T, h*d_head) @ (h*d_head, d) -> (B, T, d)
        if p.b_o is not None:
            output += p.b_o.astype(dtype, copy=False)  # (B, T, d)

    weights4 = weights_t.swapaxes(-1, -2).reshape(B, h, T, S)  # (B, h, T, S) view
    scores4 = scores_t.swapaxes(-1, -2).reshape(B, h, T, S)  # (B, h, T, S) view
    heads4 = heads5.reshape(B, h, T, d_head)  # (B, h, T, d_head) view of merged
    if unbatched:
        return AttentionResult(output=output[0], weights=weights4[0], heads=heads4[0], scores=scores4[0])
    return AttentionResult(output=output, weights=weights4, heads=heads4, scores=scores4)


def _as_batches(x: npt.ArrayLike, kv: npt.ArrayLike | None, d: int) -> tuple[FloatArray, FloatArray, bool]:
    """Checks x (and kv) are finite (T, d) or (B, T, d) tokens; returns them batched, and if x was not."""
    xa = np.asarray(x)  # (T, d) or (B, T, d)
    _check_tokens("x", xa, d)
    kva = xa if kv is None else np.asarray(kv)  # (S, d) or (B, S, d)
    if kv is not None:
        _check_tokens("kv", kva, d)
        if kva.ndim != xa.ndim or kva.shape[:-2] != xa.shape[:-2]:
            raise ValueError(
                f"kv has shape {kva.shape} but x has shape {xa.shape}; their batch sizes must match"
            )
    if xa.ndim == 2:
        return xa[None], kva[None], True  # (1, T, d), (1, S, d)
    return xa, kva, False


def _check_tokens(name: str, a: npt.NDArray[Any], d: int) -> None:
    """Rejects inputs that are not (n, d) or (B, n, d) tokens of finite real numbers."""
    if a.ndim not in (2, 3) or a.shape[-1] != d or a.shape[-2] < 1 or a.size == 0:
        raise ValueError(f"{name} has shape {a.shape}; expected (T, {d}) or (B, T, {d}) for d_model={d}")
    if not (np.issubdtype(a.dtype, np.floating) or np.issubdtype(a.dtype, np.integer)):
        raise ValueError(f"{name} has dtype {a.dtype}; expected real numbers")
    if not np.all(np.isfinite(a)):  # scalar
        raise ValueError(f"{name} contains NaN or infinite values")


def _project(
    a: FloatArray, w: FloatArray, b: FloatArray | None, n_heads: int, d_head: int, tie_heads: bool
) -> FloatArray:
    """a @ W (+ b) in a's dtype, for all heads at once; tied: head 0's projection copied to every head."""
    if tie_heads:  # the "force all heads the same" experiment: keep only head 0's columns ...
        w, b = w[:, :d_head], None if b is None else b[:d_head]  # (d, d_head), (d_head,)
    y = a @ w.astype(a.dtype, copy=False)  # (B, n, d) @ (d, n_heads*d_head) -> (B, n, n_heads*d_head)
    if b is not None:
        y += b.astype(a.dtype, copy=False)  # (B, n, n_heads*d_head)
    if tie_heads:  # ... and hand the very same projection to every head
        y = np.tile(y, n_heads)  # (B, n, d_head) -> (B, n, n_heads*d_head)
    return y


def _scores_and_weights(
    q5: FloatArray, k5: FloatArray, mask: _Mask, scores_t: FloatArray, weights_t: FloatArray
) -> None:
    """Steps 3 and 4a for every head at once: scaled scores, the mask, and the softmax over the keys.

    q5 (B, n_kv, g, T, d_head) and k5 (B, n_kv, 1, S, d_head) in; scores_t and weights_t
    (B, n_kv, g, S, T) written in place. Each step is one NumPy call over every head (measured: splitting
    the work into cache-sized blocks gained nothing here, and each extra BLAS call costs a thread
    hand-off). With a causal mask the keys go in blocks, and block s0.. is never scored against the
    queries before s0, which cannot see it.
    """
    S, T = scores_t.shape[-2:]
    lead = scores_t.shape[:3]  # (B, n_kv, g)
    step, future = S, None  # keys per block: all of them, unless a causal mask lets blocks skip work
    if mask.causal:
        step = min(S, max(_MIN_CAUSAL_KEYS, -(-S // _CAUSAL_BLOCKS)))
        future = _future_of_queries(step, scores_t.dtype.str)  # (keys, queries)
    blocks = [(s0, min(S, s0 + step), min(s0, T) if mask.causal else 0) for s0 in range(0, S, step)]
    q5_t = q5.swapaxes(-1, -2)  # (B, n_kv, g, d_head, T) view: Q^T, nothing copied
    for s0, s1, t0 in blocks:  # Step 3. Scores, key-major: keys s0:s1 against queries t0.. (all heads)
        scores_t[..., s0:s1, :t0] = -np.inf  # (B, n_kv, g, keys, t0): queries before key s0 (causal)
        weights_t[..., s0:s1, :t0] = 0.0  # (B, n_kv, g, keys, t0): ... give these keys no weight
        s = scores_t[..., s0:s1, t0:]  # (B, n_kv, g, keys, T - t0) view
        np.matmul(k5[..., s0:s1, :], q5_t[..., t0:], out=s)  # (.., 1, keys, d_head) @ (.., g, d_head, T-t0)
        if future is not None:
            n = min(s1 - s0, T - t0)  # the queries that some key of this block is in the future of
            s[..., :n] += future[: s1 - s0, :n]  # (B, n_kv, g, keys, n)
        if mask.blocked is not None:
            np.copyto(s, -np.inf, where=mask.blocked[..., t0:, s0:s1].swapaxes(-1, -2))  # (.., keys, T)
        if mask.additive is not None:
            s += mask.additive[..., t0:, s0:s1].swapaxes(-1, -2)  # (B, n_kv, g, keys, T)

    # Step 4a. Softmax over the keys. softmax(s) == softmax(s - c) for any c; c = the column max only
    # keeps exp from overflowing. When |q.k| <= |q||k| bounds every score within +-_EXP_SAFE, exp can
    # neither overflow nor underflow, so c = 0 and that pass is skipped.
    shift = None
    if mask.additive is not None or not _scores_are_bounded(q5, k5):
        shift = np.full((*lead, 1, T), -np.inf, dtype=scores_t.dtype)  # (B, n_kv, g, 1, T)
        for s0, s1, t0 in blocks:
            block_max = scores_t[..., s0:s1, t0:].max(axis=-2, keepdims=True)  # (B, n_kv, g, 1, T - t0)
            np.maximum(shift[..., t0:], block_max, out=shift[..., t0:])  # (B, n_kv, g, 1, T - t0)
        np.putmask(shift, shift == -np.inf, 0.0)  # (B, n_kv, g, 1, T): a fully masked query subtracts 0
    total = np.zeros((*lead, 1, T), dtype=scores_t.dtype)  # (B, n_kv, g, 1, T): each query's sum
    ones = np.ones((1, step), dtype=scores_t.dtype)  # (1, keys): ones @ w sums w over the keys, in BLAS
    for s0, s1, t0 in blocks:
        s, w = scores_t[..., s0:s1, t0:], weights_t[..., s0:s1, t0:]  # (B, n_kv, g, keys, T - t0) views
        if shift is None:
            np.exp(s, out=w)  # (B, n_kv, g, keys, T - t0): exp(-inf) = 0 for masked entries
        else:
            np.subtract(s, shift[..., t0:], out=w)  # (B, n_kv, g, keys, T - t0): every entry <= 0 ...
            np.exp(w, out=w)  # (B, n_kv, g, keys, T - t0): ... so exp cannot overflow
        total[..., t0:] += ones[:, : s1 - s0] @ w  # (1, keys) @ (.., keys, T - t0) -> (.., 1, T - t0)
    np.putmask(total, total == 0.0, 1.0)  # (B, n_kv, g, 1, T): a fully masked query keeps zeros, never NaN
    np.reciprocal(total, out=total)  # (B, n_kv, g, 1, T): one division per query ...
    np.multiply(weights_t, total, out=weights_t)  # (B, n_kv, g, S, T): ... then a multiply per weight


@functools.lru_cache(maxsize=16)
def _future_of_queries(n: int, dtype: str) -> FloatArray:
    """-inf where key s0+i is in the future of query s0+j (i > j), else 0; read-only, made once per size."""
    future = np.zeros((n, n), dtype=dtype)  # (keys, queries)
    future[np.tri(n, n, -1, dtype=bool)] = -np.inf  # (keys, queries): -inf below the diagonal
    future.flags.writeable = False
    return future


def _scores_are_bounded(q5: FloatArray, k5: FloatArray) -> bool:
    """True when Cauchy-Schwarz, |q.k| <= |q||k|, keeps every score of every head within +-_EXP_SAFE."""
    q_sq = np.vecdot(q5, q5).max(axis=-1)  # (B, n_kv, g, T) -> (B, n_kv, g): largest |q|^2 per head
    k_sq = np.vecdot(k5, k5).max(axis=-1)  # (B, n_kv, 1, S) -> (B, n_kv, 1): largest |k|^2 per head
    return bool((q_sq * k_sq).max() <= _EXP_SAFE**2)  # scalar


def _weighted_values(weights_t: FloatArray, v5: FloatArray, causal: bool, heads5: FloatArray) -> None:
    """Step 4b: each head's output, the weighted average of the values, written into heads5.

    weights_t (B, n_kv, g, S, T), v5 (B, n_kv, 1, S, d_head), heads5 (B, n_kv, g, T, d_head). With a
    causal mask, queries go in _CAUSAL_BLOCKS blocks, each reading only the keys it can see.
    """
    S, T = weights_t.shape[-2:]
    size = max(_MIN_CAUSAL_QUERIES, -(-T // _CAUSAL_BLOCKS)) if causal else T
    for t0 in range(0, T, size):
        t1 = min(T, t0 + size)
        n_keys = min(S, t1) if causal else S
        w = weights_t[..., :n_keys, t0:t1].swapaxes(-1, -2)  # (B, n_kv, g, queries, n_keys) view
        out = heads5[..., t0:t1, :]  # (B, n_kv, g, queries, d_head) view
        np.matmul(w, v5[..., :n_keys, :], out=out)  # (.., g, queries, n_keys) @ (.., 1, n_keys, d_head)
