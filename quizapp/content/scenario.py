"""Provides scenario instantiation: a case study's steps worked in order, each able to use earlier answers.

Each step is a computed question of its own (a numeric Instance). Its args may name params or earlier
steps; an earlier step's answer enters in base units, as the engine computed it. `rework` works one step
again with some earlier answers replaced by the learner's numbers, which is how grading carries an error
forward. The scenario's own derivation is the chain: every step's worked lines, in order.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import engine
from engine.derivation import Step
from quizapp.content import instantiate  # each step is a question of its own: instantiate builds it
from quizapp.content.instance import Instance
from quizapp.content.scenario_question import ScenarioQuestion, ScenarioStep
from quizapp.content.template import TemplateError, render
from quizapp.errors import InstanceError

Answers = Mapping[str, int | float]


def step_uses(question: ScenarioQuestion) -> tuple[tuple[str, ...], ...]:
    """For each step, the earlier steps its args name (directly), in step order."""
    out = []
    for k, step in enumerate(question.steps):
        earlier = {s.name for s in question.steps[:k]}
        named = {ref.split(".", 1)[0] for ref in step.args.values() if isinstance(ref, str)}
        out.append(tuple(s.name for s in question.steps[:k] if s.name in named & earlier))
    return tuple(out)


def build_scenario(
    question: ScenarioQuestion, values: Mapping[str, Any], common: Mapping[str, Any], calculate: Any
) -> Instance:
    """The scenario Instance: its steps worked in order on the true answers, the chain as derivation."""
    answers: dict[str, int | float] = {}
    steps: list[Instance] = []
    for k, step in enumerate(question.steps):
        inst = build_step(question, k, values, answers, common, calculate)
        steps.append(inst)
        value = inst.derivation.value if inst.derivation is not None else 0
        assert not isinstance(value, tuple)  # build_step refuses shapes
        answers[step.name] = value

    def rework(k: int, overrides: Answers) -> Instance:
        if not 0 <= k < len(question.steps):
            raise InstanceError(f"this scenario has no step {k + 1}")
        return build_step(question, k, values, {**answers, **overrides}, common, calculate)

    last = steps[-1]
    follow_up = None
    if question.explain is not None:
        part = question.explain
        try:
            prompt = render(part.prompt, values)
        except TemplateError as exc:
            raise InstanceError(exc.message, loc=("explain", "prompt"), offset=exc.offset) from None
        parts = {**common, "prompt": prompt}
        follow_up = Instance(
            kind="explain", expected=part.model_answer, **instantiate.explain_parts(part), **parts
        )
    return Instance(
        kind="scenario",
        expected=None,
        unit=last.unit,
        base_unit=last.base_unit,
        derivation=chain(steps),
        steps=tuple(steps),
        step_names=tuple(s.name for s in question.steps),
        step_uses=step_uses(question),
        follow_up=follow_up,
        rework=rework,
        **common,
    )


def build_step(
    question: ScenarioQuestion,
    k: int,
    values: Mapping[str, Any],
    answers: Answers,
    common: Mapping[str, Any],
    calculate: Any,
) -> Instance:
    """Step k as a numeric Instance, its args resolved against the params and the given earlier answers."""
    step: ScenarioStep = question.steps[k]
    where: tuple[str | int, ...] = ("steps", k)
    try:
        prompt = render(step.prompt, values)
    except TemplateError as exc:
        raise InstanceError(exc.message, loc=(*where, "prompt"), offset=exc.offset) from None
    earlier = {s.name: answers[s.name] for s in question.steps[:k] if s.name in answers}
    try:
        args = instantiate.resolve_args(step.args, {**values, **earlier}, loc=(*where, "args"))
        answer = instantiate.compute_answer(step, args, calculate)
    except InstanceError as exc:
        raise InstanceError(exc.message, loc=(*where, *_after_args(exc.loc)), offset=exc.offset) from None
    if isinstance(answer.expected, tuple):
        raise InstanceError("a scenario step must give a number, not a shape", loc=(*where, "calculator"))
    return Instance(
        kind="numeric",
        expected=answer.expected,
        unit=answer.unit,
        base_unit=answer.derivation.unit,
        tolerance=answer.tolerance,
        derivation=answer.derivation,
        answer_format=step.answer_format or "",
        trap=step.trap,
        **{**common, "prompt": prompt},
    )


def _after_args(loc: tuple[str | int, ...]) -> tuple[str | int, ...]:
    """An error's location inside a step: from `args` (or the field it names) on."""
    return loc[loc.index("args") :] if "args" in loc else loc


def chain(steps: list[Instance] | tuple[Instance, ...]) -> engine.Derivation:
    """The scenario's derivation: each step's worked lines, headed by the step they belong to."""
    lines: list[Step] = []
    for i, inst in enumerate(steps, start=1):
        d = inst.derivation
        if d is None:
            continue
        for j, line in enumerate(d.steps):
            label = f"Step {i}: {line.label}" if j == 0 else f"  {line.label}"
            lines.append(Step(label, line.formula, line.substituted, line.value, line.unit, line.picks))
    last = steps[-1].derivation
    assert last is not None
    return engine.Derivation("scenario", last.value, last.unit, tuple(lines))
