"""Provides every calculator; importing this package registers them in engine.CALCULATORS.

One module per area: dimensions (head_dim), shapes (attention_shape), parameters (attention and
single-vs-multi-head counts), kv_cache (cache bytes and savings), cost (FLOPs and score memory), entry
(one entry of a worked attention example), flash (online softmax and materialised-attention bytes),
training_memory (activations, the softmax Jacobian, optimizer state), serving (model FLOPs, decode speed,
memory fit, paged KV), numerics (float limits, overflow, stable softmax, soft-capping, mask values),
latent (multi-head latent attention caches and shapes), parallel (tensor-parallel heads, caches, all-reduce).

Every calculator also takes the keyword `worked=False` (see engine.calculator.calculate_value): it makes
the same checks and computes the same value, then returns before writing the steps and misconceptions.
"""

from engine.calculators import (
    cost,
    dimensions,
    entry,
    flash,
    kv_cache,
    latent,
    numerics,
    parallel,
    parameters,
    serving,
    shapes,
    training_memory,
)

__all__ = [
    "cost",
    "dimensions",
    "entry",
    "flash",
    "kv_cache",
    "latent",
    "numerics",
    "parallel",
    "parameters",
    "serving",
    "shapes",
    "training_memory",
]
