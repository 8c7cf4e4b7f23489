"""Provides `quizapp code`: list the coding exercises, show one (prompt and starter code, or the model
solution), and grade a solution file against the engine, naming the mistake."""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path
from typing import Any

from engine.exercises import EXERCISES
from engine.exercises.inputs import Between, Feature, Given, Real, Size
from quizapp.commands.opening import open_store_for
from quizapp.config import for_run, system_now
from quizapp.content.catalog import load_catalog
from quizapp.errors import QuizappError
from quizapp.grading.code import exercise, grade_code
from quizapp.reports.exercises import exercise_statuses

EXIT_OK, EXIT_WRONG = 0, 1


def run_code(args: argparse.Namespace) -> int:
    """(With --file, the runner's child was started before this module was imported, so that it imports
    NumPy while this process does: quizapp.commands.parsers.warm_the_runner.)"""
    if args.exercise is None:
        return _list(args, EXERCISES)
    ex = exercise(args.exercise)
    if args.file is None:
        if args.json:
            print(json.dumps(_exercise_json(ex, solution=args.solution), indent=2, allow_nan=False))
        elif args.solution:
            print(ex.solution, end="")
        else:
            print(f"{ex.title}\n\n{ex.prompt}\n\nStarter code:\n\n{ex.starter}")
            print(f"Input parameters (a deck's inputs: block):\n{_parameters(ex)}")
        return EXIT_OK
    verdict = grade_code(ex.id, _read(args.file), seed=args.seed)
    if not verdict.confined:
        print(verdict.confinement, file=sys.stderr)  # said every run: each command is a session of its own
    if args.json:
        print(json.dumps(_verdict_json(verdict), indent=2, allow_nan=False))
    else:
        print(verdict.summary())
        if verdict.printed:
            print(
                f"\nYour code printed:\n{verdict.printed}", end="" if verdict.printed.endswith("\n") else "\n"
            )
    return EXIT_OK if verdict.correct else EXIT_WRONG


def _list(args: argparse.Namespace, exercises: Any) -> int:
    """Every exercise with its solved status (from the deck's code questions and your answers)."""
    catalog = load_catalog(for_run(args).deck_dirs)
    with open_store_for(args, system_now()) as store:
        statuses = {s.exercise_id: s for s in exercise_statuses(store, catalog)}
    rows = []
    for ex in exercises.values():
        st = statuses.get(ex.id)
        rows.append(
            {
                "id": ex.id,
                "title": ex.title,
                "question_id": st.question_id if st else None,
                "status": st.status if st else "new",
                "attempts": st.attempts if st else 0,
            }
        )
    if args.json:
        print(json.dumps(rows, indent=2))
        return EXIT_OK
    for row in rows:
        tries = f"{row['attempts']} tr{'ies' if row['attempts'] != 1 else 'y'}" if row["attempts"] else ""
        print(f"{row['id']:<24} {row['status']:<7} {tries:<9} {row['title']}")
    return EXIT_OK


def _parameters(ex: Any) -> str:
    """Each parameter with its kind and default, then the default edge cases and random ranges."""
    lines = []
    for name, param in ex.params.items():
        if isinstance(param, Given):
            kind = "written out"
        elif isinstance(param, Feature):
            kind = " | ".join(_yaml(c) for c in param.choices) + f", default {_yaml(param.default)}"
        else:
            kind = "number" if isinstance(param, Real) else "size"
            kind += "" if param.default is None else f", default {_yaml(param.default)}"
        lines.append(f"  {name}: {kind}" + (f" ({param.doc})" if param.doc else ""))
    spec = ex.inputs
    lines.append(f"  cases: {spec.n_cases}, dtype: {spec.dtype}")
    lines.append("  edge:")
    lines.extend(f"    - {{{', '.join(f'{k}: {_yaml(v)}' for k, v in edge.items())}}}" for edge in spec.edge)
    drawn = [
        f"{name}: [{_yaml(d.low)}, {_yaml(d.high)}]"
        if isinstance(d, Between)
        else f"{name}: {_yaml(d.values[0])}"
        if len(d.values) == 1
        else f"{name}: {{one_of: [{', '.join(_yaml(v) for v in d.values)}]}}"
        for name, d in spec.random.items()
    ]
    lines.append(f"  random: {{{', '.join(drawn)}}}")
    return "\n".join(lines)


def _exercise_json(ex: Any, *, solution: bool) -> dict[str, Any]:
    """What `code ID` shows, for scripts: the task, the starter code (and the model solution when asked),
    each parameter and how the inputs are drawn, in the names a deck's inputs: block uses."""
    params: dict[str, dict[str, Any]] = {}
    for name, param in ex.params.items():
        kinds = {Given: "given", Feature: "feature", Real: "number", Size: "size"}
        entry: dict[str, Any] = {"kind": kinds[type(param)], "doc": param.doc}
        if not isinstance(param, Given):
            entry["default"] = param.default
        if isinstance(param, Feature):
            entry["choices"] = list(param.choices)
        if isinstance(param, Size):
            entry["minimum"] = param.minimum
        params[name] = entry
    spec = ex.inputs
    doc: dict[str, Any] = {
        "id": ex.id,
        "title": ex.title,
        "function": ex.function,
        "signature": ex.signature,
        "prompt": ex.prompt,
        "starter": ex.starter,
        "parameters": params,
        "inputs": {
            "cases": spec.n_cases,
            "dtype": spec.dtype,
            "edge": [dict(edge) for edge in spec.edge],
            "random": {
                name: {"between": [d.low, d.high]} if isinstance(d, Between) else {"one_of": list(d.values)}
                for name, d in spec.random.items()
            },
        },
    }
    if solution:
        doc["solution"] = ex.solution
    return doc


def _yaml(value: Any) -> str:
    if isinstance(value, bool):
        return str(value).lower()
    return str(value)


def _read(file: str) -> str:
    """The solution's text, UTF-8 (a byte-order mark allowed), from the file or `-` for standard input."""
    try:
        data = sys.stdin.buffer.read() if file == "-" else Path(file).read_bytes()
        return data.decode("utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        name = "standard input" if file == "-" else file
        raise QuizappError(f"Cannot read {name}: {getattr(exc, 'strerror', None) or exc}") from exc


def _number(value: float | None) -> float | str | None:
    """A float for JSON, which has no NaN or infinity: those are given as the strings "nan", "inf"."""
    return value if value is None or math.isfinite(value) else str(value)


def _verdict_json(verdict: Any) -> dict[str, Any]:
    return {
        "exercise": verdict.exercise_id,
        "seed": verdict.seed,
        "correct": verdict.correct,
        "mistake": None
        if verdict.mistake is None
        else {"id": verdict.mistake.id, "text": verdict.mistake.text},
        "problem": verdict.problem,
        "confined": verdict.confined,
        "cases": [
            {
                "passed": case.passed,
                "inputs": case.inputs,
                "expected_shape": list(case.expected_shape),
                "got_shape": None if case.got_shape is None else list(case.got_shape),
                "max_abs_diff": _number(case.max_abs_diff),
                "error": case.error,
            }
            for case in verdict.cases
        ],
        "printed": verdict.printed,
    }
