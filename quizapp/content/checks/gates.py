"""Provides the quality gates: what a valid deck can still get wrong as teaching, checked seed by seed.

A deck can load and still hand out free points or name the wrong mistake. These gates catch that:

- choice: the correct option is not the tell-tale longest one (bank-wide share, and per question);
- distinct answers: a computed template has enough different answers that nobody can memorise them;
- diagnoses: no wrong method lands inside the tolerance, and the question's own trap is always recognised;
- derivations: every substituted equation is true, and the steps end on the asked quantity.

Each failure names the question and the first seed where it shows, so an author can run
`quizapp show ID --seed N` and see it.
"""

from __future__ import annotations

import ast
import math
import operator
import re
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING

import engine
from engine import Derivation
from quizapp.content.blind_spots import blind_spots
from quizapp.content.checks import grammar_gates, order_gates, text_gates
from quizapp.content.checks.gate_types import GateFailure, GateInput, Instantiate, MoreGates
from quizapp.content.checks.order_gates import shape_warnings
from quizapp.content.deck_files import display_path
from quizapp.content.instance import Instance
from quizapp.content.problems import Problem, compose, locate
from quizapp.content.questions import ChoiceQuestion, NumericQuestion, ShapeQuestion, TensorQuestion
from quizapp.content.scenario_question import ScenarioQuestion, ScenarioStep

if TYPE_CHECKING:
    from quizapp.content.catalog import Catalog

LONGEST_SHARE = 0.30
"""At most this share of single-answer choice questions may have the correct option as the unique longest."""
MUCH_LONGER = 1.5
"""A correct option this many times longer than every wrong one gives itself away."""
DISTINCT_SEEDS = 50
MIN_DISTINCT = 8
FORMAT_CONSTANT = "a constant of"
"""A `fixed` reason starting so marks a number with nothing to draw (a float format's limit)."""
DIAGNOSIS_SEEDS = 500


# --------------------------------------------------------------------------- choice


def correct_is_unique_longest(q: ChoiceQuestion) -> bool:
    """Whether picking the longest option would win this single-answer question."""
    lengths = [len(o.text.strip()) for o in q.options]
    right = max(len(o.text.strip()) for o in q.options if o.correct)
    return right == max(lengths) and lengths.count(right) == 1


def choice_failures(items: Sequence[GateInput]) -> list[GateFailure]:
    """The bank-wide longest-option share, and each question whose correct option is much longer."""
    single = [it for it in items if isinstance(it.question, ChoiceQuestion) and not it.question.multiple]
    out: list[GateFailure] = []
    longest = [it for it in single if correct_is_unique_longest(_choice(it))]
    share = len(longest) / len(single) if single else 0.0
    flagged: set[str] = set()
    for it in single:
        q = _choice(it)
        right = max(len(o.text.strip()) for o in q.options if o.correct)
        wrong = max((len(o.text.strip()) for o in q.options if not o.correct), default=0)
        if wrong and right >= MUCH_LONGER * wrong:
            flagged.add(q.id)
            out.append(
                GateFailure(
                    it.deck_id,
                    q.id,
                    ("questions", it.index, "options"),
                    f"the correct option is {right / wrong:.1f}x as long as the longest wrong one "
                    f"({right} against {wrong} characters): write options of similar length and form",
                )
            )
    if share > LONGEST_SHARE:
        for it in longest:
            if it.question.id in flagged:
                continue
            out.append(
                GateFailure(
                    it.deck_id,
                    it.question.id,
                    ("questions", it.index, "options"),
                    f"the correct option is the unique longest, as in {len(longest)} of {len(single)} "
                    f"single-answer questions ({share:.0%}; at most {LONGEST_SHARE:.0%} may be): "
                    "make a wrong option as long",
                )
            )
    return out


def _choice(it: GateInput) -> ChoiceQuestion:
    assert isinstance(it.question, ChoiceQuestion)
    return it.question


# --------------------------------------------------------------------------- computed templates

