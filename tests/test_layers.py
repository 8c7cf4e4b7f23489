"""The layer walls from DESIGN.md: the engine and the core never load textual."""

from __future__ import annotations

import pkgutil
import subprocess
import sys

import quizapp


def _core_modules() -> list[str]:
    names = []
    for info in pkgutil.walk_packages(quizapp.__path__, prefix="quizapp."):
        if info.name.startswith("quizapp.tui") or info.name == "quizapp.__main__":
            continue
        names.append(info.name)
    return names


def _loaded_after_import(modules: list[str]) -> set[str]:
    code = (
        "import importlib, sys\n"
        f"for m in {modules!r}: importlib.import_module(m)\n"
        "print('\\n'.join(sorted(sys.modules)))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return set(out.stdout.split())


def test_engine_never_loads_textual_pydantic_or_yaml() -> None:
    loaded = _loaded_after_import(["engine"])
    for banned in ("textual", "pydantic", "yaml", "quizapp", "sqlite3"):
        assert banned not in loaded, f"importing engine loaded {banned}"


def test_core_modules_never_load_textual() -> None:
    modules = _core_modules()
    assert "quizapp.cli" in modules
    loaded = _loaded_after_import(modules)
    assert "textual" not in loaded, "a core module imported textual"


def test_engine_source_imports_only_numpy_and_stdlib() -> None:
    import ast
    from pathlib import Path

    import engine

    allowed_third_party = {"numpy"}
    root = Path(engine.__file__).parent
    for path in root.rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            else:
                continue
            for name in names:
                top = name.split(".")[0]
                assert top in allowed_third_party or top == "engine" or top in sys.stdlib_module_names, (
                    f"{path.name} imports {name}"
                )
