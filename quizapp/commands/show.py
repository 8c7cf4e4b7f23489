"""Provides `quizapp show ID`: a question as a learner meets it at a seed, with its answer, derivation,
the mistakes the engine recognises and the explanation."""

from __future__ import annotations

import argparse
import json
from typing import TYPE_CHECKING, Any

from engine import format_quantity
from engine.exercises import EXERCISES
from quizapp.commands.catalog import EXIT_OK, load
from quizapp.content.units import to_display

if TYPE_CHECKING:
    from quizapp.content.instance import Instance


def cmd_show(args: argparse.Namespace) -> int:
    """Prints an instance: prompt, expected answer, derivation, misconceptions, explanation."""
    catalog = load(args)
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
