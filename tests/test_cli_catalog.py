"""`quizapp list`, `show`, `validate` and `schema`, run end to end through the console script."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import engine
from quizapp.content.units import to_display

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = "tests/fixtures/decks"
BROKEN = "tests/broken_decks"


def _quizapp(*args: str, home: Path) -> subprocess.CompletedProcess[str]:
    script = Path(sys.executable).with_name("quizapp")
    command = [str(script)] if script.exists() else [sys.executable, "-m", "quizapp"]
    env = {"QUIZAPP_HOME": str(home), "PATH": "/usr/bin:/bin", "PYTHONIOENCODING": "utf-8"}
    return subprocess.run(
        [*command, *args], capture_output=True, text=True, timeout=120, cwd=ROOT, env=env, check=False
    )


def test_validate_accepts_a_valid_deck(isolated_home: Path) -> None:
    out = _quizapp("validate", FIXTURES, home=isolated_home)
    assert out.returncode == 0, out.stdout + out.stderr
    assert out.stdout == ""
    assert "ok: 1 path(s) checked" in out.stderr


def test_validate_prints_one_located_error_per_line_and_exits_1(isolated_home: Path) -> None:
    out = _quizapp(
        "validate", f"{BROKEN}/unknown_keys.yaml", f"{BROKEN}/duplicate_ids.yaml", home=isolated_home
    )
    assert out.returncode == 1
    lines = out.stdout.splitlines()
    assert len(lines) == 6
    assert lines[0] == (
        "tests/broken_decks/unknown_keys.yaml:4:1: field 'decription': unknown key 'decription' "
        "(did you mean 'description'?)"
    )
    assert lines[-1].startswith("tests/broken_decks/duplicate_ids.yaml:10:5: question 'duplicate-ids-card'")
    assert "6 error(s) in 2 file(s)" in out.stderr


def test_validate_dash_reads_the_deck_from_standard_input(isolated_home: Path) -> None:
    """`cat deck.yaml | quizapp validate -` checks the piped deck like a file, and names it <stdin>."""
    script = Path(sys.executable).with_name("quizapp")
    command = [str(script)] if script.exists() else [sys.executable, "-m", "quizapp"]
    env = {"QUIZAPP_HOME": str(isolated_home), "PATH": "/usr/bin:/bin", "PYTHONIOENCODING": "utf-8"}
    runs = {
        name: subprocess.run(
            [*command, "validate", "-"],
            input=(ROOT / name).read_text(encoding="utf-8"),
            capture_output=True,
            text=True,
            timeout=120,
            cwd=ROOT,
            env=env,
            check=False,
        )
        for name in (f"{FIXTURES}/sample.yaml", f"{BROKEN}/unknown_keys.yaml")
    }
    good, bad = runs.values()
    assert good.returncode == 0, good.stdout + good.stderr
    assert good.stdout == "" and "ok: 1 path(s) checked" in good.stderr
    assert bad.returncode == 1
    assert bad.stdout.splitlines()[0] == (
        "<stdin>:4:1: field 'decription': unknown key 'decription' (did you mean 'description'?)"
    )
    assert "error(s) in 1 file(s)" in bad.stderr


def test_validate_a_user_deck_that_reuses_a_bundled_id(isolated_home: Path, tmp_path: Path) -> None:
    decks = isolated_home / "decks"
    decks.mkdir()
    shutil.copy(ROOT / FIXTURES / "sample.yaml", decks / "sample.yaml")
    out = _quizapp("validate", str(ROOT / BROKEN / "duplicate_across.yaml"), home=isolated_home)
    assert out.returncode == 1
    assert "duplicate question id 'sample-card', already used at" in out.stdout


def test_show_prints_prompt_answer_derivation_misconceptions_and_explanation(isolated_home: Path) -> None:
    decks = isolated_home / "decks"
    decks.mkdir()
    shutil.copy(ROOT / FIXTURES / "sample.yaml", decks / "sample.yaml")
    out = _quizapp("show", "sample-kv-cache", "--seed", "3", home=isolated_home)
    assert out.returncode == 0, out.stderr
    text = out.stdout
    for heading in ("Prompt", "Derivation", "Misconceptions the calculator knows", "Explanation"):
        assert f"\n{heading}\n" in text
    assert "seed 3" in text.splitlines()[0]
    # The expected answer, in GiB, as the engine computes it for the numbers in the prompt.
    first_line = text.split("Prompt\n------\n", 1)[1].splitlines()[0]
    model = next(m for m in engine.MODELS.values() if first_line.startswith(m.name + " "))
    assert f"{model.n_layers} layers" in first_line
    assert "Expected answer: " in text and " GiB (an estimate to 3 significant figures, within 0.5%)" in text
    assert "Result: " in text


def test_show_marks_the_correct_choice(isolated_home: Path) -> None:
    decks = isolated_home / "decks"
    decks.mkdir()
    shutil.copy(ROOT / FIXTURES / "sample.yaml", decks / "sample.yaml")
    out = _quizapp("show", "sample-choice", home=isolated_home)
    assert out.returncode == 0
    correct = [line for line in out.stdout.splitlines() if line.endswith("[correct]")]
    assert len(correct) == 1 and "Mixes information across heads" in correct[0]


def test_show_an_unknown_id_is_one_line_not_a_traceback(isolated_home: Path) -> None:
    out = _quizapp("show", "no-such-question", home=isolated_home)
    assert out.returncode == 2
    assert "quizapp: no question with id 'no-such-question'" in out.stderr
    assert "Traceback" not in out.stderr


def test_list_counts_questions_by_type_and_difficulty(isolated_home: Path) -> None:
    decks = isolated_home / "decks"
    decks.mkdir()
    shutil.copy(ROOT / FIXTURES / "sample.yaml", decks / "sample.yaml")
    shutil.copy(ROOT / BROKEN / "wrong_types.yaml", decks / "wrong_types.yaml")
    out = _quizapp("list", home=isolated_home)
    assert out.returncode == 0
    row = next(line.split() for line in out.stdout.splitlines() if line.startswith("sample "))
    # total, numeric, tensor, shape, choice, flashcard, explain, code, case study, d1, d2, d3
    assert row[1:13] == ["8", "2", "1", "1", "2", "1", "1", "0", "0", "5", "1", "2"]
    assert "skipped deck wrong-types: " in out.stderr


def test_schema_prints_the_deck_json_schema(isolated_home: Path) -> None:
    out = _quizapp("schema", home=isolated_home)
    assert out.returncode == 0
    schema = json.loads(out.stdout)
    assert "questions" in schema["properties"]
    numeric = schema["$defs"]["NumericQuestion"]["properties"]
    assert set(numeric["calculator"]["enum"]) == set(engine.CALCULATORS)
    assert to_display(1024**3, "GiB") == 1 and "GiB" in json.dumps(numeric["unit"])
