"""Provides the checks the schema cannot make: calculators, their arguments, units, placeholders, seeds.

Static checks look at every value a param can take (each choice, each preset, the range's ends), so most
mistakes are found without running a calculator. Then every template is instantiated at 50 seeds, the
way a learner would meet it, to catch what only some draws break (quizapp.content.checks.seeds). A template
whose
parametrisation already passed is not run again in this process, or in a later one that remembers it.
"""

from __future__ import annotations

import difflib
import json
import math
from collections.abc import Iterable, Mapping, Sequence
from types import SimpleNamespace
from typing import Any

import engine
from engine import Arg, Calculator
from engine.exercises import EXERCISES
from quizapp.content import units
from quizapp.content.checks import proof_cache
from quizapp.content.checks.proof_cache import remember_proven, save_proven, signature
from quizapp.content.checks.seeds import SEEDS, seed_issues, unproven
from quizapp.content.checks.starter import starter_issues
from quizapp.content.code_inputs import input_issues
from quizapp.content.code_question import CodeQuestion
from quizapp.content.param_specs import (
    CalcParam,
    ChoicesParam,
    MatrixParam,
    ParamSpec,
    PresetParam,
    RangeParam,
    ValueParam,
)
from quizapp.content.problems import Issue, Loc
from quizapp.content.questions import FlashcardQuestion
from quizapp.content.scenario_question import ScenarioQuestion
from quizapp.content.schema import Question
from quizapp.content.schema_common import ANSWER_TYPES
from quizapp.content.template import TemplateError, is_matrix, lookup, placeholders, render_value
from quizapp.content.units import BASE_DIMENSION

__all__ = [
    "SEEDS",
    "check_question",
    "check_questions",
    "prove",
    "remember_proven",
    "save_proven",
    "seed_issues",
    "signature",
    "static_issues",
]

_UNKNOWN = object()

MAX_DECK_INT = 10**18
"""A whole number a deck may give an argument: far past any model size or token count, and well inside
what a float (and the int-to-text conversion Python limits) can take."""


def check_question(
    question: Question, *, raw: Mapping[str, Any] | None = None, seeds: Iterable[int] = SEEDS
) -> list[Issue]:
    """Every problem with one schema-valid question, locs relative to the question.

    A question whose parametrisation (params, answer spec, placeholders; not its words) already passed in
    this process passes again without re-running anything, since every check depends only on that.
    `raw` is the question as parsed from YAML, which makes that signature cheaper to compute.
    """
    if isinstance(question, CodeQuestion):
        return _template_issues(question.prompt, "prompt", {}) + _code_issues(question)
    if not question.params and question.type not in ANSWER_TYPES and question.type != "scenario":
        return _template_issues(question.prompt, _prompt_field(question), {})
    cited = _source_issues(question)
    key = signature(question, raw) or ""
    if proof_cache.passed(key):
        return cited
    issues = _template_checks(question, seeds)
    if not issues:
        proof_cache.record(key)
    return cited + issues


def check_questions(
    questions: Sequence[Question], raws: Sequence[Mapping[str, Any] | None], signatures: Sequence[str | None]
) -> list[list[Issue]]:
    """`check_question` of each question, given each one's `signature` (None for a plain card).

    The first question of each parametrisation not proven yet is seed-checked; the others with that
    parametrisation pass with it, or are checked one by one when it failed, since their messages point
    into their own text.
    """
    out: list[list[Issue] | None] = [None] * len(questions)
    first: dict[str, int] = {}  # signature -> the question that runs the seed checks for it
    for i, key in enumerate(signatures):
        question = questions[i]
        if key is None:
            text = question.prompt
            out[i] = _template_issues(text, _prompt_field(question), {}) if "{" in text or "}" in text else []
            if isinstance(question, CodeQuestion):
                out[i] = [*(out[i] or []), *_code_issues(question)]
        elif key not in first and not proof_cache.passed(key):
            found = static_issues(question)
            if found:
                out[i] = _source_issues(question) + found
            else:
                first[key] = i
    for key, i in first.items():
        found = seed_issues(questions[i], to_fill=unproven(questions[i]))
        out[i] = _source_issues(questions[i]) + found
        if not found:
            proof_cache.record(key)
    cites: dict[str | None, bool] = {}  # whether questions with a signature use real models' numbers
    for i, issues in enumerate(out):
        if issues is None:
            key = signatures[i]
            if not proof_cache.passed(key):
                out[i] = check_question(questions[i], raw=raws[i])
                continue
            if key not in cites:
                cites[key] = any(isinstance(spec, PresetParam) for spec in questions[i].params.values())
            out[i] = _source_issues(questions[i]) if cites[key] else []
    return [issues or [] for issues in out]


