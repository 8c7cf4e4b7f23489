"""Provides the readers for typed answers: numbers with units, shapes, choices and self-ratings.

Each reader returns a plain value or raises AnswerParseError (a QuizappError) whose message names the
problem; `parse_answer` adds the accepted forms for the question at hand. A bare number is read in the
unit the question asks for, and ParsedNumber.reading says so in words.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

from engine.derivation import format_number
from quizapp.content.instance import Instance
from quizapp.content.units import unit
from quizapp.errors import QuizappError
from quizapp.grading.expr import Evaluator, Num, Quantity
from quizapp.grading.tokens import MAX_INPUT_CHARS, AnswerParseError, normalize, tokenize
from quizapp.grading.words import BASE_OF_DIMENSION, accepted_forms, base_of, lookup

MAX_VALUE = 1e300
MAX_SHAPE_DIMS = 16
RATINGS: dict[str, int] = {"again": 1, "hard": 2, "good": 3, "easy": 4, "1": 1, "2": 2, "3": 3, "4": 4}


@dataclass(frozen=True)
class ParsedNumber:
    """A numeric answer as it was read: its value in base units and the reading in words."""

    value: int | float
    """In base units of `dimension` (bytes, params, FLOPs, ms, rad; plain for ratios and numbers; per
    second for rates)."""
    dimension: str
    """bytes, params, flops, time, angle, ratio or number, or a rate of one of them ("flops/s")."""
    unit: str
    """The display unit it was written in ("" when none was written)."""
    bare: bool
    """True when no unit or scale word was given, so the asked unit was assumed."""
    number: int | float
    """The number as written, before the unit was applied (the 80 of `80 GiB`)."""
    reading: str
    """How the answer was read, e.g. "80 GiB = 85,899,345,920 B"."""


def _plain(value: Num) -> int | float:
    """An exact int where the value is whole, else a float; refuses values beyond float range."""
    if isinstance(value, Fraction) and value.denominator == 1:
        if abs(value.numerator) > MAX_VALUE:
            raise AnswerParseError("the answer is too large to be an answer")
        return value.numerator
    try:
        f = float(value)
    except OverflowError:
        raise AnswerParseError("the answer is too large to be an answer") from None
    if not math.isfinite(f) or abs(f) > MAX_VALUE:
        raise AnswerParseError("the answer is too large to be an answer")
    return f


def _fmt(value: int | float, dimension: str) -> str:
    """The value in its base unit, without the GiB/GB readings format_quantity adds to bytes."""
    base = base_of(dimension)
    if base == "x":
        return format_number(value) + "x"
    if base.startswith("/"):  # 300/s: a count per second
        return format_number(value) + base
    return f"{format_number(value)} {base}".rstrip()


def evaluate(text: str, asked_dimension: str = "number", *, grouping: bool = True) -> Quantity:
    """Evaluates an answer's arithmetic with units, exactly where possible; raises AnswerParseError."""
    try:
        tokens = tokenize(normalize(text), grouping=grouping)
        return Evaluator(tokens, asked_dimension).parse()
    except (OverflowError, ZeroDivisionError, ValueError, RecursionError):
        raise AnswerParseError("the answer could not be computed (too large, or divides by zero)") from None


def parse_number(text: str, display: str = "") -> ParsedNumber:
    """Reads a numeric answer for a question that asks for the display unit `display` (e.g. "GiB").

    A bare number is read in `display`; a number with a scale word but no unit (`124M`, `1.5 billion`) is
    a count of the base unit; a number with a unit is converted from that unit. The dimension of the
    result may differ from the asked one (GB for a parameter count): grading reports that as wrong.
    """
    try:
        return _read_number(text, display)
    except AnswerParseError as exc:
        raise exc.with_accepted(accepted_forms("numeric", display)) from None


def _read_number(text: str, display: str) -> ParsedNumber:
    asked = unit(display)
    text = normalize(text)
    q = evaluate(text, asked.dimension)
    if q.dim is not None:
        dimension, written, bare = q.dim, q.unit, False
        value = _plain(q.value)
        number = _plain(q.value / _unit_factor(q.unit)) if q.unit else value
    elif asked.dimension in ("number", "ratio"):
        dimension, written, bare = asked.dimension, "", not q.scaled
        value = number = _plain(q.value)
    elif q.scaled:
        dimension, written, bare = asked.dimension, "", False
        value = number = _plain(q.value)
    else:
        dimension, written, bare = asked.dimension, display, True
        number = _plain(q.value)
        value = _plain(q.value * asked.factor)
    shown = _fmt(value, dimension)
    if bare and display not in ("", "x", BASE_OF_DIMENSION.get(asked.dimension)):
        reading = f"read as {text} {display} (the unit asked for) = {shown}"
    elif _LITERAL.fullmatch(text) or _squash(text) == _squash(shown):
        reading = shown
    else:
        reading = f"{text} = {shown}"
    return ParsedNumber(value, dimension, written, bare, number, reading)


def _squash(text: str) -> str:
    return re.sub(r"[\s,_]", "", text)


_LITERAL = re.compile(r"[\d,_ .eE+-]+")


def _unit_factor(name: str) -> Fraction:
    try:
        return Fraction(str(unit(name).factor))  # via its decimal text: a nanosecond is exactly 1e-6 ms
    except QuizappError:  # a unit the parser knows but units.py does not (KFLOPs, PFLOPs, TFLOP/s)
        word = lookup(name, "") or lookup(name.replace("FLOP/s", "FLOPS"), "")
        return Fraction(word.factor if word else 1)


