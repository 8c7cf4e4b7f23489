"""PLACEHOLDER: replaced by the model presets (issue 2, part 3)."""

from typing import Any

ModelConfig: Any = None
MODELS: dict[str, Any] = {}
