"""Provides grade(): an Instance and the text a user typed in, a Verdict out, never an exception.

One entry point serves the CLI, the study screen and the tests. An explain answer is read point by point
(quizapp.grading.explain); the study screen lets the learner change the ticks and rates it again with
grade_explain().
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from engine import Heatmap
from engine.derivation import format_number
from quizapp.content.instance import Instance
from quizapp.content.patterns import PointSpec
from quizapp.content.tolerance import Tolerance
from quizapp.content.units import unit
from quizapp.errors import QuizappError
from quizapp.grading.code import grade_code
from quizapp.grading.code_try import not_counted, not_counted_reason
from quizapp.grading.diagnose import Diagnosis, diagnose_number, diagnose_shape, tolerance_of
from quizapp.grading.explain import Reading, rating_from_ticks, read_explanation
from quizapp.grading.parse import (
    ParsedNumber,
    accepted_forms_for,
    parse_choice,
    parse_number,
    parse_rating,
    parse_shape,
)
from quizapp.grading.rating import AGAIN, GOOD, HARD, RATING_NAMES, Suggestion, suggest
from quizapp.grading.tokens import AnswerParseError
from quizapp.grading.words import DIMENSION_WORDS, dimension_words, rate_mismatch
from quizapp.runner import confine

VerdictValue = int | float | tuple[int, ...] | frozenset[str] | str | None


@dataclass(frozen=True)
class OptionFeedback:
    """Why one chosen option of a choice question is wrong, in the question author's words."""

    key: str
    text: str
    feedback: str


@dataclass(frozen=True)
class StepVerdict:
    """One step of a scenario: its verdict against the truth, and whether it was right on the learner's
    own earlier numbers (error carried forward), which rates it no better than Hard."""

    index: int
    """The step's number, from 1."""
    verdict: Verdict
    carried_forward: bool = False
    rating: int = 1
    """This step's suggested rating; the scenario's is the worst of its steps'."""


@dataclass(frozen=True)
class Verdict:
    """The grading of one answer to one Instance."""

    correct: bool
    parsed: str
    """What the answer was read as, in words and base units ("80 GiB = 85,899,345,920 B")."""
    value: VerdictValue
    """The answer in base units (numbers), a tuple (shapes), the chosen keys (choice), or the text."""
    diagnosis: str | None
    """The named mistake, e.g. "You left out the x2 for K and V", or None."""
    diagnosis_id: str | None
    """A misconception id from the engine or a generic slip id ("slip-..."), for statistics."""
    step: str | None
    """The label of the derivation step where the answer went astray, when known."""
    message: str
    """One or two sentences for the user."""
    rating: int
    """The suggested FSRS rating, 1 (Again) to 4 (Easy)."""
    unparseable: bool = False
    option_feedback: tuple[OptionFeedback, ...] = ()
    missed_options: tuple[str, ...] = ()
    """Correct option keys the user did not choose."""
    explanation: str = ""
    """Why the diagnosed mistake is a mistake (from the engine's misconception)."""
    expected: str = ""
    """The expected answer as a user would write it."""
    heatmap: Heatmap | None = None
    """A code answer's first failing case drawn as expected and yours side by side (attention weights)."""
    reason: str = ""
    """Why this rating was suggested, in a few words: "Good: right in 38 s", "Hard: 2 hints"."""
    steps: tuple[StepVerdict, ...] = ()
    """Scenarios: one verdict per step answered, in order."""
    reading: Reading | None = None
    """Explain answers: each key point covered, missing or contradicted, with the words that decided it."""


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
    rate = _Rater(inst, hints_used, attempt, seconds, new_card, missed_today)
    rate.rounded_ok = interview
    verdict = _grade(inst, text, rate)
    return replace(verdict, reason=verdict.reason or rate.reason(verdict))


def _grade(inst: Instance, text: str, rate: _Rater) -> Verdict:
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


class _Rater:
    """Holds the timing facts of one attempt so each kind's grader only says right or wrong."""

    def __init__(
        self,
        inst: Instance,
        hints_used: int,
        attempt: int,
        seconds: float | None,
        new_card: bool = False,
        missed_today: bool = False,
    ) -> None:
        self.hints_used = hints_used
        self.attempt = attempt
        self.seconds = seconds
        self.target_seconds = inst.target_seconds
        self.new_card = new_card
        self.missed_today = missed_today
        self.rounded_ok = False
        """An exact integer may be answered to 3 significant figures (interviews)."""

    def suggestion(self, correct: bool) -> Suggestion:
        return suggest(
            correct,
            hints_used=self.hints_used,
            attempt=self.attempt,
            seconds=self.seconds,
            target_seconds=self.target_seconds,
            new_card=self.new_card,
            missed_today=self.missed_today,
        )

    def __call__(self, correct: bool) -> int:
        return self.suggestion(correct).rating

    def reason(self, verdict: Verdict) -> str:
        """Why `verdict.rating` was suggested, in a few words ("Good: right in 38 s")."""
        if verdict.unparseable:
            return ""
        plain = self.suggestion(verdict.correct)
        if plain.rating == verdict.rating:
            return plain.reason
        if not verdict.correct and verdict.rating > AGAIN:
            return f"{RATING_NAMES[verdict.rating]}: almost right, partial credit"
        return f"{RATING_NAMES[verdict.rating]}: {plain.reason.split(': ', 1)[-1]}"


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


