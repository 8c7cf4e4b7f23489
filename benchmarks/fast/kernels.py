"""Provides the inner loops of attention for a group of heads: scores, the softmax over keys, the values.

engine/attention.py says what is computed; this module computes it fast in NumPy. Three layout choices
do most of the work:
- queries, keys and values come in feature-major, (.., d_head, T), so every head's Q^T is a contiguous
  block of rows;
- scores and weights are stored key-major, (.., S, T): the softmax then reduces along a slow axis, which
  NumPy vectorises across all queries at once, instead of one short row per call;
- with a causal mask, keys and queries go in blocks, and a block never computes the pairs that no query
  of it can see.

And one shortcut: softmax(s) == softmax(s - c) for any c, and c = the row max is only there to keep exp
in range. So exp runs on the raw scores, and the max is found and subtracted only when some query's sum
of exps shows that it was needed (TOTAL_RANGE). That check costs two small reductions; finding the max
up front would cost a pass over every score.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

FloatArray = npt.NDArray[np.floating[Any]]
BoolArray = npt.NDArray[np.bool_]

CAUSAL_BLOCKS = 8
"""With a causal mask, keys (for the scores) and queries (for the weighted values) go in up to this many
blocks, and a block skips the pairs that no query of it can see: (1 - 9/16) = 44% of the work."""
MIN_CAUSAL_KEYS = 128
MIN_CAUSAL_QUERIES = 128
"""Smaller causal blocks would cost more in NumPy and BLAS calls than they skip."""
TOTAL_RANGE = (2.0**-64, 2.0**64)
"""When every query's sum of exp(score) lies in this range, no exp overflowed, 1/sum is a normal float32,
and each query's largest term is at least 2^-64 / S: only weights below about 1e-19 can have lost
precision to underflow, against 1e-38 with the row max subtracted. Scores within +-30 of zero qualify
for up to a million keys; beyond that, and for a query with no allowed key or with every key at -1e9,
the row max is subtracted."""


@dataclass(frozen=True)
class GroupMask:
    """A checked mask in the scores' (B, n_kv, g, T, S) layout (broadcast views), or just "causal"."""

    causal: bool = False
    blocked: BoolArray | None = None  # (B, n_kv, g, T, S) view: True = may NOT attend
    additive: FloatArray | None = None  # (B, n_kv, g, T, S) view: added to the scores

    def part(self, index: tuple[slice, ...]) -> GroupMask:
        """The mask of one group of heads, cut from (B, n_kv, g) like the scores are."""
        blocked = None if self.blocked is None else self.blocked[index]  # (B', n_kv', g', T, S) view
        additive = None if self.additive is None else self.additive[index]  # (B', n_kv', g', T, S) view
        return GroupMask(self.causal, blocked, additive)


