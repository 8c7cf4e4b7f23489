"""Grading judges answers fairly, names the mistake behind a wrong one, and suggests the FSRS rating.

Every expected answer comes from the engine (`engine.calculate`), or from the catalog for the CLI tests;
the only numbers typed here are the published checks of issue 2 (80 GiB for Llama-2 70B's KV cache).
"""

from __future__ import annotations

import dataclasses
import random
import subprocess
import sys
from typing import Any

import pytest
from grading_cases import answer_text, make_instance, random_args, same_under
from hypothesis import given, settings
from hypothesis import strategies as st

import engine
from quizapp.content.instance import ChoiceOption, Instance
from quizapp.content.tolerance import Tolerance
from quizapp.content.units import to_display
from quizapp.grading import grade, grade_explain, grade_flashcard, head_count, suggest_rating
from quizapp.grading.rating import RATING_NAMES, suggest

LLAMA2_70B_KV = {"n_layers": 80, "d_head": 128, "seq_len": 4096, "batch": 8, "bytes_per_element": 2}


def kv_70b(n_kv_heads: int, display: str = "GiB", tol: Tolerance | None = None) -> Instance:
    return make_instance("kv_cache_bytes", display, tol, n_kv_heads=n_kv_heads, **LLAMA2_70B_KV)


SIGFIGS3 = Tolerance(kind="sigfigs", value=3)


# ---------------------------------------------------------------------------- tolerance and units


def test_the_engine_gives_the_published_llama_2_70b_kv_cache() -> None:
    assert kv_70b(64).expected == 85_899_345_920  # 80 GiB, issue 2's published check


@pytest.mark.parametrize(
    "answer", ["80 GiB", "80GiB", "80", "85.9 GB", "85,899,345,920 B", "2*80*64*128*4096*8*2 B"]
)
def test_a_compatible_unit_is_converted_before_the_tolerance(answer: str) -> None:
    v = grade(kv_70b(64, tol=SIGFIGS3), answer, seconds=10)
    assert v.correct, v.message
    assert not v.unparseable and v.diagnosis is None and v.rating >= 3


def test_a_bare_number_is_read_in_the_asked_unit_and_the_verdict_says_so() -> None:
    v = grade(kv_70b(64), "80")
    assert v.correct and "read as 80 GiB" in v.parsed and "85,899,345,920 B" in v.parsed


def test_gib_read_as_gb_is_named_not_just_marked_wrong() -> None:
    v = grade(kv_70b(64, tol=SIGFIGS3), "80 GB")
    assert not v.correct and v.diagnosis is not None
    assert "GB" in v.diagnosis and "GiB" in v.diagnosis
    if v.diagnosis_id == "slip-binary-read-as-decimal":
        assert "that is 80 GiB read as GB" in v.diagnosis


def test_an_exact_question_does_not_accept_a_rounded_conversion() -> None:
    inst = kv_70b(64)  # default tolerance: exact, since 80 GiB is a whole number
    v = grade(inst, "85.9 GB")
    assert not v.correct and v.diagnosis_id == "slip-rounding"


@pytest.mark.parametrize("off", [0.02, 0.05, 0.09])
def test_an_answer_a_few_percent_off_is_a_mistake_not_a_rounding_slip(off: float) -> None:
    """Only the exact answer rounded is "close": a few percent off is a wrong number, never excused as
    rounding."""
    inst = make_instance("attention_parameters", d_model=512, n_heads=8)  # exact tolerance
    near = grade(inst, f"{float(inst.expected):.3g}")  # type: ignore[arg-type]  # the answer rounded
    assert not near.correct and near.diagnosis_id == "slip-rounding"
    for answer in (round(inst.expected * (1 + off)), round(inst.expected * (1 - off))):  # type: ignore[operator]
        v = grade(inst, str(answer))
        assert not v.correct and v.diagnosis_id != "slip-rounding", (answer, v.diagnosis)
        assert "close" not in (v.diagnosis or "")


def test_an_incompatible_unit_is_wrong_with_a_message_saying_so() -> None:
    inst = make_instance("attention_parameters", d_model=512, n_heads=8)
    v = grade(inst, "1 GB")
    assert not v.correct and not v.unparseable
    assert v.diagnosis_id == "slip-wrong-unit"
    assert "parameter count" in v.message and "bytes" in v.message