Computed = NumericQuestion | TensorQuestion | ShapeQuestion


def computed_failures(
    it: GateInput,
    instantiate: Instantiate,
    *,
    distinct_seeds: int = DISTINCT_SEEDS,
    diagnosis_seeds: int = DIAGNOSIS_SEEDS,
) -> list[GateFailure]:
    """The distinct-answers, diagnosis and derivation gates of one computed template."""
    q = it.question
    assert isinstance(q, (NumericQuestion, TensorQuestion, ShapeQuestion))
    out: list[GateFailure] = []

    def fail(message: str, seed: int | None = None, field: str | None = None) -> None:
        loc: tuple[str | int, ...] = ("questions", it.index) + ((field,) if field else ())
        out.append(GateFailure(it.deck_id, q.id, loc, message, seed))

    if q.trap is None:
        fail("no trap: name the misconception this question exists to catch (`trap: <id>`)")
    answers: set[object] = set()
    found: set[str] = set()  # gate messages already given, so each is reported at its first seed only
    seen: set[tuple[object, ...]] = set()
    for seed in range(max(distinct_seeds, diagnosis_seeds)):
        try:
            inst = instantiate(q.id, seed)
        except Exception as exc:  # a template that cannot be made concrete is reported, not raised
            fail(f"cannot be instantiated: {exc}", seed)
            break
        if seed < distinct_seeds:
            answers.add(_answer_key(inst))
        derivation = inst.derivation
        if derivation is None:
            continue
        key = (inst.prompt, _answer_key(inst))
        if key in seen:
            continue
        seen.add(key)
        for kind, message, field in _instance_failures(q, inst, derivation):
            if kind not in found:
                found.add(kind)
                fail(message, seed, field)
    if q.fixed is None and len(answers) < MIN_DISTINCT:
        shown = ", ".join(sorted(str(a) for a in answers))
        fail(
            f"only {len(answers)} distinct answer(s) over {distinct_seeds} seeds ({shown}): widen the draw, "
            f"or mark it `fixed: <reason>` if it is a cited anchor",
            field="params",
        )
    if q.fixed is not None and len(answers) < 2 and not q.fixed.startswith(FORMAT_CONSTANT):
        fail(
            f"a fixed anchor gives one answer over {distinct_seeds} seeds ({next(iter(answers), '')}): an "
            "anchor still draws batch, context or dtype around the cited case",
            field="params",
        )
    return out


def _answer_key(inst: Instance) -> object:
    value = inst.expected
    if isinstance(value, float):
        return float(f"{value:.6g}")
    return value


def scenario_failures(
    it: GateInput,
    instantiate: Instantiate,
    *,
    distinct_seeds: int = DISTINCT_SEEDS,
    diagnosis_seeds: int = DIAGNOSIS_SEEDS,
) -> list[GateFailure]:
    """The computed gates, step by step, of a case study: every step knows its trap and tells its
    mistakes from its answer, every equation it shows is true, and the final answer varies by seed."""
    q = it.question
    assert isinstance(q, ScenarioQuestion)
    out: list[GateFailure] = []

    def fail(message: str, seed: int | None = None, where: tuple[str | int, ...] = ()) -> None:
        out.append(GateFailure(it.deck_id, q.id, ("questions", it.index, *where), message, seed))

    for k, step in enumerate(q.steps):
        if step.trap is None:
            fail(f"step {k + 1} has no trap: name the misconception it exists to catch", where=("steps", k))
    finals: set[object] = set()
    found: set[tuple[int, str]] = set()
    seen: set[tuple[object, ...]] = set()
    for seed in range(max(distinct_seeds, diagnosis_seeds)):
        try:
            inst = instantiate(q.id, seed)
        except Exception as exc:
            fail(f"cannot be instantiated: {exc}", seed)
            break
        key = (inst.prompt, *(_answer_key(s) for s in inst.steps))
        if seed < distinct_seeds and inst.steps:
            finals.add(_answer_key(inst.steps[-1]))
        if key in seen:
            continue
        seen.add(key)
        for k, (spec, step_inst) in enumerate(zip(q.steps, inst.steps, strict=True)):
            if step_inst.derivation is None:
                continue
            for kind, message, field in _instance_failures(spec, step_inst, step_inst.derivation):
                if (k, kind) not in found:
                    found.add((k, kind))
                    fail(f"step {k + 1}: {message}", seed, ("steps", k) + ((field,) if field else ()))
    if q.fixed is None and len(finals) < MIN_DISTINCT:
        fail(
            f"only {len(finals)} distinct final answer(s) over {distinct_seeds} seeds: widen the draw, or "
            "mark it `fixed: <reason>` if it is a cited anchor",
            where=("params",),
        )
    return out


