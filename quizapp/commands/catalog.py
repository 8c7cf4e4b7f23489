"""Provides the catalog commands: `list`, `show ID`, `validate [PATH...]` and `schema`."""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Iterable

    from quizapp.content.catalog import Catalog
    from quizapp.content.instance import Instance
    from quizapp.content.problems import Problem

EXIT_OK, EXIT_ERRORS = 0, 1


def register(sub: argparse._SubParsersAction[Any]) -> None:
    """Adds list, show, validate and schema (quizapp.commands.completion.IDS completes their ids)."""
    p = sub.add_parser(
        "list",
        help="list the decks with question counts by type and difficulty",
        description="List the decks, with question counts by type and difficulty; with --questions, "
        "list question ids (of one deck, or of all), as `show` and `check` take them.",
    )
    p.add_argument(
        "--questions",
        nargs="?",
        const="",
        metavar="DECK",
        help="list question ids instead, of DECK only when given",
    )
    p.add_argument("--json", action="store_true", help="print JSON instead of a table")
    p.set_defaults(func=cmd_list)

    p = sub.add_parser(
        "show",
        help="show one question: prompt, answer, derivation, misconceptions",
        description="Show a question as a learner meets it at a seed, with the expected answer, the worked "
        "derivation, the mistakes the engine recognises and the explanation.",
    )
    p.add_argument(
        "question_id", metavar="ID", help="the question id, as `quizapp list --questions` prints it"
    )
    p.add_argument("--seed", type=int, default=0, help="the seed that picks the numbers (default 0)")
    p.add_argument("--json", action="store_true", help="print JSON instead of text")
    p.set_defaults(func=cmd_show)

    p = sub.add_parser(
        "validate",
        help="check deck files; exit 0 when valid, 1 with one error per line",
        description="Check deck files against the schema and the engine, then the quality gates: "
        "multiple choice cannot be won by picking the longest option, and no wrong options alone justify "
        "themselves nor the right one alone carry colons or brackets; each computed template has at least "
        "8 distinct answers over 50 seeds (or is a cited anchor marked fixed that still draws something); "
        "over 500 seeds no wrong method is accepted and the question's trap is always recognised; every "
        "derivation's arithmetic is true and ends on the asked quantity; no prompt runs a model past its "
        "context without saying it is hypothetical; Markdown renders with whole code fences. "
        "Each problem is one line, file:line:col: question 'id', field 'f': "
        "message. Exit 0 when all are valid, 1 if not.",
    )
    p.add_argument("paths", nargs="*", metavar="PATH", help="deck files or folders (default: all decks)")
    p.add_argument("--no-cache", action="store_true", help="check every file afresh")
    p.add_argument(
        "--no-gates",
        action="store_true",
        help="skip the quality gates (choice balance, distinct answers, diagnoses, derivations over "
        "hundreds of seeds; about a second per 20 computed templates)",
    )
    p.set_defaults(func=cmd_validate)

    p = sub.add_parser(
        "schema",
        help="print the JSON Schema of a deck file (for editor completion)",
        description="Print the JSON Schema of a deck file. Save it and point yaml-language-server at it "
        "for completion and checks in your editor (see the README).",
    )
    p.set_defaults(func=cmd_schema)


def _load(args: argparse.Namespace) -> Catalog:
    """The bank with the config's and `--decks` folders; each skipped deck said on stderr."""
    from quizapp.config import for_run
    from quizapp.content.catalog import load_catalog

    catalog = load_catalog(for_run(args).deck_dirs)
    for skipped in catalog.skipped:
        print(skipped, file=sys.stderr)
    return catalog


# --------------------------------------------------------------------------- list


