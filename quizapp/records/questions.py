"""Provides QuestionRef, a question as the store and the queues know it: its id, deck, difficulty and tags."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class QuestionRef:
    """What the store and the queues need to know about a question, independent of any catalog."""

    question_id: str
    deck_id: str
    difficulty: int = 1
    tags: tuple[str, ...] = ()
