"""Provides starter_issues: a code question's `starter:` is data the editor opens with, and Ctrl+R runs
what the editor holds, so a shared deck's starter may hold only a stub: imports, the exercise's function
with its signature, a docstring, comments, and `raise NotImplementedError`, `pass` or `...`. It is parsed
with `ast`, never run; anything else (a call at the top level, a second function, code in the body, a
decorator, a default or an annotation that computes) is refused, with its line."""

from __future__ import annotations

import ast
import importlib.util

from quizapp.content.problems import Issue

IMPORTABLE = frozenset({"numpy", "math"})
"""The modules a starter may import, whole and by their exact name: `import numpy.f2py.__main__` runs a
program on import, and a prefix would let any submodule in. (`from __future__ import ...` is allowed too:
it only tells the compiler how to read the file.)"""
_ALLOWED_IMPORTS = "import numpy (as np), import math, from math/numpy import a name, from __future__"


def starter_issues(starter: str, function: str, signature_source: str) -> list[Issue]:
    """What in `starter` is more than a stub of `function` (whose real signature is the one defined in
    `signature_source`, the exercise's own starter)."""
    if not starter.strip():
        return []
    try:
        tree = ast.parse(starter)
    except (SyntaxError, ValueError, RecursionError, MemoryError) as exc:
        return [_issue(f"the starter is not Python: {getattr(exc, 'msg', exc)}")]
    issues: list[str] = []
    defined: list[ast.FunctionDef] = []
    for i, node in enumerate(tree.body):
        where = f"line {getattr(node, 'lineno', '?')}"
        if i == 0 and _is_docstring(node):
            continue
        if isinstance(node, ast.Import | ast.ImportFrom):
            bad = _bad_imports(node)
            if bad:
                issues.append(f"{where}: imports {', '.join(bad)} (a starter may import only "
                              f"{' and '.join(sorted(IMPORTABLE))}: {_ALLOWED_IMPORTS})")  # fmt: skip
            continue
        if isinstance(node, ast.FunctionDef) and node.name == function and not defined:
            defined.append(node)
            issues += [f"{where}: {problem}" for problem in _stub_problems(node)]
            continue
        issues.append(
            f"{where}: {type(node).__name__} is not part of a stub (a starter holds imports, the function's "
            "signature, a docstring, comments and raise NotImplementedError/pass)"
        )
    if not defined:
        issues.append(f"the starter does not define the exercise's function {function}()")
    else:
        want = _arguments(signature_source, function)
        got = _names(defined[0].args)
        if want is not None and got != want:
            issues.append(f"the starter's {function}({', '.join(got)}) is not the exercise's "
                          f"{function}({', '.join(want)})")  # fmt: skip
    return [_issue(text) for text in issues]


def _bad_imports(node: ast.Import | ast.ImportFrom) -> list[str]:
    """What `node` imports that a starter may not: a module other than IMPORTABLE's (a submodule of
    one included), a relative or `*` import, or a name of numpy that is itself a module (`from numpy
    import f2py` imports it)."""
    if isinstance(node, ast.Import):
        return [a.name for a in node.names if a.name not in IMPORTABLE]
    module = node.module or ""
    if node.level or module not in IMPORTABLE | {"__future__"}:
        return ["." * node.level + module]
    if any(a.name == "*" for a in node.names):
        return [f"* from {module}"]
    if module != "numpy":  # math is one module; __future__ holds compiler directives
        return []

    return [f"numpy.{a.name}" for a in node.names if importlib.util.find_spec(f"numpy.{a.name}") is not None]


def _issue(text: str) -> Issue:
    return Issue(("starter",), f"the starter is run by Ctrl+R, so it may hold only a stub: {text}")


def _is_docstring(node: ast.stmt) -> bool:
    return (
        isinstance(node, ast.Expr)
        and isinstance(node.value, ast.Constant)
        and isinstance(node.value.value, str)
    )


def _stub_problems(node: ast.FunctionDef) -> list[str]:
    problems = []
    if node.decorator_list:
        problems.append("a decorator runs code")
    if node.returns is not None and not _inert(node.returns):
        problems.append("the return annotation computes something")
    args = node.args
    every = [*args.posonlyargs, *args.args, *args.kwonlyargs]
    every += [a for a in (args.vararg, args.kwarg) if a is not None]
    for arg in every:
        if arg.annotation is not None and not _inert(arg.annotation):
            problems.append(f"the annotation of {arg.arg} computes something")
    for default in [*args.defaults, *[d for d in args.kw_defaults if d is not None]]:
        if not _literal(default):
            problems.append("a default value computes something (only plain values)")
    body = node.body[1:] if node.body and _is_docstring(node.body[0]) else node.body
    if len(body) > 1 or (body and not _stub_statement(body[0])):
        problems.append("the function's body is more than raise NotImplementedError, pass or ...")
    return problems


def _stub_statement(stmt: ast.stmt) -> bool:
    if isinstance(stmt, ast.Pass):
        return True
    if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant):
        return stmt.value.value is Ellipsis or isinstance(stmt.value.value, str)
    if isinstance(stmt, ast.Raise) and stmt.cause is None and stmt.exc is not None:
        exc = stmt.exc
        if isinstance(exc, ast.Name):
            return exc.id == "NotImplementedError"
        return (
            isinstance(exc, ast.Call)
            and isinstance(exc.func, ast.Name)
            and exc.func.id == "NotImplementedError"
            and not exc.keywords
            and all(_literal(a) for a in exc.args)
        )
    return False


def _literal(node: ast.expr) -> bool:
    """A plain value: a constant, a negative number, or a tuple or list of those."""
    if isinstance(node, ast.Constant):
        return True
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd):
        return isinstance(node.operand, ast.Constant)
    if isinstance(node, ast.Tuple | ast.List):
        return all(_literal(e) for e in node.elts)
    return False


def _inert(node: ast.expr) -> bool:
    """An annotation that only names types: names, dotted names, subscripts, `|`, constants."""
    if isinstance(node, ast.Name | ast.Constant):
        return True
    if isinstance(node, ast.Attribute):
        return _inert(node.value)
    if isinstance(node, ast.Subscript):
        return _inert(node.value) and _inert(node.slice)
    if isinstance(node, ast.Tuple | ast.List):
        return all(_inert(e) for e in node.elts)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        return _inert(node.left) and _inert(node.right)
    return False


def _names(args: ast.arguments) -> list[str]:
    names = [a.arg for a in (*args.posonlyargs, *args.args)]
    names += [f"*{args.vararg.arg}"] if args.vararg else (["*"] if args.kwonlyargs else [])
    names += [a.arg for a in args.kwonlyargs]
    names += [f"**{args.kwarg.arg}"] if args.kwarg else []
    return names


def _arguments(source: str, function: str) -> list[str] | None:
    """The argument names of `function` as `source` defines it (None: it does not)."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return None
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name == function:
            return _names(node.args)
    return None