def cmd_list(args: argparse.Namespace) -> int:
    """Prints one row per deck (counts by type and by difficulty), or the question ids."""
    from quizapp.content.schema import QUESTION_TYPES  # not at import: `quizapp` alone never loads pydantic

    catalog = _load(args)
    if args.questions is not None:
        return _list_questions(catalog, args.questions, as_json=args.json)
    columns = ("total", *QUESTION_TYPES, "d1", "d2", "d3")
    table: list[tuple[str, str, Counter[str]]] = []
    for deck in catalog.decks.values():
        counts: Counter[str] = Counter(str(q.type) for q in deck.questions)
        counts.update(f"d{q.difficulty}" for q in deck.questions)
        counts["total"] = len(deck.questions)
        table.append((deck.id, deck.title, counts))
    if args.json:
        decks = [{"id": i, "title": t, **{k: c[k] for k in columns}} for i, t, c in table]
        print(json.dumps({"decks": decks}, indent=2))
        return EXIT_OK
    short = {"numeric": "num", "tensor": "tensor", "shape": "shape", "choice": "choice",
             "flashcard": "card", "explain": "explain", "code": "code", "scenario": "case"}  # fmt: skip
    header = ["deck", "total", *(short[t] for t in QUESTION_TYPES), "d1", "d2", "d3", "title"]
    totals: Counter[str] = sum((c for _, _, c in table), Counter())
    rows = [[i, *(str(c[k]) for k in columns), t] for i, t, c in table]
    rows.append(["TOTAL", *(str(totals[k]) for k in columns), ""])
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header) - 1)]
    for row in [header, *rows]:
        cells = [row[0].ljust(widths[0])] + [c.rjust(w) for c, w in zip(row[1:-1], widths[1:], strict=True)]
        print("  ".join([*cells, row[-1]]).rstrip())
    if not catalog.decks:
        print("no decks loaded", file=sys.stderr)
    return EXIT_OK


def _list_questions(catalog: Catalog, deck_id: str, *, as_json: bool) -> int:
    """One line per question: id, deck, type, difficulty (the ids `show` and `check` take)."""
    if deck_id and deck_id not in catalog.decks:
        from quizapp.errors import QuizappError

        raise QuizappError(f"no deck {deck_id!r}; `quizapp list` shows the deck ids")
    decks = [catalog.decks[deck_id]] if deck_id else list(catalog.decks.values())
    rows = [(q.id, d.id, str(q.type), q.difficulty) for d in decks for q in d.questions]
    if as_json:
        keys = ("id", "deck", "type", "difficulty")
        print(json.dumps({"questions": [dict(zip(keys, r, strict=True)) for r in rows]}, indent=2))
        return EXIT_OK
    width = max((len(r[0]) for r in rows), default=2)
    for qid, deck, kind, difficulty in rows:
        print(f"{qid.ljust(width)}  {deck}  {kind}  d{difficulty}")
    return EXIT_OK


# --------------------------------------------------------------------------- show


def cmd_show(args: argparse.Namespace) -> int:
    """Prints an instance: prompt, expected answer, derivation, misconceptions, explanation."""
    catalog = _load(args)
    inst = catalog.instance(args.question_id, seed=args.seed)
    print(json.dumps(instance_json(inst), indent=2) if args.json else render_instance(inst))
    return EXIT_OK


def instance_json(inst: Instance) -> dict[str, Any]:
    """The instance as plain JSON: what `show --json` prints, for scripts and other tools."""
    out: dict[str, Any] = {
        "id": inst.question_id,
        "deck": inst.deck_id,
        "type": inst.kind,
        "difficulty": inst.difficulty,
        "seed": inst.seed,
        "prompt": inst.prompt,
        "expected": inst.expected_text(),
        "explanation": inst.explanation,
        "source": inst.source,
    }
    if inst.kind == "choice":
        out["multiple"] = inst.multiple
        out["options"] = [
            {"key": o.key, "text": o.text, "correct": o.correct, "feedback": o.feedback} for o in inst.options
        ]
    if inst.kind == "explain":
        out["key_points"] = [explain_point_json(inst, i) for i in range(len(inst.key_points))]
        out["misconceptions"] = [
            {"id": r.id, "text": r.text, "correction": r.correction, "forms": list(r.forms)}
            for r in inst.rejects
        ]
    if inst.kind == "scenario":
        out["steps"] = [
            {"name": name, "uses": list(uses), **instance_json(step)}
            for step, name, uses in zip(inst.steps, inst.step_names, inst.step_uses, strict=True)
        ]
        for step in out["steps"]:
            step["work"] = step.pop("steps", [])
            for key in ("id", "deck", "type", "difficulty", "seed", "explanation", "source"):
                step.pop(key, None)
        if inst.follow_up is not None:
            out["explain"] = instance_json(inst.follow_up)
        if inst.derivation is not None:
            out["derivation"] = inst.derivation.to_text()
        return out
    if inst.tolerance is not None:
        out["tolerance"] = inst.tolerance.describe()
    if inst.derivation is not None:
        out["unit"] = inst.unit
        out["steps"] = [
            {"label": s.label, "formula": s.formula, "substituted": s.substituted, "value": _plain(s.value)}
            for s in inst.derivation.steps
        ]
        out["misconceptions"] = [
            {"id": m.id, "label": m.label, "value": _plain(m.value), "step": m.step}
            for m in inst.derivation.misconceptions
        ]
    return out