def scores_and_weights(
    q5: FloatArray, k5: FloatArray, mask: GroupMask, scores_t: FloatArray, weights_t: FloatArray
) -> None:
    """Scaled scores, the mask, and the softmax over the keys, for a group of heads.

    q5 (B, n_kv, g, d_head, T), already scaled by 1/sqrt(d_head), and k5 (B, n_kv, 1, d_head, S) in;
    scores_t and weights_t (B, n_kv, g, S, T) written in place. Each step is one NumPy call over every
    head of the group. With a causal mask the keys go in blocks, and block s0.. is never scored against
    the queries before s0, which cannot see it.
    """
    S, T = scores_t.shape[-2:]
    step, future = S, None  # keys per block: all of them, unless a causal mask lets blocks skip work
    if mask.causal:
        step = min(S, max(MIN_CAUSAL_KEYS, -(-S // CAUSAL_BLOCKS)))
        future = _future_of_queries(step, scores_t.dtype.str)  # (keys, queries)
    blocks = [(s0, min(S, s0 + step), min(s0, T) if mask.causal else 0) for s0 in range(0, S, step)]
    k_rows = k5.swapaxes(-1, -2)  # (B, n_kv, 1, S, d_head) view: K, nothing copied
    for s0, s1, t0 in blocks:  # Scores, key-major: keys s0:s1 against queries t0.. (all heads)
        if t0:
            scores_t[..., s0:s1, :t0] = -np.inf  # (B, n_kv, g, keys, t0): queries before key s0 (causal)
            weights_t[..., s0:s1, :t0] = 0.0  # (B, n_kv, g, keys, t0): ... give these keys no weight
        s = scores_t[..., s0:s1, t0:]  # (B, n_kv, g, keys, T - t0) view
        np.matmul(k_rows[..., s0:s1, :], q5[..., t0:], out=s)  # (.., 1, keys, d_head) @ (.., g, d_head, T-t0)
        if future is not None:
            n = min(s1 - s0, T - t0)  # the queries that some key of this block is in the future of
            s[..., :n] += future[: s1 - s0, :n]  # (B, n_kv, g, keys, n)
        if mask.blocked is not None:
            np.copyto(s, -np.inf, where=mask.blocked[..., t0:, s0:s1].swapaxes(-1, -2))  # (.., keys, T)
        if mask.additive is not None:
            s += mask.additive[..., t0:, s0:s1].swapaxes(-1, -2)  # (B, n_kv, g, keys, T)

    # Softmax over the keys. exp runs on the raw scores first, and is redone with each query's
    # largest score subtracted only when some query's sum falls outside TOTAL_RANGE.
    # An exp that overflowed shows in the check below, as an inf or (inf times a padded zero lane in
    # some BLAS kernels of the summing matmul) a NaN total: both fail the range test and are redone.
    with np.errstate(over="ignore", invalid="ignore"):
        total = _exp_and_sum(scores_t, weights_t, blocks, None)  # (B, n_kv, g, 1, T)
    low, high = TOTAL_RANGE
    if not low <= total.min() <= total.max() <= high:  # scalars
        shift = np.full((*scores_t.shape[:3], 1, T), -np.inf, dtype=scores_t.dtype)  # (B, n_kv, g, 1, T)
        for s0, s1, t0 in blocks:
            block_max = scores_t[..., s0:s1, t0:].max(axis=-2, keepdims=True)  # (B, n_kv, g, 1, T - t0)
            np.maximum(shift[..., t0:], block_max, out=shift[..., t0:])  # (B, n_kv, g, 1, T - t0)
        np.putmask(shift, shift == -np.inf, 0.0)  # (B, n_kv, g, 1, T): a fully masked query subtracts 0
        total = _exp_and_sum(scores_t, weights_t, blocks, shift)  # (B, n_kv, g, 1, T)
        np.putmask(total, total == 0.0, 1.0)  # (B, n_kv, g, 1, T): a fully masked query keeps zeros
    np.reciprocal(total, out=total)  # (B, n_kv, g, 1, T): one division per query ...
    np.multiply(weights_t, total, out=weights_t)  # (B, n_kv, g, S, T): ... then a multiply per weight


def _exp_and_sum(
    scores_t: FloatArray, weights_t: FloatArray, blocks: list[tuple[int, int, int]], shift: FloatArray | None
) -> FloatArray:
    """Writes exp(scores - shift) into weights_t, block by block; returns each query's sum of them.

    scores_t and weights_t are (B, n_kv, g, S, T); shift, if any, (B, n_kv, g, 1, T); the sum too.
    """
    ones = np.ones((1, blocks[0][1]), dtype=scores_t.dtype)  # (1, keys): ones @ w sums over the keys
    total = None  # (B, n_kv, g, 1, T)
    for s0, s1, t0 in blocks:
        s, w = scores_t[..., s0:s1, t0:], weights_t[..., s0:s1, t0:]  # (B, n_kv, g, keys, T - t0) views
        if shift is None:
            np.exp(s, out=w)  # (B, n_kv, g, keys, T - t0): exp(-inf) = 0 for masked entries
        else:
            np.subtract(s, shift[..., t0:], out=w)  # (B, n_kv, g, keys, T - t0): every entry <= 0 ...
            np.exp(w, out=w)  # (B, n_kv, g, keys, T - t0): ... so exp cannot overflow
        block_sum = ones[:, : s1 - s0] @ w  # (1, keys) @ (.., keys, T - t0) -> (B, n_kv, g, 1, T - t0)
        if total is None:  # the first block always starts at query 0
            total = block_sum  # (B, n_kv, g, 1, T)
        else:
            total[..., t0:] += block_sum  # (B, n_kv, g, 1, T - t0)
    assert total is not None  # S >= 1, so there is a block
    return total


@functools.lru_cache(maxsize=16)
def _future_of_queries(n: int, dtype: str) -> FloatArray:
    """-inf where key s0+i is in the future of query s0+j (i > j), else 0; read-only, made once per size."""
    future = np.zeros((n, n), dtype=dtype)  # (keys, queries)
    future[np.tri(n, n, -1, dtype=bool)] = -np.inf  # (keys, queries): -inf below the diagonal
    future.flags.writeable = False
    return future


def weighted_values(weights_t: FloatArray, v5: FloatArray, causal: bool, heads_t: FloatArray) -> None:
    """Each head's output, the weighted average of the values, written into heads_t.

    weights_t (B, n_kv, g, S, T), v5 (B, n_kv, 1, d_head, S), heads_t (B, n_kv, g, d_head, T): per head,
    V^T (d_head, S) @ A^T (S, T). With a causal mask, queries go in CAUSAL_BLOCKS blocks, each reading
    only the keys it can see.
    """
    S, T = weights_t.shape[-2:]
    size = max(MIN_CAUSAL_QUERIES, -(-T // CAUSAL_BLOCKS)) if causal else T
    for t0 in range(0, T, size):
        t1 = min(T, t0 + size)
        n_keys = min(S, t1) if causal else S
        out = heads_t[..., t0:t1]  # (B, n_kv, g, d_head, queries) view
        np.matmul(v5[..., :n_keys], weights_t[..., :n_keys, t0:t1], out=out)  # (.., n_keys) @ (n_keys, ..)
