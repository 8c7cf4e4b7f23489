"""The layer walls: the engine imports NumPy and the standard library only, the core never loads textual,
each room of quizapp imports only the rooms below it, only the store runs SQL, imports are absolute, and
the top level of quizapp stays small."""

from __future__ import annotations

import ast
import pkgutil
import subprocess
import sys
from pathlib import Path

import quizapp


def _core_modules() -> list[str]:
    names = []
    for info in pkgutil.walk_packages(quizapp.__path__, prefix="quizapp."):
        if info.name.startswith("quizapp.tui") or info.name in ("quizapp.__main__", "quizapp.launch"):
            continue  # (launch.py starts the TUI: cli.py imports it only when the app opens)
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


def test_no_core_source_imports_textual_even_inside_a_function() -> None:
    """Importing every module cannot see an import inside a function body; the source can. Only the TUI
    and launch.py, which starts it, may name textual."""
    root = Path(quizapp.__file__).parent
    for path in root.rglob("*.py"):
        relative = path.relative_to(root)
        if relative.parts[0] == "tui" or relative.name == "launch.py":
            continue
        textual = {name for name in _imports(path) if name.split(".")[0] == "textual"}
        assert not textual, f"{relative} imports {sorted(textual)}"


def test_engine_source_imports_only_numpy_and_stdlib() -> None:
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


# Which rooms of quizapp each room may import: one question's path runs content -> grading -> study ->
# store, and nothing points back up. Top-level modules (cli, paths, errors, crash, launch, config) are not
# rooms; of them, workspace opens the store and the catalog and builds the plan, so it sits above every room
# but the two that serve the user.
ROOMS_MAY_IMPORT: dict[str, set[str]] = {
    "records": set(),
    "collector": set(),
    "store": set(),
    "content": set(),
    "runner": set(),
    "grading": {"content", "runner"},
    "explore": set(),
    "study": {"content", "grading", "store"},
    "interview": {"content", "grading", "study", "store"},
    "progress": {"store"},
    "reports": {"content", "grading", "study", "interview", "store"},
    "commands": {
        "content",
        "grading",
        "study",
        "interview",
        "store",
        "reports",
        "explore",
        "progress",
        "runner",
    },
    "tui": {"content", "grading", "study", "interview", "store", "reports", "explore", "runner"},
}
TOP_LEVEL = {"__init__", "__main__", "cli", "paths", "errors", "crash", "launch", "config", "workspace"}
TOP_LEVEL |= {"terminal_text"}
WORKSPACE_USERS = {"commands", "tui"}
FLOOR = {"records", "collector"}
"""Rooms below every other room (the store included), importing none: plain records, and the garbage
collector's policy. Any room may import them."""


def _imports(path: Path) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.add(node.module)
            found.update(f"{node.module}.{a.name}" for a in node.names)
    return found


def test_each_room_imports_only_the_rooms_below_it() -> None:
    root = Path(quizapp.__file__).parent
    rooms = {p.name for p in root.iterdir() if p.is_dir() and (p / "__init__.py").exists()}
    assert rooms == set(ROOMS_MAY_IMPORT), "a new package needs its place in ROOMS_MAY_IMPORT"
    for room in rooms:
        for path in (root / room).rglob("*.py"):
            for name in _imports(path):
                parts = name.split(".")
                if parts[0] == "quizapp" and len(parts) > 1 and parts[1] == "workspace":
                    assert room in WORKSPACE_USERS, f"{path.relative_to(root)} imports {name}"
                if parts[0] != "quizapp" or len(parts) < 2 or parts[1] in TOP_LEVEL | {room, "__version__"}:
                    continue
                if parts[1] in FLOOR and room not in FLOOR:
                    continue
                assert parts[1] in ROOMS_MAY_IMPORT[room], f"{path.relative_to(root)} imports {name}"


def test_only_the_collector_module_touches_the_garbage_collector() -> None:
    """Freezing, pausing and collecting are one policy (quizapp/collector): a `gc.` call anywhere else in
    the app or the engine would undo it behind its back (a freeze keeping a left screen for good, a
    splice unfreezing what the app froze)."""
    import engine

    owner = Path(quizapp.__file__).parent / "collector" / "__init__.py"
    for package in (engine, quizapp):
        root = Path(package.__file__).parent
        for path in root.rglob("*.py"):
            if path == owner:
                continue
            tree = ast.parse(path.read_text(encoding="utf-8"))
            found = [
                f"line {n.lineno}"
                for n in ast.walk(tree)
                if (isinstance(n, ast.Import) and any(a.name == "gc" for a in n.names))
                or (isinstance(n, ast.ImportFrom) and n.module == "gc")
                or (isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.value.id == "gc")
            ]
            assert not found, f"{path.relative_to(root.parent)} uses gc ({found}): call quizapp.collector"


def test_no_tui_module_imports_the_store() -> None:
    """Screens reach the progress database through the workspace (quizapp.workspace) and their workers,
    and name its records from quizapp.records: no module under quizapp/tui imports quizapp.store, not
    inside a function and not under TYPE_CHECKING."""
    root = Path(quizapp.__file__).parent / "tui"
    for path in root.rglob("*.py"):
        found = sorted(name for name in _imports(path) if name.split(".")[:2] == ["quizapp", "store"])
        assert not found, f"{path.relative_to(root.parent)} imports {found}: go through quizapp.workspace"


def test_the_top_level_stays_small() -> None:
    """At most 10 modules beside the rooms, each one named here: a newcomer reads the rest from `ls`."""
    root = Path(quizapp.__file__).parent
    modules = {p.stem for p in root.glob("*.py")}
    assert len(TOP_LEVEL) <= 10
    assert modules <= TOP_LEVEL, f"new top-level modules {sorted(modules - TOP_LEVEL)}: put them in a room"
    assert len(modules) <= 10, sorted(modules)