def _plain(value: Any) -> Any:
    """A number or shape as JSON holds it (NumPy scalars and Fractions become floats or ints)."""
    if isinstance(value, tuple):
        return [_plain(v) for v in value]
    if isinstance(value, int | float) and not isinstance(value, bool):
        return value
    return float(value)


def _code_mistakes(inst: Instance) -> str:
    from engine.exercises import EXERCISES

    known = {m.id: m.text for m in EXERCISES[inst.exercise].mistakes}
    named = inst.mistakes or tuple((i, "") for i in known)
    return "\n".join(f"- {i}: {text or known[i]}" for i, text in named if i in known)


def render_instance(inst: Instance) -> str:
    """The whole instance as plain text, for `quizapp show` and for deck authors checking their work."""
    out = [
        f"{inst.question_id} · deck {inst.deck_id} ({inst.deck_title}) · {inst.kind} · "
        f"difficulty {inst.difficulty} · seed {inst.seed}",
        "",
        _section("Prompt", inst.prompt.rstrip()),
    ]
    if inst.kind == "choice":
        lines = []
        for option in inst.options:
            mark = "  [correct]" if option.correct else ""
            lines.append(f"{option.key}) {option.text}{mark}")
            if option.feedback:
                lines.append(f"   feedback: {option.feedback.strip()}")
        out.append(
            _section("Options" + (" (select all that apply)" if inst.multiple else ""), "\n".join(lines))
        )
        out.append(f"Expected answer: {inst.expected_text()}\n")
    elif inst.kind == "explain":
        out.append(_section("Model answer", str(inst.expected).rstrip()))
        out.append(_section("Key points", _points_text(inst)))
    elif inst.kind == "flashcard":
        out.append(_section("Back", str(inst.expected).rstrip()))
    elif inst.kind == "scenario":
        for i, step in enumerate(inst.steps, start=1):
            tolerance = step.tolerance.describe() if step.tolerance else "exact answer"
            body = f"{step.prompt.rstrip()}\nExpected: {step.expected_text()} ({tolerance})"
            if step.derivation is not None:
                body += "\n" + _misconceptions(step)
            out.append(_section(f"Step {i} of {len(inst.steps)}", body))
        if inst.follow_up is not None:
            part = inst.follow_up
            body = f"{part.prompt.rstrip()}\n\nModel answer:\n{str(part.expected).rstrip()}\n\n"
            out.append(_section("Then, in words", body + _points_text(part)))
        if inst.derivation is not None:
            out.append(_section("The chain", inst.derivation.to_text()))
    elif inst.kind == "code":
        out.append(_section("Starter code", inst.starter.rstrip()))
        out.append(_section("Model solution", str(inst.expected).rstrip()))
        out.append(_section("Mistakes it names", _code_mistakes(inst)))
        out.append(f"Grade a file: quizapp code {inst.exercise} --file solution.py --seed {inst.seed}\n")
    else:
        tolerance = inst.tolerance.describe() if inst.tolerance else "exact answer"
        out.append(f"Expected answer: {inst.expected_text()} ({tolerance})")
        out.append(inst.answer_hint())
        out.append("")
        if inst.derivation is not None:
            out.append(_section("Derivation", inst.derivation.to_text()))
            out.append(_section("Misconceptions the calculator knows", _misconceptions(inst)))
        if inst.heatmap is not None:
            out.append(_section("Attention weights (rows: queries, columns: keys)", inst.heatmap.to_text()))
    out.append(_section("Explanation", inst.explanation.rstrip()))
    if inst.source:
        out.append(f"Source: {inst.source.strip()}")
    return "\n".join(out).rstrip()


def _section(title: str, body: str) -> str:
    return f"{title}\n{'-' * len(title)}\n{body}\n"


