"""CLI conventions: global options anywhere, --json everywhere it reads, - for standard streams, question
ids listed, completion scripts, help text for every command."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from quizapp.cli import build_parser, main

ROOT = Path(__file__).resolve().parent.parent


def test_db_works_before_or_after_the_command(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    before, after = tmp_path / "before.db", tmp_path / "after.db"
    assert main(["--db", str(before), "stats"]) == 0
    assert main(["stats", "--db", str(after)]) == 0
    assert before.exists() and after.exists()
    assert main(["--db", str(before), "plan", "--date", "2999-01-01", "--db", str(after)]) == 0
    assert not (tmp_path / "x").exists()
    capsys.readouterr()
    assert main(["plan", "--db", str(after), "--json"]) == 0, "the date went to the last --db given"
    assert json.loads(capsys.readouterr().out)["interview"] == "2999-01-01"


def test_json_output_parses_for_list_show_check_and_stats(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["list", "--json"]) == 0
    decks = json.loads(capsys.readouterr().out)["decks"]
    assert len(decks) >= 11 and all(d["total"] > 0 for d in decks)
    assert main(["list", "--questions", "kv-cache", "--json"]) == 0
    questions = json.loads(capsys.readouterr().out)["questions"]
    assert {q["deck"] for q in questions} == {"kv-cache"} and len(questions) == decks_total(decks, "kv-cache")
    qid = questions[0]["id"]
    assert main(["show", qid, "--seed", "4", "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert shown["id"] == qid and shown["seed"] == 4 and shown["steps"]
    assert main(["check", qid, "--seed", "4", "--answer", shown["expected"], "--json"]) == 0
    verdict = json.loads(capsys.readouterr().out)
    assert verdict["correct"] is True and verdict["expected"] == shown["expected"]
    assert main(["stats", "--json"]) == 0
    assert "calendar" in json.loads(capsys.readouterr().out)


def decks_total(decks: list[dict[str, object]], deck_id: str) -> int:
    return next(int(str(d["total"])) for d in decks if d["id"] == deck_id)


def test_a_backup_streams_through_standard_output_and_input(isolated_home: Path, tmp_path: Path) -> None:
    env = {"QUIZAPP_HOME": str(isolated_home), "PATH": "/usr/bin:/bin"}
    run = [sys.executable, "-m", "quizapp"]
    subprocess.run([*run, "plan", "--date", "2999-01-01"], env=env, check=True, capture_output=True)
    out = subprocess.run([*run, "export", "progress", "-"], env=env, check=True, capture_output=True)
    doc = json.loads(out.stdout)
    assert doc["format"] == "quizapp-progress" and doc["settings"]["interview_date"] == "2999-01-01"
    assert not (ROOT / "-").exists() and not Path("-").exists()
    target = tmp_path / "restored.db"
    back = subprocess.run(
        [*run, "import", "progress", "-", "--db", str(target)], env=env, input=out.stdout, capture_output=True
    )
    assert back.returncode == 0, back.stderr
    assert main(["plan", "--db", str(target), "--json"]) == 0


def test_every_command_has_a_description_and_every_option_help() -> None:
    parser = build_parser()
    commands = parser._subparsers._group_actions[0].choices  # type: ignore[union-attr]
    assert {"list", "show", "check", "validate", "schema", "stats", "plan", "optimize", "completion"} <= set(
        commands
    )
    for name, command in commands.items():
        assert command.description, f"`quizapp {name} --help` has no description"
        for action in command._actions:
            assert action.help, f"`quizapp {name}` option {action.option_strings or action.dest} has no help"


@pytest.mark.parametrize("shell", ["bash", "zsh", "fish"])
def test_completion_code_is_printed_for_each_shell(shell: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["completion", shell]) == 0
    assert "quizapp" in capsys.readouterr().out


def test_completion_completes_question_ids(isolated_home: Path) -> None:
    line = "quizapp show kv-cache-anchor-"
    env = {
        "QUIZAPP_HOME": str(isolated_home),
        "PATH": "/usr/bin:/bin",
        "_ARGCOMPLETE": "1",
        "_ARGCOMPLETE_IFS": "\n",
        "COMP_LINE": line,
        "COMP_POINT": str(len(line)),
    }
    script = Path(sys.executable).with_name("quizapp")
    if not script.exists():
        pytest.skip("completion runs through the installed console script")
    out = subprocess.run(  # argcomplete answers on file descriptor 8, as the shells set it up
        ["bash", "-c", f"{script} 8>&1 9>/dev/null"], env=env, capture_output=True, text=True, check=False
    )
    assert out.returncode == 0, out.stderr
    assert set(out.stdout.split()) == {
        "kv-cache-anchor-gqa",
        "kv-cache-anchor-mha",
        "kv-cache-anchor-mqa",
        "kv-cache-anchor-decimal-gb",
    }


def test_a_foreign_file_named_with_db_is_refused_and_left_untouched(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    work = tmp_path / "work"
    work.mkdir()
    notes = work / "notes.txt"
    notes.write_text("my notes, not a database\n", encoding="utf-8")
    assert main(["stats", "--db", str(notes)]) == 2
    err = capsys.readouterr().err
    assert str(notes) in err and "left untouched" in err
    assert notes.read_text(encoding="utf-8") == "my notes, not a database\n"
    assert sorted(p.name for p in work.iterdir()) == ["notes.txt"], "nothing renamed, nothing created"


def test_an_export_never_replaces_a_file_that_is_not_an_earlier_export(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    mine = tmp_path / "old.json"
    mine.write_text('{"my": "data"}', encoding="utf-8")
    assert main(["export", "progress", str(mine)]) == 2
    assert "not a quizapp progress backup" in capsys.readouterr().err
    assert mine.read_text(encoding="utf-8") == '{"my": "data"}'
    assert main(["export", "progress", str(mine), "--force"]) == 0
    assert json.loads(mine.read_text(encoding="utf-8"))["format"] == "quizapp-progress"
    assert main(["export", "progress", str(mine)]) == 0, "an earlier backup is replaced without --force"
    notes = tmp_path / "notes.apkg"
    notes.write_text("not a package", encoding="utf-8")
    assert main(["export", "anki", str(notes)]) == 2
    assert notes.read_text(encoding="utf-8") == "not a package"


def test_a_failed_export_leaves_no_temporary_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    work = tmp_path / "work"
    folder = work / "taken"
    (folder / "inside").mkdir(parents=True)  # a non-empty folder cannot be replaced by a file
    assert main(["export", "progress", str(folder), "--force"]) == 2
    assert "Cannot write" in capsys.readouterr().err
    assert sorted(p.name for p in work.iterdir()) == ["taken"]


def test_suspended_questions_are_listed_and_brought_back_from_the_shell(tmp_path: Path) -> None:
    from datetime import UTC, datetime

    from quizapp.store import QuestionRef, open_store, set_suspended
    from quizapp.store.cards import suspended_ids

    db = tmp_path / "p.db"
    with open_store(db, now=datetime(2026, 1, 5, tzinfo=UTC)) as store:
        set_suspended(store, QuestionRef("kv-cache-anchor-gqa", "kv-cache"), True)
    run = [sys.executable, "-m", "quizapp", "--db", str(db)]
    listed = subprocess.run([*run, "suspended"], capture_output=True, text=True, timeout=60)
    assert listed.returncode == 0 and listed.stdout.split() == ["kv-cache-anchor-gqa"]
    wrong = subprocess.run([*run, "unsuspend", "nope"], capture_output=True, text=True, timeout=60)
    assert wrong.returncode == 2 and "not suspended: nope" in wrong.stderr
    back = subprocess.run([*run, "unsuspend", "--all"], capture_output=True, text=True, timeout=60)
    assert back.returncode == 0 and "kv-cache-anchor-gqa" in back.stdout
    with open_store(db, now=datetime(2026, 1, 5, tzinfo=UTC)) as store:
        assert suspended_ids(store) == ()


@pytest.mark.parametrize(
    "command", [["stats"], ["show", "dimensions-head-dim"], ["list"], ["check", "--help"]]
)
def test_an_ascii_only_terminal_gets_ascii_symbols_instead_of_a_crash(
    isolated_home: Path, command: list[str]
) -> None:
    import os
    import subprocess
    import sys

    env = {**os.environ, "PYTHONIOENCODING": "ascii"}
    out = subprocess.run(
        [sys.executable, "-m", "quizapp", *command], capture_output=True, env=env, timeout=120, check=False
    )
    assert out.returncode == 0, out.stderr.decode("ascii", "replace")
    text = out.stdout.decode("ascii")  # raises if anything but ASCII came out
    assert text.strip() and "Traceback" not in text
    if command[0] == "stats":
        assert "less . . : % # more" in text  # the heat scale, in ASCII
    if command[0] == "show":  # a misconception's value, after its arrow
        assert re.search(r"You multiplied by h instead of dividing -> [\d,]+", text), text


def test_check_refuses_key_points_an_explain_question_does_not_have(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from quizapp.content.catalog import load_catalog

    catalog = load_catalog(use_cache=False)
    qid = next(q for q in sorted(catalog.questions) if catalog.questions[q].type == "explain")
    points = len(catalog.instance(qid, 0).key_points)
    for covered in (str(points + 1), "0", f"1,{points + 7}"):
        assert main(["check", qid, "--answer", "x", "--covered", covered]) == 2, covered
        assert f"key points 1 to {points}" in capsys.readouterr().err
    assert main(["check", qid, "--answer", "x", "--covered", str(points)]) == 1  # a real one: graded


def test_every_argument_that_takes_an_id_completes_it() -> None:
    """A question, deck or exercise id is completed wherever a command takes one, not in 2 commands of 8:
    an argument named ID, QID, D or DECK without a completer fails here."""
    from quizapp.commands.completion import IDS

    commands = build_parser(completers=True)._subparsers._group_actions[0].choices  # type: ignore[union-attr]
    missing, completed = [], set()
    for name, command in commands.items():
        for action in command._actions:
            if getattr(action, "completer", None) is not None:
                completed.add((name, action.dest))
            elif action.metavar in ("ID", "QID", "D", "DECK"):
                missing.append(f"quizapp {name} {action.option_strings or action.dest}")
    assert missing == []
    assert set(IDS) <= completed, "an entry of IDS names no argument"
    assert len({name for name, _ in completed}) >= 8


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("quizapp check kv-cache-anchor-m", {"kv-cache-anchor-mha", "kv-cache-anchor-mqa"}),
        ("quizapp cards suspend kv-cache-anchor-m", {"kv-cache-anchor-mha", "kv-cache-anchor-mqa"}),
        ("quizapp plan --low-priority kv-", {"kv-cache"}),
        ("quizapp code code-gqa-", {"code-gqa-expand", "code-gqa-broadcast"}),
    ],
)
def test_the_shell_completes_ids_for_check_cards_plan_and_code(
    line: str, expected: set[str], isolated_home: Path
) -> None:
    env = {
        "QUIZAPP_HOME": str(isolated_home),
        "PATH": "/usr/bin:/bin",
        "_ARGCOMPLETE": "1",
        "_ARGCOMPLETE_IFS": "\n",
        "COMP_LINE": line,
        "COMP_POINT": str(len(line)),
    }
    script = Path(sys.executable).with_name("quizapp")
    if not script.exists():
        pytest.skip("completion runs through the installed console script")
    out = subprocess.run(  # argcomplete answers on file descriptor 8, as the shells set it up
        ["bash", "-c", f"{script} 8>&1 9>/dev/null"], env=env, capture_output=True, text=True, check=False
    )
    assert out.returncode == 0, out.stderr
    assert set(out.stdout.split()) == expected


def test_code_id_json_prints_the_exercise_as_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["code", "code-softmax", "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert shown["id"] == "code-softmax" and shown["function"] == "softmax"
    assert "def softmax" in shown["starter"] and "solution" not in shown
    assert shown["parameters"]["cols"] == {
        "kind": "size",
        "doc": "the softmax axis",
        "default": 7,
        "minimum": 1,
    }
    assert shown["inputs"]["random"] == {"rows": {"between": [2, 5]}}
    assert main(["code", "code-softmax", "--json", "--solution"]) == 0
    assert "def softmax" in json.loads(capsys.readouterr().out)["solution"]


def test_plan_json_without_a_date_says_so_in_json(capsys: pytest.CaptureFixture[str]) -> None:
    """A script asking for the plan gets an answer it can parse, not an empty output."""
    assert main(["plan", "--minutes", "30", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["interview"] is None and doc["budget_minutes"] == 30 and doc["questions"] > 0
    assert "No interview date is set" in doc["message"]
    assert main(["plan", "--date", "2999-01-01"]) == 0
    capsys.readouterr()
    assert main(["plan", "--clear", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["interview"] is None
    assert main(["plan"]) == 2  # in words, it stays an error with a hint
    assert "No interview date is set" in capsys.readouterr().err
