"""Provides the reference solutions of the attention exercises and their classic wrong versions.

Each function here is self-contained (NumPy only, no helper from elsewhere), because its source is what
the learner reads as the model answer, and what the tests run as "a solution with this mistake".
"""

from __future__ import annotations

import numpy as np

# -- softmax ------------------------------------------------------------------------------------------------


def softmax(x):
    z = x - x.max(axis=-1, keepdims=True)  # (..., n) largest entry 0: exp cannot overflow
    e = np.exp(z)  # (..., n)
    return e / e.sum(axis=-1, keepdims=True)  # (..., n) rows sum to 1


def softmax_no_shift(x):
    e = np.exp(x)  # (..., n) overflows to inf for scores above ~709
    return e / e.sum(axis=-1, keepdims=True)  # (..., n) inf / inf = nan


def softmax_wrong_axis(x):
    z = x - x.max(axis=0, keepdims=True)  # (..., n)
    e = np.exp(z)  # (..., n)
    return e / e.sum(axis=0, keepdims=True)  # (..., n) columns sum to 1, not rows


# -- scaled dot-product attention ---------------------------------------------------------------------------


def attention(q, k, v, mask=None):
    scores = q @ k.T / np.sqrt(q.shape[-1])  # (T, S)
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)  # (T, S) masked keys can get no weight
    top = scores.max(axis=-1, keepdims=True)  # (T, 1)
    top = np.where(np.isfinite(top), top, 0.0)  # (T, 1) a fully masked row keeps its -inf scores
    e = np.exp(scores - top)  # (T, S) exp(-inf) = 0
    total = e.sum(axis=-1, keepdims=True)  # (T, 1)
    weights = np.divide(e, total, out=np.zeros_like(e), where=total > 0)  # (T, S) all-masked row: zeros
    return weights @ v  # (T, d_v)


def attention_no_scale(q, k, v, mask=None):
    scores = q @ k.T  # (T, S) without 1/sqrt(d_k): the softmax saturates as d_k grows
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)  # (T, S)
    top = scores.max(axis=-1, keepdims=True)  # (T, 1)
    top = np.where(np.isfinite(top), top, 0.0)  # (T, 1)
    e = np.exp(scores - top)  # (T, S)
    total = e.sum(axis=-1, keepdims=True)  # (T, 1)
    return np.divide(e, total, out=np.zeros_like(e), where=total > 0) @ v  # (T, d_v)


def attention_softmax_over_queries(q, k, v, mask=None):
    scores = q @ k.T / np.sqrt(q.shape[-1])  # (T, S)
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)  # (T, S)
    top = scores.max(axis=0, keepdims=True)  # (1, S) per key, not per query
    top = np.where(np.isfinite(top), top, 0.0)  # (1, S)
    e = np.exp(scores - top)  # (T, S)
    total = e.sum(axis=0, keepdims=True)  # (1, S)
    return np.divide(e, total, out=np.zeros_like(e), where=total > 0) @ v  # (T, d_v)


def attention_mask_after_softmax(q, k, v, mask=None):
    scores = q @ k.T / np.sqrt(q.shape[-1])  # (T, S)
    e = np.exp(scores - scores.max(axis=-1, keepdims=True))  # (T, S)
    weights = e / e.sum(axis=-1, keepdims=True)  # (T, S) normalised over every key
    if mask is not None:
        weights = weights * mask  # (T, S) rows no longer sum to 1
    return weights @ v  # (T, d_v)


# -- causal self-attention ----------------------------------------------------------------------------------


def causal_attention(q, k, v):
    t = q.shape[0]
    future = np.triu(np.ones((t, t), dtype=bool), k=1)  # (T, T) True strictly above the diagonal
    scores = q @ k.T / np.sqrt(q.shape[-1])  # (T, T)
    scores = np.where(future, -np.inf, scores)  # (T, T) a query sees itself and the past
    e = np.exp(scores - scores.max(axis=-1, keepdims=True))  # (T, T) the diagonal is never masked
    return e / e.sum(axis=-1, keepdims=True) @ v  # (T, d_v)


