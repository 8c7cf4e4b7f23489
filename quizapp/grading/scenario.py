"""Provides scenario grading: one verdict per step, with error carried forward.

A step that is wrong against the truth is worked again with the learner's own earlier numbers in place
of the true ones (only for the earlier steps it uses and the learner got wrong). If the answer is right
on those numbers, the step is "right method on your step-k number": marked carried forward and rated no
better than Hard. The scenario's rating is its worst step's, so one case study stays one Card.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from quizapp.content.instance import Instance
from quizapp.errors import QuizappError
from quizapp.grading.grade import StepVerdict, Verdict, grade
from quizapp.grading.rating import AGAIN, HARD, RATING_NAMES

_SEPARATORS = re.compile(r"[;\n]")
_STEP_NUMBER = re.compile(r"^\s*\d+\)\s*")


def split_answers(text: str) -> list[str]:
    """The per-step answers in one text: separated by `;` or new lines (no answer form uses either), each
    perhaps numbered as the expected answer is written ("1) 17.5 GB; 2) 0.34 GB")."""
    return [_STEP_NUMBER.sub("", part).strip() for part in _SEPARATORS.split(text.strip())]


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
    if carried is None:
        return StepVerdict(k + 1, truth, False, truth.rating)
    own, used = carried
    rating = min(HARD, own.rating)
    names = " and ".join(f"step-{i} number ({verdict_value(earlier[i - 1])})" for i in used)
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
) -> tuple[Verdict, list[int]] | None:
    """The verdict on the learner's own earlier numbers, and which steps (from 1) they came from, when
    the answer is right on them; None otherwise."""
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
        if prior.correct and not earlier[i].carried_forward:
            continue
        if prior.unparseable or isinstance(value, bool) or not isinstance(value, (int, float)):
            continue
        overrides[name] = value
        used.append(i + 1)
    if not overrides:
        return None
    try:
        own_step = inst.rework(k, overrides)
    except QuizappError:  # the learner's numbers cannot be worked (a negative memory, say)
        return None
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
    if len(answers) > len(inst.steps):
        return Verdict(
            False,
            "",
            None,
            None,
            None,
            None,
            f"Could not read the answer: {len(answers)} answers for {len(inst.steps)} steps. "
            "Give one answer per step, separated by ';'.",
            AGAIN,
            unparseable=True,
        )
    steps: list[StepVerdict] = []
    for k in range(len(answers)):
        steps.append(grade_step(inst, k, answers, steps, hints_used, seconds, attempt))
    unreadable = [s.index for s in steps if s.verdict.unparseable]
    right = sum(s.verdict.correct for s in steps)
    carried = [s.index for s in steps if s.carried_forward]
    missing = len(inst.steps) - len(steps)
    rating = AGAIN if missing else min((s.rating for s in steps), default=AGAIN)
    parts = [f"{right} of {len(inst.steps)} steps right"]
    if missing:
        parts.append(f"{missing} step(s) not answered")
    if carried:
        parts.append(f"carried forward at step {', '.join(map(str, carried))}")
    if unreadable:
        parts.append(f"step {', '.join(map(str, unreadable))} could not be read")
    first_wrong = next((s for s in steps if not s.verdict.correct), None)
    return Verdict(
        correct=right == len(inst.steps),
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
