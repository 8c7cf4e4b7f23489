"""Provides the fast forward pass: the same attention as engine.attention, laid out for long sequences.

Tensors are feature-major (Q^T rather than Q) and scores key-major (S before T), so NumPy's calls run long
and contiguous; groups of heads (or sequences of the batch) run on both cores at once with single-threaded
BLAS (groups.py, kernels.py, threads.py). The app uses the reference; this path exists for the benchmark
against torch (engine_vs_torch.py) and for anyone who wants attention at T = 2048 in NumPy, so it lives
here, not in engine/. A hypothesis test holds it to the
reference for every mask kind, cross-attention, bias and GQA/MQA.
"""

from __future__ import annotations

import contextlib
import functools
import weakref
from typing import Any

import numpy as np
import numpy.typing as npt

from benchmarks.fast.groups import ForwardPass, StackedWeights, head_groups, stack_weights
from benchmarks.fast.kernels import GroupMask
from benchmarks.fast.threads import parallel_parts, run_in_parallel
from engine.attention import AttentionParams, AttentionResult
from engine.blas import blas_on_one_thread
from engine.validation import check_call

FloatType = type[np.floating[Any]]

PARALLEL_MIN_WORK = 1 << 20
"""Attention work (multiply-adds, an exp counted as 8) below which a call is not cut into groups: the two
threads would mostly take turns on Python's lock between NumPy's short calls (measured at T=32,
d_model=64, causal: 0.29 ms in two groups, 0.15 ms in one; at T=128 two groups win, 0.43 against 0.54)."""

_STACKED: weakref.WeakKeyDictionary[AttentionParams, dict[FloatType, StackedWeights]] = (
    weakref.WeakKeyDictionary()
)
"""The weights in the forward pass's layout, per params object and dtype. Sound because
AttentionParams holds read-only copies; forgotten with the params."""


def stacked_weights(p: AttentionParams, dtype: FloatType) -> StackedWeights:
    """The weights rearranged for the forward pass, made on first use."""
    cache = _STACKED.setdefault(p, {})
    if dtype not in cache:
        cache[dtype] = stack_weights(p, np.dtype(dtype))
    return cache[dtype]


def _group_mask(mask: Any, B: int, h: int, n_kv: int, T: int, S: int) -> GroupMask:
    """A checked mask (engine.validation.check_mask) with its head axis split into (n_kv, g) for GQA."""
    if mask is None:
        return GroupMask()
    if isinstance(mask, str):
        return GroupMask(causal=True)
    target, grouped = (B, h, T, S), (B, n_kv, h // n_kv, T, S)
    if mask.dtype == np.bool_:
        return GroupMask(blocked=np.broadcast_to(~mask, target).reshape(grouped))  # (B, n_kv, g, T, S) view
    return GroupMask(additive=np.broadcast_to(mask, target).reshape(grouped))  # (B, n_kv, g, T, S) view


def fast_multi_head_attention(
    x: npt.ArrayLike,
    p: AttentionParams,
    mask: str | npt.ArrayLike | None = None,
    kv: npt.ArrayLike | None = None,
    pin: bool = False,
) -> AttentionResult:
    """engine.attention.multi_head_attention, fast; `pin=True` pins the caller and the workers to CPUs
    of their own while the call runs (faster on an idle machine after a pause, slower on a busy one)."""
    h, n_kv, g, d, d_head = p.n_heads, p.n_kv_heads, p.group_size, p.d_model, p.d_head
    xa, kva, checked = check_call(x, p, mask, kv)  # (B?, T, d), (B?, S, d), None/"causal"/array
    unbatched = xa.ndim == 2
    dtype: FloatType = np.float64 if xa.dtype == np.float64 else np.float32
    xb = xa.astype(dtype, copy=False).reshape(-1, *xa.shape[-2:])  # (B, T, d)
    kvb = xb if kv is None else kva.astype(dtype, copy=False).reshape(-1, *kva.shape[-2:])  # (B, S, d)
    B, T, S = xb.shape[0], xb.shape[1], kvb.shape[1]
    prepared = _group_mask(checked, B, h, n_kv, T, S)
    stacked = stacked_weights(p, dtype)

    # One allocation holds scores and weights, key-major (.., S, T); callers get (.., T, S) views.
    buf = np.empty((2, B, n_kv, g, S, T), dtype=dtype)  # (2, B, n_kv, g, S, T)
    scores_t, weights_t = buf[0], buf[1]  # (B, n_kv, g, S, T) each
    heads_t = np.empty((B, n_kv, g, d_head, T), dtype=dtype)  # (B, n_kv, g, d_head, T) = (B, h*d_head, T)
    run = ForwardPass(xb, kvb, stacked, g, prepared, scores_t, weights_t, heads_t)

    work = B * h * T * S * (2 * d_head + 8)  # multiply-adds of QK^T and AV, plus the exps
    groups = head_groups(B, n_kv, g, parallel_parts() if work >= PARALLEL_MIN_WORK else 1)
    shares = 1 if groups[0].batch != slice(0, B) else len(groups)  # groups of heads: one W_O share each
    out = np.empty((shares, B, T, d), dtype=dtype)  # (shares, B, T, d)
    tasks = [functools.partial(run.attend, gr, out[k % shares]) for k, gr in enumerate(groups)]
    with blas_on_one_thread() if len(groups) > 1 else contextlib.nullcontext():
        run_in_parallel(tasks, pin=pin)

    output = out[0]  # (B, T, d)
    for share in out[1:]:
        output += share  # (B, T, d): the shares sum to concat(heads) @ W_O
    if p.b_o is not None:
        output += p.b_o.astype(dtype, copy=False)  # (B, T, d)
    weights4 = weights_t.reshape(B, h, S, T).swapaxes(-1, -2)  # (B, h, T, S) view
    scores4 = scores_t.reshape(B, h, S, T).swapaxes(-1, -2)  # (B, h, T, S) view
    heads4 = heads_t.reshape(B, h, d_head, T).swapaxes(-1, -2)  # (B, h, T, d_head) view
    if unbatched:
        return AttentionResult(output=output[0], weights=weights4[0], heads=heads4[0], scores=scores4[0])
    return AttentionResult(output=output, weights=weights4, heads=heads4, scores=scores4)


__all__ = ["PARALLEL_MIN_WORK", "fast_multi_head_attention", "stacked_weights"]