def causal_attention_hides_itself(q, k, v):
    t = q.shape[0]
    future = np.triu(np.ones((t, t), dtype=bool), k=0)  # (T, T) the diagonal masked too
    scores = q @ k.T / np.sqrt(q.shape[-1])  # (T, T)
    scores = np.where(future, -np.inf, scores)  # (T, T) the first query sees nothing
    top = scores.max(axis=-1, keepdims=True)  # (T, 1)
    top = np.where(np.isfinite(top), top, 0.0)  # (T, 1)
    e = np.exp(scores - top)  # (T, T)
    total = e.sum(axis=-1, keepdims=True)  # (T, 1)
    return np.divide(e, total, out=np.zeros_like(e), where=total > 0) @ v  # (T, d_v)


def causal_attention_mask_after_softmax(q, k, v):
    t = q.shape[0]
    keep = np.tril(np.ones((t, t)))  # (T, T)
    scores = q @ k.T / np.sqrt(q.shape[-1])  # (T, T)
    e = np.exp(scores - scores.max(axis=-1, keepdims=True))  # (T, T)
    return (e / e.sum(axis=-1, keepdims=True)) * keep @ v  # (T, d_v) the future zeroed, not renormalised


# -- heads ------------------------------------------------------------------------------------------------


def split_heads(x, n_heads):
    t, d = x.shape
    return x.reshape(t, n_heads, d // n_heads).transpose(1, 0, 2)  # (T, d) -> (h, T, d_head)


def split_heads_no_transpose(x, n_heads):
    t, d = x.shape
    return x.reshape(n_heads, t, d // n_heads)  # (h, T, d_head) but each "head" mixes tokens


def merge_heads(x):
    h, t, dh = x.shape
    return x.transpose(1, 0, 2).reshape(t, h * dh)  # (h, T, d_head) -> (T, h * d_head)


def merge_heads_no_transpose(x):
    h, t, dh = x.shape
    return x.reshape(t, h * dh)  # (T, h * d_head) rows now mix tokens of one head


def expand_kv(k, n_heads):
    group = n_heads // k.shape[0]
    return np.repeat(k, group, axis=0)  # (n_kv, S, d_head) -> (h, S, d_head): kv0 kv0 kv1 kv1


def expand_kv_tiled(k, n_heads):
    group = n_heads // k.shape[0]
    return np.tile(k, (group, 1, 1))  # (h, S, d_head) kv0 kv1 kv0 kv1: query head 1 reads kv1


# -- multi-head attention ---------------------------------------------------------------------------------


def mha(x, w_q, w_k, w_v, w_o, n_heads, causal=False):
    t, d = x.shape
    dh = d // n_heads
    q = (x @ w_q).reshape(t, n_heads, dh).transpose(1, 0, 2)  # (h, T, d_head)
    k = (x @ w_k).reshape(t, n_heads, dh).transpose(1, 0, 2)  # (h, T, d_head)
    v = (x @ w_v).reshape(t, n_heads, dh).transpose(1, 0, 2)  # (h, T, d_head)
    scores = q @ k.transpose(0, 2, 1) / np.sqrt(dh)  # (h, T, T)
    if causal:
        scores = np.where(np.triu(np.ones((t, t), dtype=bool), k=1), -np.inf, scores)  # (h, T, T)
    e = np.exp(scores - scores.max(axis=-1, keepdims=True))  # (h, T, T)
    weights = e / e.sum(axis=-1, keepdims=True)  # (h, T, T) each query's weights sum to 1
    heads = weights @ v  # (h, T, d_head)
    return heads.transpose(1, 0, 2).reshape(t, d) @ w_o  # (T, d_model)


def mha_softmax_wrong_axis(x, w_q, w_k, w_v, w_o, n_heads, causal=False):
    t, d = x.shape
    dh = d // n_heads
    q = (x @ w_q).reshape(t, n_heads, dh).transpose(1, 0, 2)  # (h, T, d_head)
    k = (x @ w_k).reshape(t, n_heads, dh).transpose(1, 0, 2)  # (h, T, d_head)
    v = (x @ w_v).reshape(t, n_heads, dh).transpose(1, 0, 2)  # (h, T, d_head)
    scores = q @ k.transpose(0, 2, 1) / np.sqrt(dh)  # (h, T, T)
    if causal:
        scores = np.where(np.triu(np.ones((t, t), dtype=bool), k=1), -np.inf, scores)  # (h, T, T)
    e = np.exp(scores - scores.max(axis=-2, keepdims=True))  # (h, T, T)
    weights = e / e.sum(axis=-2, keepdims=True)  # (h, T, T) over queries: each key's column sums to 1
    return (weights @ v).transpose(1, 0, 2).reshape(t, d) @ w_o  # (T, d_model)


def mha_no_scale(x, w_q, w_k, w_v, w_o, n_heads, causal=False):
    t, d = x.shape
    dh = d // n_heads
    q = (x @ w_q).reshape(t, n_heads, dh).transpose(1, 0, 2)  # (h, T, d_head)
    k = (x @ w_k).reshape(t, n_heads, dh).transpose(1, 0, 2)  # (h, T, d_head)
    v = (x @ w_v).reshape(t, n_heads, dh).transpose(1, 0, 2)  # (h, T, d_head)
    scores = q @ k.transpose(0, 2, 1)  # (h, T, T) no 1/sqrt(d_head)
    if causal:
        scores = np.where(np.triu(np.ones((t, t), dtype=bool), k=1), -np.inf, scores)  # (h, T, T)
    e = np.exp(scores - scores.max(axis=-1, keepdims=True))  # (h, T, T)
    weights = e / e.sum(axis=-1, keepdims=True)  # (h, T, T)
    return (weights @ v).transpose(1, 0, 2).reshape(t, d) @ w_o  # (T, d_model)


def mha_merge_without_transpose(x, w_q, w_k, w_v, w_o, n_heads, causal=False):
    t, d = x.shape
    dh = d // n_heads
    q = (x @ w_q).reshape(t, n_heads, dh).transpose(1, 0, 2)  # (h, T, d_head)
    k = (x @ w_k).reshape(t, n_heads, dh).transpose(1, 0, 2)  # (h, T, d_head)
    v = (x @ w_v).reshape(t, n_heads, dh).transpose(1, 0, 2)  # (h, T, d_head)
    scores = q @ k.transpose(0, 2, 1) / np.sqrt(dh)  # (h, T, T)
    if causal:
        scores = np.where(np.triu(np.ones((t, t), dtype=bool), k=1), -np.inf, scores)  # (h, T, T)
    e = np.exp(scores - scores.max(axis=-1, keepdims=True))  # (h, T, T)
    weights = e / e.sum(axis=-1, keepdims=True)  # (h, T, T)
    return (weights @ v).reshape(t, d) @ w_o  # (T, d_model) but rows mix tokens of one head


def mha_mask_after_softmax(x, w_q, w_k, w_v, w_o, n_heads, causal=False):
    t, d = x.shape
    dh = d // n_heads
    q = (x @ w_q).reshape(t, n_heads, dh).transpose(1, 0, 2)  # (h, T, d_head)
    k = (x @ w_k).reshape(t, n_heads, dh).transpose(1, 0, 2)  # (h, T, d_head)
    v = (x @ w_v).reshape(t, n_heads, dh).transpose(1, 0, 2)  # (h, T, d_head)
    scores = q @ k.transpose(0, 2, 1) / np.sqrt(dh)  # (h, T, T)
    e = np.exp(scores - scores.max(axis=-1, keepdims=True))  # (h, T, T)
    weights = e / e.sum(axis=-1, keepdims=True)  # (h, T, T) normalised over the future too
    if causal:
        weights = weights * np.tril(np.ones((t, t)))  # (h, T, T) zeroed after: rows sum to less than 1
    return (weights @ v).transpose(1, 0, 2).reshape(t, d) @ w_o  # (T, d_model)


# -- KV cache size ------------------------------------------------------------------------------------------


def kv_cache_bytes(n_layers, n_kv_heads, d_head, seq_len, batch, bytes_per_element):
    return 2 * n_layers * n_kv_heads * d_head * seq_len * batch * bytes_per_element  # K and V


def kv_cache_bytes_no_x2(n_layers, n_kv_heads, d_head, seq_len, batch, bytes_per_element):
    return n_layers * n_kv_heads * d_head * seq_len * batch * bytes_per_element  # K only


def kv_cache_bytes_in_bits(n_layers, n_kv_heads, d_head, seq_len, batch, bytes_per_element):
    return 2 * n_layers * n_kv_heads * d_head * seq_len * batch * bytes_per_element * 8  # bits, not bytes
