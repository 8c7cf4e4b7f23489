"""Provides every calculator; importing this package registers them in engine.CALCULATORS.

One module per area: dimensions (head_dim), shapes (attention_shape), parameters (attention and
single-vs-multi-head counts), kv_cache (cache bytes and savings), cost (FLOPs and score memory), entry
(one entry of a worked attention example).
"""

from engine.calculators import cost, dimensions, entry, kv_cache, parameters, shapes

__all__ = ["cost", "dimensions", "entry", "kv_cache", "parameters", "shapes"]