def _instance_failures(
    q: Computed | ScenarioStep, inst: Instance, d: Derivation
) -> Iterable[tuple[str, str, str | None]]:
    """(gate kind, message, field) for what is wrong with this one instance."""
    for spot in blind_spots(inst):
        if spot.kind == "trap" and q.trap is not None and not _named(q.trap, d):
            yield ("trap", f"its trap {q.trap!r} is not among the calculator's misconceptions", "trap")
        else:
            yield (spot.kind, spot.message, spot.field)
    if d.steps:
        last = d.steps[-1]
        if last.value != d.value:
            yield (
                "ends",
                f"the derivation ends on {last.label!r} = {last.value}, not on the asked quantity "
                f"{d.value}: show the steps that lead to the answer and end on it",
                None,
            )
        for step in d.steps:
            shown = evaluate_arithmetic(step.substituted)
            if shown is not None and not _agrees(shown, step.value):
                yield (
                    f"false-{step.label}",
                    f"step {step.label!r} shows {step.substituted} = {step.value}, but that arithmetic "
                    f"gives {shown:.6g}",
                    None,
                )


def _named(trap: str, d: Derivation) -> bool:
    """Whether the calculator declares `trap` (it was dropped here for equalling the answer)."""
    calc = engine.CALCULATORS.get(d.calculator)
    return calc is not None and trap in calc.misconception_ids


def _agrees(shown: float, value: object) -> bool:
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        return True
    # substituted numbers are written to about four significant figures
    return math.isclose(shown, float(value), rel_tol=2e-3, abs_tol=1e-9)


# --------------------------------------------------------------------------- arithmetic in a step

_OPS: dict[type, Callable[..., float]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.Pow: operator.pow,
    ast.USub: operator.neg,
    ast.UAdd: operator.pos,
}
_ARITHMETIC = re.compile(r"^[\d\s.,+\-*/^()x×÷·e]+$")
_TIMES = re.compile(r"(?<=[\d)\s])[x×·](?=[\s\d(])")


def evaluate_arithmetic(text: str) -> float | None:
    """The value of a step's substituted text when it is plain arithmetic (`2 x 80 x 8,192 / 2^30`),
    else None: a step that names symbols or functions is not checked this way."""
    s = text.strip()
    if not s or not _ARITHMETIC.match(s) or not any(c.isdigit() for c in s):
        return None
    s = _TIMES.sub("*", s).replace("÷", "/").replace("^", "**")
    s = re.sub(r"(?<=\d),(?=\d{3}\b)", "", s)
    if "x" in s or "," in s:
        return None
    try:
        tree = ast.parse(s, mode="eval")
        return _eval(tree.body)
    except (SyntaxError, ValueError, ZeroDivisionError, OverflowError, RecursionError):
        return None


def _eval(node: ast.AST) -> float:
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)):
        return float(node.value)
    if isinstance(node, ast.BinOp) and type(node.op) in _OPS:
        left, right = _eval(node.left), _eval(node.right)
        if isinstance(node.op, ast.Pow) and abs(right) > 64:
            raise ValueError("exponent too large")
        return float(_OPS[type(node.op)](left, right))
    if isinstance(node, ast.UnaryOp) and type(node.op) in _OPS:
        return float(_OPS[type(node.op)](_eval(node.operand)))
    raise ValueError("not arithmetic")


