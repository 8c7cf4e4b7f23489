"""Carry-forward follows the learner: a wrong number is carried through a chain of steps, and a learner who
rounds each step to 3 significant figures and works on with their own numbers is graded right."""

from __future__ import annotations

import math
import re
from pathlib import Path

import pytest

from quizapp.content.catalog import Catalog, load_catalog
from quizapp.content.instance import Instance
from quizapp.content.scenario_question import ScenarioQuestion
from quizapp.errors import QuizappError
from quizapp.grading import HARD
from quizapp.grading.scenario import grade_scenario

CONTENT = Path(__file__).resolve().parents[1] / "content"
RING = "case-studies-ring-attention-overlap"
SERVING = "case-studies-70b-tp8-serving"
PREFIX = "case-studies-prefix-caching"
GEMMA = "case-studies-gemma3-local-global-128k"


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    return load_catalog([CONTENT], include_default=False, use_cache=False)


def _text(step: Instance, value: int | float) -> str:
    return f"{value!r} {step.base_unit}".strip()


def _three_figures(value: float) -> float:
    """What a careful learner writes: the number to 3 significant figures (integers stay as they are)."""
    if float(value).is_integer():
        return value
    exponent = math.floor(math.log10(abs(value))) - 2
    return round(value / 10.0**exponent) * 10.0**exponent


def _case_studies(catalog: Catalog) -> list[ScenarioQuestion]:
    """Every case study in the bank, whichever deck holds it (design and debugging decks have their own)."""
    found = [q for d in catalog.decks.values() for q in d.questions if isinstance(q, ScenarioQuestion)]
    assert len(found) >= 12
    return found


def _worked_on_own_numbers(inst: Instance, write: dict[int, float] | None = None) -> list[str]:
    """Every step worked from the learner's own earlier answers (through the scenario's own rework), each
    written to 3 significant figures; `write` replaces the learner's number at a step (a slip)."""
    assert inst.rework is not None
    mine: dict[str, int | float] = {}
    answers = []
    for k, step in enumerate(inst.steps):
        uses = {name: mine[name] for name in inst.step_uses[k] if name in mine}
        worked = inst.rework(k, uses) if uses else step
        value = worked.expected
        assert isinstance(value, (int, float)) and not isinstance(value, bool), (inst.question_id, k)
        value = (write or {}).get(k, _three_figures(value))
        mine[inst.step_names[k]] = value
        answers.append(_text(step, value))
    return answers


def test_a_wrong_number_is_carried_through_two_steps_that_use_each_other(catalog: Catalog) -> None:
    """Step 1 wrong, step 2 worked on it, step 3 worked on step 2's (carried) number: both carried."""
    inst = catalog.instance(RING, 3)
    assert inst.step_uses[1] == ("block",) and inst.step_uses[2] == ("flops",)
    block = inst.steps[0].expected
    assert isinstance(block, int)
    answers = _worked_on_own_numbers(inst, write={0: block * 2})
    verdict = grade_scenario(inst, answers[:3])
    first, second, third = verdict.steps
    assert not first.verdict.correct
    assert second.carried_forward and third.carried_forward
    assert "step-2 number" in (third.verdict.diagnosis or "")
    assert second.rating <= HARD and third.rating <= HARD


@pytest.mark.parametrize("seed", range(1, 9))
def test_a_learner_who_rounds_to_three_figures_and_carries_their_own_numbers_is_right(
    catalog: Catalog, seed: int
) -> None:
    for question in _case_studies(catalog):
        inst = catalog.instance(question.id, seed)
        answers = _worked_on_own_numbers(inst)
        verdict = grade_scenario(inst, answers)
        wrong = [
            (s.index, answers[s.index - 1], s.verdict.message) for s in verdict.steps if not s.verdict.correct
        ]
        assert not wrong, (question.id, seed, wrong)
        assert not any(s.carried_forward for s in verdict.steps), question.id


def test_a_rounded_earlier_number_is_named_when_it_moves_a_later_answer(catalog: Catalog) -> None:
    """The feedback says the step was judged on the learner's own rounded number, and gives both values."""
    for question in catalog.decks["case-studies"].questions:
        for seed in range(1, 6):
            inst = catalog.instance(question.id, seed)
            verdict = grade_scenario(inst, _worked_on_own_numbers(inst))
            moved = [s for s in verdict.steps if "Right on your rounded" in s.verdict.message]
            if moved:
                assert all(s.verdict.correct and not s.carried_forward for s in moved)
                return
    pytest.fail("no case study has a step that a rounded earlier number moves")


