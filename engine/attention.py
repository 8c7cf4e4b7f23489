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
`repeat_interleave` does. Queries are reshaped to (B, n_kv, g, d_head, T) and keys to
(B, n_kv, 1, d_head, S), so matmul broadcasts each key/value head over its g query heads and the
repeated keys and values are never built.

Inside the forward pass tensors are feature-major (Q^T rather than Q) and scores key-major (S before T):
the same mathematics, laid out so that NumPy's calls run long and contiguous (see multi_head_attention).
Groups of heads run on all CPU cores at once (engine/threads.py).
"""

from __future__ import annotations

import contextlib
import functools
import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from engine.head_groups import ForwardPass, StackedWeights, head_groups, stack_weights
from engine.head_kernels import GroupMask
from engine.threads import blas_on_one_thread, parallel_parts, run_in_parallel

FloatArray = npt.NDArray[np.floating[Any]]
BoolArray = npt.NDArray[np.bool_]
FloatType = type[np.floating[Any]]

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
    _stacked: dict[tuple[FloatType, bool], StackedWeights] = field(
        default_factory=dict, init=False, repr=False
    )

    def __post_init__(self) -> None:
        for name in ("w_q", "w_k", "w_v", "w_o", "b_q", "b_k", "b_v", "b_o"):  # accept nested lists too
            if getattr(self, name) is not None:
                copy = np.array(getattr(self, name))  # same shape: a private, read-only copy, so that
                copy.flags.writeable = False  # what the forward pass derives from it stays true
                object.__setattr__(self, name, copy)
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

    def stacked(self, dtype: FloatType, tie_heads: bool) -> StackedWeights:
        """The weights rearranged for the forward pass, made on first use per dtype and tie_heads.

        Sound because the weights are read-only copies (see __post_init__).
        """
        key = (dtype, tie_heads)
        stacked = self._stacked.get(key)
        if stacked is None:
            stacked = self._stacked[key] = stack_weights(self, np.dtype(dtype), tie_heads)
        return stacked


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


def _prepare_mask(mask: str | npt.ArrayLike | None, B: int, h: int, n_kv: int, T: int, S: int) -> GroupMask:
    """Checks the mask against the scores' shape (B, h, T, S) and splits its head axis for GQA."""
    if mask is None:
        return GroupMask()
    if isinstance(mask, str):
        if mask != "causal":
            raise ValueError(f"mask={mask!r} is not understood; use 'causal', a bool array or a float array")
        return GroupMask(causal=True)
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
        return GroupMask(blocked=np.broadcast_to(~m, target).reshape(grouped))  # (B, n_kv, g, T, S) view
    if not np.issubdtype(m.dtype, np.floating):
        raise ValueError(f"mask has dtype {m.dtype}; use a bool array (True = may attend) or a float array")
    if np.isnan(m).any() or (m == np.inf).any():  # scalar
        raise ValueError("additive mask contains NaN or +inf; use -inf (or a large negative number) to block")
    return GroupMask(additive=np.broadcast_to(m, target).reshape(grouped))  # (B, n_kv, g, T, S) view


# --------------------------------------------------------------------------------------------------
# 3. The forward pass
# --------------------------------------------------------------------------------------------------


