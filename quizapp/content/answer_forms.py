"""Provides the forms a written answer is read with: key points, each with the patterns that state it, and
rejected forms (classic misconceptions with their corrections), shared by flashcards, explain questions and
a case study's last part.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import Discriminator, Field, StrictStr, Tag, field_validator

from quizapp.content.patterns import MAX_PATTERN, compile_pattern
from quizapp.content.schema_common import MAX_ID, SLUG, Strict

MAX_FORMS = 40
"""Accepted forms of one key point, or rejected forms of one question: a few each, never a dictionary."""


Form = Annotated[str, Field(min_length=1, max_length=MAX_PATTERN)]
"""One pattern in the concept language of quizapp.content.patterns, checked when the deck loads."""


def _compiled_forms(forms: tuple[str, ...]) -> tuple[str, ...]:
    for form in forms:
        compile_pattern(form)  # a ValueError names the pattern and what is wrong with it
    return forms


class KeyPoint(Strict):
    """A key point the app can recognise: what it says, and the ways a right answer may state it."""

    text: str = Field(min_length=1, description="the point as the feedback names it")
    accept: tuple[Form, ...] = Field(
        default=(),
        max_length=MAX_FORMS,
        description="patterns any one of which states the point (see quizapp/content/patterns.py)",
    )
    core: bool = Field(default=False, description="without this point the answer fails (default: the first)")

    @field_validator("accept")
    @classmethod
    def _patterns(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        return _compiled_forms(value)


PointEntry = Annotated[
    Annotated[StrictStr, Tag("text")] | Annotated[KeyPoint, Tag("point")],
    Discriminator(lambda v: "text" if isinstance(v, str) else "point"),
]
"""A key point: its text alone (the learner ticks it), or a KeyPoint with the forms that state it."""


class RejectForm(Strict):
    """A classic misconception about the question, the patterns that state it, and its one-line correction."""

    id: str = Field(pattern=SLUG, max_length=MAX_ID, description="names the misconception in statistics")
    forms: tuple[Form, ...] = Field(min_length=1, max_length=MAX_FORMS)
    text: str = Field(min_length=1, description="the wrong claim, in a few words")
    correction: str = Field(min_length=1, description="what is true instead, in one line")
    point: int | None = Field(default=None, ge=1, description="the key point it contradicts, from 1")

    @field_validator("forms")
    @classmethod
    def _patterns(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        return _compiled_forms(value)
