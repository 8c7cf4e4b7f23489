"""Provides the deck schema: pydantic models for a deck file, its questions and their parameter specs.

The models check structure only (keys, types, ranges). Whether a calculator exists, whether its arguments
fit and whether every placeholder has a parameter is checked by quizapp.content.checks.static, which needs
the engine;
keeping the engine out of this module keeps a warm catalog load cheap.
"""

from __future__ import annotations

from typing import Annotated, Any, ClassVar, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Discriminator,
    Field,
    StrictBool,
    StrictFloat,
    StrictInt,
    StrictStr,
    Tag,
    ValidationInfo,
    field_validator,
    model_validator,
)

from quizapp.content.patterns import MAX_PATTERN, compile_pattern
from quizapp.content.tolerance import Tolerance

SLUG = r"^[a-z0-9]+(?:[-_.][a-z0-9]+)*$"
MAX_ID = 100
"""Ids name cards in the database and lines in every report: long enough for any real name."""
PARAM_NAME = r"^[A-Za-z_][A-Za-z0-9_]*$"
DEFAULT_SECONDS: dict[int, float] = {1: 60.0, 2: 90.0, 3: 150.0}
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
LIMIT = 1e15
"""No number a deck draws needs more; beyond it int64 and float arithmetic stop being exact."""
MAX_RANGE_STEPS = 1e12
MAX_FORMS = 40
"""Accepted forms of one key point, or rejected forms of one question: a few each, never a dictionary."""
Bounded = Annotated[Number, Field(ge=-LIMIT, le=LIMIT, allow_inf_nan=False)]
"""A number a range may use: finite and at most 1e15 in size."""
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


def _check_estimate(estimate: bool | None, tolerance: Tolerance | None) -> None:
    """`estimate: true` is a tolerance of its own: a second, different one would leave the reader guessing."""
    if estimate is True and tolerance is not None and tolerance.kind != "estimate":
        raise ValueError(
            f"estimate: true grades to 3 significant figures; drop tolerance ({tolerance.describe()}) or set "
            "estimate: false"
        )


class _Strict(BaseModel):
    """Unknown keys are errors and loaded content never changes under the app's feet."""

    model_config = ConfigDict(extra="forbid", frozen=True)


# --------------------------------------------------------------------------- parameter specs


class ValueParam(_Strict):
    """A fixed value: `{value: scores}`."""

    KIND: ClassVar[str] = "value"
    value: Any


class ChoicesParam(_Strict):
    """One of a list, picked by the seed; a choice may be a mapping so related numbers travel together."""

    KIND: ClassVar[str] = "choices"
    choices: list[Any] = Field(min_length=1)


class RangeParam(_Strict):
    """A number from an inclusive range on a grid of `step`; a float range if any bound or step is a float."""

    KIND: ClassVar[str] = "range"
    range: tuple[Bounded, Bounded]
    step: Bounded = Field(default=1, gt=0)

    @field_validator("range")
    @classmethod
    def _ordered(cls, value: tuple[float, float]) -> tuple[float, float]:
        if value[0] > value[1]:
            raise ValueError(f"the range's low end {value[0]} is above its high end {value[1]}")
        return value

    @model_validator(mode="after")
    def _few_enough_steps(self) -> RangeParam:
        steps = (self.range[1] - self.range[0]) / self.step
        if steps > MAX_RANGE_STEPS:
            raise ValueError(f"the range has {steps:.3g} steps of {self.step}; at most {MAX_RANGE_STEPS:.0e}")
        return self


class PresetParam(_Strict):
    """A real model from engine.MODELS; its fields are usable as `model.n_layers` and so on."""

    KIND: ClassVar[str] = "preset"
    preset: list[StrictStr] = Field(min_length=1)


class CalcParam(_Strict):
    """A value derived by a calculator from other params, so constraints hold by construction."""

    KIND: ClassVar[str] = "calc"
    calc: StrictStr
    args: dict[str, ArgValue] = Field(default_factory=dict)


class MatrixSpec(_Strict):
    """Shape and inclusive bounds of a seeded random integer matrix."""

    rows: int = Field(ge=1, le=12)
    cols: int = Field(ge=1, le=12)
    low: int = Field(default=-2, ge=-1000, le=1000)
    high: int = Field(default=2, ge=-1000, le=1000)

    @model_validator(mode="after")
    def _ordered(self) -> MatrixSpec:
        if self.low > self.high:
            raise ValueError(f"low ({self.low}) is above high ({self.high})")
        return self