def test_no_relative_imports_in_the_engine_or_the_core() -> None:
    """Every import names its module from the top (`from quizapp.store import ...`), so the walls above
    see it and a reader knows where it comes from."""
    import engine

    for package in (engine, quizapp):
        root = Path(package.__file__).parent
        for path in root.rglob("*.py"):
            tree = ast.parse(path.read_text(encoding="utf-8"))
            relative = [
                f"line {n.lineno}: from {'.' * n.level}{n.module or ''}"
                for n in ast.walk(tree)
                if isinstance(n, ast.ImportFrom) and n.level > 0
            ]
            assert not relative, f"{path.relative_to(root.parent)} has relative imports: {relative}"


def test_the_tui_parses_no_yaml_and_runs_no_sql() -> None:
    root = Path(quizapp.__file__).parent / "tui"
    for path in root.rglob("*.py"):
        tops = {name.split(".")[0] for name in _imports(path)}
        assert not tops & {"yaml", "yaml_rs", "sqlite3"}, f"{path.name} imports {tops & {'yaml', 'sqlite3'}}"


SQL_METHODS = {"execute", "executemany", "executescript", "backup"}


def test_only_the_store_runs_sql() -> None:
    root = Path(quizapp.__file__).parent
    for path in root.rglob("*.py"):
        if path.is_relative_to(root / "store"):
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        calls = [
            n.func.attr
            for n in ast.walk(tree)
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in SQL_METHODS
        ]
        assert not calls, f"{path.relative_to(root)} calls {calls}: SQL belongs in quizapp/store"
        assert "sqlite3" not in {name.split(".")[0] for name in _imports(path)}, (
            f"{path.name} imports sqlite3"
        )


def test_the_runners_child_program_imports_only_the_standard_library() -> None:
    """The child runs `python -I -S` on the text of seccomp.py and the confinement's modules followed by
    standby_child's program: there nothing but the standard library (and NumPy, which the program adds
    itself) can be imported. A module's imports of another runner module's names are dropped from the
    text the child runs (child_library): each must name a module whose text runs before it there and
    defines those names at its top level."""
    from quizapp.runner import child_library, standby_child

    root = Path(quizapp.__file__).parent / "runner"
    defined: dict[str, set[str]] = {}
    for name in standby_child.LIBRARY:
        tree = ast.parse((root / name).read_text(encoding="utf-8"))
        for stmt in tree.body:
            if isinstance(stmt, ast.ImportFrom) and (stmt.module or "").startswith("quizapp"):
                taken = {a.name for a in stmt.names}
                assert taken <= defined.get(stmt.module or "", set()), (
                    f"{name} takes {taken} from {stmt.module}"
                )
        top: set[str] = set()
        for stmt in tree.body:
            if isinstance(stmt, ast.FunctionDef | ast.ClassDef):
                top.add(stmt.name)
            elif isinstance(stmt, ast.Assign | ast.AnnAssign):
                for target in stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]:
                    top |= {n.id for n in ast.walk(target) if isinstance(n, ast.Name)}
        defined["quizapp.runner." + name.removesuffix(".py")] = top
    texts = {name: child_library.text([name]) for name in standby_child.LIBRARY}
    assert "".join(texts.values()) + standby_child._PROGRAM == standby_child.CHILD
    texts["standby_child._PROGRAM"] = standby_child._PROGRAM
    for name, text in texts.items():
        for node in ast.walk(ast.parse(text.replace("__", "_x_"))):
            if isinstance(node, ast.Import):
                tops = {a.name.split(".")[0] for a in node.names}
            elif isinstance(node, ast.ImportFrom) and node.module:
                tops = {node.module.split(".")[0]}
            else:
                continue
            assert tops <= set(sys.stdlib_module_names) | {"numpy"}, f"{name} imports {sorted(tops)}"


def test_screens_run_workers_only_through_quizscreen_fetch_and_write() -> None:
    """A worker's result comes back one way: QuizScreen's helper (screens/base.py) runs every screen's
    worker and posts its outcome or error back; the app's own workers (app.py: session start; its base
    app_backend.py: loading, warm-up) post theirs too. Nothing in the TUI calls `call_from_thread`, and
    no other module starts a worker (`@work`, `run_worker`) with results of its own."""
    root = Path(quizapp.__file__).parent / "tui"
    helpers = {root / "screens" / "base.py", root / "app.py", root / "app_backend.py"}
    for path in root.rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        names = {n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute)}
        names |= {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
        name = path.relative_to(root)
        assert "call_from_thread" not in names, f"{name} calls call_from_thread: use QuizScreen.fetch"
        if path not in helpers:
            found = names & {"work", "run_worker"}
            assert not found, f"{name} starts a worker itself ({found}): use QuizScreen.fetch or write"


LONGEST_MODULE = 450
DATA_CATALOGS = frozenset({"engine/exercises/catalog.py"})
"""Modules that are data (one entry after another), not steps: their length is the bank's, not a design's."""


def test_no_module_of_the_app_or_the_engine_holds_two_ideas() -> None:
    """A module past LONGEST_MODULE lines probably holds two ideas: split it where they part."""
    top = Path(quizapp.__file__).parent.parent
    long = {
        str(path.relative_to(top)): n
        for room in ("quizapp", "engine")
        for path in sorted((top / room).rglob("*.py"))
        if (n := len(path.read_text(encoding="utf-8").splitlines())) > LONGEST_MODULE
    }
    assert set(long) <= DATA_CATALOGS, {p: n for p, n in long.items() if p not in DATA_CATALOGS}
