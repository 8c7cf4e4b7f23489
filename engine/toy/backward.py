"""Provides the hand-written backward pass of the toy transformer (plain path: no ablation or tying).

The forward pass is engine.attention.multi_head_attention's own; the backward reuses its weights and
heads and recomputes q, k, v from each layer's input (three small matmuls), so no second forward pass
exists that could drift from the reference. Chain rule per layer, for dOut = dL/d(attn output):

    dW_O = concat^T dOut          dconcat = dOut W_O^T        (split into heads)
    dA   = dheads v^T             dv      = A^T dheads
    dS   = A * (dA - rowsum(dA * A))                           (softmax; masked entries have A = 0)
    dq   = dS k / sqrt(dh)        dk      = dS^T q / sqrt(dh)
    dW_Q = x^T dq                 dx     += dq W_Q^T + dk W_K^T + dv W_V^T
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np
import numpy.typing as npt

from engine.attention import AttentionParams
from engine.toy.model import LAYER_WEIGHTS, ToyConfig, log_softmax, run_params

FloatArray = npt.NDArray[np.floating[Any]]
IntArray = npt.NDArray[np.integer[Any]]


def layer_params(config: ToyConfig, params: Mapping[str, FloatArray]) -> tuple[AttentionParams, ...]:
    """The engine's attention parameters for each layer of a raw weight dict."""
    h = config.n_heads
    return tuple(
        AttentionParams(n_heads=h, n_kv_heads=h, **{w: params[f"l{i}.{w}"] for w in LAYER_WEIGHTS})
        for i in range(config.n_layers)
    )


def loss_and_grads(
    config: ToyConfig, params: Mapping[str, FloatArray], tokens: IntArray
) -> tuple[float, dict[str, FloatArray]]:
    """Mean next-token cross-entropy over a batch (B, T) and its gradient for every parameter."""
    B, T = tokens.shape
    h, dh = config.n_heads, config.d_head
    run = run_params(config, layer_params(config, params), params, tokens)
    logp = log_softmax(run.logits[:, :-1])  # (B, T-1, V)
    targets = tokens[:, 1:]  # (B, T-1)
    n = B * (T - 1)
    loss = -float(np.take_along_axis(logp, targets[..., None], axis=-1).sum()) / n  # (): mean over B*(T-1)
    dlogits = np.zeros_like(run.logits)  # (B, T, V)
    probs = np.exp(logp)  # (B, T-1, V)
    picked = np.take_along_axis(probs, targets[..., None], -1)  # (B, T-1, 1)
    np.put_along_axis(probs, targets[..., None], picked - 1.0, -1)  # (B, T-1, V): softmax - one_hot
    dlogits[:, :-1] = probs / n  # (B, T-1, V)

    grads: dict[str, FloatArray] = {}
    x_last = run.inputs[-1]  # (B, T, d)
    grads["unembed"] = x_last.reshape(B * T, -1).T @ dlogits.reshape(B * T, -1)  # (d, V)
    dx = dlogits @ params["unembed"].T  # (B, T, d): gradient on the residual stream
    scale = 1.0 / math.sqrt(dh)
    for i in reversed(range(config.n_layers)):
        x = run.inputs[i]  # (B, T, d)
        a = run.attention[i].weights  # (B, h, T, T)
        concat = run.attention[i].output  # (B, T, h*dh)
        w_q, w_k, w_v, w_o = (params[f"l{i}.{w}"] for w in LAYER_WEIGHTS)  # (d, d) each
        x2 = x.reshape(B * T, -1)  # (B*T, d)
        grads[f"l{i}.w_o"] = concat.reshape(B * T, -1).T @ dx.reshape(B * T, -1)  # (h*dh, d)
        dheads = (dx @ w_o.T).reshape(B, T, h, dh).transpose(0, 2, 1, 3)  # (B, h, T, dh)
        q, k, v = (_split(x @ w, h, dh) for w in (w_q, w_k, w_v))  # (B, h, T, dh) each
        da = dheads @ v.swapaxes(-1, -2)  # (B, h, T, T)
        dv = a.swapaxes(-1, -2) @ dheads  # (B, h, T, dh)
        ds = a * (da - (da * a).sum(axis=-1, keepdims=True))  # (B, h, T, T)
        dq = (ds @ k) * scale  # (B, h, T, dh)
        dk = (ds.swapaxes(-1, -2) @ q) * scale  # (B, h, T, dh)
        dq2, dk2, dv2 = (_merge(g) for g in (dq, dk, dv))  # (B*T, h*dh) each
        grads[f"l{i}.w_q"] = x2.T @ dq2  # (d, h*dh)
        grads[f"l{i}.w_k"] = x2.T @ dk2  # (d, h*dh)
        grads[f"l{i}.w_v"] = x2.T @ dv2  # (d, h*dh)
        dx = dx + (dq2 @ w_q.T + dk2 @ w_k.T + dv2 @ w_v.T).reshape(B, T, -1)  # (B, T, d)

    one_hot = (tokens.reshape(-1, 1) == np.arange(config.vocab_size)).astype(dx.dtype)  # (B*T, V)
    grads["embed"] = one_hot.T @ dx.reshape(B * T, -1)  # (V, d): faster than np.add.at
    d_pos = np.zeros_like(params["pos"])  # (max_len, d)
    d_pos[:T] = dx.sum(axis=0)  # (T, d)
    grads["pos"] = d_pos
    return loss, {name: grads[name] for name in config.shapes()}


def _split(projected: FloatArray, h: int, dh: int) -> FloatArray:
    B, T = projected.shape[:2]
    out: FloatArray = projected.reshape(B, T, h, dh).transpose(0, 2, 1, 3)  # (B, h, T, dh)
    return out


def _merge(g: FloatArray) -> FloatArray:
    B, h, T, dh = g.shape
    out: FloatArray = g.transpose(0, 2, 1, 3).reshape(B * T, h * dh)  # (B*T, h*dh)
    return out
