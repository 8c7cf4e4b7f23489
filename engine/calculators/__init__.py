"""Provides every calculator; importing this package registers them in engine.CALCULATORS."""

from engine.calculators import cost, dimensions, entry, kv_cache, parameters

__all__ = ["cost", "dimensions", "entry", "kv_cache", "parameters"]
