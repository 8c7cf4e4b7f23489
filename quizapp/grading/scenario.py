"""Provides scenario grading: one verdict per step, with error carried forward.

A step that is wrong against the truth is worked again with the learner's own earlier numbers in place
of the true ones (every earlier step it uses that the learner answered with a number). If the answer is
right on those numbers and each of them was right (rounded, within its tolerance), the step is right: a
learner who carries their own rounded numbers is not marked down for it. If some of them were wrong, the
step is "right method on your step-k number": marked carried forward and rated no better than Hard.
A case study may end with a part in words ("explain your choice"), read point by point as an explain
question is. The scenario's rating is its worst part's, so one case study stays one Card.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace

from quizapp.content.instance import Instance
from quizapp.errors import QuizappError
from quizapp.grading.explain_grade import grade_explain
from quizapp.grading.grade import grade
from quizapp.grading.rating import AGAIN, HARD, RATING_NAMES
from quizapp.grading.verdict import StepVerdict, Verdict

_SEPARATORS = re.compile(r"[;\n]")
_STEP_NUMBER = re.compile(r"^\s*\d+\)\s*")
_CALCULATOR_PREFIX = re.compile(r"^(?:[a-z0-9_]+: )+")
"""A calculator's error starts with its name ("free_memory_bytes: "), which means nothing to a learner."""


def split_answers(text: str, parts: int = 0) -> list[str]:
    """The per-step answers in one text: separated by `;` or new lines (no number form uses either), each
    perhaps numbered as the expected answer is written ("1) 17.5 GB; 2) 0.34 GB"). With `parts`, the text
    is cut at most into that many: the last part (an explanation in words) keeps its own `;` and lines."""
    pieces = _SEPARATORS.split(text.strip(), maxsplit=max(parts - 1, 0))
    return [_STEP_NUMBER.sub("", part).strip() for part in pieces]


def parts_of(inst: Instance) -> int:
    """How many answers a case study takes: one per step, and one for its part in words if it has one."""
    return len(inst.steps) + (inst.follow_up is not None)


def part_of(inst: Instance, number: int) -> Instance:
    """Part `number` (from 1) of a case study: a step, or after the last step its part in words."""
    if number > len(inst.steps) and inst.follow_up is not None:
        return inst.follow_up
    return inst.steps[number - 1]


def grade_follow_up(
    inst: Instance, text: str, hints_used: int = 0, seconds: float | None = None, attempt: int = 1
) -> StepVerdict:
    """The case study's part in words, read point by point (its number follows the last step's)."""
    assert inst.follow_up is not None
    verdict = grade_explain(inst.follow_up, text, None, hints_used, seconds, attempt)
    return StepVerdict(len(inst.steps) + 1, verdict, rating=verdict.rating)


def grade_step(
    inst: Instance,
    k: int,
    answers: Sequence[str],
    earlier: Sequence[StepVerdict],
    hints_used: int = 0,
    seconds: float | None = None,
    attempt: int = 1,
) -> StepVerdict:
    """Grades step k (from 0) of scenario `inst` given the verdicts of the steps before it; the TUI calls
    this as each step is answered, `grade_scenario` for all of them at once."""
    step = inst.steps[k]
    text = answers[k] if k < len(answers) else ""
    truth = grade(step, text, hints_used=hints_used, seconds=seconds, attempt=attempt)
    if truth.correct or truth.unparseable:
        return StepVerdict(k + 1, truth, False, truth.rating)
    carried = _carried(inst, k, text, earlier, hints_used, seconds, attempt)
    if isinstance(carried, str):  # the learner's chain cannot go on: say so rather than just "wrong"
        return StepVerdict(
            k + 1, replace(truth, message=f"{truth.message} {carried}".strip()), False, truth.rating
        )
    if carried is None:
        return StepVerdict(k + 1, truth, False, truth.rating)
    own, used = carried
    names = " and ".join(f"step-{i} number ({verdict_value(earlier[i - 1])})" for i in used)
    if all(earlier[i - 1].verdict.correct and not earlier[i - 1].carried_forward for i in used):
        rounded = (
            f"Right on your rounded {names}: on your numbers the answer is {own.expected}, and on the "
            f"exact ones {truth.expected}. Carrying your own rounded numbers is what an interviewer expects."
        )
        return StepVerdict(k + 1, replace(own, expected=truth.expected, message=rounded), False, own.rating)
    rating = min(HARD, own.rating)
    message = (
        f"Right method on your {names}: on your numbers the answer is {own.expected}, which you gave. "
        f"On the true numbers it is {truth.expected}. Carried forward: rated {RATING_NAMES[rating]}."
    )
    verdict = Verdict(
        correct=False,
        parsed=truth.parsed,
        value=truth.value,
        diagnosis=f"Right method on your {names}",
        diagnosis_id="carried-forward",
        step=None,
        message=message,
        rating=rating,
        expected=truth.expected,
    )
    return StepVerdict(k + 1, verdict, True, rating)


