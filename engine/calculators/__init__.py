"""Provides every calculator; importing this package registers them in engine.CALCULATORS.

One module per area: dimensions (head_dim), shapes (attention_shape), parameters (attention and
single-vs-multi-head counts), kv_cache (cache bytes and savings), cost (FLOPs and score memory), entry
from engine.calculators import (
    cost,
    dimensions,
    entry,
    flash,
    kv_cache,
    latent,
    long_context,
    long_range,
    masks,
    numerics,
    parallel,
    parameters,
    positions,
    serving,
    serving_math,
    shapes,
    toy_heads,
    training_memory,
)

__all__ = [
    "cost",
    "dimensions",
    "entry",
    "flash",
    "kv_cache",
    "latent",
    "long_context",
    "long_range",
    "masks",
    "numerics",
    "parallel",
    "parameters",
    "positions",
    "serving",
    "serving_math",
    "shapes",
    "toy_heads",
    "training_memory",
]

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
    long_context,
    long_range,
    masks,
    numerics,
    parallel,
    parameters,
    positions,
    serving,
    serving_math,
    shapes,
    toy_heads,
    training_memory,
)

__all__ = [
    "cost",
    "dimensions",
    "entry",
    "flash",
    "kv_cache",
    "latent",
    "long_context",
    "long_range",
    "masks",
    "numerics",
    "parallel",
    "parameters",
    "positions",
    "serving",
    "serving_math",
    "shapes",
    "toy_heads",
    "training_memory",
]
