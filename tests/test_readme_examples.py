"""Every `quizapp check` example in the README is graded as the README says: a reader who copies one sees
the verdict its comment promises (right exits 0, wrong 1, unreadable 2)."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from quizapp.cli import main

README = Path(__file__).resolve().parents[1] / "README.md"
EXIT = {"right": 0, "wrong": 1, "unreadable": 2}


def _examples() -> list[tuple[str, int | None]]:
    """(command, expected exit) for each example: a command line with its verdict as the comment's first
    word, or a command quoted in the prose (None: it must at least be read and graded)."""
    found: list[tuple[str, int | None]] = []
    for line in README.read_text(encoding="utf-8").splitlines():
        if line.startswith("quizapp check "):
            command, _, comment = line.partition("  #")
            verdict = re.match(r"\s*(\w+)", comment)
            assert verdict and verdict[1] in EXIT, f"say right, wrong or unreadable first: {line}"
            found.append((command.strip(), EXIT[verdict[1]]))
            continue
        for quoted in re.findall(r"`(quizapp check [^`]+)`", line):
            if " ID " not in f"{quoted} ":  # `quizapp check ID --answer TEXT` names the form, not an example
                found.append((quoted, None))
    return found


EXAMPLES = _examples()


def test_the_readme_has_check_examples_with_each_verdict() -> None:
    assert {code for _, code in EXAMPLES} >= {0, 1}


@pytest.mark.parametrize(("command", "code"), EXAMPLES, ids=[c for c, _ in EXAMPLES])
def test_a_readme_check_example_is_graded_as_the_readme_says(
    command: str, code: int | None, capsys: pytest.CaptureFixture[str]
) -> None:
    exit_code = main(shlex.split(command)[1:])
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    if code is None:
        assert exit_code in (0, 1), (exit_code, err)
    else:
        assert exit_code == code, (out, err)
