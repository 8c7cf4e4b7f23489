"""Provides grade(): an Instance and the text a user typed in, a Verdict out, never an exception.

One entry point serves the CLI, the study screen and the tests. Numbers, shapes, choices, code and
flashcards are graded here; an explain answer is read point by point (quizapp.grading.explain_grade), a
scenario step by step (quizapp.grading.scenario). The Verdict is quizapp.grading.verdict's, its suggested
rating quizapp.grading.attempt's.
"""

from __future__ import annotations

from dataclasses import replace

from engine.derivation import format_number
from quizapp.content.instance import Instance
from quizapp.content.tolerance import Tolerance
from quizapp.content.units import unit
from quizapp.errors import QuizappError
from quizapp.grading.attempt import Rater
from quizapp.grading.code import grade_code
from quizapp.grading.code_try import not_counted, not_counted_reason
from quizapp.grading.diagnose import Diagnosis, diagnose_number, diagnose_shape, tolerance_of
from quizapp.grading.explain_grade import grade_explain
from quizapp.grading.parse import (
    ParsedNumber,
    accepted_forms_for,
    parse_choice,
    parse_number,
    parse_rating,
    parse_shape,
)
from quizapp.grading.rating import AGAIN, GOOD, HARD, RATING_NAMES
from quizapp.grading.tokens import AnswerParseError
from quizapp.grading.verdict import OptionFeedback, Verdict, VerdictValue
from quizapp.grading.words import DIMENSION_WORDS, dimension_words, rate_mismatch
from quizapp.runner import confine


def grade(
    inst: Instance,
    text: str,
    hints_used: int = 0,
    seconds: float | None = None,
    attempt: int = 1,
    *,
    new_card: bool = False,
    interview: bool = False,
    missed_today: bool = False,
) -> Verdict:
    """Grades `text` as an answer to `inst`. Never raises for any text: unreadable answers give a Verdict
    with unparseable=True and a message that lists the forms this question accepts. The suggested
    rating comes with its reason (`Verdict.reason`); `new_card` (never answered before) and `missed_today`
    (a wrong answer logged today) rule out Easy.

    `interview`: an exact-integer answer rounded to 3 significant figures ("1.05M" for 1,048,576) is
    right, as an interviewer would take it, and rated no better than Good; study keeps the tolerance.
    """
    rate = Rater(inst, hints_used, attempt, seconds, new_card, missed_today)
    rate.rounded_ok = interview
    verdict = _grade(inst, text, rate)
    return replace(verdict, reason=verdict.reason or rate.reason(verdict))


def _grade(inst: Instance, text: str, rate: Rater) -> Verdict:
    """grade() without the reason line."""
    try:
        if inst.kind in ("numeric", "tensor"):
            return _grade_number(inst, parse_number(text, inst.unit), rate)
        if inst.kind == "shape":
            return _grade_shape(inst, parse_shape(text), rate)
        if inst.kind == "choice":
            chosen = parse_choice(text, [o.key for o in inst.options], multiple=inst.multiple)
            return _grade_choice(inst, chosen, rate)
        if inst.kind == "flashcard":
            return grade_flashcard(inst, parse_rating(text))
        if inst.kind == "code":
            return _grade_code(inst, text, rate)
        if inst.kind == "scenario":
            # here, not at the top: scenario grades each of its steps with grade (a cycle)
            from quizapp.grading.scenario import grade_scenario, parts_of, split_answers

            answers = split_answers(text, parts_of(inst))
            verdict = grade_scenario(inst, answers, rate.hints_used, rate.seconds, rate.attempt)
            if (rate.new_card or rate.missed_today) and verdict.rating > GOOD:  # new, or missed today
                verdict = replace(verdict, rating=GOOD)
            return verdict
        return grade_explain(
            inst,
            text,
            None,
            rate.hints_used,
            rate.seconds,
            rate.attempt,
            rate.new_card,
            missed_today=rate.missed_today,
        )
    except QuizappError as exc:
        problem = exc.problem if isinstance(exc, AnswerParseError) else str(exc)
        message = f"Could not read the answer: {problem}. {accepted_forms_for(inst)}"
        return Verdict(False, "", None, None, None, None, message, AGAIN, unparseable=True)