def test_exact_counts_are_exact() -> None:
    inst = make_instance("attention_parameters", d_model=512, n_heads=8)
    assert inst.expected == 1_048_576  # issue 2's published check
    for answer in ("1048576", "1,048,576", "1_048_576", "4*512^2", "1.048576M", "1048576 params"):
        assert grade(inst, answer).correct, answer
    assert not grade(inst, "1,048,575").correct
    assert not grade(inst, "1.05M").correct


def test_relative_and_absolute_tolerances_apply_in_the_right_units() -> None:
    rel = make_instance(
        "kv_cache_bytes", "GB", Tolerance(kind="relative", value=0.01), n_kv_heads=8, **LLAMA2_70B_KV
    )
    want = to_display(rel.expected, "GB")  # type: ignore[arg-type]
    assert grade(rel, f"{want * 1.009} GB").correct
    assert not grade(rel, f"{want * 1.02} GB").correct
    absolute = make_instance(
        "kv_cache_bytes", "GiB", Tolerance(kind="absolute", value=0.5), n_kv_heads=8, **LLAMA2_70B_KV
    )
    shown = to_display(absolute.expected, "GiB")  # type: ignore[arg-type]
    assert grade(absolute, f"{shown + 0.4}").correct
    assert not grade(absolute, f"{shown + 0.6}").correct


def test_a_correct_answer_in_another_unit_says_it_was_converted() -> None:
    v = grade(kv_70b(64, tol=SIGFIGS3), "85.9 GB")
    assert v.correct and "85.9 GB" in v.message and "3 significant figures" in v.message


# ---------------------------------------------------------------------------- generic slips


def _times(inst: Instance, factor: float) -> str:
    assert isinstance(inst.expected, (int, float))
    return f"{inst.expected * factor!r} {inst.base_unit}".strip()


@pytest.mark.parametrize(
    ("factor", "slip"),
    [
        (1000, "slip-factor-1000"),
        (1 / 1000**2, "slip-factor-1000"),
        (1024, "slip-factor-1024"),
        (1 / 1024, "slip-factor-1024"),
        (10, "slip-factor-10"),
        (-1, "slip-sign"),
    ],
)
def test_generic_unit_and_factor_slips_are_named(factor: float, slip: str) -> None:
    inst = kv_70b(8, display="B")
    v = grade(inst, _times(inst, factor))
    assert not v.correct and v.diagnosis_id is not None
    known = {m.id for m in inst.derivation.misconceptions} if inst.derivation else set()
    assert v.diagnosis_id == slip or v.diagnosis_id in known, v.diagnosis


def test_a_bare_number_that_is_right_in_another_unit_is_named() -> None:
    inst = kv_70b(8)  # asks for GiB
    v = grade(inst, str(inst.expected))  # the byte count, typed without "B"
    assert not v.correct and v.diagnosis_id == "slip-bare-number-unit"
    assert "write the unit" in (v.diagnosis or "")


def test_double_half_and_heads_factors_are_named_when_no_misconception_explains_them() -> None:
    inst = make_instance("head_dim", d_model=768, n_heads=12)
    assert inst.expected == 64  # issue 2's published check
    known = {m.id: m.value for m in inst.derivation.misconceptions} if inst.derivation else {}
    for factor, slip in ((2, "slip-double"), (0.5, "slip-half")):
        v = grade(inst, repr(64 * factor))
        assert v.diagnosis_id == slip or known.get(v.diagnosis_id or "") == 64 * factor
    h = head_count(inst.derivation)
    if h is not None:
        assert h == 12
        v = grade(inst, str(64 * 12))
        assert v.diagnosis_id in ("slip-heads-extra", *known)


# ---------------------------------------------------------------------------- shapes, choices, others