class MatrixParam(_Strict):
    """A small integer matrix for worked examples: `{matrix: {rows: 3, cols: 2, low: -2, high: 2}}`."""

    KIND: ClassVar[str] = "matrix"
    matrix: MatrixSpec


def _param_kind(value: Any) -> str | None:
    """Tells which spec a param is from the one kind key it has (None when zero or several)."""
    if isinstance(value, dict):
        found = None
        for key in value:  # a spec has one or two keys; PARAM_KINDS has six
            if key in _KINDS:
                if found is not None:
                    return None
                found = key
        return found
    return getattr(value, "KIND", None)


_KINDS = frozenset(PARAM_KINDS)


ParamSpec = Annotated[
    Annotated[ValueParam, Tag("value")]
    | Annotated[ChoicesParam, Tag("choices")]
    | Annotated[RangeParam, Tag("range")]
    | Annotated[PresetParam, Tag("preset")]
    | Annotated[CalcParam, Tag("calc")]
    | Annotated[MatrixParam, Tag("matrix")],
    Discriminator(
        _param_kind,
        custom_error_type="param_kind",
        custom_error_message=(
            "a parameter needs exactly one of the keys value, choices, range, preset, calc, matrix"
        ),
    ),
]


# --------------------------------------------------------------------------- questions


class _QuestionBase(_Strict):
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


class _Computed(_QuestionBase):
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
        _check_estimate(self.estimate, self.tolerance)
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


class Option(_Strict):
    """One option; a wrong option says why it is wrong."""

    text: str = Field(min_length=1)
    correct: bool = False
    feedback: str = ""

    @model_validator(mode="after")
    def _wrong_needs_feedback(self) -> Option:
        if not self.correct and not self.feedback.strip():
            raise ValueError("a wrong option needs feedback that says why it is wrong")
        return self


class ChoiceQuestion(_QuestionBase):
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


Form = Annotated[str, Field(min_length=1, max_length=MAX_PATTERN)]
"""One pattern in the concept language of quizapp.content.patterns, checked when the deck loads."""


def _compiled_forms(forms: tuple[str, ...]) -> tuple[str, ...]:
    for form in forms:
        compile_pattern(form)  # a ValueError names the pattern and what is wrong with it
    return forms


class KeyPoint(_Strict):
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


class RejectForm(_Strict):
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


class FlashcardQuestion(_QuestionBase):
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


class ExplainQuestion(_QuestionBase):
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


class CodeMistake(_Strict):
    """One wrong version the engine computes (its id in the exercise), and the sentence that names it."""

    id: StrictStr
    text: str = Field(default="", description="what the learner is told (default: the exercise's sentence)")


class CodeTolerance(_Strict):
    """How close the output must be, elementwise: |yours - expected| <= atol + rtol * |expected|."""

    rtol: float = Field(default=1e-6, ge=0, le=1)
    atol: float = Field(default=1e-8, ge=0, le=1)


InputScalar = StrictBool | StrictInt | StrictFloat | StrictStr
MIN_CODE_CASES = 5
"""As engine.exercises.inputs.MIN_CASES (this module stays free of the engine)."""


class CodeOneOf(_Strict):
    """A random value picked from a list: `{one_of: [2, 4]}`."""

    one_of: tuple[InputScalar, ...] = Field(min_length=1)


class CodeInputs(_Strict):
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


class CodeQuestion(_QuestionBase):
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


MIN_SCENARIO_STEPS, MAX_SCENARIO_STEPS = 4, 8
"""A case study is asked the way an interviewer walks one system through: four to eight chained steps."""


class ScenarioStep(_Strict):
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
        _check_estimate(self.estimate, self.tolerance)
        return self


class ScenarioExplain(_Strict):
    """The case study's last part: "explain your choice", answered in words and read point by point, where
    the numbers leave a trade-off to argue."""

    prompt: str = Field(min_length=1, description="what the interviewer asks after the numbers (params only)")
    model_answer: str = Field(min_length=1)
    key_points: tuple[KeyPoint, ...] = Field(min_length=2, max_length=6)
    reject: tuple[RejectForm, ...] = Field(default=(), max_length=MAX_FORMS)


class ScenarioQuestion(_QuestionBase):
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


ComputedQuestion = NumericQuestion | TensorQuestion | ShapeQuestion
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


class Deck(_Strict):
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
