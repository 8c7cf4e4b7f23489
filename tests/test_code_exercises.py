"""Coding exercises: every reference solution passes, every named mistake written as code is diagnosed as
itself, a correct solution in another style passes, and a runaway loop or a memory hog is stopped with a
message, never a hang."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import engine
from engine.exercises import EXERCISES
from engine.exercises.base import source_as
from quizapp.errors import QuizappError
from quizapp.grading.code import grade_code

MISTAKES = [(ex.id, m.id) for ex in EXERCISES.values() for m in ex.mistakes]


@pytest.mark.parametrize("exercise_id", sorted(EXERCISES))
def test_the_reference_solution_passes_every_case(exercise_id: str) -> None:
    verdict = grade_code(exercise_id, EXERCISES[exercise_id].solution, seed=11)
    assert verdict.correct, verdict.summary()
    assert len(verdict.cases) >= 5 and verdict.mistake is None


@pytest.mark.parametrize(("exercise_id", "mistake_id"), MISTAKES)
def test_a_solution_with_a_known_mistake_is_told_which_one(exercise_id: str, mistake_id: str) -> None:
    ex = EXERCISES[exercise_id]
    mistake = next(m for m in ex.mistakes if m.id == mistake_id)
    verdict = grade_code(exercise_id, source_as(mistake.compute, ex.function), seed=5)
    assert not verdict.correct
    assert verdict.mistake is not None and verdict.mistake.id == mistake_id, verdict.summary()
    assert mistake.text in verdict.summary()


@given(st.integers(0, 2**31 - 2))
@settings(max_examples=25, deadline=None)
def test_a_seed_always_draws_the_same_cases_and_every_mistake_shows_on_some_case(seed: int) -> None:
    for ex in EXERCISES.values():
        cases = ex.cases(seed)
        assert len(cases) >= 5
        for case, again in zip(cases, ex.cases(seed), strict=True):  # drawn again: the same inputs
            assert case.keys() == again.keys()
            for name in case:
                np.testing.assert_array_equal(case[name], again[name])
        for mistake in ex.mistakes:
            with np.errstate(all="ignore"):
                differs = [
                    not np.allclose(
                        np.asarray(mistake.compute(**case)), np.asarray(ex.reference(**case)), equal_nan=True
                    )
                    if np.shape(mistake.compute(**case)) == np.shape(ex.reference(**case))
                    else True
                    for case in cases
                ]
            assert any(differs), (ex.id, mistake.id, seed)


MHA_LOOP = """
import numpy as np

def mha(x, w_q, w_k, w_v, w_o, n_heads, causal=False):
    outs = []
    for q, k, v in zip(*(np.split(x @ w, n_heads, axis=1) for w in (w_q, w_k, w_v))):
        s = q @ k.T / np.sqrt(q.shape[1])
        if causal:
            s = s + np.triu(np.full(s.shape, -1e30), 1)
        p = np.exp(s - s.max(1, keepdims=True))
        outs.append(p / p.sum(1, keepdims=True) @ v)
    return np.hstack(outs) @ w_o