# --------------------------------------------------------------------------- all of them


def gate_failures(
    items: Sequence[GateInput],
    instantiate: Instantiate,
    *,
    distinct_seeds: int = DISTINCT_SEEDS,
    diagnosis_seeds: int = DIAGNOSIS_SEEDS,
    progress: Callable[[int, int], None] | None = None,
    more: Sequence[MoreGates] = (),
) -> list[GateFailure]:
    """Every gate over `items`; `progress(done, total)` is called after each computed template. `more`: gates
    a later room adds (grading's reading of explanations), run over the same items."""
    out = [failure for gates in more for failure in gates(items, instantiate)]
    out += choice_failures(items) + order_gates.position_failures(items, instantiate)
    out += order_gates.shape_failures(items)
    out += text_gates.justification_failures(items)
    out += text_gates.punctuation_failures(items) + text_gates.cue_failures(items)
    out += grammar_gates.grammar_failures(items) + grammar_gates.grammar_cue_failures(items)
    for it in items:
        out += text_gates.markdown_failures(it) + text_gates.context_failures(it)
    computed = [
        it for it in items if isinstance(it.question, (NumericQuestion, TensorQuestion, ShapeQuestion))
    ]
    for i, it in enumerate(computed, start=1):
        out += computed_failures(
            it, instantiate, distinct_seeds=distinct_seeds, diagnosis_seeds=diagnosis_seeds
        )
        if progress is not None:
            progress(i, len(computed))
    for it in items:
        if isinstance(it.question, ScenarioQuestion):
            out += scenario_failures(
                it, instantiate, distinct_seeds=distinct_seeds, diagnosis_seeds=diagnosis_seeds
            )
    return out


def gate_problems(
    catalog: Catalog,
    deck_ids: Iterable[str] | None = None,
    *,
    distinct_seeds: int = DISTINCT_SEEDS,
    diagnosis_seeds: int = DIAGNOSIS_SEEDS,
    progress: Callable[[int, int], None] | None = None,
    more: Sequence[MoreGates] = (),
) -> list[Problem]:
    """Every gate over the decks named (default: all loaded), as problems with the file, line and column
    of the question; the longest-option share is taken over those decks."""
    chosen = list(catalog.decks) if deck_ids is None else list(deck_ids)
    items = [
        GateInput(deck_id, index, question)
        for deck_id in chosen
        for index, question in enumerate(catalog.decks[deck_id].questions)
    ]
    failures = gate_failures(
        items,
        catalog.instance,
        distinct_seeds=distinct_seeds,
        diagnosis_seeds=diagnosis_seeds,
        progress=progress,
        more=more,
    )
    return _located(catalog, failures)


def gate_warnings(catalog: Catalog, deck_ids: Iterable[str] | None = None) -> list[Problem]:
    """What validate reports without failing: the questions feeding a bank-wide shape cue (the right option
    second-longest or most punctuated more often than chance), for an author to reshape."""
    chosen = list(catalog.decks) if deck_ids is None else list(deck_ids)
    items = [
        GateInput(deck_id, index, question)
        for deck_id in chosen
        for index, question in enumerate(catalog.decks[deck_id].questions)
    ]
    return _located(catalog, shape_warnings(items))


def _located(catalog: Catalog, failures: Sequence[GateFailure]) -> list[Problem]:
    """Failures as problems with the file, line and column of the question."""
    trees: dict[str, object] = {}
    out = []
    for f in failures:
        path = catalog.files[f.deck_id]
        key = str(path)
        if key not in trees:
            try:
                trees[key] = compose(path.read_text(encoding="utf-8"))
            except (OSError, UnicodeDecodeError):
                trees[key] = None
        line, col = locate(trees[key], f.loc)  # type: ignore[arg-type]
        out.append(Problem(display_path(path), line, col, f.question_id, "", f.text()))
    return out
