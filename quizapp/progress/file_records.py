"""Provides the records of a progress file, as pydantic models that check every field's type and range.

Every file written since version 1 of the format (quizapp.progress.format) reads with these models.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, AwareDatetime, BaseModel, ConfigDict, Field

from quizapp.progress.format import EARLIEST, LATEST
from quizapp.store.reviews import MAX_POINTS, POINT_CODES


def _in_range(when: datetime) -> datetime:
    if not EARLIEST <= when < LATEST:
        raise ValueError(f"{when.isoformat()} is not a date from 1970 to 2399")
    return when


When = Annotated[AwareDatetime, AfterValidator(_in_range)]
"""A time the store and the scheduler can hold (SQLite keeps microseconds in 64 bits)."""
Whole = Annotated[int, Field(ge=0, lt=2**63)]
Id = Annotated[int, Field(ge=1, lt=2**63)]
Seed = Annotated[int, Field(ge=-(2**63), lt=2**63)]
Seconds = Annotated[float, Field(ge=0, allow_inf_nan=False)]
Points = Annotated[str, Field(pattern=f"^[{POINT_CODES}]{{1,{MAX_POINTS}}}$")]
"""An explain answer's key points as the store keeps them (quizapp.store.reviews.POINT_CODES)."""


class _Strict(BaseModel):
    model_config = ConfigDict(strict=True, extra="forbid", frozen=True)


class CardEntry(_Strict):
    question_id: str
    card_id: Whole
    deck_id: str
    state: Literal[1, 2, 3]
    step: Whole | None
    stability: Annotated[float, Field(allow_inf_nan=False)] | None
    difficulty: Annotated[float, Field(allow_inf_nan=False)] | None
    due: When | None
    last_review: When | None
    introduced: When | None
    reps: Whole
    lapses: Whole
    suspended: bool
    flagged: bool


class ReviewEntry(_Strict):
    id: Id
    question_id: str
    deck_id: str
    reviewed_at: When
    seed: Seed
    answer: str
    correct: bool
    rating: Literal[1, 2, 3, 4]
    duration_ms: Whole
    diagnosis: str | None
    diagnosis_id: str | None
    mode: Literal["study", "drill", "cram", "interview"]
    state_before: Literal[1, 2, 3] | None
    scheduled: bool
    points: Points | None = None
    """Since version 2, and only on an explain answer's review."""


class AnswerEntry(_Strict):
    question_id: str
    deck_id: str
    seed: Seed
    prompt: str
    answer: str
    correct: bool
    expected: str
    diagnosis: str | None
    diagnosis_id: str | None
    seconds: Seconds
    skipped: bool
    flagged: bool


class InterviewEntry(_Strict):
    id: Id
    started_at: When
    finished_at: When | None
    config: dict[str, Any]
    answers: list[AnswerEntry]