"""


def test_a_correct_mha_in_another_style_passes() -> None:
    verdict = grade_code("code-mha-forward", MHA_LOOP, seed=4)
    assert verdict.correct, verdict.summary()


def test_a_wrong_answer_that_is_no_known_mistake_shows_the_first_failing_case() -> None:
    source = (
        "import numpy as np\n\ndef mha(x, w_q, w_k, w_v, w_o, n_heads, causal=False):\n    return x @ w_o\n"
    )
    verdict = grade_code("code-mha-forward", source, seed=4)
    failure = verdict.first_failure
    assert not verdict.correct and verdict.mistake is None and failure is not None
    assert failure.index == 0 and failure.inputs["x"] == "(1, 8)"  # the edge case T = 1 comes first
    assert failure.inputs["n_heads"] == "= 2" and failure.inputs["causal"] == "= False"
    assert failure.max_abs_diff is not None and failure.max_abs_diff > 0
    assert (
        "First failing case (#1): x (1, 8)" in verdict.summary()
        and "max |expected - yours|" in verdict.summary()
    )


def test_an_error_shows_only_the_learners_own_lines_and_what_they_printed() -> None:
    source = (
        "import numpy as np\n\ndef softmax(x):\n"
        "    print('shape', x.shape)\n    return x @ np.ones((2, 2, 2))\n"
    )
    verdict = grade_code("code-softmax", source, seed=1)
    failure = verdict.first_failure
    assert failure is not None and failure.error is not None
    assert failure.error.startswith("line 5, in softmax: return x @ np.ones((2, 2, 2))")
    assert "ValueError" in failure.error and "numpy" not in failure.error.split("\n")[0]
    assert "quizapp" not in failure.error and "code_runner" not in failure.error
    assert verdict.printed.startswith("shape (2, 3)\n")


def test_code_that_does_not_define_the_function_or_does_not_parse_is_told_so() -> None:
    assert "does not define a function named 'softmax'" in (
        grade_code("code-softmax", "x = 1\n", seed=0).problem or ""
    )
    assert (grade_code("code-softmax", "def softmax(x)\n    return x\n", seed=0).problem or "").startswith(
        "line 1:"
    )


def test_an_endless_loop_is_stopped_at_the_time_limit() -> None:
    verdict = grade_code(
        "code-softmax", "def softmax(x):\n    while True:\n        pass\n", seed=0, time_limit=2.0
    )
    assert verdict.problem == "stopped after 2 s: an endless loop, or far too much work"
    assert "endless loop" in verdict.summary()


def test_a_memory_hog_is_stopped_with_a_message() -> None:
    source = "def softmax(x):\n    hog = []\n    while True:\n        hog.append(bytearray(50_000_000))\n"
    verdict = grade_code("code-softmax", source, seed=0, memory_limit=400 << 20)
    assert not verdict.correct
    assert "used more than 400 MB of memory" in verdict.summary()


def test_an_unknown_exercise_is_named() -> None:
    with pytest.raises(QuizappError, match="No coding exercise with id 'code-nope'"):
        grade_code("code-nope", "", seed=0)


def test_the_cli_grades_a_file_and_exits_by_the_verdict(tmp_path: Path) -> None:
    import subprocess
    import sys

    ex = EXERCISES["code-kv-cache-bytes"]
    right = tmp_path / "right.py"
    right.write_text(ex.solution, encoding="utf-8")
    wrong = tmp_path / "wrong.py"
    wrong.write_text(source_as(ex.mistakes[0].compute, ex.function), encoding="utf-8")

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        command = [sys.executable, "-m", "quizapp", "code", *args]
        return subprocess.run(command, capture_output=True, text=True, timeout=120, check=False)

    assert run(ex.id, "--file", str(right)).returncode == 0
    out = run(ex.id, "--file", str(wrong), "--seed", "3")
    assert out.returncode == 1 and "You dropped the x2 for K and V" in out.stdout
    assert run(ex.id, "--file", str(tmp_path / "missing.py")).returncode == 2
    assert run("code-nope").returncode == 2
    listing = run().stdout
    assert all(exercise_id in listing for exercise_id in EXERCISES)
    shown = run("code-mha-forward").stdout
    assert "def mha(x, w_q, w_k, w_v, w_o, n_heads, causal=False):" in shown


def test_the_backward_reference_matches_finite_differences() -> None:
    ex = EXERCISES["code-attention-backward"]
    for case in ex.cases(2)[:4]:
        grads = ex.reference(**case)

        def loss(q: np.ndarray, k: np.ndarray, v: np.ndarray, d_out: np.ndarray = case["d_out"]) -> float:
            weights = engine.softmax(q @ k.T / np.sqrt(q.shape[-1]))  # (T, T)
            return float(((weights @ v) * d_out).sum())

        for index, name in enumerate(("q", "k", "v")):
            numeric = np.zeros_like(case[name])
            for i in np.ndindex(numeric.shape):
                up = {n: case[n].copy() for n in ("q", "k", "v")}
                down = {n: case[n].copy() for n in ("q", "k", "v")}
                up[name][i] += 1e-6
                down[name][i] -= 1e-6
                numeric[i] = (loss(**up) - loss(**down)) / 2e-6
            np.testing.assert_allclose(grads[index], numeric, atol=1e-7)


def test_the_flash_and_decode_references_agree_with_the_engines_attention() -> None:
    for case in EXERCISES["code-flash-forward"].cases(7):
        weights = engine.softmax(case["q"] @ case["k"].T / np.sqrt(case["q"].shape[-1]))  # (T, S)
        np.testing.assert_allclose(EXERCISES["code-flash-forward"].reference(**case), weights @ case["v"])
    for case in EXERCISES["code-kv-decode"].cases(7):
        k = np.concatenate([case["k_cache"], case["k_new"]])  # (P + 1, d)
        v = np.concatenate([case["v_cache"], case["v_new"]])  # (P + 1, d_v)
        weights = engine.softmax(case["q_new"] @ k.T / np.sqrt(k.shape[-1]))  # (1, P + 1) the last causal row
        np.testing.assert_allclose(EXERCISES["code-kv-decode"].reference(**case), weights @ v)


def test_a_deck_sets_the_sentences_and_the_tolerance_of_its_code_question(isolated_home: Path) -> None:
    from quizapp.content.catalog import load_catalog
    from quizapp.grading.grade import grade

    folder = isolated_home / "decks"
    folder.mkdir()
    (folder / "mine.yaml").write_text(
        """id: mine
title: Mine
topic: coding
questions:
  - id: mine-kv-strict
    type: code
    exercise: code-kv-cache-bytes
    prompt: The KV cache in bytes.
    mistakes:
      - id: no-x2
        text: Keys AND values, twice the numbers.
    explanation: 2 x layers x kv heads x d_head x tokens x batch x bytes.
  - id: mine-kv-loose
    type: code
    exercise: code-kv-cache-bytes
    prompt: The KV cache in bytes, to within a factor of two.
    tolerance: {rtol: 0.5, atol: 0}
    explanation: Order of magnitude is what counts here.
""",
        encoding="utf-8",
    )
    catalog = load_catalog([folder], include_default=False, use_cache=False)
    assert not catalog.problems, catalog.problems
    ex = EXERCISES["code-kv-cache-bytes"]
    halved = source_as(ex.mistakes[0].compute, ex.function)  # forgets the x2
    strict = grade(catalog.instance("mine-kv-strict", 3), halved)
    assert not strict.correct and strict.diagnosis == "Keys AND values, twice the numbers."
    loose = grade(catalog.instance("mine-kv-loose", 3), halved)
    assert loose.correct  # half the bytes is within rtol 0.5
    (folder / "bad.yaml").write_text(
        """id: bad
title: Bad
topic: coding
questions:
  - id: bad-one
    type: code
    exercise: code-kv-cache-bytes
    prompt: p
    mistakes: [no-such-mistake]
    explanation: e
""",
        encoding="utf-8",
    )
    problems = load_catalog([folder], include_default=False, use_cache=False).problems
    assert any("knows no mistake 'no-such-mistake'" in p.message for p in problems)
