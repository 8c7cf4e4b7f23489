"""A calculator is declared once, by its signature: the registry reads its name, arguments, defaults,
choices and ranges from there, checks the ranges, and stamps the name and unit on what it returns."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Annotated, Literal

import numpy as np
import pytest
from typing_extensions import TypeAliasType, TypeVar

import engine.calculators
from engine.calculator import CALCULATORS, Param, calculate, calculate_value, register, result
from engine.calculators.case_common import formula_result
from engine.calculators.common import OpenShare, Share
from engine.calculators.dimensions import head_dim
from engine.derivation import Derivation, Misconception, Mistake, Step

FORGOT_X2 = Mistake("forgot-x2", "You did not double", "Twice.")


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

    @register(summary="Twice a positive width.", unit="B", misconceptions=(FORGOT_X2,))
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
            [FORGOT_X2.gives(width)],
            worked=worked,
        )

    scratch.append("scratch_double")
    d = calculate("scratch_double", width=3.0)
    assert (d.calculator, d.unit, d.value) == ("scratch_double", "B", 6.0)
    assert d.steps[-1].unit == "B"  # the formula's line is in the declared unit
    assert d.misconception("forgot-x2").step == "Double"
    assert CALCULATORS["scratch_double"].misconception_ids == ("forgot-x2",)  # read from the Mistake
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


def test_a_misconception_named_by_a_bare_id_is_refused(scratch: list[str]) -> None:
    """An id written in `register` and again in the body could drift apart; only a Mistake is taken."""
    scratch.append("scratch_bare_id")
    with pytest.raises(TypeError, match="misconceptions must be Mistakes declared once"):

        @register(summary="A bare id.", unit="", misconceptions=("forgot-x2",))  # type: ignore[arg-type]
        def scratch_bare_id(width: Annotated[float, Param("a width")], *, worked: bool = True) -> Derivation:
            return result(width)


def test_a_mistake_gives_its_declared_words_unless_an_instance_rewords_them() -> None:
    assert FORGOT_X2.gives(3, "Double") == Misconception(
        "forgot-x2", "You did not double", "Twice.", 3, "Double"
    )
    reworded = FORGOT_X2.gives(3, explanation="Twice 1.5.")
    assert (reworded.id, reworded.label, reworded.explanation) == (
        "forgot-x2",
        "You did not double",
        "Twice 1.5.",
    )


def test_each_calculator_module_writes_each_misconception_id_once() -> None:
    """Misconceptions come from module-level Mistakes: no module builds one from a bare id, and none
    declares an id twice (which would let two wordings of one mistake drift apart)."""
    folder = Path(engine.calculators.__file__).parent
    for path in sorted(folder.glob("*.py")):
        text = path.read_text(encoding="utf-8")
        assert "Misconception(" not in text, f"{path.name} builds a Misconception from a bare id"
        ids = re.findall(r'Mistake\(\s*"([^"]+)"', text)
        assert len(ids) == len(set(ids)), (
            f"{path.name} declares {sorted(i for i in ids if ids.count(i) > 1)} twice"
        )


def test_a_share_takes_its_range_from_the_alias_and_its_meaning_from_the_argument(scratch: list[str]) -> None:
    scratch.append("scratch_share")

    @register(summary="A share of a width.", unit="")
    def scratch_share(
        share: Annotated[Share, Param("the part kept")],
        odds: Annotated[OpenShare, Param("a probability")] = 0.5,
        *,
        worked: bool = True,
    ) -> Derivation:
        return result(share * odds)

    calc = CALCULATORS["scratch_share"]
    kept, odds = calc.arg("share"), calc.arg("odds")
    assert (kept.meaning, kept.gt, kept.ge, kept.lt, kept.le) == ("the part kept", 0, None, None, 1)
    assert (odds.meaning, odds.gt, odds.lt, odds.le) == ("a probability", 0, 1, None)
    assert calculate("scratch_share", share=1.0).value == 0.5
    with pytest.raises(ValueError, match=r"share must be > 0 and <= 1, got share=-0.5 \(the part kept\)"):
        calculate("scratch_share", share=-0.5)  # the range said once, not "> 0 and >= 0 and <= 1"
    with pytest.raises(ValueError, match=r"odds must be > 0 and < 1, got odds=1"):
        calculate("scratch_share", share=1.0, odds=1)


def test_a_fraction_is_checked_before_the_calculator_runs() -> None:
    with pytest.raises(ValueError, match=r"gpus_to_fit: usable must be > 0 and <= 1, got usable=1.5"):
        calculate("gpus_to_fit", weights_gib=10.0, cache_gib=2.0, gpu_gib=80.0, usable=1.5)
    with pytest.raises(ValueError, match=r"compute_time_ms: mfu must be > 0 and <= 1, got mfu=1.2"):
        calculate("compute_time_ms", flops=1e15, tflops=989.0, n_gpus=8, mfu=1.2)
    target = CALCULATORS["prefill_instances"].arg("target_utilisation")
    assert (target.gt, target.ge, target.le) == (0, None, 1)


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
