"""Imports a reader can trust: at the top of the module, except where launch time needs one deferred.

Those exceptions live on the launch path and each is a row of the table in quizapp/launch.py's docstring,
with the milliseconds it saves. Every other import inside a function body (in quizapp/ and engine/) counts
against a small budget; above it, the test lists each one as file:line.
"""

from __future__ import annotations

import argparse
import ast
import importlib
import subprocess
import sys
from pathlib import Path

import quizapp
from quizapp.cli import build_parser

ROOT = Path(quizapp.__file__).resolve().parent.parent
LAUNCH_TABLE = ROOT / "quizapp" / "launch.py"

CORE_BUDGET = 40
"""Function-level imports outside the table and outside quizapp/tui. What is left (the lead lowers this as
they go), each measurably slower to start if hoisted as the modules stand; moving them is a module split:
- the catalog's fast start (content/catalog, deck, load, problems, guards): instantiate, pydantic, the
  schema, PyYAML and NumPy wait for the first question built or the first deck parsed;
- the plan's (study/plan, budget, readiness, limits): NumPy, fsrs's defaults and the planner stay out of the
  home screen's counts; workspace's plan and readiness wait until the deck table is drawn;
- config's setting checks, the stats' explain-question type, the engine's toy (calculators/toy_heads);
- grading's grade <-> scenario cycle (scenario grades each step with grade)."""
TUI_BUDGET = 0
"""quizapp/tui's outside the table, counted apart while another engineer hoists them (106 before; 0 when this
was written, their deferred ones all rows of the table)."""
BUDGET = CORE_BUDGET + TUI_BUDGET
"""The sum, for now: the lead sets it to what remains once both are done."""


def launch_table() -> set[tuple[str, str]]:
    """(file, module) of each row of quizapp/launch.py's table of deferred imports."""
    doc = ast.get_docstring(ast.parse(LAUNCH_TABLE.read_text(encoding="utf-8"))) or ""
    rows = set()
    for line in doc.splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if len(cells) >= 2 and cells[0].endswith(".py"):
            rows.add((cells[0], cells[1]))
    return rows


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def deferred_imports() -> list[tuple[str, int, str]]:
    """(file relative to the checkout, line, module) of every import statement inside a function body in
    quizapp/ and engine/, except those under `if TYPE_CHECKING:`."""
    found: list[tuple[str, int, str]] = []

    def walk(node: ast.AST, path: str, in_function: bool) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and _is_type_checking(child):
                continue
            if in_function and isinstance(child, ast.Import):
                found.extend((path, child.lineno, alias.name) for alias in child.names)
            elif in_function and isinstance(child, ast.ImportFrom):
                found.append((path, child.lineno, child.module or ""))
            inside = in_function or isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda)
            walk(child, path, inside)

    for package in ("quizapp", "engine"):
        for file in sorted((ROOT / package).rglob("*.py")):
            relative = file.relative_to(ROOT).as_posix()
            walk(ast.parse(file.read_text(encoding="utf-8")), relative, False)
    return found


def test_function_level_imports_stay_within_the_budget() -> None:
    allowed = launch_table()
    counted = [
        (path, line, module) for path, line, module in deferred_imports() if (path, module) not in allowed
    ]
    tui = [item for item in counted if item[0].startswith("quizapp/tui/")]
    core = [item for item in counted if not item[0].startswith("quizapp/tui/")]
    offenders = "\n".join(f"{path}:{line} imports {module}" for path, line, module in counted)
    assert len(counted) <= BUDGET, (
        f"{len(counted)} imports inside functions ({len(core)} core, {len(tui)} TUI), budget {BUDGET}: "
        "import at the top, or, where launch time needs it, defer it on the launch path and add a row "
        f"to quizapp/launch.py's table.\n{offenders}"
    )


def test_every_row_of_the_launch_table_is_a_deferred_import_that_exists() -> None:
    """A row whose import moved to the top (or went) would keep excusing an import nobody defers."""
    present = {(path, module) for path, _, module in deferred_imports()}
    rows = {row for row in launch_table() if not row[1].startswith("(")}  # (importlib): not a statement
    assert rows, "quizapp/launch.py lost its table"
    assert rows <= present, f"rows of quizapp/launch.py's table that defer nothing: {sorted(rows - present)}"


def test_no_package_loads_its_names_lazily() -> None:
    """No module-level __getattr__ (PEP 562) in quizapp/ or engine/: a name's import is where it reads."""
    lazy = []
    for package in ("quizapp", "engine"):
        for file in (ROOT / package).rglob("*.py"):
            tree = ast.parse(file.read_text(encoding="utf-8"))
            if any(isinstance(n, ast.FunctionDef) and n.name == "__getattr__" for n in tree.body):
                lazy.append(file.relative_to(ROOT).as_posix())
    assert not lazy, f"lazy module __getattr__ in {lazy}"


def test_every_command_names_a_function_that_exists() -> None:
    """The parsers name each command's function as "module:function" (imported only when chosen): a typo
    there would be found by the first user to run that command, so every one is imported here."""
    named: dict[str, str] = {}

    def collect(parser: argparse.ArgumentParser, name: str) -> None:
        if parser.get_default("func") is not None:
            named[parser.get_default("func")] = name
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for word, sub in action.choices.items():
                    collect(sub, f"{name} {word}".strip())

    collect(build_parser(), "")
    assert len(named) >= 15
    for func, name in named.items():
        module, _, function = func.partition(":")
        assert callable(getattr(importlib.import_module(module), function, None)), f"`quizapp {name}`: {func}"


def test_version_and_help_load_no_command_module_nor_the_config() -> None:
    """`quizapp --version` and `--help` build the parsers only: no command's module, no config file, no
    store, no Textual, NumPy or pydantic."""
    code = (
        "import sys\nfrom quizapp.cli import main\n"
        "for argv in (['--version'], ['--help'], ['plan', '--help']):\n"
        "    try:\n        main(argv)\n    except SystemExit:\n        pass\n"
        "print('MODULES', ' '.join(sorted(sys.modules)))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    loaded = set(out.split("MODULES", 1)[1].split())
    commands = {m for m in loaded if m.startswith("quizapp.commands.")}
    assert commands <= {"quizapp.commands", "quizapp.commands.parsers", "quizapp.commands.terminal"}, commands
    heavy = {"quizapp.config", "quizapp.store", "textual", "numpy", "pydantic", "sqlite3"} & loaded
    assert not heavy, heavy
