"""Provides the question models answered in one step: the fields every question has, the computed kinds
(numeric, tensor, shape), choice, flashcard and explain. Code questions and case studies have modules of
their own (quizapp.content.code_question, quizapp.content.scenario_question).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field, StrictBool, StrictStr, ValidationInfo, field_validator, model_validator

from quizapp.content.answer_forms import MAX_FORMS, KeyPoint, PointEntry, RejectForm
from quizapp.content.param_specs import ParamSpec
from quizapp.content.schema_common import (
    ESTIMATE_HELP,
    MAX_ID,
    PARAM_NAME,
    SLUG,
    ArgValue,
    Strict,
    check_estimate,
)
from quizapp.content.tolerance import Tolerance

DEFAULT_SECONDS: dict[int, float] = {1: 60.0, 2: 90.0, 3: 150.0}


class QuestionBase(Strict):
    """Fields every question has; `id` is the key for progress, so editing text keeps history."""

    id: str = Field(
        pattern=SLUG, max_length=MAX_ID, description="unique across all decks; prefix it with the deck id"
    )
    explanation: str = Field(min_length=1, description="why the answer is what it is (Markdown)")
    difficulty: int = Field(default=1, ge=1, le=3)
    tags: tuple[str, ...] = ()
    source: str = Field(default="", description="citation for facts about real models")
    target_seconds: float = Field(
        default=90.0, gt=0, le=3600, description="time to answer; default 60/90/150 by difficulty"
    )
    params: dict[Annotated[str, Field(pattern=PARAM_NAME)], ParamSpec] = Field(default_factory=dict)

    @model_validator(mode="before")
    @classmethod
    def _default_seconds(cls, data: Any) -> Any:
        if isinstance(data, dict) and data.get("target_seconds") is None:
            difficulty = data.get("difficulty", 1)
            seconds = DEFAULT_SECONDS.get(difficulty, 90.0) if isinstance(difficulty, int) else 90.0
            return {**data, "target_seconds": seconds}
        return data


class _Computed(QuestionBase):
    """A question whose answer an engine calculator computes from the params."""

    prompt: str = Field(min_length=1)
    calculator: StrictStr
    args: dict[str, ArgValue] = Field(default_factory=dict)
    unit: str | None = Field(default=None, description="display unit; default: the calculator's base unit")
    tolerance: Tolerance | None = None
    estimate: StrictBool | None = Field(default=None, description=ESTIMATE_HELP)
    trap: StrictStr | None = Field(
        default=None,
        description="id of the misconception this question exists to catch (one the calculator names)",
    )
    fixed: StrictStr | None = Field(
        default=None,
        description="why the answer never varies (a cited anchor); exempts it from the distinct-answers gate",
    )
    answer_format: str | None = Field(
        default=None,
        max_length=200,
        description="what to type, shown under the answer box (default: by type, e.g. a shape like (2, 8))",
    )
    heatmap_in_prompt: bool = Field(
        default=False,
        description="draw the calculator's heatmap with the question (it is always drawn in the feedback)",
    )

    @model_validator(mode="after")
    def _one_tolerance(self) -> _Computed:
        check_estimate(self.estimate, self.tolerance)
        return self


class NumericQuestion(_Computed):
    """A number computed by the engine (bytes, params, FLOPs, ratios...)."""

    type: Literal["numeric"]


class TensorQuestion(_Computed):
    """One entry of a small worked tensor example (scores, weights, outputs)."""

    type: Literal["tensor"]


class ShapeQuestion(_Computed):
    """A tensor shape, answered as a tuple."""

    type: Literal["shape"]
    unordered: bool = Field(
        default=False,
        description="the answer is a set of numbers (such as panel numbers): any order is right",
    )


class Option(Strict):
    """One option; a wrong option says why it is wrong."""

    text: str = Field(min_length=1)
    correct: bool = False
    feedback: str = ""

    @model_validator(mode="after")
    def _wrong_needs_feedback(self) -> Option:
        if not self.correct and not self.feedback.strip():
            raise ValueError("a wrong option needs feedback that says why it is wrong")
        return self


class ChoiceQuestion(QuestionBase):
    """Multiple choice, shuffled by seed; `multiple` makes it select-all-that-apply."""

    type: Literal["choice"]
    prompt: str = Field(min_length=1)
    multiple: bool = False
    options: tuple[Option, ...]

    @field_validator("options")
    @classmethod
    def _right_count(cls, options: tuple[Option, ...], info: ValidationInfo) -> tuple[Option, ...]:
        if not 2 <= len(options) <= 8:
            raise ValueError(f"a choice question has 2 to 8 options, not {len(options)}")
        right = sum(o.correct for o in options)
        if right == 0:
            raise ValueError("no option is marked correct: true")
        if right > 1 and not info.data.get("multiple", False):
            raise ValueError(f"{right} options are correct; set multiple: true or mark only one correct")
        return options


class FlashcardQuestion(QuestionBase):
    """A front and a back; `front` plays the role of the prompt. With `key_points` the card opts in to
    "type the answer": the learner types it, and it is read point by point against the back's points as
    an explanation is (the back is the model answer)."""

    type: Literal["flashcard"]
    front: str = Field(min_length=1)
    back: str = Field(min_length=1)
    key_points: tuple[KeyPoint, ...] = Field(
        default=(), max_length=6, description="the back split into points with accepted forms: type it in"
    )
    reject: tuple[RejectForm, ...] = Field(default=(), max_length=MAX_FORMS)

    @property
    def typed(self) -> bool:
        """The card is answered by typing, and read, rather than revealed and self-rated."""
        return bool(self.key_points)

    @property
    def prompt(self) -> str:
        """The front, so every question type has a prompt."""
        return self.front


class ExplainQuestion(QuestionBase):
    """An interview question answered in words, read point by point against its key points' accepted forms
    and its rejected forms (misconceptions); a key point without forms is ticked by the learner alone."""

    type: Literal["explain"]
    prompt: str = Field(min_length=1)
    model_answer: str = Field(min_length=1)
    key_points: tuple[PointEntry, ...] = Field(min_length=3, max_length=6)
    reject: tuple[RejectForm, ...] = Field(default=(), max_length=MAX_FORMS)

    @model_validator(mode="after")
    def _rejects_name_a_point(self) -> ExplainQuestion:
        n = len(self.key_points)
        for form in self.reject:
            if form.point is not None and form.point > n:
                raise ValueError(f"reject {form.id!r} names key point {form.point}; the question has {n}")
        return self

    @property
    def point_texts(self) -> tuple[str, ...]:
        """Each key point's text, whichever way it was written."""
        return tuple(p if isinstance(p, str) else p.text for p in self.key_points)


ComputedQuestion = NumericQuestion | TensorQuestion | ShapeQuestion
