"""Case studies: a scenario is one question of chained steps, each judged against the truth and, with
error carried forward, against the learner's own earlier numbers; the CLI, interviews and Anki see it."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

import pytest
import yaml
from pydantic import ValidationError

import engine
from engine import ACCELERATORS, accelerators
from quizapp.content.catalog import Catalog, load_catalog
from quizapp.content.instance import Instance
from quizapp.content.scenario_question import ScenarioQuestion
from quizapp.grading import AGAIN, HARD, grade
from quizapp.grading.scenario import grade_scenario, parts_of
from quizapp.interview.session import InterviewSession
from quizapp.interview.setup import MAX_SCENARIOS, _at_most_one_code
from quizapp.reports.anki import card_sides
from quizapp.store import InterviewConfig, open_store
from quizapp.study import QuestionSet
from quizapp.study.session import Unreadable

CONTENT = Path(__file__).resolve().parents[1] / "content"
SERVING = "case-studies-70b-tp8-serving"
T0 = datetime(2025, 3, 3, 9, 30, tzinfo=UTC)


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    loaded = load_catalog([CONTENT], include_default=False, use_cache=False)
    assert not loaded.skipped, loaded.skipped
    return loaded


def _scenarios(catalog: Catalog) -> list[ScenarioQuestion]:
    return [q for q in catalog.decks["case-studies"].questions if isinstance(q, ScenarioQuestion)]


def _misconception_text(step: Instance, misconception_id: str) -> str:
    """A wrong answer the engine computes (in base units), written with its unit."""
    assert step.derivation is not None
    value = step.derivation.misconception(misconception_id).value
    return f"{value} {step.base_unit}".strip()


def _right_text(step: Instance) -> str:
    return f"{step.expected} {step.base_unit}".strip()


def test_a_scenario_survives_a_round_trip_through_its_schema(catalog: Catalog) -> None:
    question = catalog.question(SERVING)
    assert isinstance(question, ScenarioQuestion)
    again = ScenarioQuestion.model_validate(yaml.safe_load(yaml.safe_dump(question.model_dump(mode="json"))))
    assert again == question
    raw = question.model_dump(mode="json")
    with pytest.raises(ValidationError, match="4 to 8 steps"):
        ScenarioQuestion.model_validate({**raw, "steps": raw["steps"][:3]})
    with pytest.raises(ValidationError, match="used twice"):
        ScenarioQuestion.model_validate({**raw, "steps": [raw["steps"][0]] * 4})


def test_the_bank_has_twelve_case_studies_of_four_to_eight_steps_that_vary_by_seed(catalog: Catalog) -> None:
    scenarios = _scenarios(catalog)
    assert len(scenarios) >= 12
    for question in scenarios:
        assert 4 <= len(question.steps) <= 8
        finals = {
            round(float(catalog.instance(question.id, s).steps[-1].expected or 0), 9) for s in range(50)
        }
        assert question.fixed or len(finals) >= 8, (question.id, len(finals))
        inst = catalog.instance(question.id, 0)
        for step, spec in zip(inst.steps, question.steps, strict=True):
            assert spec.trap is not None and step.derivation is not None
            assert spec.trap in {m.id for m in step.derivation.misconceptions}, (question.id, spec.name)


def _right_answers(inst: Instance) -> list[str]:
    """Every step's right number, then (for a case study with a part in words) its own model answer."""
    said = [str(inst.follow_up.expected)] if inst.follow_up is not None else []
    return [*(_right_text(s) for s in inst.steps), *said]


def test_every_step_right_is_a_correct_scenario(catalog: Catalog) -> None:
    inst = catalog.instance(SERVING, 4)
    verdict = grade(inst, "; ".join(_right_answers(inst)))
    assert verdict.correct
    assert [s.verdict.correct for s in verdict.steps] == [True] * parts_of(inst)
    assert not any(s.carried_forward for s in verdict.steps)


