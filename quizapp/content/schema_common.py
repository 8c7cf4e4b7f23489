"""Provides what every deck model shares: the strict base model, the names of question types and param
kinds, the patterns of ids and names, and the `estimate:` rule (one text and one check, for questions and
scenario steps alike).
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, StrictBool, StrictFloat, StrictInt, StrictStr

from quizapp.content.tolerance import Tolerance

SLUG = r"^[a-z0-9]+(?:[-_.][a-z0-9]+)*$"
MAX_ID = 100
"""Ids name cards in the database and lines in every report: long enough for any real name."""
PARAM_NAME = r"^[A-Za-z_][A-Za-z0-9_]*$"
QUESTION_TYPES: tuple[str, ...] = (
    "numeric",
    "tensor",
    "shape",
    "choice",
    "flashcard",
    "explain",
    "code",
    "scenario",
)
ANSWER_TYPES: frozenset[str] = frozenset({"numeric", "tensor", "shape"})
PARAM_KINDS: tuple[str, ...] = ("value", "choices", "range", "preset", "calc", "matrix")

Number = StrictInt | StrictFloat
ArgValue = StrictStr | StrictBool | StrictInt | StrictFloat | list[Any]
"""A calculator argument in YAML: a string is a reference to a param, anything else is a literal."""


ESTIMATE_HELP = (
    "true: the answer is an estimate (a time, a throughput, a model's FLOPs or memory), graded to 3 "
    "significant figures (within 0.5%), as an interviewer takes it; false: an exact count or a deliberate "
    "tolerance, graded by `tolerance` as written. Default: true for a time (ms, s...), an angle and a "
    "model-sized unit (GB, GiB, TB, TiB, TFLOPs, B params), where `tolerance: {kind: sigfigs, value: 3}` "
    "also reads as the estimate; otherwise `tolerance` (default: exact for an integer, 1% otherwise). "
    "Not with a tolerance other than {kind: estimate}."
)
"""What `estimate:` means in a deck: one text for the JSON schema and the docs."""


def check_estimate(estimate: bool | None, tolerance: Tolerance | None) -> None:
    """`estimate: true` is a tolerance of its own: a second, different one would leave the reader guessing."""
    if estimate is True and tolerance is not None and tolerance.kind != "estimate":
        raise ValueError(
            f"estimate: true grades to 3 significant figures; drop tolerance ({tolerance.describe()}) or set "
            "estimate: false"
        )


class Strict(BaseModel):
    """Unknown keys are errors and loaded content never changes under the app's feet."""

    model_config = ConfigDict(extra="forbid", frozen=True)
