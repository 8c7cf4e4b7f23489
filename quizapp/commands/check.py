"""Provides `quizapp check ID --seed N --answer TEXT`: grade one answer from the shell and explain it.

Exit codes: 0 the answer is correct, 1 it is wrong, 2 it cannot be read or the question id is unknown.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from quizapp.config import for_run
from quizapp.content.catalog import load_catalog
from quizapp.errors import QuizappError
from quizapp.grading import grade, grade_explain
from quizapp.grading.explain_reading import reading_text
from quizapp.grading.grade import expected_words
from quizapp.grading.rating import RATING_NAMES
from quizapp.grading.scenario import grade_scenario, part_of, parts_of

if TYPE_CHECKING:
    from quizapp.content.instance import Instance
    from quizapp.grading.explain_reading import Reading

EXIT_CORRECT, EXIT_WRONG, EXIT_UNREADABLE = 0, 1, 2


def run(args: argparse.Namespace) -> int:
    """Loads the instance, grades the answer, prints the verdict and returns the exit code."""
    try:
        inst = load_catalog(for_run(args).deck_dirs).instance(args.id, args.seed)
    except (QuizappError, KeyError) as exc:
        message = exc.args[0] if isinstance(exc, KeyError) and exc.args else str(exc)
        print(f"quizapp: {message}", file=sys.stderr)
        return EXIT_UNREADABLE
    timing = {"hints_used": args.hints, "seconds": args.seconds, "attempt": args.attempt}
    answers: list[str] = list(args.answer)
    if inst.kind == "scenario":
        return _check_scenario(inst, answers, args.json, timing)
    if len(answers) > 1:
        print(
            f"quizapp: {inst.question_id} takes one --answer; {len(answers)} were given "
            "(several are for scenarios, one per step)",
            file=sys.stderr,
        )
        return EXIT_UNREADABLE
    args.answer = answers[0]
    if inst.kind == "explain":
        covered: set[int] | None = None
        if args.covered is not None:
            try:
                covered = {int(n) - 1 for n in args.covered.replace(" ", "").split(",") if n}
            except ValueError:
                print(
                    f"quizapp: --covered takes key point numbers such as 1,3, not {args.covered!r}",
                    file=sys.stderr,
                )
                return EXIT_UNREADABLE
            unknown = sorted(n + 1 for n in covered if not 0 <= n < len(inst.key_points))
            if unknown:
                print(
                    f"quizapp: --covered: this question has key points 1 to {len(inst.key_points)}, "
                    f"not {', '.join(map(str, unknown))}",
                    file=sys.stderr,
                )
                return EXIT_UNREADABLE
        verdict = grade_explain(inst, args.answer, covered, **timing)
    else:
        verdict = grade(inst, args.answer, **timing)

    if args.json:
        out = _verdict_json(inst, verdict, RATING_NAMES)
        if verdict.reading is not None:
            out |= _reading_json(verdict.reading, covered)
        print(json.dumps(out, indent=2))
        return EXIT_UNREADABLE if verdict.unparseable else EXIT_CORRECT if verdict.correct else EXIT_WRONG
    print(f"Question {inst.question_id} (seed {inst.seed})")
    print(prompt_text(inst))
    print()
    if verdict.unparseable:
        print(f"quizapp: {verdict.message}", file=sys.stderr)
        return EXIT_UNREADABLE
    print("Correct." if verdict.correct else "Wrong.")
    print(f"Read as:   {verdict.parsed}")
    if inst.kind == "choice":
        print(verdict.message)
        for fb in verdict.option_feedback:
            print(f"  {fb.key}) {fb.text}\n     {fb.feedback}")
    elif verdict.reading is not None:
        print(reading_text(verdict.reading, covered))
        print("\nModel answer:\n" + inst.expected_text().strip())
    elif verdict.diagnosis:
        print(f"Diagnosis: {verdict.diagnosis}")
        if verdict.step:
            print(f"Step:      {verdict.step}")
        if verdict.explanation:
            print(f"Why:       {verdict.explanation}")
        print(f"Answer:    {expected_words(inst)}")
    else:
        print(verdict.message)
    print(f"Suggested rating: {RATING_NAMES.get(verdict.rating, '?')} ({verdict.rating})")
    if inst.derivation is not None:
        print("\nDerivation:")
        print(inst.derivation.to_text())
    elif inst.explanation:
        print("\nExplanation:")
        print(inst.explanation.strip())
    return EXIT_CORRECT if verdict.correct else EXIT_WRONG


def _check_scenario(inst: Instance, answers: list[str], as_json: bool, timing: dict[str, Any]) -> int:
    """Grades a scenario's answers (one per step, fewer grades those given) and prints one verdict per
    step: exit 0 when every step is right, 1 otherwise, 2 when none can be read or there are too many."""
    verdict = grade_scenario(inst, answers, **timing)
    if verdict.unparseable and not verdict.steps:
        print(f"quizapp: {verdict.message}", file=sys.stderr)
        return EXIT_UNREADABLE
    code = EXIT_UNREADABLE if verdict.unparseable else EXIT_CORRECT if verdict.correct else EXIT_WRONG
    if as_json:
        out = _verdict_json(inst, verdict, RATING_NAMES)
        out["steps"] = [
            {
                "step": s.index,
                "prompt": part_of(inst, s.index).prompt,
                "correct": bool(s.verdict.correct),
                "carried_forward": s.carried_forward,
                "unreadable": bool(s.verdict.unparseable),
                "read_as": s.verdict.parsed,
                "expected": part_of(inst, s.index).expected_text(),
                "diagnosis_id": s.verdict.diagnosis_id,
                "diagnosis": s.verdict.diagnosis,
                "message": s.verdict.message,
                "rating": RATING_NAMES.get(s.rating, "?"),
                "rating_value": s.rating,
                **(_reading_json(s.verdict.reading, None) if s.verdict.reading is not None else {}),
            }
            for s in verdict.steps
        ]
        print(json.dumps(out, indent=2))
        return code
    print(f"Question {inst.question_id} (seed {inst.seed})")
    print(prompt_text(inst))
    for s in verdict.steps:
        step = part_of(inst, s.index)
        mark = "right" if s.verdict.correct else "carried forward" if s.carried_forward else "wrong"
        print(f"\nStep {s.index} of {parts_of(inst)}: {step.prompt.strip()}")
        print(f"  {mark}: {s.verdict.message}")
        if s.verdict.reading is not None:
            print(reading_text(s.verdict.reading))
    print(f"\n{verdict.message}")
    if inst.derivation is not None:
        print("\nThe chain:")
        print(inst.derivation.to_text())
    return code


def _verdict_json(inst: Any, verdict: Any, names: Mapping[int, str]) -> dict[str, Any]:
    """The verdict as plain JSON, for scripts: what `check --json` prints."""
    return {
        "id": inst.question_id,
        "seed": inst.seed,
        "correct": bool(verdict.correct),
        "unreadable": bool(verdict.unparseable),
        "read_as": None if verdict.parsed is None else str(verdict.parsed),
        "expected": inst.expected_text(),
        "diagnosis_id": verdict.diagnosis_id,
        "diagnosis": verdict.diagnosis,
        "message": verdict.message,
        "rating": names.get(verdict.rating, "?"),
        "rating_value": verdict.rating,
    }


def _reading_json(reading: Reading, covered: set[int] | None) -> dict[str, Any]:
    """An explain answer's key points and misconceptions, for scripts; `--covered` overrides the statuses."""
    points = []
    for p in reading.points:
        status = p.status if covered is None else "covered" if p.index in covered else p.status
        if covered is not None and p.index not in covered and status == "covered":
            status = "missing"
        evidence = p.evidence.text if p.evidence is not None else None
        points.append({"index": p.index + 1, "text": p.text, "status": status, "evidence": evidence})
    return {
        "key_points": points,
        "misconceptions": [
            {"id": m.id, "text": m.text, "correction": m.correction, "evidence": m.evidence.text}
            for m in reading.misconceptions
        ],
        "read_automatically": reading.readable,
    }


def prompt_text(inst: Instance) -> str:
    """The prompt, with the heatmap it asks about when the question draws one with it."""
    text = inst.prompt.strip()
    if inst.prompt_heatmap and inst.heatmap is not None:
        text += "\n\nAttention weights (rows: queries, columns: keys)\n" + inst.heatmap.to_text()
    return text
