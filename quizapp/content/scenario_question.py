"""Provides the case study's models (a scenario question): the setup, the 4-8 chained computed steps whose
names later steps build on, and the optional last part answered in words.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field, StrictBool, StrictStr, field_validator, model_validator

from quizapp.content.answer_forms import MAX_FORMS, KeyPoint, RejectForm
from quizapp.content.questions import QuestionBase
from quizapp.content.schema_common import ESTIMATE_HELP, PARAM_NAME, ArgValue, Strict, check_estimate
from quizapp.content.tolerance import Tolerance

MIN_SCENARIO_STEPS, MAX_SCENARIO_STEPS = 4, 8
"""A case study is asked the way an interviewer walks one system through: four to eight chained steps."""


class ScenarioStep(Strict):
    """One computed step of a case study. Its `name` is how later steps' args use its answer (in base
    units), so a step's numbers may build on earlier answers, and a wrong earlier answer can be carried
    forward: the step is re-worked with the learner's own number in place of the true one."""

    name: str = Field(pattern=PARAM_NAME, description="how later steps' args refer to this step's answer")
    prompt: str = Field(min_length=1, description="what the interviewer asks at this step (params only)")
    calculator: StrictStr
    args: dict[str, ArgValue] = Field(default_factory=dict)
    unit: str | None = Field(default=None, description="display unit; default: the calculator's base unit")
    tolerance: Tolerance | None = None
    estimate: StrictBool | None = Field(default=None, description=ESTIMATE_HELP)
    trap: StrictStr | None = Field(
        default=None, description="id of the misconception this step exists to catch (the calculator's)"
    )
    answer_format: str | None = Field(default=None, max_length=200)

    @model_validator(mode="after")
    def _one_tolerance(self) -> ScenarioStep:
        check_estimate(self.estimate, self.tolerance)
        return self


class ScenarioExplain(Strict):
    """The case study's last part: "explain your choice", answered in words and read point by point, where
    the numbers leave a trade-off to argue."""

    prompt: str = Field(min_length=1, description="what the interviewer asks after the numbers (params only)")
    model_answer: str = Field(min_length=1)
    key_points: tuple[KeyPoint, ...] = Field(min_length=2, max_length=6)
    reject: tuple[RejectForm, ...] = Field(default=(), max_length=MAX_FORMS)


class ScenarioQuestion(QuestionBase):
    """A case study on one system: a setup `prompt`, then 4-8 computed steps asked one after another,
    each judged against the truth and, with error carried forward, against the learner's earlier
    numbers."""

    type: Literal["scenario"]
    prompt: str = Field(min_length=1, description="the setup the interviewer gives before step 1")
    steps: tuple[ScenarioStep, ...]
    fixed: StrictStr | None = Field(
        default=None, description="why the final answer never varies (a cited anchor)"
    )
    explain: ScenarioExplain | None = Field(
        default=None, description="a last part in words: explain your choice, read point by point"
    )

    @field_validator("steps")
    @classmethod
    def _step_count(cls, steps: tuple[ScenarioStep, ...]) -> tuple[ScenarioStep, ...]:
        if not MIN_SCENARIO_STEPS <= len(steps) <= MAX_SCENARIO_STEPS:
            raise ValueError(
                f"a scenario has {MIN_SCENARIO_STEPS} to {MAX_SCENARIO_STEPS} steps, not {len(steps)}"
            )
        names = [s.name for s in steps]
        twice = sorted({n for n in names if names.count(n) > 1})
        if twice:
            raise ValueError(f"step names must differ; {', '.join(twice)} is used twice")
        return steps

    @model_validator(mode="after")
    def _names_apart_from_params(self) -> ScenarioQuestion:
        clash = sorted({s.name for s in self.steps} & set(self.params))
        if clash:
            raise ValueError(f"step name(s) {', '.join(clash)} are also param names; rename one")
        return self
