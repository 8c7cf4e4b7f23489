"""Provides one group of heads' forward pass: steps 1 to 4, and its share of step 5, on its own.

Heads are independent until W_O mixes them: concat(heads) @ W_O is the sum, over any split of the heads
into groups, of concat(group's heads) @ (the group's rows of W_O). So engine/attention.py cuts the work
into groups of heads (or of sequences of the batch) and runs them on all cores at once.

Inside a group, tensors are feature-major, features before positions: Q^T is (h*d_head, T). Each
projection is then W^T @ x^T, a matmul whose long side is the weights' rows, which runs well even for a
handful of tokens, and each head's Q^T, K^T and V^T is a contiguous block of rows.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from benchmarks.fast.kernels import GroupMask, scores_and_weights, weighted_values
from benchmarks.fast.threads import even_cuts

if TYPE_CHECKING:
    from engine.attention import AttentionParams

FloatArray = npt.NDArray[np.floating[Any]]

TOKEN_MAJOR_MIN_T = 32
"""From this many queries on, W_O is applied token-major, concat @ W_O, which writes the output in its
final layout; below it, W_O^T @ concat^T and a transpose is faster (measured: 0.07 ms against 0.15 ms
at T=6, d_model=512; 0.43 ms against 0.50 ms at T=128)."""


@dataclass(frozen=True)
class StackedWeights:
    """An AttentionParams' weights in the forward pass's layout, in one dtype; read-only.

    `qkv` stacks W_Q, W_K and W_V as W^T rows, per K/V head: its g query heads, then its K, then its V,
    shape (n_kv, g + 2, d_head, d). A group of K/V heads with all its query heads is then one block of
    rows, and one matmul projects the group's queries, keys and values. The query rows come pre-scaled by
    1/sqrt(d_head), which scales every score at no cost per call.
    """

    qkv: FloatArray  # (n_kv, g + 2, d_head, d)
    qkv_bias: FloatArray | None  # (n_kv, g + 2, d_head)
    w_o: FloatArray  # (h*d_head, d)
    w_o_t: FloatArray  # (d, h*d_head): contiguous W_O^T


def stack_weights(p: AttentionParams, dtype: np.dtype[Any]) -> StackedWeights:
    """Builds the StackedWeights of p (benchmarks.fast keeps one per params object and dtype)."""
    n_kv, g, d_head, d = p.n_kv_heads, p.group_size, p.d_head, p.d_model
    scale = 1.0 / math.sqrt(d_head)
    weights = [p.w_q.T * scale, p.w_k.T, p.w_v.T]  # (h*d_head, d), (n_kv*d_head, d) x 2
    biases = [None if p.b_q is None else p.b_q * scale, p.b_k, p.b_v]  # (h*d_head,), (n_kv*d_head,) x 2
    stack, bias_stack = [], []
    for w, b, n in zip(weights, biases, (g, 1, 1), strict=True):  # query, key, value heads per K/V head
        w4 = w.reshape(n_kv, n, d_head, d)  # (n_kv, n, d_head, d)
        b3 = np.zeros((n_kv, n, d_head)) if b is None else b.reshape(n_kv, n, d_head)  # (n_kv, n, d_head)
        stack.append(w4)
        bias_stack.append(b3)
    has_bias = any(b is not None for b in biases)
    stacked = StackedWeights(
        qkv=np.concatenate(stack, axis=1).astype(dtype),  # (n_kv, g + 2, d_head, d)
        qkv_bias=np.concatenate(bias_stack, axis=1).astype(dtype)
        if has_bias
        else None,  # (n_kv, g+2, d_head)
        w_o=p.w_o.astype(dtype),  # (h*d_head, d)
        w_o_t=np.ascontiguousarray(p.w_o.T, dtype=dtype),  # (d, h*d_head)
    )
    for array in (stacked.qkv, stacked.qkv_bias, stacked.w_o, stacked.w_o_t):
        if array is not None:
            array.flags.writeable = False
    return stacked


@dataclass(frozen=True)
class HeadGroup:
    """Some sequences of the batch, some K/V heads, and some query heads j of each K/V head's group.

    Query head i = kv*g + j. A group's query heads are always adjacent (see head_groups).
    """

    batch: slice
    kv_heads: slice
    members: slice
    whole_kv_groups: bool
    """True when it holds every query head of its K/V heads: its rows of the stack are then one block."""

    @property
    def index(self) -> tuple[slice, slice, slice]:
        """Its part of any (B, n_kv, g, ...) array."""
        return (self.batch, self.kv_heads, self.members)


@functools.lru_cache(maxsize=64)
def head_groups(B: int, n_kv: int, g: int, parts: int) -> tuple[HeadGroup, ...]:
    """Cuts (B, n_kv, g) into up to `parts` groups: by sequence, else by K/V head, else by query head.

    Query heads are cut within a K/V head's group only under MQA (n_kv = 1), so that every group's
    query heads are adjacent; each MQA group then projects the one K/V head itself. Cached: a
    model's calls ask for the same few cuts every time.
    """
    every_kv, every_member = slice(0, n_kv), slice(0, g)
    if B > 1 or parts == 1:
        return tuple(HeadGroup(b, every_kv, every_member, True) for b in even_cuts(B, parts))
    if n_kv > 1:
        return tuple(HeadGroup(slice(0, 1), kv, every_member, True) for kv in even_cuts(n_kv, parts))
    return tuple(HeadGroup(slice(0, 1), every_kv, j, j == every_member) for j in even_cuts(g, parts))


@dataclass(frozen=True)
class ForwardPass:
    """What every group of one call reads (tokens, weights, mask) and writes its share of (the rest)."""

    x: FloatArray  # (B, T, d)
    kv: FloatArray  # (B, S, d): the same array as x for self-attention
    weights: StackedWeights
    group_size: int  # g: query heads per K/V head
    mask: GroupMask
    scores_t: FloatArray  # (B, n_kv, g, S, T)
    weights_t: FloatArray  # (B, n_kv, g, S, T)
    heads_t: FloatArray  # (B, n_kv, g, d_head, T)

    def attend(self, group: HeadGroup, out: FloatArray) -> None:
        """Steps 1 to 4 for the group's heads, then concat(its heads) @ (its rows of W_O) into out."""
        B, n_kv, g, _, T = self.scores_t[group.index].shape
        d_head = self.heads_t.shape[-2]

        # Step 1. Project the tokens to queries (pre-scaled by 1/sqrt(d_head)), keys and values.
        q5, k5, v5 = self._project(group.batch, group.kv_heads, group.members, group.whole_kv_groups)

        # Step 2. Split the heads: done by the reshapes in _project. Every query head of a K/V head's
        # group meets that K/V head by broadcasting, so K and V are never repeated.

        # Steps 3 and 4. Scores, mask and softmax, then each head's weighted average of the values.
        weights_t = self.weights_t[group.index]  # (B', n_kv', g', S, T) view
        scores_and_weights(q5, k5, self.mask.part(group.index), self.scores_t[group.index], weights_t)
        weighted_values(weights_t, v5, self.mask.causal, self.heads_t[group.index])

        # Step 5, this group's share: its heads, concatenated, times their rows of W_O.
        first = group.kv_heads.start * self.group_size + group.members.start  # query head i = kv*g + j
        rows = slice(first * d_head, (first + n_kv * g) * d_head)  # its heads' rows of W_O
        concat_t = self.heads_t[group.index].reshape(B, -1, T)  # (B', h'*d_head, T)
        if T >= TOKEN_MAJOR_MIN_T:
            w_o = self.weights.w_o[rows]  # (h'*d_head, d)
            np.matmul(
                concat_t.swapaxes(-1, -2), w_o, out=out[group.batch]
            )  # (B', T, h'*d_head) @ -> (B', T, d)
        else:
            w_o_t = self.weights.w_o_t[:, rows]  # (d, h'*d_head)
            out[group.batch] = (w_o_t @ concat_t).swapaxes(
                -1, -2
            )  # (d, h'd_head) @ (B', h'd_head, T) -> (B', T, d)

    def _project(
        self, batch: slice, kv_heads: slice, members: slice, whole_kv_groups: bool
    ) -> tuple[FloatArray, FloatArray, FloatArray]:
        """Q^T from x, K^T and V^T from kv, for some K/V heads and their query heads.

        Returns q5 (B', n_kv', g', d_head, T), k5 and v5 (B', n_kv', 1, d_head, S).
        """
        x, kv = self.x[batch], self.kv[batch]  # (B', T, d), (B', S, d)
        B, T, d = x.shape
        S = kv.shape[1]
        rows = self.weights.qkv[kv_heads]  # (n_kv', g+2, d_head, d): W^T rows, K/V head by K/V head
        n_kv, d_head = rows.shape[0], rows.shape[2]
        b = self.weights.qkv_bias
        bias = None if b is None else b[kv_heads, :, :, None]  # (n_kv', g+2, d_head, 1)
        if self.kv is self.x and whole_kv_groups:  # self-attention: one matmul for all three
            qkv = rows.reshape(-1, d) @ x.swapaxes(-1, -2)  # (rows, d) @ (B', d, T) -> (B', rows, T)
            qkv = qkv.reshape(B, n_kv, -1, d_head, T)  # (B', n_kv', g+2, d_head, T) view
            if bias is not None:
                qkv += bias  # (B', n_kv', g+2, d_head, T)
            return qkv[:, :, :-2], qkv[:, :, -2:-1], qkv[:, :, -1:]  # Q^T (.., g, ..), K^T, V^T (.., 1, ..)
        q_rows = rows[:, members].reshape(n_kv, -1, d)  # (n_kv', g'*d_head, d)
        q = (
            q_rows @ x.swapaxes(-1, -2)[:, None]
        )  # (n_kv', g'd_head, d) @ (B', 1, d, T) -> (B', n_kv', g'd_head, T)
        kv_t = rows[:, -2:].reshape(n_kv, -1, d) @ kv.swapaxes(-1, -2)[:, None]  # -> (B', n_kv', 2*d_head, S)
        q5 = q.reshape(B, n_kv, -1, d_head, T)  # (B', n_kv', g', d_head, T) view
        k5, v5 = np.split(kv_t.reshape(B, n_kv, 2, d_head, S), 2, axis=2)  # (B', n_kv', 1, d_head, S) each
        if bias is not None:
            q5 += bias[:, members]  # (B', n_kv', g', d_head, T)
            k5 += bias[:, -2:-1]  # (B', n_kv', 1, d_head, S)
            v5 += bias[:, -1:]  # (B', n_kv', 1, d_head, S)
        return q5, k5, v5