def test_shapes_match_exactly_and_wrong_orders_are_named() -> None:
    inst = make_instance("attention_shape", batch=2, seq_len=128, d_model=512, n_heads=8, stage="q_heads")
    assert isinstance(inst.expected, tuple)
    b, h, t, dk = inst.expected
    assert grade(inst, f"({b}, {h}, {t}, {dk})").correct
    assert grade(inst, f"[{b}, {h}, {t}, {dk}]").correct
    known = {m.id for m in inst.derivation.misconceptions} if inst.derivation else set()
    swapped = grade(inst, f"({b}, {t}, {h}, {dk})")
    assert not swapped.correct and swapped.diagnosis_id in ("slip-shape-order", *known)
    missing = grade(inst, f"({h}, {t}, {dk})")
    assert missing.diagnosis_id in ("slip-shape-missing-dim", *known)


def _choice(multiple: bool) -> Instance:
    options = (
        ChoiceOption("a", "Mixes information across heads", True, ""),
        ChoiceOption("b", "Scales the scores by 1/sqrt(d_k)", False, "That is the scaling inside each head."),
        ChoiceOption(
            "c", "Maps the concatenated heads back to d_model", multiple, "Only with several answers."
        ),
        ChoiceOption(
            "d", "Applies the causal mask", False, "The mask acts on the scores, before the softmax."
        ),
    )
    expected = frozenset(o.key for o in options if o.correct)
    return Instance("test-choice", "t", "t", "choice", 0, "", expected, options=options, multiple=multiple)


def test_a_choice_needs_the_exact_set_and_each_wrong_pick_gets_its_feedback() -> None:
    single = _choice(multiple=False)
    assert grade(single, "a").correct and grade(single, "1").correct
    wrong = grade(single, "b")
    assert not wrong.correct and [f.key for f in wrong.option_feedback] == ["b"]
    assert "scaling inside each head" in wrong.option_feedback[0].feedback
    multi = _choice(multiple=True)
    assert grade(multi, "a, c").correct and grade(multi, "c a").correct
    partial = grade(multi, "a")
    assert (
        not partial.correct
        and partial.missed_options == ("c",)
        and partial.diagnosis_id == "choice-missed-option"
    )
    extra = grade(multi, "a, c, d, b")
    assert not extra.correct and [f.key for f in extra.option_feedback] == ["b", "d"]


def test_flashcards_are_self_rated() -> None:
    card = Instance("test-card", "t", "t", "flashcard", 0, "front", "back")
    assert grade(card, "good").rating == 3 and grade(card, "good").correct
    assert grade(card, "again").rating == 1 and not grade(card, "again").correct
    assert grade_flashcard(card, 4).rating == 4
    assert grade(card, "maybe").unparseable


def test_an_explanation_without_forms_is_rated_from_the_fraction_of_key_points_ticked() -> None:
    points = ("memory", "bandwidth", "quality", "uptraining")
    inst = Instance(
        "test-explain", "t", "t", "explain", 0, "Why GQA?", "model", key_points=points, target_seconds=100
    )
    first = grade(inst, "It saves KV cache memory.")  # no accepted forms: nothing is read as covered
    assert first.reading is not None and not first.reading.readable
    assert not first.correct and first.value == "It saves KV cache memory."
    assert grade_explain(inst, "x", {0, 1, 2, 3}, seconds=60).rating == 3
    assert grade_explain(inst, "x", {0, 1, 2, 3}, seconds=10).rating == 4
    assert grade_explain(inst, "x", {0, 1, 2, 3}, hints_used=2).rating == 2
    assert grade_explain(inst, "x", {0, 1, 2}).rating == 3
    assert grade_explain(inst, "x", {0, 1}).rating == 2
    low = grade_explain(inst, "x", {0, 99})
    assert low.rating == 1 and not low.correct and "1 of 4" in low.message


# ---------------------------------------------------------------------------- ratings


