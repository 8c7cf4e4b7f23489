"""Tolerances at their edges, on both sides: half a unit of the last significant figure is in, a hair more
is out (a tolerance loosened to a whole unit, or tightened, fails here)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from quizapp.content.tolerance import ESTIMATE, Tolerance

SIGFIGS3 = Tolerance(kind="sigfigs", value=3)


@given(st.integers(100, 999), st.integers(-6, 12), st.sampled_from([1, -1]))
def test_three_significant_figures_take_half_a_unit_and_no_more(
    mantissa: int, exponent: int, sign: int
) -> None:
    expected = mantissa * 10.0**exponent  # three figures exactly: 123 x 10^e
    half = 0.5 * 10.0**exponent  # half a unit of the third figure
    for side in (1, -1):
        assert SIGFIGS3.accepts(expected, expected + sign * side * half * 0.999)
        assert not SIGFIGS3.accepts(expected, expected + sign * side * half * 1.01)


@pytest.mark.parametrize(
    ("got", "right"), [(12345, True), (12395, True), (12396, False), (12295, True), (12294, False)]
)
def test_three_significant_figures_of_12345(got: int, right: bool) -> None:
    assert SIGFIGS3.accepts(12345, got) is right


@pytest.mark.parametrize(
    ("got", "right"), [(404, True), (403, True), (402, True), (401, False), (406, True), (407, False)]
)
def test_an_estimate_takes_half_a_percent_on_either_side(got: int, right: bool) -> None:
    """0.5% of 404 is 2.02: 402 and 406 are in, 401 and 407 out."""
    assert ESTIMATE.accepts(404, got) is right