def _misconceptions(inst: Instance) -> str:
    from engine import format_quantity
    from quizapp.content.units import to_display

    assert inst.derivation is not None
    lines = []
    for m in inst.derivation.misconceptions:
        if isinstance(m.value, tuple):
            shown = format_quantity(m.value)
        else:
            shown = format_quantity(to_display(m.value, inst.unit), "") + (
                f" {inst.unit}" if inst.unit else ""
            )
        where = f" (goes astray at: {m.step})" if m.step else ""
        lines.append(f"- {m.id}: {m.label} -> {shown}{where}")
        if m.explanation:
            lines.append(f"    {m.explanation.strip()}")
    return "\n".join(lines) if lines else "(none)"


def explain_point_json(inst: Instance, index: int) -> dict[str, Any]:
    """One key point as `show --json` gives it: its text, whether it is the core, and its accepted forms."""
    spec = inst.point_specs[index] if index < len(inst.point_specs) else None
    return {
        "index": index + 1,
        "text": inst.key_points[index],
        "core": bool(spec and spec.core),
        "accept": list(spec.accept) if spec else [],
    }


def _points_text(inst: Instance) -> str:
    """The key points, the core marked, each with the forms that state it, then the misconceptions."""
    lines = []
    for i, point in enumerate(inst.key_points):
        spec = inst.point_specs[i] if i < len(inst.point_specs) else None
        lines.append(f"- {point}" + (" (core)" if spec and spec.core else ""))
        lines += [f"    accepts: {form}" for form in (spec.accept if spec else ())]
    for r in inst.rejects:
        where = f" (contradicts point {r.point + 1})" if r.point is not None else ""
        lines.append(f"- misconception {r.id}{where}: {r.text}\n    correction: {r.correction}")
        lines += [f"    when: {form}" for form in r.forms]
    return "\n".join(lines)


# --------------------------------------------------------------------------- validate


def cmd_validate(args: argparse.Namespace) -> int:
    """Checks decks (all of them, or only PATHs against the rest of the bank); one error per line."""
    if "-" in args.paths:  # a deck piped in, as `import` and `code --file` read `-`
        return _validate_stdin(args)
    from quizapp.config import for_run
    from quizapp.content.catalog import load_catalog
    from quizapp.content.load import display_path

    paths = [Path(p) for p in args.paths]
    catalog = load_catalog([*for_run(args).deck_dirs, *paths], use_cache=not args.no_cache)
    problems = list(catalog.problems)
    chosen = [display_path(p) for p in paths]
    if not args.no_gates:
        from quizapp.content.checks.gates import gate_problems
        from quizapp.grading.explain_gates import explain_failures

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
        from quizapp.content.checks.gates import gate_warnings

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
    import contextlib
    import io
    import tempfile

    from quizapp.content.guards import MAX_DECK_BYTES

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
            from quizapp.content.load import display_path

            named = display_path(deck)
            print(out.getvalue().replace(named, STDIN_NAME), end="")
            print(err.getvalue().replace(named, STDIN_NAME), end="", file=sys.stderr)


def _control_warnings(files: Iterable[Path], chosen: list[str]) -> list[Problem]:
    """Control characters in the decks checked: removed when studied, a warning here."""
    from quizapp.content.load import control_warnings, display_path

    found: list[Problem] = []
    for file in sorted(set(files)):
        if not chosen or any(_inside(display_path(file), c) for c in chosen):
            found.extend(control_warnings(file))
    return found


def _progress_line(done: int, total: int) -> None:
    """A one-line progress counter on stderr while the quality gates run (a terminal only)."""
    from quizapp.commands.terminal import own_controls

    end = "\n" if done == total else ""
    line = f"\rquality gates: {done}/{total} computed templates"  # the \r is ours: past the cleaning
    print(line, end=end, file=own_controls(sys.stderr), flush=True)


def _inside(file: str, chosen: str) -> bool:
    return file == chosen or file.startswith(chosen.rstrip("/") + "/")


# --------------------------------------------------------------------------- schema


def cmd_schema(args: argparse.Namespace) -> int:
    """Prints the deck JSON Schema, with the known calculators, presets and units as enums."""
    print(json.dumps(deck_json_schema(), indent=2))
    return EXIT_OK


def deck_json_schema() -> dict[str, Any]:
    """The deck schema in plain JSON Schema (see quizapp.content.json_schema); loaded only when asked."""
    from quizapp.content.json_schema import deck_json_schema as build

    return build()