@pytest.mark.parametrize(
    ("correct", "hints", "attempt", "seconds", "want"),
    [
        (False, 0, 1, 5.0, 1),
        (False, 2, 3, 500.0, 1),
        (True, 1, 1, 5.0, 3),
        (True, 2, 1, 5.0, 2),
        (True, 3, 1, 5.0, 1),
        (True, 1, 2, 5.0, 2),
        (True, 0, 2, 5.0, 2),
        (True, 0, 1, 91.0, 2),
        (True, 0, 1, 90.0, 3),
        (True, 0, 1, 45.0, 3),
        (True, 0, 1, 44.9, 3),
        (True, 0, 1, 30.0, 3),
        (True, 0, 1, 29.9, 4),
        (True, 0, 1, None, 3),
    ],
)
def test_the_suggested_rating_follows_the_documented_rules(
    correct: bool, hints: int, attempt: int, seconds: float | None, want: int
) -> None:
    assert (
        suggest_rating(correct, hints_used=hints, attempt=attempt, seconds=seconds, target_seconds=90) == want
    )


def test_grade_passes_hints_attempts_and_time_to_the_rating() -> None:
    inst = make_instance("head_dim", d_model=768, n_heads=12, target_seconds=60)
    right = str(inst.expected)
    assert grade(inst, right, seconds=10).rating == 4
    assert grade(inst, right, seconds=10, new_card=True).rating == 3, "a new card is never suggested Easy"
    assert grade(inst, right, seconds=40).rating == 3
    assert grade(inst, right, seconds=10, hints_used=1).rating == 3, "one rung of hints: at most Good"
    assert grade(inst, right, seconds=40, hints_used=2).rating == 2
    assert grade(inst, right, seconds=40, attempt=2).rating == 2
    assert grade(inst, "1", seconds=1).rating == 1


@pytest.mark.parametrize(
    ("kw", "reason"),
    [
        ({"correct": False, "seconds": 5.0}, "Again: wrong"),
        ({"correct": True, "seconds": 38.0}, "Good: right in 38 s"),
        ({"correct": True, "seconds": 5.0, "hints_used": 2}, "Hard: 2 hints"),
        ({"correct": True, "seconds": 5.0, "hints_used": 1}, "Good: 1 hint"),
        ({"correct": True, "seconds": 5.0, "hints_used": 3}, "Again: 3 hints"),
        ({"correct": True, "seconds": 5.0, "attempt": 2}, "Hard: right on try 2"),
        ({"correct": True, "seconds": 125.0}, "Hard: right in 2 min 5 s, over the 90 s target"),
        ({"correct": True, "seconds": 12.0}, "Easy: right first try in 12 s, no hints"),
        ({"correct": True, "seconds": 12.0, "new_card": True}, "Good: right in 12 s (a new card is never"),
        ({"correct": True, "seconds": None}, "Good: right"),
    ],
)
def test_each_suggested_rating_says_why(kw: dict[str, Any], reason: str) -> None:
    suggestion = suggest(target_seconds=90, **kw)
    assert suggestion.reason.startswith(reason)
    assert suggestion.reason.split(":")[0] == RATING_NAMES[suggestion.rating]


def test_a_graded_answer_carries_the_reason_of_its_rating() -> None:
    inst = make_instance("head_dim", d_model=768, n_heads=12, target_seconds=60)
    right = str(inst.expected)
    assert grade(inst, right, seconds=38).reason == "Good: right in 38 s"
    assert grade(inst, right, seconds=5, hints_used=2).reason == "Hard: 2 hints"
    assert grade(inst, "1", seconds=5).reason == "Again: wrong"
    assert grade(inst, "what", seconds=5).reason == ""  # unreadable: nothing is rated


# ---------------------------------------------------------------------------- never raises


def test_unreadable_answers_give_a_verdict_listing_the_accepted_forms() -> None:
    v = grade(kv_70b(8), "eighty gigs")
    assert v.unparseable and not v.correct and v.rating == 1
    assert "'eighty'" in v.message and "GiB" in v.message and "80 GiB" in v.message


@settings(max_examples=100)
@given(text=st.text(max_size=600), pick=st.integers(0, 4))
def test_grade_never_raises_whatever_is_typed(text: str, pick: int) -> None:
    insts = _any_kind_instances()
    v = grade(insts[pick], text)
    assert isinstance(v.correct, bool) and 1 <= v.rating <= 4 and v.message


_CACHE: list[Instance] = []


