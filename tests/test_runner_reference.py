"""The reference's work is bounded before it runs: each exercise estimates its cost from a case's sizes,
a case or a whole review past the bounds is refused before anything is built (so the first round's
T = S = 8000 never reaches NumPy), `quizapp validate` refuses such inputs naming the time, and a grading
stops computing the reference past its time limit."""

from __future__ import annotations

import subprocess
import sys
import tracemalloc
from pathlib import Path

import pytest

from engine.exercises import EXERCISES
from engine.exercises.inputs import MAX_REVIEW_SECONDS, TooLarge
from quizapp.grading import code as code_grading
from quizapp.grading.code import grade_code

ROOT = Path(__file__).resolve().parent.parent
DECK = """id: big
title: Big
topic: coding
questions:
  - id: big-{n}
    type: code
    exercise: {exercise}
    prompt: p
    explanation: e
    inputs:
      edge:
        - {edge}
"""
BOMBS = {
    "code-attention": "{T: 8000, S: 8000, d_k: 1, d_v: 1}",  # the first round's: 25 s, 1.56 GB per Ctrl+R
    "code-sliding-window": "{t: 30000, window: 2}",  # two small numbers, a 30000 x 30000 mask
    "code-flash-forward": "{T: 2000, S: 2000, block: 1}",  # two million turns of a Python loop
    "code-mha-forward": "{T: 300, d_model: 256, n_heads: 8}",  # under the size bounds, over a second
    "code-attention-backward": "{T: 2000, d: 2}",
}


@pytest.mark.parametrize("exercise", sorted(BOMBS))
def test_a_case_whose_reference_would_take_too_long_is_refused_before_it_runs(exercise: str) -> None:
    import yaml

    ex = EXERCISES[exercise]
    edge = yaml.safe_load(BOMBS[exercise])
    tracemalloc.start()
    try:
        with pytest.raises(TooLarge, match=r"values; at most|about \d+(\.\d+)? s"):
            ex.cases(0, ex.spec(edge=(edge,)))  # draws inputs only: the reference never runs here
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 64 * 2**20, f"{peak / 2**20:.0f} MiB were allocated before the case was refused"


def test_every_bundled_exercise_draws_within_the_bounds_for_many_seeds() -> None:
    for ex in EXERCISES.values():
        for seed in range(30):
            assert len(ex.cases(seed)) >= 5


@pytest.mark.parametrize("exercise", ["code-attention", "code-mha-forward"])
def test_validate_refuses_inputs_whose_reference_would_take_over_a_second(
    exercise: str, isolated_home: Path
) -> None:
    deck = isolated_home / "big.yaml"
    deck.write_text(DECK.format(n=1, exercise=exercise, edge=BOMBS[exercise]), encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "quizapp", "validate", str(deck)],
        capture_output=True, text=True, timeout=120, cwd=ROOT, check=False,
    )  # fmt: skip
    assert done.returncode != 0, done.stdout + done.stderr
    said = done.stdout + done.stderr
    bound = "at most 16,000,000" if exercise == "code-attention" else f"at most {MAX_REVIEW_SECONDS:g} s"
    assert "big-1" in said and bound in said, said


def test_a_grading_stops_computing_the_reference_past_its_time_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    """The limit past the estimate: no further case's reference runs, and the grading says why."""
    from quizapp.errors import QuizappError

    monkeypatch.setattr(code_grading, "REFERENCE_TIME_LIMIT_S", 0.0)
    with pytest.raises(QuizappError, match="the reference took over 0 s"):
        grade_code("code-softmax", EXERCISES["code-softmax"].solution, seed=0)
    monkeypatch.setattr(code_grading, "REFERENCE_TIME_LIMIT_S", 3.0)
    assert grade_code("code-softmax", EXERCISES["code-softmax"].solution, seed=0).correct  # the pool is fine