def test_every_case_study_ends_with_a_choice_to_explain_read_point_by_point(catalog: Catalog) -> None:
    for q in _scenarios(catalog):
        inst = catalog.instance(q.id, 1)
        assert inst.follow_up is not None and inst.follow_up.kind == "explain", q.id
        right = grade(inst, "; ".join(_right_answers(inst)))  # its model answer may hold `;` of its own
        assert right.correct and right.steps[-1].verdict.reading is not None, q.id
        assert right.steps[-1].verdict.reading.covered() == set(range(len(inst.follow_up.key_points)))
        # the numbers right and the words empty of any point: the case is rated on its worst part
        numbers = [_right_text(s) for s in inst.steps]
        vague = grade(inst, "; ".join([*numbers, "It depends on the workload, honestly."]))
        assert not vague.correct and vague.rating == AGAIN, q.id


def test_right_method_on_a_wrong_earlier_number_is_carried_forward_and_rated_at_most_hard(
    catalog: Catalog,
) -> None:
    inst = catalog.instance(SERVING, 7)
    weights, kv_seq = inst.steps[0], inst.steps[1]
    wrong_weights = _misconception_text(weights, "forgot-tp")  # the whole model on every GPU
    wrong_value = weights.derivation.misconception("forgot-tp").value if weights.derivation else 0
    assert isinstance(wrong_value, (int, float))
    assert inst.rework is not None
    on_mine = inst.rework(2, {"weights": wrong_value})  # step 3 worked on the learner's step-1 number
    answers = [wrong_weights, _right_text(kv_seq), _right_text(on_mine)]
    verdict = grade_scenario(inst, answers)
    first, second, third = verdict.steps
    assert not first.verdict.correct and first.verdict.diagnosis_id == "forgot-tp"
    assert second.verdict.correct and not second.carried_forward
    assert third.carried_forward and not third.verdict.correct
    assert third.rating <= HARD
    assert "Right method on your step-1 number" in (third.verdict.diagnosis or "")
    assert verdict.rating == min(s.rating for s in verdict.steps)
    # a third answer wrong on both the truth and the learner's numbers is not carried forward
    wrong_both = f"{float(on_mine.expected or 0) * 3} B"
    assert not grade_scenario(inst, [*answers[:2], wrong_both]).steps[2].carried_forward


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "quizapp", *args], capture_output=True, text=True, timeout=120
    )


def test_show_json_lists_the_steps_and_check_json_gives_one_verdict_per_step(catalog: Catalog) -> None:
    inst = catalog.instance(SERVING, 2)
    shown = _cli("show", SERVING, "--seed", "2", "--json")
    assert shown.returncode == 0, shown.stderr
    data = json.loads(shown.stdout)
    assert [s["prompt"] for s in data["steps"]] == [s.prompt for s in inst.steps]
    assert [s["expected"] for s in data["steps"]] == [s.expected_text() for s in inst.steps]
    wrong = weights_wrong = inst.steps[0].derivation.misconception("forgot-tp").value  # type: ignore[union-attr]
    assert isinstance(wrong, (int, float))
    assert inst.rework is not None
    third = inst.rework(2, {"weights": weights_wrong})
    checked = _cli(
        "check",
        SERVING,
        "--seed",
        "2",
        "--json",
        "--answer",
        f"{wrong} B",
        "--answer",
        _right_text(inst.steps[1]),
        "--answer",
        _right_text(third),
    )
    assert checked.returncode == 1, checked.stderr
    verdict = json.loads(checked.stdout)
    assert [s["step"] for s in verdict["steps"]] == [1, 2, 3]
    assert [s["carried_forward"] for s in verdict["steps"]] == [False, False, True]
    assert [s["correct"] for s in verdict["steps"]] == [False, True, False]
    too_many = _cli("check", SERVING, "--seed", "2", *(["--answer", "1"] * (parts_of(inst) + 1)))
    assert too_many.returncode == 2