def _any_kind_instances() -> list[Instance]:
    if not _CACHE:
        _CACHE.extend(
            [
                kv_70b(8),
                make_instance("head_dim", d_model=768, n_heads=12),
                make_instance("attention_shape", batch=2, seq_len=16, d_model=64, n_heads=4, stage="scores"),
                _choice(multiple=True),
                Instance("test-card", "t", "t", "flashcard", 0, "front", "back"),
            ]
        )
    return _CACHE


# ---------------------------------------------------------------------------- every misconception


@pytest.mark.parametrize("name", sorted(engine.CALCULATORS))
def test_every_misconception_of_every_calculator_is_diagnosed(name: str) -> None:
    calc = engine.CALCULATORS[name]
    assert calc.misconception_ids, f"{name} knows no misconceptions"
    detected = dict.fromkeys(calc.misconception_ids, 0)
    rng = random.Random(f"misconceptions-{name}")
    for _ in range(1000):
        if all(n >= 10 for n in detected.values()):
            break
        inst = make_instance(name, **random_args(name, rng))
        assert inst.derivation is not None
        same, ms = same_under(inst), inst.derivation.misconceptions
        for m in ms:
            if m.id not in detected or same(inst.expected, m.value):
                continue
            v = grade(inst, answer_text(m.value, inst.base_unit))
            if any(o.id != m.id and same(o.value, m.value) for o in ms):
                # two mistakes give the same number here: both are named ("either X, or Y"), never one
                assert not v.correct and m.label.lower() in (v.diagnosis or "").lower(), (m, v)
                detected[m.id] += 1
                continue
            assert not v.correct and v.diagnosis_id == m.id, (inst.derivation.to_text(), m, v)
            assert v.step == (m.step or None)
            detected[m.id] += 1
    assert all(n >= 10 for n in detected.values()), f"{name}: detections per misconception {detected}"


@pytest.mark.parametrize("trap", [None, "forgot-av", "forgot-wo"])
def test_two_mistakes_with_the_same_number_are_both_named_the_trap_first(trap: str | None) -> None:
    # with S = T = d_model, leaving out A V (2 B T S d) and leaving out W_O (2 B T d^2) cost the same
    inst = make_instance("attention_flops", seq_len=64, d_model=64, n_heads=4, part="total")
    inst = dataclasses.replace(inst, trap=trap)
    assert inst.derivation is not None
    av, wo = inst.derivation.misconception("forgot-av"), inst.derivation.misconception("forgot-wo")
    assert av.value == wo.value
    v = grade(inst, answer_text(av.value, inst.base_unit))
    assert not v.correct and v.diagnosis is not None
    assert av.label.lower()[5:] in v.diagnosis.lower() and wo.label.lower()[5:] in v.diagnosis.lower()
    assert v.diagnosis_id == (trap or "forgot-av")


def test_every_calculator_has_an_argument_generator() -> None:
    rng = random.Random(0)
    for name in engine.CALCULATORS:
        engine.calculate(name, **random_args(name, rng))


# ---------------------------------------------------------------------------- the check command


def _check(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "quizapp", "check", *args], capture_output=True, text=True, timeout=120
    )


def _first_question(kind: str) -> tuple[str, Instance]:
    """The first question of a kind in the bundled catalog, made concrete at seed 3."""
    from quizapp.content.catalog import load_catalog

    catalog = load_catalog()
    qid = next(q for q in sorted(catalog.questions) if catalog.questions[q].type == kind)
    return qid, catalog.instance(qid, 3)


def _catalog_instances(seeds: range = range(4)) -> list[Instance]:
    from quizapp.content.catalog import load_catalog

    catalog = load_catalog()
    assert catalog.questions, "the bundled catalog loaded no questions"
    return [catalog.instance(qid, seed) for qid in sorted(catalog.questions) for seed in seeds]


def test_every_catalog_answer_as_displayed_grades_as_correct() -> None:
    graded = 0
    for inst in _catalog_instances():
        if inst.kind in ("flashcard", "explain"):
            continue
        v = grade(inst, inst.expected_text())
        assert v.correct, (inst.question_id, inst.seed, inst.expected_text(), v.message)
        graded += 1
    assert graded >= 100