_PARALLEL_MIN_WORK = 1 << 20
"""Attention work (multiply-adds, an exp counted as 8) below which a call is not cut into groups: the two
threads would mostly take turns on Python's lock between NumPy's short calls (measured at T=32,
d_model=64, causal: 0.29 ms in two groups, 0.15 ms in one; at T=128 two groups win, 0.43 against 0.54).
The projections of a short sequence are then left to BLAS's own threads, which split a single large
matmul well."""


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

    The heads are independent until W_O mixes them, so the work is cut into groups of heads (or of
    sequences of the batch) that run on all cores at once (engine/head_groups.py, engine/threads.py).
    """
    h, n_kv, g, d, d_head = p.n_heads, p.n_kv_heads, p.group_size, p.d_model, p.d_head
    xb, kvb, unbatched = _as_batches(x, kv, d)  # (B, T, d), (B, S, d)
    dtype: FloatType = np.float64 if xb.dtype == np.float64 else np.float32
    xb, kvb = xb.astype(dtype, copy=False), kvb.astype(dtype, copy=False)  # (B, T, d), (B, S, d)
    B, T, S = xb.shape[0], xb.shape[1], kvb.shape[1]
    prepared = _prepare_mask(mask, B, h, n_kv, T, S)
    stacked = p.stacked(dtype, tie_heads)  # the weights in the forward pass's layout

    # What the groups fill in. Scores and weights are stored key-major, (.., S, T), and callers get
    # (.., T, S) views (engine/head_kernels.py says why); one allocation holds both, since two fresh
    # blocks this size page-fault on every call. heads_t is the concatenation of the heads, transposed.
    buf = np.empty((2, B, n_kv, g, S, T), dtype=dtype)  # (2, B, n_kv, g, S, T)
    scores_t, weights_t = buf[0], buf[1]  # (B, n_kv, g, S, T) each; (B, h, S, T) in memory
    heads_t = np.empty((B, n_kv, g, d_head, T), dtype=dtype)  # (B, n_kv, g, d_head, T) = (B, h*d_head, T)
    run = ForwardPass(xb, kvb, stacked, g, prepared, scores_t, weights_t, heads_t)

    # Steps 1 to 4, and each group's share of step 5 (engine/head_groups.py), for all groups at once.
    work = B * h * T * S * (2 * d_head + 8)  # scalar: multiply-adds of QK^T and AV, plus the exps
    groups = head_groups(B, n_kv, g, parallel_parts() if work >= _PARALLEL_MIN_WORK else 1)
    shares = 1 if groups[0].batch != slice(0, B) else len(groups)  # groups of heads: one W_O share each
    out = None if drop_output_projection else np.empty((shares, B, T, d), dtype=dtype)  # (shares, B, T, d)
    tasks = [
        functools.partial(run.attend, gr, None if out is None else out[k % shares])
        for k, gr in enumerate(groups)
    ]
    with blas_on_one_thread() if len(groups) > 1 else contextlib.nullcontext():
        run_in_parallel(tasks)

    # Step 5, completed: each group wrote concat(its heads) @ (its rows of W_O); their sum is
    # concat(heads) @ W_O, which mixes the heads.
    if out is None:
        output = np.ascontiguousarray(heads_t.reshape(B, h * d_head, T).swapaxes(-1, -2))  # (B, T, h*d_head)
    else:
        output = out[0]  # (B, T, d)
        for share in out[1:]:
            output += share  # (B, T, d)
        if p.b_o is not None:
            output += p.b_o.astype(dtype, copy=False)  # (B, T, d)

    weights4 = weights_t.reshape(B, h, S, T).swapaxes(-1, -2)  # (B, h, T, S) view
    scores4 = scores_t.reshape(B, h, S, T).swapaxes(-1, -2)  # (B, h, T, S) view
    heads4 = heads_t.reshape(B, h, d_head, T).swapaxes(-1, -2)  # (B, h, T, d_head) view
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
    if xa.ndim == 3:
        return xa, kva, False
    xa = xa[None]  # (1, T, d)
    return xa, xa if kv is None else kva[None], True  # (1, S, d): the very same array for self-attention


def _check_tokens(name: str, a: npt.NDArray[Any], d: int) -> None:
    """Rejects inputs that are not (n, d) or (B, n, d) tokens of finite real numbers."""
    if a.ndim not in (2, 3) or a.shape[-1] != d or a.shape[-2] < 1 or a.size == 0:
        raise ValueError(f"{name} has shape {a.shape}; expected (T, {d}) or (B, T, {d}) for d_model={d}")
    if a.dtype.kind not in "fiu":
        raise ValueError(f"{name} has dtype {a.dtype}; expected real numbers")
    # A NaN or an infinity makes the sum NaN or infinite; a finite sum can only overflow, so check again.
    if a.dtype.kind == "f" and not np.isfinite(a.sum()) and not np.isfinite(a).all():  # scalar
        raise ValueError(f"{name} contains NaN or infinite values")
