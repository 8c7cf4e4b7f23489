"""Provides a toy two-layer attention-only transformer, trained in NumPy, whose heads specialise:
a previous-token head in layer 0 and an induction head in layer 1 (Olsson et al., 2022).

Not imported by engine/__init__.py: the app pays for it only when it asks for it.
"""

from engine.toy.data import encode_text, repeated_tokens, token_label, token_of
from engine.toy.files import load, pretrained, save
from engine.toy.metrics import HeadScores, head_scores, in_context_loss, scores_on
from engine.toy.model import ToyConfig, ToyForward, ToyModel
from engine.toy.train import DEFAULT_STEPS, TrainProgress, train

__all__ = [
    "DEFAULT_STEPS",
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
    "scores_on",
    "token_label",
    "token_of",
    "train",
]