def _verdict(
    inst: Instance,
    correct: bool,
    parsed: str,
    value: VerdictValue,
    diag: Diagnosis | None,
    rating: int,
    **kw: object,
) -> Verdict:
    expected = expected_words(inst)
    if correct:
        message = f"Correct: {expected}."
    elif diag is not None:
        message = f"Not quite: {diag.text.rstrip('.')}. The answer is {expected}."
    else:
        message = f"Not quite. The answer is {expected}."
    return Verdict(
        correct=correct,
        parsed=parsed,
        value=value,
        diagnosis=diag.text if diag else None,
        diagnosis_id=diag.id if diag else None,
        step=diag.step if diag else None,
        message=str(kw.pop("message", message)),
        rating=rating,
        explanation=diag.explanation if diag else "",
        expected=inst.expected_text(),
        **kw,  # type: ignore[arg-type]
    )


def _grade_number(inst: Instance, p: ParsedNumber, rate: Rater) -> Verdict:
    expected = inst.expected
    if not isinstance(expected, (int, float)):
        raise QuizappError(f"question {inst.question_id} has no numeric answer")
    asked = unit(inst.unit)
    if (said := rate_mismatch(p.dimension, asked.dimension)) is not None:
        per_second = Diagnosis("slip-rate-for-amount", said)  # 2294 TFLOPS where TFLOPs are asked
        return _verdict(inst, False, p.reading, p.value, per_second, rate(False))
    if not _compatible(p.dimension, asked.dimension):
        wrong_unit = Diagnosis(
            "slip-wrong-unit",
            f"{p.unit or p.dimension} is {dimension_words(p.dimension)}, but the question asks for "
            f"{DIMENSION_WORDS[asked.dimension]}" + (f" in {inst.unit}" if asked.factor != 1 else ""),
        )
        return _verdict(inst, False, p.reading, p.value, wrong_unit, rate(False))
    tol = tolerance_of(inst)
    correct = tol.accepts(float(expected), float(p.value), display_factor=float(asked.factor))
    if correct:
        message = f"Correct: {expected_words(inst)}."
        if p.value != expected:
            message += f" You wrote {p.reading}, accepted {tol.describe()}."
        return _verdict(inst, True, p.reading, p.value, None, rate(True), message=message)
    if rate.rounded_ok and rounded_to_three(inst, float(expected), float(p.value), float(asked.factor)):
        rating = min(GOOD, rate(True))
        exact = expected_words(inst)
        message = f"Correct: {p.reading} rounds the exact value, {exact}, to 3 significant figures."
        reason = f"{RATING_NAMES[rating]}: right to 3 significant figures (exact: {exact})"
        return _verdict(inst, True, p.reading, p.value, None, rating, message=message, reason=reason)
    diag = diagnose_number(inst, p)
    if diag is None:
        message = (
            f"Not quite: {_how_far(float(p.value), float(expected))}. The answer is {expected_words(inst)}."
        )
        return _verdict(inst, False, p.reading, p.value, None, rate(False), message=message)
    if diag.id in PARTIAL_CREDIT:
        # the right number with the unit left off, or rounded a little too far: known, not forgotten
        rating = min(HARD, rate(True))
        expected = expected_words(inst)
        message = (
            f"Almost: {diag.text.rstrip('.')}. The answer is {expected}. "
            f"Partial credit: rated {RATING_NAMES[rating]}, not Again."
        )
        return _verdict(inst, False, p.reading, p.value, diag, rating, message=message)
    return _verdict(inst, False, p.reading, p.value, diag, rate(False))


ROUNDED = Tolerance(kind="sigfigs", value=3)
"""What an interviewer takes for an exact integer: the value to 3 significant figures (1.05M)."""


def rounded_to_three(inst: Instance, expected: float, got: float, display_factor: float = 1.0) -> bool:
    """`got` is the exact-integer answer of `inst` rounded to 3 significant figures (and not exact)."""
    tol = tolerance_of(inst)
    shown = expected / display_factor
    return (
        tol.kind == "exact"
        and shown.is_integer()
        and abs(shown) >= 1000
        and got != expected
        and ROUNDED.accepts(expected, got)
    )


PARTIAL_CREDIT = frozenset({"slip-bare-number-unit", "slip-rounding"})
"""Diagnoses that mean the value was known: suggested Hard (a pass for FSRS), not Again."""


