"""Provides Explore's two head experiments as weight changes, so the engine's attention knows nothing of them.

```python
tied = tie_heads(params)                 # "same weights": every head gets head 0's Q, K and V columns
bare = drop_output_projection(params)    # "no W_O": W_O becomes the identity, so output = concat(heads)
model = transformed_toy(toy_model, tie=True, drop_wo=False)
```
Each returns new, ordinary AttentionParams (or a ToyModel built from them): the forward pass is the plain
engine.multi_head_attention, and what changed is only the numbers it is given.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from engine.attention import AttentionParams, FloatArray
from engine.toy import ToyModel
from engine.toy.model import LAYER_WEIGHTS


def _head_zero(a: FloatArray, d_head: int, copies: int) -> FloatArray:
    """Head 0's last-axis slice of a weight or bias, repeated for every head."""
    return np.tile(a[..., :d_head], copies)  # [..., n*dh] -> [..., dh] -> [..., n*dh]


def tie_heads(p: AttentionParams) -> AttentionParams:
    """The layer with every query head given head 0's W_Q columns (and b_Q), and every key/value head
    K/V head 0's; W_O stays. All heads then compute the same pattern, equal up to the last bit of float
    rounding (BLAS may round a matmul's last columns differently from its first)."""
    dh, h, n_kv = p.d_head, p.n_heads, p.n_kv_heads
    return replace(
        p,
        w_q=_head_zero(p.w_q, dh, h),
        w_k=_head_zero(p.w_k, dh, n_kv),
        w_v=_head_zero(p.w_v, dh, n_kv),
        b_q=None if p.b_q is None else _head_zero(p.b_q, dh, h),
        b_k=None if p.b_k is None else _head_zero(p.b_k, dh, n_kv),
        b_v=None if p.b_v is None else _head_zero(p.b_v, dh, n_kv),
    )


def drop_output_projection(p: AttentionParams) -> AttentionParams:
    """The layer with W_O replaced by the identity and no b_O: the output is concat(heads), each output
    slice i*d_head:(i+1)*d_head coming from head i alone. This needs n_heads * d_head == d_model, which
    holds whenever d_head = d_model / n_heads (init_attention, the sandbox and the toy always draw so)."""
    width = p.n_heads * p.d_head
    if width != p.d_model:
        raise ValueError(
            f"no W_O needs n_heads*d_head == d_model; here n_heads={p.n_heads}, d_head={p.d_head}, "
            f"d_model={p.d_model}"
        )
    return replace(p, w_o=np.eye(width, dtype=p.w_o.dtype), b_o=None)


def transformed_toy(model: ToyModel, *, tie: bool, drop_wo: bool) -> ToyModel:
    """The toy with the experiments applied to every layer (the model itself when neither is on)."""
    if not (tie or drop_wo):
        return model

    params = dict(model.params)
    h = model.n_heads
    for i in range(model.n_layers):
        layer = AttentionParams(n_heads=h, n_kv_heads=h, **{w: params[f"l{i}.{w}"] for w in LAYER_WEIGHTS})
        layer = tie_heads(layer) if tie else layer
        layer = drop_output_projection(layer) if drop_wo else layer
        params |= {f"l{i}.{w}": getattr(layer, w) for w in LAYER_WEIGHTS}
    return ToyModel(config=model.config, params=params, seed=model.seed, steps=model.steps)