def test_catalog_misconceptions_are_diagnosed_in_the_question_s_own_unit_and_tolerance() -> None:
    detected = 0
    for inst in _catalog_instances():
        if inst.derivation is None:
            continue
        same = same_under(inst)
        ms = inst.derivation.misconceptions
        for m in ms:
            if same(inst.expected, m.value) or any(o.id != m.id and same(o.value, m.value) for o in ms):
                continue
            v = grade(inst, answer_text(m.value, inst.base_unit))
            assert v.diagnosis_id == m.id, (inst.question_id, inst.seed, m, v.message)
            detected += 1
    assert detected >= 100


def test_check_exits_0_for_a_right_answer_1_for_a_wrong_one_and_2_for_nonsense() -> None:
    qid, inst = _first_question("numeric")
    right = _check(qid, "--seed", "3", "--answer", inst.expected_text())
    assert right.returncode == 0, right.stdout + right.stderr
    assert "Correct" in right.stdout and "Derivation" in right.stdout
    assert isinstance(inst.expected_display, (int, float))
    wrong = _check(qid, "--seed", "3", "--answer", repr(inst.expected_display * 2 + 1))
    assert wrong.returncode == 1, wrong.stdout + wrong.stderr
    assert "Wrong" in wrong.stdout and "Read as" in wrong.stdout and "Result:" in wrong.stdout
    nonsense = _check(qid, "--seed", "3", "--answer", "eighty gigs")
    assert nonsense.returncode == 2 and "Could not read" in nonsense.stderr and "Type " in nonsense.stderr
    unknown = _check("no-such-question", "--seed", "1", "--answer", "1")
    assert unknown.returncode == 2 and "no question" in unknown.stderr and unknown.stdout == ""
    assert "Traceback" not in unknown.stdout + unknown.stderr


def test_check_grades_choices_and_shows_the_feedback_of_a_wrong_pick() -> None:
    qid, inst = _first_question("choice")
    assert isinstance(inst.expected, frozenset)
    right = _check(qid, "--seed", "3", "--answer", ", ".join(sorted(inst.expected)))
    assert right.returncode == 0, right.stdout + right.stderr
    wrong_key = next(o.key for o in inst.options if not o.correct)
    wrong = _check(qid, "--seed", "3", "--answer", wrong_key)
    assert wrong.returncode == 1
    feedback = next(o.feedback for o in inst.options if o.key == wrong_key)
    assert feedback.split()[0] in wrong.stdout


# ---------------------------------------------------------------------------- the close rule


def _qwen2_block() -> Instance:
    """Qwen2 7B's attention block, exact: biases on Q, K, V but not O (an exact-integer answer)."""
    return make_instance(
        "attention_parameters", d_model=3584, n_heads=28, n_kv_heads=4, d_head=128, bias=True, o_bias=False
    )


@pytest.mark.parametrize("figures", [3, 4, 5])
def test_on_an_exact_answer_the_answer_rounded_is_close(figures: int) -> None:
    inst = _qwen2_block()
    assert isinstance(inst.expected, int)
    v = grade(inst, f"{inst.expected:.{figures}g}")
    assert not v.correct and v.diagnosis_id == "slip-rounding" and v.rating == 2


@pytest.mark.parametrize(
    "mistake", ["kv-bias-full-width", "biases-per-head", "counted-o-bias", "forgot-biases"]
)
def test_on_an_exact_answer_a_near_miss_by_another_method_is_named_not_close(mistake: str) -> None:
    inst = _qwen2_block()
    assert inst.derivation is not None and isinstance(inst.expected, int)
    wrong = next(m.value for m in inst.derivation.misconceptions if m.id == mistake)
    assert abs(wrong - inst.expected) < 0.01 * inst.expected  # within 1%: the old rule called it close
    v = grade(inst, str(wrong))
    assert not v.correct and v.diagnosis_id == mistake and v.rating == 1


def test_on_an_exact_answer_an_unnamed_near_miss_is_wrong_not_close() -> None:
    inst = _qwen2_block()
    assert isinstance(inst.expected, int)
    v = grade(inst, str(inst.expected + 1234))  # 0.004% off, and not the answer rounded
    assert not v.correct and v.diagnosis_id != "slip-rounding" and v.rating == 1