def prove(key: str, question: Question) -> None:
    """Runs the checks of a question's parametrisation (signature `key`), remembered if it passes."""
    if not proof_cache.passed(key) and not _template_checks(question):
        proof_cache.record(key)


def _template_checks(question: Question, seeds: Iterable[int] = SEEDS) -> list[Issue]:
    """The static checks, then the seed checks, which fill only what the static ones could not prove."""
    return static_issues(question) or seed_issues(question, seeds=seeds, to_fill=unproven(question))


def _prompt_field(question: Question) -> str:
    return "front" if isinstance(question, FlashcardQuestion) else "prompt"


# --------------------------------------------------------------------------- static checks


def static_issues(question: Question) -> list[Issue]:
    """Problems visible without drawing a seed: names, references, kinds, units, placeholders."""
    issues: list[Issue] = []
    params = question.params
    for name, spec in params.items():
        issues.extend(_param_issues(name, spec, params))
    issues.extend(_template_issues(question.prompt, _prompt_field(question), params))
    if question.type in ANSWER_TYPES:
        issues.extend(_answer_issues(question, params))
    if isinstance(question, ScenarioQuestion):
        issues.extend(_scenario_issues(question))
    return issues


def _scenario_issues(question: ScenarioQuestion) -> list[Issue]:
    """Each step as a computed question: its prompt fills from the params alone (an earlier answer is
    not shown before it is given), its args name params or earlier steps, its trap is its calculator's."""
    issues: list[Issue] = []
    known: dict[str, ParamSpec] = dict(question.params)
    for k, step in enumerate(question.steps):
        where: Loc = ("steps", k)
        issues.extend(
            Issue((*where, *i.loc), i.message, i.offset)
            for i in _template_issues(step.prompt, "prompt", question.params)
        )
        as_question = SimpleNamespace(**dict(step), type="numeric")
        issues.extend(
            Issue((*where, *i.loc), i.message, i.offset) for i in _answer_issues(as_question, known)
        )
        calc = engine.CALCULATORS.get(step.calculator)
        if calc is not None and step.trap is not None and step.trap not in calc.misconception_ids:
            issues.append(
                Issue(
                    (*where, "trap"),
                    f"calculator {calc.name!r} knows no misconception {step.trap!r} (it knows "
                    f"{', '.join(calc.misconception_ids) or 'none'})",
                )
            )
        # later steps may name this one; its value is known only once worked, like a derived param's
        known[step.name] = CalcParam(calc=step.calculator, args=step.args)
    return issues


def _code_issues(question: CodeQuestion) -> list[Issue]:
    """A code question names an exercise the engine has, only mistakes that exercise knows, and inputs it
    can build."""
    exercise = EXERCISES.get(question.exercise)
    if exercise is None:
        return [
            Issue(
                ("exercise",),
                f"unknown exercise {question.exercise!r}{_suggest(question.exercise, EXERCISES)}",
            )
        ]

    known = {m.id for m in exercise.mistakes}
    names = [m if isinstance(m, str) else m.id for m in question.mistakes]
    return (
        [
            Issue(
                ("mistakes", i),
                f"exercise {exercise.id!r} knows no mistake {name!r} (it knows {', '.join(sorted(known))})",
            )
            for i, name in enumerate(names)
            if name not in known
        ]
        + input_issues(question)
        + starter_issues(question.starter, exercise.function, exercise.starter)
    )


def _source_issues(question: Question) -> list[Issue]:
    """A question that uses a real model's numbers must say where they come from."""
    if (
        any(isinstance(spec, PresetParam) for spec in question.params.values())
        and not question.source.strip()
    ):
        return [Issue(("source",), "a question about real models needs a source (paper, config.json)")]
    return []


