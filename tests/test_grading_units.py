"""Units and tolerances as people type them: times in any unit, counts with words and nouns, angles in
degrees, a rate refused where an amount is asked (and told so), and estimates graded to 3 significant
figures while exact counts stay exact. Issue 36, item 3."""

from __future__ import annotations

import math
from functools import cache

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import ValidationError

from quizapp.content.catalog import Catalog, load_catalog
from quizapp.content.instance import Instance
from quizapp.content.questions import NumericQuestion
from quizapp.content.tolerance import ESTIMATE, Tolerance, resolve_tolerance
from quizapp.content.units import UNITS
from quizapp.grading import grade
from quizapp.grading.parse import parse_number
from quizapp.grading.tokens import AnswerParseError

TIME_UNITS = {"ns": 1e-6, "µs": 1e-3, "us": 1e-3, "ms": 1.0, "s": 1e3, "min": 6e4, "h": 3.6e6}
TIME_WORDS = {
    "nanoseconds": 1e-6,
    "microseconds": 1e-3,
    "milliseconds": 1.0,
    "seconds": 1e3,
    "sec": 1e3,
    "minutes": 6e4,
    "hours": 3.6e6,
    "msec": 1.0,
}


@cache
def _catalog() -> Catalog:
    return load_catalog(use_cache=False)


def _step(qid: str, name: str, seed: int = 0) -> Instance:
    inst = _catalog().instance(qid, seed)
    return inst.steps[inst.step_names.index(name)]


@given(
    value=st.floats(min_value=1e-6, max_value=1e9, allow_nan=False, allow_infinity=False),
    name=st.sampled_from(sorted({**TIME_UNITS, **TIME_WORDS})),
    asked=st.sampled_from(["ms", "s", "µs"]),
)
def test_any_time_in_any_unit_reads_back_to_the_same_seconds(value: float, name: str, asked: str) -> None:
    factor = {**TIME_UNITS, **TIME_WORDS}[name]
    p = parse_number(f"{value!r} {name}", asked)
    assert p.dimension == "time" and not p.bare
    assert p.value / 1000 == pytest.approx(value * factor / 1000, rel=1e-12)  # ms in base units


@given(value=st.floats(min_value=1e-3, max_value=1e6, allow_nan=False), asked=st.sampled_from(["ms", "s"]))
def test_a_bare_number_is_a_time_in_the_unit_asked(value: float, asked: str) -> None:
    p = parse_number(repr(value), asked)
    assert p.bare and p.value == pytest.approx(value * float(UNITS[asked].factor), rel=1e-12)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_serving_ttft_accepts_milliseconds_seconds_and_microseconds(seed: int) -> None:
    inst = _catalog().instance("serving-ttft", seed)
    ms = float(inst.expected)  # type: ignore[arg-type]
    assert inst.unit == "ms" and inst.tolerance == ESTIMATE
    for text in (
        f"{ms:.4g} ms",
        f"{ms / 1000!r} s",
        f"{ms * 1000:.6g} µs",
        f"{ms:.4g} milliseconds",
        f"{ms:.4g}",
    ):
        verdict = grade(inst, text)
        assert verdict.correct and not verdict.unparseable, (text, verdict.message)
    # the old unreadable answers are right, and the wrong unit is still wrong: seconds read as ms
    assert not grade(inst, f"{ms / 1000!r}").correct
    assert not grade(inst, f"{ms:.4g} s").correct


def test_case_study_prefill_ttft_step_accepts_any_time_unit() -> None:
    step = _step("case-studies-prefill-ttft", "ttft")
    ms = float(step.expected)  # type: ignore[arg-type]
    for text in (f"{ms:.4g} ms", f"{ms / 1000!r} s", f"{ms:.4g} msec"):
        assert grade(step, text).correct, text
    tpot = _step("case-studies-prefill-ttft", "tpot")
    assert grade(tpot, f"{float(tpot.expected) * 1e3:.5g} us").correct  # type: ignore[arg-type]


