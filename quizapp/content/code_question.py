"""Provides the code question's models: the exercise it is checked against, the wrong versions to name,
the tolerance of its output and how each seed's inputs are drawn.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field, StrictBool, StrictFloat, StrictInt, StrictStr

from quizapp.content.questions import QuestionBase
from quizapp.content.schema_common import Number, Strict


class CodeMistake(Strict):
    """One wrong version the engine computes (its id in the exercise), and the sentence that names it."""

    id: StrictStr
    text: str = Field(default="", description="what the learner is told (default: the exercise's sentence)")


class CodeTolerance(Strict):
    """How close the output must be, elementwise: |yours - expected| <= atol + rtol * |expected|."""

    rtol: float = Field(default=1e-6, ge=0, le=1)
    atol: float = Field(default=1e-8, ge=0, le=1)


InputScalar = StrictBool | StrictInt | StrictFloat | StrictStr
MIN_CODE_CASES = 5
"""As engine.exercises.inputs.MIN_CASES (this module stays free of the engine)."""


class CodeOneOf(Strict):
    """A random value picked from a list: `{one_of: [2, 4]}`."""

    one_of: tuple[InputScalar, ...] = Field(min_length=1)


class CodeInputs(Strict):
    """How the seed's input sets are drawn: the edge cases, always first and in this order, then random
    ones up to `cases` in all. Names are the exercise's input parameters (sizes such as T or n_heads,
    features such as mask: blocked_row); a name an edge case leaves out takes its default."""

    cases: Annotated[StrictInt, Field(ge=MIN_CODE_CASES, le=100)] | None = Field(
        default=None, description="input sets per run, edge cases included (default: the exercise's, 6)"
    )
    dtype: Literal["float64", "float32"] | None = Field(
        default=None, description="the dtype of every float array (default: the exercise's, float64)"
    )
    edge: tuple[dict[StrictStr, Any], ...] | None = Field(
        default=None,
        max_length=50,
        description="the edge cases, each a mapping of parameters to values (default: the exercise's); "
        "they replace the exercise's edge cases",
    )
    random: dict[StrictStr, tuple[Number, Number] | CodeOneOf | InputScalar] = Field(
        default_factory=dict,
        description="for the random cases, each parameter as [low, high] (inclusive), {one_of: [...]} or "
        "one value; names left out keep the exercise's ranges",
    )


class CodeQuestion(QuestionBase):
    """A function to write in NumPy, run against the engine's reference on the seed's inputs (edge cases
    first); a wrong solution that matches one of the exercise's known wrong versions is told which."""

    type: Literal["code"]
    prompt: str = Field(min_length=1)
    exercise: StrictStr = Field(
        description="the engine exercise it is checked against (engine.exercises.EXERCISES): the "
        "function's name and signature, the reference, the inputs each seed draws (edge cases first) and "
        "the wrong versions it can compute"
    )
    mistakes: tuple[StrictStr | CodeMistake, ...] = Field(
        default=(),
        description="the wrong versions to name, as ids or {id, text} (default: all the exercise knows)",
    )
    tolerance: CodeTolerance | None = Field(default=None, description="default: the exercise's")
    inputs: CodeInputs | None = Field(
        default=None, description="how the inputs are drawn for a seed (default: the exercise's)"
    )
    starter: str = Field(default="", description="the code the editor opens with (default: the signature)")