def _param_issues(name: str, spec: ParamSpec, params: Mapping[str, ParamSpec]) -> list[Issue]:
    where: Loc = ("params", name)
    if isinstance(spec, PresetParam):
        return [
            Issue((*where, "preset", i), f"unknown model preset {key!r}{_suggest(key, engine.PRESETS)}")
            for i, key in enumerate(spec.preset)
            if key not in engine.PRESETS
        ]
    if isinstance(spec, CalcParam):
        calc = engine.CALCULATORS.get(spec.calc)
        if calc is None:
            return [Issue((*where, "calc"), _unknown_calculator(spec.calc))]
        if calc.unit == "shape":
            return [Issue((*where, "calc"), f"calculator {spec.calc!r} gives a shape, not a number")]
        return _args_issues(calc, spec.args, params, (*where, "args"), self_name=name)
    return []


def _template_issues(text: str, field: str, params: Mapping[str, ParamSpec]) -> list[Issue]:
    if "{" not in text and "}" not in text:  # no placeholder and no brace to complain about
        return []
    try:
        found = placeholders(text)
    except TemplateError as exc:
        return [Issue((field,), exc.message, exc.offset)]
    issues: list[Issue] = []
    for ph in found:
        if ph.name not in params:
            known = ", ".join(params) or "none"
            issues.append(Issue((field,), f"placeholder {ph.text} has no param (params: {known})", ph.offset))
            continue
        for value in candidates(params[ph.name]):
            if value is _UNKNOWN:
                continue
            try:
                render_value(lookup(value, ph.fields, name=ph.name), ph.spec, what=ph.text)
            except TemplateError as exc:
                issues.append(Issue((field,), f"placeholder {ph.text}: {exc.message}", ph.offset))
                break
            except ValueError:  # Python will not write an int of over 4,300 digits as text
                issues.append(
                    Issue((field,), f"placeholder {ph.text}: {_short(value)} is too long to write", ph.offset)
                )
                break
    return issues


def _answer_issues(question: Any, params: Mapping[str, ParamSpec]) -> list[Issue]:
    calc = engine.CALCULATORS.get(question.calculator)
    if calc is None:
        return [Issue(("calculator",), _unknown_calculator(question.calculator))]
    issues: list[Issue] = []
    if (question.type == "shape") != (calc.unit == "shape"):
        want = "shape" if calc.unit == "shape" else "numeric or tensor"
        issues.append(
            Issue(("type",), f"calculator {calc.name!r} gives {_dimension(calc.unit)}; use type: {want}")
        )
    if question.unit is not None:
        if question.unit not in units.UNITS:
            known = ", ".join(repr(u) for u in units.UNITS)
            issues.append(Issue(("unit",), f"unknown unit {question.unit!r}; known units: {known}"))
        elif not units.compatible(question.unit, calc.unit):
            dimension = BASE_DIMENSION.get(calc.unit)
            same = [
                repr(u) if u else '"" (no unit)' for u, d in units.UNITS.items() if d.dimension == dimension
            ]
            issues.append(
                Issue(
                    ("unit",),
                    f"unit {question.unit!r} does not measure {_dimension(calc.unit)}, which calculator "
                    f"{calc.name!r} gives; use one of {', '.join(same)}",
                )
            )
    issues.extend(_args_issues(calc, question.args, params, ("args",)))
    return issues


