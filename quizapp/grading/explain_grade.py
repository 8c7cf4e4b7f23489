"""Provides grade_explain(): an explain answer's Verdict from its key points, and read_answer(), the reading
of the answer against them.

The answer is read point by point (quizapp.grading.explain); the study screen lets the learner change the
ticks and rates it again with grade_explain(), so the rating follows the learner's last word.
"""

from __future__ import annotations

from quizapp.content.instance import Instance
from quizapp.content.patterns import PointSpec
from quizapp.grading.attempt import Rater
from quizapp.grading.explain import read_explanation
from quizapp.grading.explain_reading import Reading, rating_from_ticks
from quizapp.grading.rating import AGAIN, GOOD, HARD, RATING_NAMES
from quizapp.grading.verdict import Verdict


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

    The points give Good (all covered, nothing contradicted), Hard or Again (explain_reading.rate_points says
    when); a Good is then held to the time and the hints like any right answer (Easy when fast on a card
    seen before, Hard when slow or after two hints), and a Hard to the hint ladder's cap. A question whose
    key points carry no forms (an old deck) is rated from the fraction ticked, as before.
    """
    reading = reading or read_answer(inst, text)
    n = len(inst.key_points)
    ticked = frozenset(reading.covered() if covered is None else {i for i in covered if 0 <= i < n})
    rate = Rater(inst, hints_used, attempt, seconds, new_card, missed_today)
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


def warm_reader(inst: Instance) -> None:
    """Compiles the instance's accepted and rejected forms now (some 15 ms a question the first time,
    kept for the session), so the learner's explanation is read in a couple of milliseconds once sent."""
    if inst.kind == "explain":
        read_answer(inst, inst.expected_text())  # every form, plainly
        read_answer(inst, "I am not sure.")  # every point missing: every form turned round, too


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
