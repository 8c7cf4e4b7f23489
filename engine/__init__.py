"""Provides the NumPy attention engine: multi-head attention, worked calculators and model presets.

engine.attention is the reference the app uses; the optimised forward for long sequences, which no part of
the app uses, lives with the benchmarks (benchmarks/fast/).

This package is the single source of numeric truth for the app. It imports NumPy and the standard
library only, never quizapp, textual, pydantic or yaml.
"""

from engine import calculators as _calculators  # noqa: F401  (importing registers every calculator)
from engine.accelerators import ACCELERATORS, Accelerator
from engine.attention import (
    AttentionParams,
    AttentionResult,
    causal_mask,
    init_attention,
    multi_head_attention,
    softmax,
)
from engine.calculator import CALCULATORS, Arg, Calculator, calculate
from engine.derivation import Derivation, Heatmap, Misconception, Step, Value, format_quantity
from engine.models import MODELS, ModelConfig

PRESETS: dict[str, ModelConfig | Accelerator] = {**MODELS, **ACCELERATORS}
"""Everything a deck's `preset` param may name: published models and accelerators, by key."""

__all__ = [
    "ACCELERATORS",
    "CALCULATORS",
    "MODELS",
    "PRESETS",
    "Accelerator",
    "Arg",
    "AttentionParams",
    "AttentionResult",
    "Calculator",
    "Derivation",
    "Heatmap",
    "Misconception",
    "ModelConfig",
    "Step",
    "Value",
    "calculate",
    "causal_mask",
    "format_quantity",
    "init_attention",
    "multi_head_attention",
    "softmax",
]
