"""Provides input_spec: a code question's `inputs` block as the engine's InputSpec (None: the exercise's
own draw), and input_issues: what is wrong with that block, each where it is in the question."""

from __future__ import annotations

from engine.exercises import EXERCISES
from engine.exercises.inputs import Between, Draw, InputSpec, OneOf
from quizapp.content.code_question import CodeOneOf, CodeQuestion, InputScalar
from quizapp.content.problems import Issue


def input_spec(question: CodeQuestion) -> InputSpec | None:
    """The spec a question's cases are drawn by: its edge cases (else the exercise's), the exercise's
    random ranges with the question's over them, its case count and dtype (else the exercise's)."""
    declared = question.inputs
    if declared is None:
        return None
    exercise = EXERCISES[question.exercise]  # checked when the deck loaded
    return exercise.spec(
        edge=None if declared.edge is None else tuple(dict(case) for case in declared.edge),
        random={name: _draw(value) for name, value in declared.random.items()},
        n_cases=declared.cases,
        dtype=declared.dtype,
    )


def input_issues(question: CodeQuestion) -> list[Issue]:
    """Unknown parameter names or values, a bad range, an edge case the exercise cannot build, random
    ranges that never give a usable case: each located under `inputs`."""
    spec = input_spec(question)
    if spec is None:
        return []
    exercise = EXERCISES[question.exercise]
    return [Issue(("inputs", *where), message) for where, message in exercise.input_issues(spec)]


def _draw(value: tuple[float, float] | CodeOneOf | InputScalar) -> Draw:
    if isinstance(value, tuple):
        return Between(value[0], value[1])
    if isinstance(value, CodeOneOf):
        return OneOf(value.one_of)
    return OneOf((value,))