def _grade_number(inst: Instance, p: ParsedNumber, rate: _Rater) -> Verdict:
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


def _grade_code(inst: Instance, text: str, rate: _Rater) -> Verdict:
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


def _grade_shape(inst: Instance, got: tuple[int, ...], rate: _Rater) -> Verdict:
    if inst.unordered:
        got = tuple(sorted(set(got)))
    correct = got == inst.expected
    parsed = "(" + ", ".join(str(d) for d in got) + ")"
    diag = None if correct else diagnose_shape(inst, got)
    return _verdict(inst, correct, parsed, got, diag, rate(correct))


def _grade_choice(inst: Instance, chosen: frozenset[str], rate: _Rater) -> Verdict:
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


def grade_explain(
    inst: Instance,
    text: str,
    covered: set[int] | frozenset[int] | None = None,
    hints_used: int = 0,
    seconds: float | None = None,
    attempt: int = 1,
    new_card: bool = False,
    reading: Reading | None = None,
    *,
    missed_today: bool = False,
) -> Verdict:
    """Rates an explain answer from its key points: as the reader found them, or as the learner ticked them
    (`covered`, 0-based indexes into key_points; the learner has the last word).

    The points give Good (all covered, nothing contradicted), Hard or Again (quizapp.grading.explain says
    when); a Good is then held to the time and the hints like any right answer (Easy when fast on a card
    seen before, Hard when slow or after two hints), and a Hard to the hint ladder's cap. A question whose
    key points carry no forms (an old deck) is rated from the fraction ticked, as before.
    """
    reading = reading or read_answer(inst, text)
    n = len(inst.key_points)
    ticked = frozenset(reading.covered() if covered is None else {i for i in covered if 0 <= i < n})
    rate = _Rater(inst, hints_used, attempt, seconds, new_card, missed_today)
    if reading.readable:
        rating, reason = rating_from_ticks(reading.points, ticked, reading.misconceptions)
    else:
        rating, reason = _rating_from_fraction(len(ticked), n)
        if rating == GOOD and len(ticked) < n:  # two thirds ticked: Good at most, never Easy
            rating = min(GOOD, rate(True))
            reason = f"{RATING_NAMES[rating]}: {len(ticked)} of {n} key points"
    if rating == GOOD and len(ticked) == n:
        suggestion = rate.suggestion(True)
        rating, reason = suggestion.rating, f"{suggestion.reason}, every key point"
    elif rating == HARD:
        capped = min(HARD, rate(True))
        rating, reason = (
            capped,
            reason if capped == HARD else f"{RATING_NAMES[capped]}: {rate.hints_used} hints",
        )
    found = reading.misconceptions
    return Verdict(
        correct=rating > AGAIN,
        parsed=_words(text),
        value=text,
        diagnosis="; ".join(f"{m.text}. {m.correction}" for m in found) or None,
        diagnosis_id=found[0].id if found else None,
        step=None,
        message=_explain_message(inst, reading, ticked),
        rating=rating,
        expected=inst.expected_text(),
        reason=reason,
        reading=reading,
    )


def read_answer(inst: Instance, text: str) -> Reading:
    """The answer read against the instance's key points and misconceptions."""
    return read_explanation(
        text, inst.point_specs or tuple(PointSpec(p) for p in inst.key_points), inst.rejects
    )


def _rating_from_fraction(ticked: int, n: int) -> tuple[int, str]:
    """An old deck's rating from the share of key points ticked: two thirds Good, half Hard."""
    points = f"{ticked} of {n} key points"
    if ticked * 3 >= n * 2:
        return GOOD, f"Good: {points}"
    if ticked * 2 >= n:
        return HARD, f"Hard: {points}"
    return AGAIN, f"Again: {points}"


def _explain_message(inst: Instance, reading: Reading, ticked: frozenset[int]) -> str:
    """Every missing point named in full and every contradiction with its correction."""
    n = len(inst.key_points)
    lines = [f"You covered {len(ticked)} of {n} key points."]
    wrong = {p.index for p in reading.points if p.status == "contradicted" and p.index not in ticked}
    missed = [inst.key_points[i] for i in range(n) if i not in ticked and i not in wrong]
    lines += [f"Missing: {point}" for point in missed]
    told = set()
    for m in reading.misconceptions:
        if m.point is None or m.point not in ticked:
            lines.append(f"Wrong: {m.text}. {m.correction}")
            told.add(m.point)
    lines += [f"Stated the other way round: {inst.key_points[i]}" for i in sorted(wrong - told)]
    return "\n".join(lines)


def _words(text: str) -> str:
    n = len(text.split())
    return f"your answer ({n} word{'s' if n != 1 else ''})"
