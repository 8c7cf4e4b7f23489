"""Provides the parameter specs of a question: the six ways a deck draws a param (value, choices, range,
preset, calc, matrix), told apart by the one kind key each has.
"""

from __future__ import annotations

from typing import Annotated, Any, ClassVar

from pydantic import Discriminator, Field, StrictStr, Tag, field_validator, model_validator

from quizapp.content.schema_common import PARAM_KINDS, ArgValue, Number, Strict

LIMIT = 1e15
"""No number a deck draws needs more; beyond it int64 and float arithmetic stop being exact."""
MAX_RANGE_STEPS = 1e12
Bounded = Annotated[Number, Field(ge=-LIMIT, le=LIMIT, allow_inf_nan=False)]
"""A number a range may use: finite and at most 1e15 in size."""


class ValueParam(Strict):
    """A fixed value: `{value: scores}`."""

    KIND: ClassVar[str] = "value"
    value: Any


class ChoicesParam(Strict):
    """One of a list, picked by the seed; a choice may be a mapping so related numbers travel together."""

    KIND: ClassVar[str] = "choices"
    choices: list[Any] = Field(min_length=1)


class RangeParam(Strict):
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


class PresetParam(Strict):
    """A real model from engine.MODELS; its fields are usable as `model.n_layers` and so on."""

    KIND: ClassVar[str] = "preset"
    preset: list[StrictStr] = Field(min_length=1)


class CalcParam(Strict):
    """A value derived by a calculator from other params, so constraints hold by construction."""

    KIND: ClassVar[str] = "calc"
    calc: StrictStr
    args: dict[str, ArgValue] = Field(default_factory=dict)


class MatrixSpec(Strict):
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


class MatrixParam(Strict):
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