def _carried(
    inst: Instance,
    k: int,
    text: str,
    earlier: Sequence[StepVerdict],
    hints_used: int,
    seconds: float | None,
    attempt: int,
) -> tuple[Verdict, list[int]] | str | None:
    """The verdict on the learner's own earlier numbers, and which steps (from 1) they came from, when
    the answer is right on them; why not, when those numbers cannot be worked on; None otherwise.
    Right earlier answers count too: a rounded one moves the later steps as much as a wrong one does."""
    if inst.rework is None or k >= len(inst.step_uses):
        return None
    overrides: dict[str, int | float] = {}
    used: list[int] = []
    for name in inst.step_uses[k]:
        i = inst.step_names.index(name)
        if i >= len(earlier):
            continue
        prior = earlier[i].verdict
        value = prior.value
        if prior.unparseable or isinstance(value, bool) or not isinstance(value, (int, float)):
            continue
        overrides[name] = value
        used.append(i + 1)
    if not overrides:
        return None
    try:
        own_step = inst.rework(k, overrides)
    except QuizappError as exc:  # the learner's numbers cannot be worked (a negative memory, say)
        names = " and ".join(f"step-{i} number" for i in used)
        why = _CALCULATOR_PREFIX.sub("", str(exc))
        return f"Your {names} cannot be carried forward here: {why}"
    own = grade(own_step, text, hints_used=hints_used, seconds=seconds, attempt=attempt)
    return (own, used) if own.correct else None


def verdict_value(step: StepVerdict) -> str:
    """How the learner's answer to a step was read, short ("83.5 GB"), for naming it later."""
    return step.verdict.parsed.split(" = ")[0] if step.verdict.parsed else "?"


def grade_scenario(
    inst: Instance,
    answers: Sequence[str],
    hints_used: int = 0,
    seconds: float | None = None,
    attempt: int = 1,
) -> Verdict:
    """Grades every step answered (`answers` in step order; fewer than the steps grades those given) and
    sums them up: correct when every step is right on the truth; rated as the worst step (Again while
    steps are left unanswered)."""
    total = parts_of(inst)
    if len(answers) > total:
        return Verdict(
            False,
            "",
            None,
            None,
            None,
            None,
            f"Could not read the answer: {len(answers)} answers for {total} parts. "
            "Give one answer per step, separated by ';'"
            + (", then your explanation." if inst.follow_up is not None else "."),
            AGAIN,
            unparseable=True,
        )
    steps: list[StepVerdict] = []
    for k in range(min(len(answers), len(inst.steps))):
        steps.append(grade_step(inst, k, answers, steps, hints_used, seconds, attempt))
    if len(answers) == total and inst.follow_up is not None:
        steps.append(grade_follow_up(inst, answers[-1], hints_used, seconds, attempt))
    unreadable = [s.index for s in steps if s.verdict.unparseable]
    right = sum(s.verdict.correct for s in steps)
    carried = [s.index for s in steps if s.carried_forward]
    missing = total - len(steps)
    rating = AGAIN if missing else min((s.rating for s in steps), default=AGAIN)
    parts = [f"{right} of {total} {'parts' if inst.follow_up is not None else 'steps'} right"]
    if missing:
        parts.append(f"{missing} step(s) not answered")
    if carried:
        parts.append(f"carried forward at step {', '.join(map(str, carried))}")
    if unreadable:
        parts.append(f"step {', '.join(map(str, unreadable))} could not be read")
    first_wrong = next((s for s in steps if not s.verdict.correct), None)
    return Verdict(
        correct=right == total,
        parsed="; ".join(s.verdict.parsed for s in steps),
        value="; ".join(answers),
        diagnosis=first_wrong.verdict.diagnosis if first_wrong else None,
        diagnosis_id=first_wrong.verdict.diagnosis_id if first_wrong else None,
        step=f"step {first_wrong.index}" if first_wrong else None,
        message="; ".join(parts) + f". Rated {RATING_NAMES[rating]} (the worst step).",
        rating=rating,
        unparseable=bool(unreadable) and len(unreadable) == len(steps),
        expected=inst.expected_text(),
        steps=tuple(steps),
    )