def test_a_mock_interview_asks_at_most_one_case_study(catalog: Catalog, tmp_path: Path) -> None:
    pool = QuestionSet.from_catalog(catalog)
    assert sum(catalog.question(r.question_id).type == "scenario" for r in pool.ordered) > MAX_SCENARIOS
    for seed in range(5):
        kept = _at_most_one_code(catalog, pool, random.Random(seed))
        assert sum(catalog.question(r.question_id).type == "scenario" for r in kept.ordered) == MAX_SCENARIOS
    # a whole interview on the case-study deck and one more: one case study, the rest from the other deck
    config = InterviewConfig(questions=8, minutes=30, deck_ids=("case-studies", "dimensions"))
    asked_cases = 0
    with open_store(tmp_path / "progress.db", now=T0) as store:
        for seed in range(3):
            session = InterviewSession.start(catalog, store, pool, config, rng=random.Random(seed), now=T0)
            kinds = [inst.kind for _, inst in session.plan]
            assert kinds.count("scenario") <= MAX_SCENARIOS and len(kinds) > 1
            while (asked := session.current) is not None:
                if asked.instance.kind == "scenario":  # graded silently like any answer
                    assert not isinstance(session.submit("1; 2; 3", now=T0), Unreadable)
                    asked_cases += 1
                else:
                    session.skip(now=T0)
    assert asked_cases > 0


def test_the_accelerator_presets_are_the_datasheets_dense_numbers() -> None:
    assert set(ACCELERATORS) == {"h100-sxm", "h200", "a100-80gb", "b200", "mi300x", "l4"}
    assert ACCELERATORS["a100-80gb"].fp8_tflops is None  # Ampere has no FP8 tensor cores
    for gpu in ACCELERATORS.values():
        assert gpu.source.strip() and gpu.memory_source.strip()
        # capacity is what the device reports (MiB), never the name's nominal decimal GB
        assert gpu.memory_bytes == gpu.memory_mib * 2**20 and gpu.memory_gib == gpu.memory_mib / 1024
        if gpu.fp8_tflops is not None:  # dense FP8 is twice dense BF16 on every part listed
            assert abs(gpu.fp8_tflops / gpu.bf16_tflops - 2) < 0.01, gpu.key
        ridge = engine.calculate("ridge_point", tflops=gpu.bf16_tflops, bandwidth_gb_s=gpu.bandwidth_gb_s)
        row = next(
            line.split()
            for line in (accelerators.__doc__ or "").splitlines()
            if line.split()[:1] == [gpu.key]
        )
        assert int(row[-1].replace(",", "")) == round(float(ridge.value)), gpu.key
    assert engine.PRESETS["h100-sxm"] is ACCELERATORS["h100-sxm"]
    # nvidia-smi: an H100 80GB shows 81,559 MiB (79.6 GiB, 85.5e9 B); an A100 80GB 81,920 MiB; an H200 143,771
    assert (ACCELERATORS["h100-sxm"].memory_mib, ACCELERATORS["a100-80gb"].memory_mib) == (81559, 81920)
    assert ACCELERATORS["h200"].memory_mib == 143771
    assert round(ACCELERATORS["h100-sxm"].memory_bytes / 1e9, 1) == 85.5


def test_the_anki_note_of_a_scenario_lists_the_steps_and_the_chain(catalog: Catalog) -> None:
    inst = catalog.instance(SERVING, 5)
    front, back = card_sides(inst)
    for step in inst.steps:
        assert step.prompt.split()[0] in front
        assert step.expected_text() in back
    assert "Step 1:" in back and f"Step {len(inst.steps)}:" in back


def test_validate_gates_a_case_study_whose_final_answer_never_varies(catalog: Catalog) -> None:
    from quizapp.content.checks.gates import GateInput, scenario_failures
    from quizapp.content.instantiate import instantiate

    question = catalog.question(SERVING)
    assert isinstance(question, ScenarioQuestion)
    raw = question.model_dump(mode="json")
    raw["params"].update(
        gpu={"preset": ["h100-sxm"]},
        ctx={"value": 8192},
        reserve={"value": 6},
        w={"value": raw["params"]["w"]["choices"][0]},
    )
    frozen = ScenarioQuestion.model_validate(raw)

    def make(_qid: str, seed: int) -> Instance:
        return instantiate(frozen, deck_id="case-studies", deck_title="t", seed=seed)

    failures = scenario_failures(
        GateInput("case-studies", 0, frozen), make, distinct_seeds=20, diagnosis_seeds=20
    )
    assert [f.loc for f in failures] == [("questions", 0, "params")]
    assert "1 distinct final answer" in failures[0].message
    assert (
        scenario_failures(
            GateInput("case-studies", 0, question), catalog.instance, distinct_seeds=30, diagnosis_seeds=30
        )
        == []
    )
