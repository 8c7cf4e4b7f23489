"""Provides `quizapp validate [PATH...]`: deck files checked against the schema and the engine, then the
quality gates; one line per problem."""

from __future__ import annotations

import argparse
import contextlib
import io
import sys
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

from quizapp.commands.catalog import EXIT_ERRORS, EXIT_OK
from quizapp.commands.terminal import own_controls
from quizapp.config import for_run
from quizapp.content.catalog import load_catalog
from quizapp.content.checks.gates import gate_problems, gate_warnings
from quizapp.content.deck_files import display_path
from quizapp.content.guards import MAX_DECK_BYTES
from quizapp.content.load import control_warnings
from quizapp.grading.explain_gates import explain_failures

if TYPE_CHECKING:
    from collections.abc import Iterable

    from quizapp.content.problems import Problem


def cmd_validate(args: argparse.Namespace) -> int:
    """Checks decks (all of them, or only PATHs against the rest of the bank); one error per line."""
    if "-" in args.paths:  # a deck piped in, as `import` and `code --file` read `-`
        return _validate_stdin(args)

    paths = [Path(p) for p in args.paths]
    catalog = load_catalog([*for_run(args).deck_dirs, *paths], use_cache=not args.no_cache)
    problems = list(catalog.problems)
    chosen = [display_path(p) for p in paths]
    if not args.no_gates:
        decks = [
            deck_id
            for deck_id, file in catalog.files.items()
            if not chosen or any(_inside(display_path(file), c) for c in chosen)
        ]
        progress = _progress_line if sys.stderr.isatty() else None
        problems += gate_problems(catalog, decks, progress=progress, more=(explain_failures,))
    if paths:
        problems = [p for p in problems if any(_inside(p.file, c) for c in chosen)]
    for problem in problems:
        print(problem)
    warnings = _control_warnings(catalog.files.values(), chosen)
    if not args.no_gates:
        warnings += [
            w for w in gate_warnings(catalog, decks) if not paths or any(_inside(w.file, c) for c in chosen)
        ]
    for warning in warnings:
        print(f"warning: {warning}", file=sys.stderr)
    if problems:
        files = len({p.file for p in problems})
        print(f"{len(problems)} error(s) in {files} file(s)", file=sys.stderr)
        return EXIT_ERRORS
    scope = f"{len(paths)} path(s) checked; " if paths else ""
    print(f"ok: {scope}{len(catalog.decks)} decks, {len(catalog.questions)} questions valid", file=sys.stderr)
    return EXIT_OK


STDIN_NAME = "<stdin>"
"""How messages name a deck read from standard input (`quizapp validate -`)."""


def _validate_stdin(args: argparse.Namespace) -> int:
    """`validate -`: standard input is checked as a deck file (at most one byte past the size limit is read,
    so an endless pipe is refused like a huge file) written to a private temporary folder; its messages
    name it <stdin>, not the temporary path."""
    data = sys.stdin.buffer.read(MAX_DECK_BYTES + 1)
    out, err = io.StringIO(), io.StringIO()
    with tempfile.TemporaryDirectory(prefix="quizapp-validate-") as folder:
        deck = Path(folder) / "stdin.yaml"
        deck.write_bytes(data)
        shown = str(deck)
        args.paths = [shown if p == "-" else p for p in args.paths]
        try:
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                return cmd_validate(args)
        finally:
            named = display_path(deck)
            print(out.getvalue().replace(named, STDIN_NAME), end="")
            print(err.getvalue().replace(named, STDIN_NAME), end="", file=sys.stderr)


def _control_warnings(files: Iterable[Path], chosen: list[str]) -> list[Problem]:
    """Control characters in the decks checked: removed when studied, a warning here."""
    found: list[Problem] = []
    for file in sorted(set(files)):
        if not chosen or any(_inside(display_path(file), c) for c in chosen):
            found.extend(control_warnings(file))
    return found


def _progress_line(done: int, total: int) -> None:
    """A one-line progress counter on stderr while the quality gates run (a terminal only)."""
    end = "\n" if done == total else ""
    line = f"\rquality gates: {done}/{total} computed templates"  # the \r is ours: past the cleaning
    print(line, end=end, file=own_controls(sys.stderr), flush=True)


def _inside(file: str, chosen: str) -> bool:
    return file == chosen or file.startswith(chosen.rstrip("/") + "/")
