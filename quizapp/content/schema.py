"""Provides the deck schema: the pydantic model of a deck file and the union of its question types.

The models check structure only (keys, types, ranges). Whether a calculator exists, whether its arguments
fit and whether every placeholder has a parameter is checked by quizapp.content.checks.static, which needs
the engine; keeping the engine out of these modules keeps a warm catalog load cheap. The question kinds'
models live in quizapp.content.questions, code_question and scenario_question; their parts in param_specs,
answer_forms and schema_common.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field, field_validator

from quizapp.content.code_question import CodeQuestion
from quizapp.content.questions import (
    ChoiceQuestion,
    ExplainQuestion,
    FlashcardQuestion,
    NumericQuestion,
    ShapeQuestion,
    TensorQuestion,
)
from quizapp.content.scenario_question import ScenarioQuestion
from quizapp.content.schema_common import MAX_ID, SLUG, Strict

Question = Annotated[
    NumericQuestion
    | TensorQuestion
    | ShapeQuestion
    | ChoiceQuestion
    | FlashcardQuestion
    | ExplainQuestion
    | CodeQuestion
    | ScenarioQuestion,
    Field(discriminator="type"),
]


class Deck(Strict):
    """One YAML file of questions on one topic."""

    id: str = Field(pattern=SLUG, max_length=MAX_ID, description="kebab-case, unique across decks")
    title: str = Field(min_length=1)
    topic: str = Field(pattern=SLUG)
    description: str = ""
    after: tuple[Annotated[str, Field(pattern=SLUG, max_length=MAX_ID)], ...] = Field(
        default=(), description="ids of decks whose easy questions should come first (prerequisites)"
    )
    questions: tuple[Question, ...]

    @field_validator("questions")
    @classmethod
    def _not_empty(cls, questions: tuple[Any, ...]) -> tuple[Any, ...]:
        if not questions:
            raise ValueError("a deck needs at least one question")
        return questions