def _how_far(got: float, expected: float) -> str:
    """How far off an undiagnosed answer is, so the user knows whether to look for a slip or a rethink."""
    if expected == 0 or got == 0 or (got < 0) != (expected < 0):
        return "that is not the expected value"
    r = got / expected
    if 0.5 < r < 2:
        return f"{abs(r - 1) * 100:.2g}% too {'high' if r > 1 else 'low'}"
    return f"{r:.3g} times the answer" if r > 1 else f"1/{1 / r:.3g} of the answer"


def expected_words(inst: Instance) -> str:
    """The expected answer in the asked unit, plus its base-unit value where the two differ."""
    text = inst.expected_text()
    if isinstance(inst.expected, (int, float)) and unit(inst.unit).factor != 1:
        return f"{text} ({format_number(inst.expected)} {inst.base_unit})".replace(" )", ")")
    return text


def _compatible(got: str, asked: str) -> bool:
    plain = {"number", "ratio"}
    return got == asked or (got in plain and asked in plain)


def _grade_code(inst: Instance, text: str, rate: Rater) -> Verdict:
    """Runs the solution in a child process (see quizapp.grading.code); slow for the event loop, so the
    TUI grades in its save worker."""
    if not text.strip():
        raise AnswerParseError("the code is empty")
    run = grade_code(
        inst.exercise,
        text,
        seed=inst.seed,
        mistakes=inst.mistakes,
        tolerance=inst.code_tolerance,
        inputs=inst.code_inputs,
    )
    if not_counted(run):  # not yet an answer (a syntax error, a typo): fixed and submitted, it is graded
        raise AnswerParseError(not_counted_reason(run))
    mistake = run.mistake
    failure = run.first_failure
    lines = len(text.strip().splitlines())
    return Verdict(
        correct=run.correct,
        parsed=f"your code ({lines} line{'s' if lines != 1 else ''})",
        value=text,
        diagnosis=mistake.text if mistake else None,
        diagnosis_id=mistake.id if mistake else None,
        step=None,
        message=run.summary(with_mistake=False) + confine.say_once(run.confined, run.confinement),
        rating=rate(run.correct),
        expected="the model solution",
        heatmap=failure.heatmap if failure is not None else None,
    )


def _grade_shape(inst: Instance, got: tuple[int, ...], rate: Rater) -> Verdict:
    if inst.unordered:
        got = tuple(sorted(set(got)))
    correct = got == inst.expected
    parsed = "(" + ", ".join(str(d) for d in got) + ")"
    diag = None if correct else diagnose_shape(inst, got)
    return _verdict(inst, correct, parsed, got, diag, rate(correct))


def _grade_choice(inst: Instance, chosen: frozenset[str], rate: Rater) -> Verdict:
    expected = inst.expected if isinstance(inst.expected, frozenset) else frozenset()
    correct = chosen == expected
    by_key = {o.key: o for o in inst.options}
    wrong = tuple(
        OptionFeedback(k, by_key[k].text, by_key[k].feedback)
        for k in sorted(chosen - expected)
        if k in by_key
    )
    missed = tuple(sorted(expected - chosen))
    parsed = ", ".join(sorted(chosen))
    diag = None
    if wrong:
        first = wrong[0]
        diag = Diagnosis("choice-wrong-option", f"option {first.key} is wrong: {first.feedback}")
    elif missed:
        diag = Diagnosis("choice-missed-option", f"you left out {', '.join(missed)}")
    message = f"Correct: {parsed}." if correct else f"Not quite. The answer is {inst.expected_text()}."
    if wrong:
        message += (
            " See why " + ", ".join(f.key for f in wrong) + (" is" if len(wrong) == 1 else " are") + " wrong."
        )
    return _verdict(
        inst,
        correct,
        parsed,
        chosen,
        diag,
        rate(correct),
        option_feedback=wrong,
        missed_options=missed,
        message=message,
    )


def grade_flashcard(inst: Instance, rating: int) -> Verdict:
    """A flashcard is self-rated: the rating is the user's, and Again counts as not known."""
    name = RATING_NAMES.get(rating, "?")
    return Verdict(
        correct=rating > AGAIN,
        parsed=f"self-rated {name}",
        value=rating,
        diagnosis=None,
        diagnosis_id=None,
        step=None,
        message=f"Self-rated {name}.",
        rating=rating,
        expected=inst.expected_text(),
        reason=f"{name}: your own rating",
    )