def _args_issues(
    calc: Calculator,
    args: Mapping[str, Any],
    params: Mapping[str, ParamSpec],
    where: Loc,
    self_name: str = "",
) -> list[Issue]:
    issues: list[Issue] = []
    known = {a.name: a for a in calc.args}
    for key, raw in args.items():
        arg = known.get(key)
        if arg is None:
            issues.append(
                Issue(
                    (*where, key),
                    f"calculator {calc.name!r} has no argument {key!r}{_suggest(key, known)}; "
                    f"it takes {', '.join(known)}",
                )
            )
            continue
        if not isinstance(raw, str):
            bad = _kind_problem(arg, raw)
            if bad:
                issues.append(Issue((*where, key), f"{_short(raw)} does not fit: {bad}"))
            continue
        name, *fields = raw.split(".")
        if name not in params or name == self_name:
            names = ", ".join(n for n in params if n != self_name) or "none"
            issues.append(
                Issue(
                    (*where, key),
                    f"{raw!r} refers to no param (params: {names}); a literal text value goes in a "
                    "{value: ...} param",
                )
            )
            continue
        for value in candidates(params[name]):
            if value is _UNKNOWN:
                continue
            try:
                resolved = lookup(value, tuple(fields), name=name)
            except TemplateError as exc:
                issues.append(Issue((*where, key), exc.message))
                break
            bad = _kind_problem(arg, resolved)
            if bad:
                issues.append(Issue((*where, key), f"{raw!r} can be {_short(resolved)}, but {bad}"))
                break
    for arg in calc.args:
        if arg.required and arg.name not in args:
            issues.append(
                Issue(where, f"calculator {calc.name!r} needs argument {arg.name!r} ({arg.meaning})")
            )
    return issues


def candidates(spec: ParamSpec) -> list[Any]:
    """Values a param can take, for static checks (`_UNKNOWN` for derived params)."""
    if isinstance(spec, ValueParam):
        return [spec.value]
    if isinstance(spec, ChoicesParam):
        return list(spec.choices)
    if isinstance(spec, RangeParam):
        return [spec.range[0], spec.range[1]]
    if isinstance(spec, PresetParam):
        return [engine.PRESETS[k] for k in spec.preset if k in engine.PRESETS]
    if isinstance(spec, MatrixParam):
        m = spec.matrix
        return [[[m.low] * m.cols for _ in range(m.rows)]]
    return [_UNKNOWN]


def _kind_problem(arg: Arg, value: Any) -> str:
    """Empty when `value` fits the argument's kind, else the end of a sentence saying what it needs."""
    need = f"the argument {arg.name!r} needs"
    number = isinstance(value, (int, float)) and not isinstance(value, bool)
    if _too_big(value):  # float() of it would overflow
        return f"{need} a number of at most {len(str(MAX_DECK_INT))} digits"
    if arg.kind == "int" and not (number and float(value).is_integer()):
        return f"{need} an integer"
    if arg.kind == "float" and not (number and math.isfinite(value)):
        return f"{need} a number"
    if arg.kind == "bool" and not isinstance(value, bool):
        return f"{need} true or false"
    if arg.kind == "str":
        if not isinstance(value, str):
            return f"{need} text"
        if arg.choices and value not in arg.choices:
            return f"{need} one of {', '.join(arg.choices)}"
    if arg.kind == "matrix" and not is_matrix(value):
        return f"{need} a matrix (a list of equally long lists of numbers)"
    if arg.kind == "tokens" and not (
        isinstance(value, str) or (isinstance(value, list) and all(isinstance(t, str) for t in value))
    ):
        return f"{need} a list of tokens"
    return ""


# --------------------------------------------------------------------------- wording


def _unknown_calculator(name: str) -> str:
    known = ", ".join(sorted(engine.CALCULATORS))
    return f"unknown calculator {name!r}{_suggest(name, engine.CALCULATORS)}; known: {known}"


def _suggest(word: str, known: Iterable[str]) -> str:
    close = difflib.get_close_matches(word, list(known), n=1, cutoff=0.6)
    return f" (did you mean {close[0]!r}?)" if close else ""


_DIMENSIONS = {
    "B": "bytes",
    "params": "a parameter count",
    "FLOPs": "FLOPs",
    "x": "a ratio",
    "": "a plain number",
    "shape": "a shape",
}


def _dimension(base: str) -> str:
    return _DIMENSIONS.get(base, repr(base))


def _too_big(value: Any) -> bool:
    """An int past MAX_DECK_INT: neither float() nor (past 4,300 digits) str() takes it."""
    return isinstance(value, int) and not isinstance(value, bool) and abs(value) > MAX_DECK_INT


def _short(value: Any) -> str:
    """A value as a deck author wrote it (true, not True), cut short."""
    if _too_big(value):
        return f"a number of about {round(value.bit_length() * math.log10(2))} digits"  # no text of it
    text = json.dumps(value) if isinstance(value, bool) or value is None else repr(value)
    return text if len(text) <= 50 else text[:47] + "..."
