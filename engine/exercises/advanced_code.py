"""Provides the reference solutions of the harder exercises (GQA without copies, a decode step with a KV
cache, RoPE, a sliding window, cross-attention, the FlashAttention forward, one head's backward pass) and
their classic wrong versions. Self-contained like attention_code: each source is shown and run alone."""

from __future__ import annotations

import numpy as np

# -- GQA by broadcasting ------------------------------------------------------------------------------------


def gqa_attention(q, k, v):
    h, t, d = q.shape
    n_kv = k.shape[0]
    qg = q.reshape(n_kv, h // n_kv, t, d)  # (n_kv, g, T, d) query heads grouped by their KV head
    scores = qg @ k[:, None].transpose(0, 1, 3, 2) / np.sqrt(d)  # (n_kv, g, T, S) k broadcast, not copied
    e = np.exp(scores - scores.max(axis=-1, keepdims=True))  # (n_kv, g, T, S)
    out = (e / e.sum(axis=-1, keepdims=True)) @ v[:, None]  # (n_kv, g, T, d_v)
    return out.reshape(h, t, -1)  # (h, T, d_v)


def gqa_attention_strided_groups(q, k, v):
    h, t, d = q.shape
    n_kv = k.shape[0]
    qg = q.reshape(h // n_kv, n_kv, t, d).transpose(1, 0, 2, 3)  # (n_kv, g, T, d) heads 0, n_kv, ... grouped
    scores = qg @ k[:, None].transpose(0, 1, 3, 2) / np.sqrt(d)  # (n_kv, g, T, S)
    e = np.exp(scores - scores.max(axis=-1, keepdims=True))  # (n_kv, g, T, S)
    out = (e / e.sum(axis=-1, keepdims=True)) @ v[:, None]  # (n_kv, g, T, d_v)
    return out.transpose(1, 0, 2, 3).reshape(h, t, -1)  # (h, T, d_v) query head i reads KV head i % n_kv


# -- one decode step with a KV cache ---------------------------------------------------------------------


def decode_step(q_new, k_new, v_new, k_cache, v_cache):
    k = np.concatenate([k_cache, k_new], axis=0)  # (P + 1, d) the new token's key joins the cache
    v = np.concatenate([v_cache, v_new], axis=0)  # (P + 1, d_v)
    scores = q_new @ k.T / np.sqrt(q_new.shape[-1])  # (1, P + 1) no mask: every cached key is in the past
    e = np.exp(scores - scores.max(axis=-1, keepdims=True))  # (1, P + 1)
    return e / e.sum(axis=-1, keepdims=True) @ v  # (1, d_v) = the last row of the full causal forward


def decode_step_without_itself(q_new, k_new, v_new, k_cache, v_cache):
    scores = q_new @ k_cache.T / np.sqrt(q_new.shape[-1])  # (1, P) the new key never joined the cache
    e = np.exp(scores - scores.max(axis=-1, keepdims=True))  # (1, P)
    return e / e.sum(axis=-1, keepdims=True) @ v_cache  # (1, d_v)


# -- RoPE ---------------------------------------------------------------------------------------------------


def rope(x, base=10000.0):
    t, d = x.shape
    half = d // 2
    freq = base ** (-np.arange(half) / half)  # (d/2,) one frequency per pair
    angle = np.arange(t)[:, None] * freq[None, :]  # (T, d/2) position m times frequency
    cos, sin = np.cos(angle), np.sin(angle)  # (T, d/2)
    x1, x2 = x[:, :half], x[:, half:]  # (T, d/2) each: pair i is (x_i, x_{i + d/2}), the "halves" layout
    return np.concatenate([x1 * cos - x2 * sin, x1 * sin + x2 * cos], axis=1)  # (T, d)


def rope_interleaved(x, base=10000.0):
    t, d = x.shape
    half = d // 2
    freq = base ** (-np.arange(half) / half)  # (d/2,)
    angle = np.arange(t)[:, None] * freq[None, :]  # (T, d/2)
    cos, sin = np.cos(angle), np.sin(angle)  # (T, d/2)
    x1, x2 = x[:, 0::2], x[:, 1::2]  # (T, d/2) pairs (x_0, x_1), (x_2, x_3): the interleaved layout
    out = np.empty_like(x)  # (T, d)
    out[:, 0::2], out[:, 1::2] = x1 * cos - x2 * sin, x1 * sin + x2 * cos  # (T, d/2) each
    return out  # (T, d)


def rope_from_one(x, base=10000.0):
    t, d = x.shape
    half = d // 2
    freq = base ** (-np.arange(half) / half)  # (d/2,)
    angle = np.arange(1, t + 1)[:, None] * freq[None, :]  # (T, d/2) positions 1..T: the first token turns
    cos, sin = np.cos(angle), np.sin(angle)  # (T, d/2)
    x1, x2 = x[:, :half], x[:, half:]  # (T, d/2)
    return np.concatenate([x1 * cos - x2 * sin, x1 * sin + x2 * cos], axis=1)  # (T, d)


# -- a sliding window ---------------------------------------------------------------------------------------


def window_mask(t, window):
    i = np.arange(t)[:, None]  # (T, 1) queries
    j = np.arange(t)[None, :]  # (1, T) keys
    return (j <= i) & (j > i - window)  # (T, T) itself and the window - 1 tokens before it


def window_mask_one_too_many(t, window):
    i = np.arange(t)[:, None]  # (T, 1)
    j = np.arange(t)[None, :]  # (1, T)
    return (j <= i) & (j >= i - window)  # (T, T) window + 1 keys per query


def window_mask_both_sides(t, window):
    i = np.arange(t)[:, None]  # (T, 1)
    j = np.arange(t)[None, :]  # (1, T)
    return np.abs(i - j) < window  # (T, T) sees the future too: not causal


# -- cross-attention ------------------------------------------------------------------------------------


def cross_attention(x, memory, w_q, w_k, w_v):
    q = x @ w_q  # (T, d_k) queries from the decoder
    k, v = memory @ w_k, memory @ w_v  # (S, d_k), (S, d_v) keys and values from the encoder's output
    scores = q @ k.T / np.sqrt(q.shape[-1])  # (T, S)
    e = np.exp(scores - scores.max(axis=-1, keepdims=True))  # (T, S)
    return e / e.sum(axis=-1, keepdims=True) @ v  # (T, d_v)


def cross_attention_from_x(x, memory, w_q, w_k, w_v):
    q, k, v = x @ w_q, x @ w_k, x @ w_v  # (T, d) each: self-attention, the memory ignored
    scores = q @ k.T / np.sqrt(q.shape[-1])  # (T, T)
    e = np.exp(scores - scores.max(axis=-1, keepdims=True))  # (T, T)
    return e / e.sum(axis=-1, keepdims=True) @ v  # (T, d_v)


def cross_attention_queries_from_memory(x, memory, w_q, w_k, w_v):
    q = memory @ w_q  # (S, d_k) queries from the encoder: the roles swapped
    k, v = x @ w_k, x @ w_v  # (T, d_k), (T, d_v)
    scores = q @ k.T / np.sqrt(q.shape[-1])  # (S, T)
    e = np.exp(scores - scores.max(axis=-1, keepdims=True))  # (S, T)
    return e / e.sum(axis=-1, keepdims=True) @ v  # (S, d_v)


# -- the FlashAttention forward ---------------------------------------------------------------------------


def flash_attention(q, k, v, block):
    t, d = q.shape
    m = np.full((t, 1), -np.inf)  # (T, 1) running maximum of each query's scores
    row_sum = np.zeros((t, 1))  # (T, 1) running sum of exp(score - m)
    acc = np.zeros((t, v.shape[1]))  # (T, d_v) running sum of exp(score - m) * v
    for start in range(0, k.shape[0], block):
        s = q @ k[start : start + block].T / np.sqrt(d)  # (T, B) one block of keys
        m_new = np.maximum(m, s.max(axis=1, keepdims=True))  # (T, 1)
        scale = np.exp(m - m_new)  # (T, 1) what the old sums are worth under the new maximum
        p = np.exp(s - m_new)  # (T, B)
        row_sum = row_sum * scale + p.sum(axis=1, keepdims=True)  # (T, 1)
        acc = acc * scale + p @ v[start : start + block]  # (T, d_v)
        m = m_new
    return acc / row_sum  # (T, d_v) equal to softmax(q k^T / sqrt(d)) v


def flash_attention_no_rescale(q, k, v, block):
    t, d = q.shape
    m = np.full((t, 1), -np.inf)  # (T, 1)
    row_sum = np.zeros((t, 1))  # (T, 1)
    acc = np.zeros((t, v.shape[1]))  # (T, d_v)
    for start in range(0, k.shape[0], block):
        s = q @ k[start : start + block].T / np.sqrt(d)  # (T, B)
        m_new = np.maximum(m, s.max(axis=1, keepdims=True))  # (T, 1)
        p = np.exp(s - m_new)  # (T, B)
        row_sum = row_sum * np.exp(m - m_new) + p.sum(axis=1, keepdims=True)  # (T, 1) the sum is rescaled
        acc = acc + p @ v[start : start + block]  # (T, d_v) but the accumulator is not
        m = m_new
    return acc / row_sum  # (T, d_v)


# -- one head's backward pass -----------------------------------------------------------------------------


def attention_backward(q, k, v, d_out):
    scale = 1.0 / np.sqrt(q.shape[-1])
    s = q @ k.T * scale  # (T, S)
    e = np.exp(s - s.max(axis=-1, keepdims=True))  # (T, S)
    p = e / e.sum(axis=-1, keepdims=True)  # (T, S) the forward weights
    dv = p.T @ d_out  # (S, d) out = P V
    dp = d_out @ v.T  # (T, S)
    ds = p * (dp - (dp * p).sum(axis=-1, keepdims=True))  # (T, S) the softmax Jacobian, row by row
    dq = ds @ k * scale  # (T, d)
    dk = ds.T @ q * scale  # (S, d)
    return np.stack([dq, dk, dv])  # (3, T, d) with T = S


def attention_backward_no_jacobian(q, k, v, d_out):
    scale = 1.0 / np.sqrt(q.shape[-1])
    s = q @ k.T * scale  # (T, S)
    e = np.exp(s - s.max(axis=-1, keepdims=True))  # (T, S)
    p = e / e.sum(axis=-1, keepdims=True)  # (T, S)
    dv = p.T @ d_out  # (S, d)
    ds = d_out @ v.T  # (T, S) the gradient passed through the softmax as if it were the identity
    return np.stack([ds @ k * scale, ds.T @ q * scale, dv])  # (3, T, d)


def attention_backward_unscaled(q, k, v, d_out):
    scale = 1.0 / np.sqrt(q.shape[-1])
    s = q @ k.T * scale  # (T, S)
    e = np.exp(s - s.max(axis=-1, keepdims=True))  # (T, S)
    p = e / e.sum(axis=-1, keepdims=True)  # (T, S)
    dv = p.T @ d_out  # (S, d)
    dp = d_out @ v.T  # (T, S)
    ds = p * (dp - (dp * p).sum(axis=-1, keepdims=True))  # (T, S)
    return np.stack([ds @ k, ds.T @ q, dv])  # (3, T, d) the 1/sqrt(d) of the forward left out
