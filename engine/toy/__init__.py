"""Provides a toy two-layer attention-only transformer, trained in NumPy, whose heads specialise:
a previous-token head in layer 0 and an induction head in layer 1 (Olsson et al., 2022).

Not imported by engine/__init__.py: the app pays for it only when it asks for it.
"""

from engine.toy.data import encode_text, repeated_tokens, token_label
from engine.toy.files import load, pretrained, save
from engine.toy.metrics import HeadScores, head_scores, in_context_loss
from engine.toy.model import ToyConfig, ToyForward, ToyModel
from engine.toy.train import TrainProgress, train

__all__ = [
    "HeadScores",
    "ToyConfig",
    "ToyForward",
    "ToyModel",
    "TrainProgress",
    "encode_text",
    "head_scores",
    "in_context_loss",
    "load",
    "pretrained",
    "repeated_tokens",
    "save",
    "token_label",
    "train",
]