_SHAPE_WRAPPERS = re.compile(r"^(?:torch\.size|size|shape)\s*(?=[(\[])", re.IGNORECASE)
_SHAPE_SEPARATORS = re.compile(r"\s*[x×*]\s*")


def parse_shape(text: str) -> tuple[int, ...]:
    """Reads a shape: `(2, 8, 128, 64)`, `[2, 8, 128, 64]`, `2 x 8 x 128 x 64` or `torch.Size([2, 8])`."""
    try:
        return _read_shape(text)
    except AnswerParseError as exc:
        raise exc.with_accepted(accepted_forms("shape")) from None


def _read_shape(text: str) -> tuple[int, ...]:
    s = _SHAPE_WRAPPERS.sub("", normalize(text))
    for _ in range(2):  # (…), [ … ] and torch.Size([…])
        if len(s) >= 2 and (s[0], s[-1]) in (("(", ")"), ("[", "]")):
            s = s[1:-1].strip()
    if not s:
        raise AnswerParseError("the shape is empty")
    if "," in s:
        parts = s.split(",")
        if len(parts) > 1 and not parts[-1].strip():
            parts = parts[:-1]  # the one-element tuple (64,)
    elif _SHAPE_SEPARATORS.search(s):
        parts = _SHAPE_SEPARATORS.split(s)
    else:
        parts = s.split()
    if len(parts) > MAX_SHAPE_DIMS:
        raise AnswerParseError(f"a shape has at most {MAX_SHAPE_DIMS} dimensions")
    dims: list[int] = []
    for i, part in enumerate(parts, start=1):
        part = part.strip()
        if not part:
            raise AnswerParseError(f"dimension {i} of the shape is empty")
        try:
            q = evaluate(part, "number", grouping=False)
        except AnswerParseError as exc:
            raise AnswerParseError(f"dimension {i} ({part!r}) is not a size: {exc.problem}") from None
        if q.dim is not None or not isinstance(q.value, Fraction) or q.value.denominator != 1 or q.value < 0:
            raise AnswerParseError(f"dimension {i} ({part!r}) must be a whole number of 0 or more")
        if q.value.numerator > MAX_VALUE:
            raise AnswerParseError(f"dimension {i} is too large")
        dims.append(q.value.numerator)
    return tuple(dims)


_CHOICE_JOINERS = re.compile(r"\band\b|&|\+|/|;")
_CHOICE_STRIP = re.compile(r"[()\[\].'\"]|\boptions?\b")


def parse_choice(text: str, keys: Sequence[str], *, multiple: bool) -> frozenset[str]:
    """Reads option letters (`b`, `a, c`, `a and c`, `ac`) or 1-based numbers (`2`, `1, 3`)."""
    try:
        return _read_choice(text, keys, multiple)
    except AnswerParseError as exc:
        raise exc.with_accepted(accepted_forms("choice", multiple=multiple, n_options=len(keys))) from None


def _read_choice(text: str, keys: Sequence[str], multiple: bool) -> frozenset[str]:
    s = _CHOICE_STRIP.sub(" ", _CHOICE_JOINERS.sub(",", normalize(text).lower()))
    parts = [p for p in re.split(r"[,\s]+", s) if p]
    if not parts:
        raise AnswerParseError("no option was given")
    valid = [k.lower() for k in keys]
    if multiple and len(parts) == 1 and len(parts[0]) > 1 and all(c in valid for c in parts[0]):
        parts = list(parts[0])
    chosen: set[str] = set()
    for part in parts:
        if part in valid:
            chosen.add(keys[valid.index(part)])
        elif part.isdecimal() and len(part) <= 3 and 1 <= int(part) <= len(keys):
            chosen.add(keys[int(part) - 1])
        else:
            names = ", ".join(keys)
            raise AnswerParseError(f"there is no option {part[:20]!r}; the options are {names}")
    if not multiple and len(chosen) > 1:
        raise AnswerParseError("this question has one answer; type a single option")
    return frozenset(chosen)


def parse_rating(text: str) -> int:
    """Reads a self-rating for a flashcard: again, hard, good, easy, or 1-4."""
    word = normalize(text[: MAX_INPUT_CHARS + 1]).lower().strip(" .!")
    if word not in RATINGS:
        raise AnswerParseError(f"{word[:20]!r} is not a rating", accepted_forms("flashcard"))
    return RATINGS[word]


def accepted_forms_for(inst: Instance) -> str:
    """The accepted-forms sentence for this instance's kind and unit."""
    return accepted_forms(inst.kind, inst.unit, multiple=inst.multiple, n_options=len(inst.options))


ParsedAnswer = ParsedNumber | tuple[int, ...] | frozenset[str] | int | str


def parse_answer(inst: Instance, text: str) -> ParsedAnswer:
    """Reads `text` the way `inst` asks; AnswerParseError's message lists the forms this question accepts."""
    try:
        if inst.kind in ("numeric", "tensor"):
            return parse_number(text, inst.unit)
        if inst.kind == "shape":
            return parse_shape(text)
        if inst.kind == "choice":
            return parse_choice(text, [o.key for o in inst.options], multiple=inst.multiple)
        if inst.kind == "flashcard":
            return parse_rating(text)
        return text.strip()  # explain: kept as written, whatever its length
    except AnswerParseError as exc:
        raise exc.with_accepted(accepted_forms_for(inst)) from None