def test_a_rate_is_never_a_flop_count_and_the_message_says_so() -> None:
    step = _step("case-studies-prefill-ttft", "linear")
    tflops = float(step.expected) / 1e12  # type: ignore[arg-type]
    assert grade(step, f"{tflops:.4g} TFLOPs").correct
    for text in (f"{tflops:.4g} TFLOPS", f"{tflops:.4g} TFLOP/s", f"{tflops:.4g} TFLOPs per second"):
        verdict = grade(step, text)
        assert not verdict.correct and not verdict.unparseable, text
        assert verdict.diagnosis_id == "slip-rate-for-amount"
        assert "that is a rate; the question asks for a count of FLOPs" in verdict.message


def test_a_count_may_carry_its_noun_or_a_scale_word() -> None:
    step = _step("case-studies-70b-tp8-serving", "fit")
    n = int(step.expected)  # type: ignore[arg-type]
    assert step.tolerance == Tolerance(kind="exact")
    for text in (f"{n} sequences", f"about {n} sequences", f"{n} full-length sequences".replace("-", " ")):
        assert grade(step, text).correct, text
    assert not grade(step, f"{n + 1} sequences").correct  # an exact count stays exact
    assert parse_number("4.7M tokens", "params").value == 4_700_000
    assert parse_number("4.69 million", "").value == 4_690_000
    assert parse_number("8 h", "").value == 8  # h is a head count here, an hour only where a time is asked


def test_nouns_are_not_read_where_bytes_or_a_time_are_asked() -> None:
    for text, asked in (("80 apples", "GiB"), ("21.7 millis", "ms")):
        with pytest.raises(AnswerParseError, match="not a unit or word"):
            parse_number(text, asked)


def test_angles_read_in_radians_or_degrees() -> None:
    inst = _catalog().instance("positional-rope-angle", 0)
    rad = float(inst.expected)  # type: ignore[arg-type]
    assert inst.unit == "rad"
    for text in (
        f"{rad:.5g} rad",
        f"{rad:.5g} radians",
        f"{math.degrees(rad):.6g} degrees",
        f"{math.degrees(rad):.6g}°",
    ):
        assert grade(inst, text).correct, text
    assert not grade(inst, f"{math.degrees(rad):.6g}").correct  # a bare number is radians


def test_an_estimate_is_right_to_three_significant_figures_and_says_so() -> None:
    assert ESTIMATE.accepts(4_692_925, 4.69e6) and ESTIMATE.accepts(404, 403)
    assert ESTIMATE.accepts(26_214_400, 26.2e6)
    assert not ESTIMATE.accepts(4_692_925, 4.6e6) and not ESTIMATE.accepts(404, 400)
    assert "3 significant figures" in ESTIMATE.describe()


def test_which_answers_are_estimates() -> None:
    three = Tolerance(kind="sigfigs", value=3)
    tight = Tolerance(kind="relative", value=0.002)
    assert resolve_tolerance(None, None, "time", "ms", 21.7) == ESTIMATE
    assert resolve_tolerance(three, None, "bytes", "GB", 80.5) == ESTIMATE
    assert resolve_tolerance(tight, None, "time", "ms", 21.7) == tight  # a deliberate tightening stays
    assert resolve_tolerance(three, False, "time", "ms", 21.7) == three  # estimate: false
    assert resolve_tolerance(None, True, "number", "", 404) == ESTIMATE  # estimate: true
    assert resolve_tolerance(None, None, "params", "params", 4_692_925) == Tolerance(kind="exact")
    assert resolve_tolerance(None, None, "bytes", "B", 1024) == Tolerance(kind="exact")


def test_a_deck_cannot_declare_an_estimate_and_another_tolerance() -> None:
    base = {
        "id": "q-x",
        "type": "numeric",
        "difficulty": 1,
        "prompt": "p",
        "calculator": "head_dim",
        "explanation": "e",
        "tags": ["t"],
        "source": "s",
    }
    NumericQuestion.model_validate({**base, "estimate": True})
    with pytest.raises(ValidationError, match="estimate: true"):
        NumericQuestion.model_validate({**base, "estimate": True, "tolerance": {"kind": "exact"}})


@pytest.mark.parametrize(
    "text", ["9**9**9**9 ms", "1e999999 s", "10^100000 TFLOPS", "2^(2^30) sequences", "(" * 60 + "1 h"]
)
def test_huge_answers_with_units_are_refused_cleanly(text: str) -> None:
    inst = _catalog().instance("serving-ttft", 0)
    verdict = grade(inst, text)
    assert verdict.unparseable and "Could not read the answer" in verdict.message
