"""The quality gates of `quizapp validate`: the bundled bank passes every one, and each one fails on a
small deck broken on purpose, with the file, line, question and first seed named."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine.derivation import Derivation, Misconception, Step
from quizapp.content.catalog import load_catalog
from quizapp.content.checks.gates import (
    GateInput,
    computed_failures,
    correct_is_unique_longest,
    evaluate_arithmetic,
    gate_problems,
)
from quizapp.content.instance import Instance
from quizapp.content.questions import NumericQuestion
from quizapp.content.tolerance import Tolerance
from quizapp.grading.explain_gates import explain_failures

GATES = Path(__file__).parent / "broken_decks" / "gates"


def _validate(path: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "quizapp", "validate", str(path)], capture_output=True, text=True, timeout=300
    )


def test_the_bundled_bank_passes_every_gate() -> None:
    problems = gate_problems(load_catalog(), more=(explain_failures,))
    assert not problems, "\n".join(str(p) for p in problems)


def test_multiple_choice_cannot_be_won_by_picking_the_longest_option() -> None:
    out = _validate(GATES / "longest_option.yaml")
    assert out.returncode == 1
    lines = [line for line in out.stdout.splitlines() if "gate-longest" in line]
    assert any("gate-longest-a" in line and "as long as the longest wrong one" in line for line in lines)
    # c's is not much longer, but with a and b the correct option is the longest in 3 of 3 questions
    assert any("gate-longest-c" in line and "unique longest, as in 3 of 3" in line for line in lines)
    assert all(line.startswith("tests/broken_decks/gates/longest_option.yaml:") for line in lines)


def test_a_template_with_few_answers_is_refused_unless_fixed() -> None:
    out = _validate(GATES / "few_answers.yaml")
    assert out.returncode == 1
    assert "gate-few-head-dim" in out.stdout and "only 1 distinct answer(s) over 50 seeds (64)" in out.stdout


def test_a_wrong_method_inside_the_tolerance_is_reported_with_its_seed() -> None:
    out = _validate(GATES / "free_points.yaml")
    assert out.returncode == 1
    line = next(line for line in out.stdout.splitlines() if "gate-free-params" in line)
    assert "'added-biases'" in line and "would be marked correct" in line and "(seed 0)" in line
    assert line.startswith("tests/broken_decks/gates/free_points.yaml:")


def test_every_computed_question_knows_its_own_trap() -> None:
    out = _validate(GATES / "lost_trap.yaml").stdout
    assert "'gate-trap-missing': no trap" in out
    assert "'gate-trap-unknown'" in out and "not among the calculator's misconceptions" in out
    assert "'gate-trap-blind'" in out and "gives the right answer here" in out


def _question(**extra: object) -> NumericQuestion:
    return NumericQuestion.model_validate(
        {
            "id": "made-up",
            "type": "numeric",
            "prompt": "p",
            "calculator": "head_dim",
            "explanation": "e",
            "trap": "wrong",
            "fixed": "one derivation, built by hand",
            **extra,
        }
    )


def _instance(steps: tuple[Step, ...], value: int) -> Instance:
    wrong = Misconception("wrong", "Wrong", "why", value * 3, steps[0].label)
    d = Derivation("head_dim", value, "", steps, (wrong,))
    return Instance(
        "made-up", "d", "d", "numeric", 0, "p", value, derivation=d, tolerance=Tolerance(), trap="wrong"
    )


def test_a_derivation_must_end_on_the_asked_quantity() -> None:
    steps = (Step("Split", "d_model / h", "768 / 12", 64), Step("Check", "h x d_k", "12 x 64", 768))
    fails = computed_failures(GateInput("d", 0, _question()), lambda _q, _s: _instance(steps, 64))
    assert [f.message for f in fails if "ends on" in f.message] == [
        "the derivation ends on 'Check' = 768, not on the asked quantity 64: show the steps that lead to "
        "the answer and end on it"
    ]


def test_a_displayed_equation_must_be_true() -> None:
    steps = (Step("Per layer", "2 x n_kv x d_head x bytes", "2 x 8 x 128 x 2", 4000),)
    fails = computed_failures(GateInput("d", 0, _question()), lambda _q, _s: _instance(steps, 4000))
    assert any("2 x 8 x 128 x 2 = 4000" in f.message and "gives 4096" in f.message for f in fails)
    good = (Step("Per layer", "2 x n_kv x d_head x bytes", "2 x 8 x 128 x 2", 4096),)
    fails = computed_failures(GateInput("d", 0, _question()), lambda _q, _s: _instance(good, 4096))
    assert [f.message for f in fails if "anchor" not in f.message] == []


def test_a_fixed_anchor_must_still_draw_something_unless_it_is_a_format_constant() -> None:
    steps = (Step("Split", "d_model / h", "768 / 12", 64),)
    one = computed_failures(GateInput("d", 0, _question()), lambda _q, _s: _instance(steps, 64))
    assert any("a fixed anchor gives one answer over 50 seeds (64)" in f.message for f in one)
    constant = _question(fixed="a constant of the IEEE 754 binary16 format")
    assert not computed_failures(GateInput("d", 0, constant), lambda _q, _s: _instance(steps, 64))


@given(st.integers(1, 10**6), st.integers(1, 4096), st.integers(0, 999))
def test_step_arithmetic_is_read_the_way_it_is_written(a: int, b: int, c: int) -> None:
    assert evaluate_arithmetic(f"{a:,} x {b} + {c}") == pytest.approx(a * b + c)
    assert evaluate_arithmetic(f"({a:,} + {c}) / 2^10") == pytest.approx((a + c) / 1024)
    assert evaluate_arithmetic(f"d_model / {b}") is None  # a name: not plain arithmetic, not checked


def test_only_a_unique_longest_correct_option_counts_as_a_tell() -> None:
    from quizapp.content.questions import ChoiceQuestion

    def q(right: str, *wrong: str) -> ChoiceQuestion:
        options = [{"text": right, "correct": True}] + [{"text": w, "feedback": "no"} for w in wrong]
        return ChoiceQuestion.model_validate(
            {"id": "c", "type": "choice", "prompt": "p", "explanation": "e", "options": options}
        )

    assert correct_is_unique_longest(q("a longer one", "short", "tiny"))
    assert not correct_is_unique_longest(q("same size", "also same", "tiny"))
    assert not correct_is_unique_longest(q("short", "a longer one", "tiny"))


# ---------------------------------------------------------------------------- words: fences, context, style


def _bank_items() -> list[GateInput]:
    cat = load_catalog()
    return [GateInput(d, i, q) for d in cat.decks for i, q in enumerate(cat.decks[d].questions)]


def test_a_code_fence_inside_a_line_or_left_open_is_refused() -> None:
    from quizapp.content.checks.text_gates import broken_fence

    assert broken_fence("p = ```\n[[1, 2]]\n```") != ""  # the matrix placeholder after "p = "
    assert broken_fence("p =\n\n```\n[[1, 2]]\n") != ""  # never closed
    assert broken_fence("p =\n\n```\n[[1, 2]]\n```\n\nThen?") == ""


def test_the_bundled_bank_renders_keeps_models_in_context_and_gives_no_justification_cue() -> None:
    from quizapp.content.checks import text_gates

    items = _bank_items()
    failures = text_gates.justification_failures(items) + text_gates.punctuation_failures(items)
    failures += text_gates.cue_failures(items)
    for it in items:
        failures += text_gates.markdown_failures(it) + text_gates.context_failures(it)
    assert not failures, "\n".join(f"{f.question_id}: {f.text()}" for f in failures)
    right, wrong = text_gates.cue_shares(items)["justification"]
    assert wrong - right < 0.10, (right, wrong)  # was 4% against 27%


def test_a_model_run_past_its_context_must_say_hypothetical() -> None:
    from quizapp.content.checks.text_gates import context_failures
    from quizapp.content.deck import question_adapter

    raw = {
        "id": "ctx-gpt2",
        "type": "numeric",
        "difficulty": 1,
        "tags": ["t"],
        "params": {"model": {"preset": ["gpt2-small"]}, "seq_len": {"choices": [2048, 4096]}},
        "prompt": "{model.name} at {seq_len} tokens: how many score entries per head?",
        "calculator": "kv_cache_bytes",
        "trap": "forgot-batch",
        "args": {"n_layers": "model.n_layers", "n_kv_heads": "model.n_kv_heads", "d_head": "model.d_head",
                 "seq_len": "seq_len", "batch": 1, "bytes_per_element": 2},
        "unit": "B",
        "explanation": "x",
    }  # fmt: skip
    q = question_adapter().validate_python(raw)
    assert context_failures(GateInput("d", 0, q))
    raw["prompt"] = "Hypothetically, {model.name} at {seq_len} tokens: how many bytes?"
    assert not context_failures(GateInput("d", 0, question_adapter().validate_python(raw)))


def test_a_bank_whose_right_options_alone_carry_brackets_is_refused_question_by_question() -> None:
    from quizapp.content.checks.text_gates import cue_failures, punctuation_failures
    from quizapp.content.deck import question_adapter

    def choice(i: int, right: str) -> GateInput:
        raw = {
            "id": f"cue-{i}",
            "type": "choice",
            "difficulty": 1,
            "tags": ["t"],
            "prompt": "Which?",
            "options": [
                {"text": right, "correct": True},
                {"text": "A plain wrong claim of similar size", "feedback": "No."},
                {"text": "Another plain wrong claim, similar", "feedback": "No."},
            ],
            "explanation": "e",
        }
        return GateInput("d", i, question_adapter().validate_python(raw))

    tells = [choice(i, "The right claim (with an aside)") for i in range(3)]
    assert {f.question_id for f in cue_failures(tells)} == {"cue-0", "cue-1", "cue-2"}
    assert {f.question_id for f in punctuation_failures(tells)} == {"cue-0", "cue-1", "cue-2"}
    plain = [choice(i, "The right claim with no aside") for i in range(3)]
    assert not cue_failures(plain) and not punctuation_failures(plain)


# ---------------------------------------------------------------------------- words: grammatical fit


def _grammar_choice(i: int, prompt: str, right: str, *wrong: str) -> GateInput:
    from quizapp.content.deck import question_adapter

    raw = {
        "id": f"fit-{i}",
        "type": "choice",
        "difficulty": 1,
        "tags": ["t"],
        "prompt": prompt,
        "options": [{"text": right, "correct": True}] + [{"text": w, "feedback": "No."} for w in wrong],
        "explanation": "e",
    }
    return GateInput("d", i, question_adapter().validate_python(raw))


def test_a_stem_whose_grammar_admits_only_the_right_option_is_refused() -> None:
    out = _validate(GATES / "grammar_fit.yaml")
    assert out.returncode == 1
    lines = [line for line in out.stdout.splitlines() if "grammatical fit" in line]
    assert all(line.startswith("tests/broken_decks/gates/grammar_fit.yaml:") for line in lines)
    assert any("'gate-grammar-an'" in line and 'the stem ends on "an"' in line for line in lines)
    assert any("'gate-grammar-two'" in line and "asks for several things" in line for line in lines)
    assert "gate-longest" not in out.stdout and "unique longest" not in out.stdout  # only the cue is wrong


def test_a_stem_every_option_fits_passes_the_grammar_gates() -> None:
    from quizapp.content.checks.grammar_gates import grammar_cue_failures, grammar_failures

    balanced = [
        _grammar_choice(0, "Per token, the cache holds an", "entry per KV head", "input row", "output row"),
        _grammar_choice(1, "Per token, the cache holds a", "key and a value", "query", "score row"),
        _grammar_choice(2, "Which two does GQA shrink?", "W_K and W_V", "W_Q and W_O", "Both W_Q and W_K"),
        _grammar_choice(3, "Which is shared?", "The key head", "An output head", "Each query head"),
    ]
    assert not grammar_failures(balanced) and not grammar_cue_failures(balanced)
    tell = [_grammar_choice(i, "It is an", "entry per KV head", "query row", "score row") for i in range(3)]
    assert {f.question_id for f in grammar_failures(tell)} == {"fit-0", "fit-1", "fit-2"}
    assert {f.question_id for f in grammar_cue_failures(tell)} == {"fit-0", "fit-1", "fit-2"}


def test_an_option_is_heard_the_way_it_is_said() -> None:
    from quizapp.content.checks.grammar_gates import vowel_sound

    said = {"MLA cache": True, "H100": True, "B200": False, "8-bit cache": True, "11,000 tokens": True,
            "110 tokens": False, "unit": False, "hour": True, "entry": True, "RoPE key": False,
            "`softmax` row": False, "FLOP": False, "-inf": None, "MoE layer": None}  # fmt: skip
    assert {text: vowel_sound(text) for text in said} == said


def test_the_bundled_bank_gives_no_grammatical_cue() -> None:
    from quizapp.content.checks.grammar_gates import grammar_cue_failures, grammar_failures, grammar_shares

    items = _bank_items()
    failures = grammar_failures(items) + grammar_cue_failures(items)
    assert not failures, "\n".join(f"{f.question_id}: {f.text()}" for f in failures)
    right, wrong = grammar_shares(items)
    assert abs(right - wrong) <= 0.10, (right, wrong)