def test_a_chain_that_cannot_be_worked_on_says_so_and_why(catalog: Catalog) -> None:
    """A named slip that leaves nothing to work on (activations that fill the GPU on their own) is not just
    "wrong" at the step that uses it: the feedback says the learner's number cannot be carried, and why."""
    question = "case-studies-training-memory-recompute"
    for seed in range(30):
        inst = catalog.instance(question, seed)
        assert inst.rework is not None
        for k, step in enumerate(inst.steps):
            users = [j for j in range(k + 1, len(inst.steps)) if inst.step_names[k] in inst.step_uses[j]]
            for slip in step.derivation.misconceptions if step.derivation else ():
                answers = [_text(s, s.expected) for s in inst.steps]  # type: ignore[arg-type]
                answers[k] = _text(step, slip.value)  # type: ignore[arg-type]
                for j in users:
                    answers[j] = "1"  # anything: the point is what the feedback says about the chain
                    verdict = grade_scenario(inst, answers[: j + 1]).steps[j].verdict
                    if "cannot be carried forward here" in verdict.message:
                        assert f"step-{k + 1} number" in verdict.message
                        assert question.replace("case-studies-", "") not in verdict.message
                        assert ": " in verdict.message.split("cannot be carried forward here")[1]
                        return
    pytest.fail("no slip in the training-memory case leaves a chain that cannot be worked on")


def _chain_from(inst: Instance, k: int, value: int | float, until: int) -> list[str] | None:
    """The learner's answers to steps 1..until+1 when step k (from 0) is `value` and every later step is
    worked on their own numbers; None when their numbers cannot be worked on (a chain that breaks)."""
    assert inst.rework is not None
    mine: dict[str, int | float] = {inst.step_names[k]: value}
    answers = [_text(s, s.expected) for s in inst.steps[:k]]  # type: ignore[arg-type]
    answers.append(_text(inst.steps[k], value))
    for j in range(k + 1, until + 1):
        uses = {name: mine[name] for name in inst.step_uses[j] if name in mine}
        try:
            worked = inst.rework(j, uses) if uses else inst.steps[j]
        except QuizappError:
            return None
        assert isinstance(worked.expected, (int, float))
        mine[inst.step_names[j]] = worked.expected
        answers.append(_text(inst.steps[j], worked.expected))
    return answers


def test_the_decode_step_time_tells_every_wrong_earlier_chain_from_the_truth(catalog: Catalog) -> None:
    """Step 5 of the 70B serving case (the decode step bound) on a learner's wrong weights or cache, worked
    right on their numbers, is never marked right on the truth: it is carried forward, rated at most Hard."""
    step = 4
    checked = 0
    for seed in range(60):
        inst = catalog.instance(SERVING, seed)
        uses = inst.step_uses[step]
        assert uses, "the decode step must use earlier steps"
        for k in range(step):
            earlier = inst.steps[k]
            for slip in earlier.derivation.misconceptions if earlier.derivation else ():
                assert not isinstance(slip.value, tuple)
                answers = _chain_from(inst, k, slip.value, step)
                if answers is None or answers[step] == _text(inst.steps[step], inst.steps[step].expected):  # type: ignore[arg-type]
                    continue  # the chain broke, or never reached this step's numbers
                verdict = grade_scenario(inst, answers).steps[step]
                assert not verdict.verdict.correct, (seed, k + 1, slip.id, answers[step])
                assert verdict.carried_forward and verdict.rating <= HARD, (seed, k + 1, slip.id)
                checked += 1
    assert checked > 200


def test_steps_that_say_with_that_use_the_earlier_answer_so_a_wrong_one_is_carried(catalog: Catalog) -> None:
    """A step built on an earlier quantity takes it as an argument: a learner's wrong per-token cache moves
    the prefix and request caches, a wrong bf16 cache the FP8 one, a wrong global cache the all-global one."""
    wired = {
        (PREFIX, "prefix_kv"): ("per_token",),
        (PREFIX, "request_kv"): ("per_token",),
        (SERVING, "kv_fp8"): ("kv_seq",),
        (GEMMA, "all_global"): ("n_global", "global_kv"),
    }
    for (qid, name), uses in wired.items():
        inst = catalog.instance(qid, 2)
        j = inst.step_names.index(name)
        assert inst.step_uses[j] == uses, (qid, name)
        k = inst.step_names.index(uses[-1])
        wrong = inst.steps[k].derivation.misconception(inst.steps[k].trap or "")  # type: ignore[union-attr]
        answers = _chain_from(inst, k, wrong.value, j)  # type: ignore[arg-type]
        assert answers is not None
        verdict = grade_scenario(inst, answers).steps[j]
        assert verdict.carried_forward and f"step-{k + 1} number" in (verdict.verdict.diagnosis or ""), (
            qid,
            name,
        )
    for question in catalog.decks["case-studies"].questions:
        inst = catalog.instance(question.id, 0)
        for j, step in enumerate(inst.steps):
            if re.search(r"\bwith that\b|\bfrom step \d|\byour (weight shard|number)", step.prompt, re.I):
                assert inst.step_uses[j], (question.id, inst.step_names[j])
