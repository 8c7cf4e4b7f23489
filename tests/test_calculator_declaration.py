"""A calculator is declared once, by its signature: the registry reads its name, arguments, defaults,
choices and ranges from there, checks the ranges, and stamps the name and unit on what it returns."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Annotated, Literal

import numpy as np
import pytest
from typing_extensions import TypeAliasType, TypeVar

from engine.calculator import CALCULATORS, Param, calculate, calculate_value, register, result
from engine.calculators.case_common import formula_result
from engine.calculators.dimensions import head_dim
from engine.derivation import Derivation, Misconception, Step


@pytest.fixture
def scratch() -> Iterator[list[str]]:
    """Names registered by a test, taken out of the registry afterwards."""
    names: list[str] = []
    yield names
    for name in names:
        CALCULATORS.pop(name, None)


def test_the_registry_reads_arguments_from_the_signature() -> None:
    calc = CALCULATORS["moe_expert_params"]
    assert [a.name for a in calc.args][:2] == ["d_model", "d_ff"]
    which = calc.arg("which")
    assert (which.kind, which.choices, which.default, which.required) == (
        "str",
        ("total", "active"),
        "total",
        False,
    )
    d_model = calc.arg("d_model")
    assert (d_model.kind, d_model.required, d_model.gt) == ("int", True, 0)
    assert calc.arg("n_shared").default == 0
    assert CALCULATORS["top_p_probability"].arg("p").le == 1
    assert CALCULATORS["attention_entry"].arg("q").kind == "matrix"


def test_a_declared_calculator_gets_its_name_unit_and_range_checks(scratch: list[str]) -> None:
    ran: list[float] = []

    @register(summary="Twice a positive width.", unit="B", misconceptions=("forgot-x2",))
    def scratch_double(
        width: Annotated[float, Param("a width", gt=0)],
        share: Annotated[float, Param("a share", ge=0, le=1)] = 0.5,
        mode: Annotated[Literal["a", "b"], Param("a mode")] = "a",
        *,
        worked: bool = True,
    ) -> Derivation:
        ran.append(width)
        if width > 100:
            raise ValueError(f"width={width} is too wide")
        value = 2 * width
        return formula_result(
            value,
            "Double",
            "2 x width",
            f"2 x {width}",
            [Misconception("forgot-x2", "You did not double", "Twice.", width)],
            worked=worked,
        )

    scratch.append("scratch_double")
    d = calculate("scratch_double", width=3.0)
    assert (d.calculator, d.unit, d.value) == ("scratch_double", "B", 6.0)
    assert d.steps[-1].unit == "B"  # the formula's line is in the declared unit
    assert d.misconception("forgot-x2").step == "Double"
    assert calculate_value("scratch_double", width=3.0).unit == "B"
    assert scratch_double(3.0).calculator == "scratch_double"  # a direct call is checked and stamped too
    with pytest.raises(ValueError, match=r"scratch_double: width must be > 0, got width=0"):
        calculate("scratch_double", width=0)
    with pytest.raises(ValueError, match=r"share must be >= 0 and <= 1, got share=1.5 \(a share\)"):
        calculate("scratch_double", width=1, share=1.5)
    with pytest.raises(ValueError, match="must be one of a, b"):
        calculate("scratch_double", width=1, mode="c")
    assert ran == [3.0, 3.0, 3.0]  # out-of-range calls never reached the body
    with pytest.raises(ValueError, match=r"^scratch_double: width=101.0 is too wide$"):
        calculate("scratch_double", width=101.0)


def test_a_calculator_argument_without_a_declaration_is_refused(scratch: list[str]) -> None:
    scratch.append("scratch_bare")
    with pytest.raises(TypeError, match="'width' needs Annotated"):

        @register(summary="No declaration.", unit="")
        def scratch_bare(width: float, *, worked: bool = True) -> Derivation:
            return result(width)


def test_result_keeps_only_misconceptions_that_differ_from_the_answer() -> None:
    d = result(
        4, [Step("x", "x", "x", 4)], [Misconception("same", "", "", 4), Misconception("off", "", "", 5)]
    )
    assert [m.id for m in d.misconceptions] == ["off"]


def test_bad_sizes_name_the_values_whichever_way_the_calculator_is_called() -> None:
    with pytest.raises(ValueError, match=r"head_dim: d_model must be > 0, got d_model=0"):
        calculate("head_dim", d_model=0, n_heads=4)
    with pytest.raises(ValueError, match=r"head_dim: d_model=6 is not divisible by n_heads=4"):
        head_dim(d_model=6, n_heads=4)
    with pytest.raises(ValueError, match="without bound"):
        calculate("queue_wait_ms", service_ms=100, utilisation=1.0)


_Scalar = TypeVar("_Scalar", bound=np.generic)
AliasedMatrix = TypeAliasType(
    "AliasedMatrix", np.ndarray[tuple[int, ...], np.dtype[_Scalar]], type_params=(_Scalar,)
)
"""An array type written as a `type` alias, as numpy 2.5 writes NDArray (on Python 3.13 CI met it)."""


def test_an_array_declared_through_a_type_alias_is_a_matrix(scratch: list[str]) -> None:
    scratch.append("scratch_aliased")

    @register(summary="The first entry of a matrix.", unit="")
    def scratch_aliased(
        q: Annotated[AliasedMatrix[np.float64], Param("a matrix")], *, worked: bool = True
    ) -> Derivation:
        return result(float(q[0, 0]))

    assert CALCULATORS["scratch_aliased"].arg("q").kind == "matrix"
