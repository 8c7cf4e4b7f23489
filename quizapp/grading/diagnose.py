"""Provides the diagnosis of a wrong answer: which named misconception or generic slip explains it.

Order matters, most specific first: the calculator's own misconceptions (evaluated on the question's own
arguments), then unit slips (a bare number meant in another unit, GiB read as GB, a prefix step of 1000
or 1024), then factors (2, the number of heads, 10, the sign), then "close but outside the tolerance".
Every comparison uses the question's own tolerance, so a diagnosis is as strict as the grading.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from engine import Derivation
from engine.derivation import format_number
from quizapp.content.instance import Instance
from quizapp.content.tolerance import Tolerance, default_tolerance
from quizapp.content.units import UNITS, unit
from quizapp.grading.parse import ParsedNumber

_BINARY = ("KiB", "MiB", "GiB", "TiB")
_DECIMAL = ("KB", "MB", "GB", "TB")
_HEAD_NAMES = frozenset({"h", "n_heads", "heads", "num_heads", "n_head", "n_q_heads"})
_ATOM = re.compile(r"[A-Za-z_][A-Za-z_0-9]*|\d[\d,]*(?:\.\d+)?")
CLOSE = 0.01
"""A wrong answer within 1% is called a rounding slip rather than a mistake, except on an exact-integer
answer, where only the answer rounded to some number of significant figures is (`_is_close`)."""


@dataclass(frozen=True)
class Diagnosis:
    """A named mistake: a misconception id (from the engine) or a generic slip id ("slip-...")."""

    id: str
    text: str
    step: str | None = None
    explanation: str = ""
    also: tuple[str, ...] = ()
    """Other misconceptions that give the same number with these values: named too, never hidden."""
    causes: tuple[str, ...] = ()
    """When several causes give the number, each one's label ("You ..."), as `text` names them."""


def tolerance_of(inst: Instance) -> Tolerance:
    """The instance's tolerance, or the question bank's default for its expected value."""
    if inst.tolerance is not None:
        return inst.tolerance
    shown = inst.expected_display
    return default_tolerance(shown if shown is not None else 0)


def head_count(derivation: Derivation | None) -> int | None:
    """The number of query heads if a step's formula names it, e.g. `d_model / n_heads` = `768 / 12`.

    Steps write a formula and the same formula with numbers put in; where both have as many atoms (names
    and numbers) in the same order, each name is paired with its number.
    """
    if derivation is None:
        return None
    for step in derivation.steps:
        formula = step.formula
        if "=" in formula and "=" not in step.substituted:
            formula = formula.rsplit("=", 1)[1]  # "d_k = d_model / h" is substituted as "768 / 12"
        names = _ATOM.findall(formula)
        values = _ATOM.findall(step.substituted)
        if len(names) != len(values):
            continue
        for name, value in zip(names, values, strict=True):
            if name in _HEAD_NAMES and value[0].isdigit():
                digits = value.replace(",", "")
                if digits.isdigit():
                    return int(digits)
    return None


class _Matcher:
    """Compares candidate values with the answer under the question's tolerance."""

    def __init__(self, inst: Instance, got: float) -> None:
        self.tol = tolerance_of(inst)
        self.factor = float(unit(inst.unit).factor)
        self.got = got

    def near(self, target: float) -> bool:
        return self.tol.accepts(float(target), self.got, display_factor=self.factor)

    def same(self, a: float, b: float) -> bool:
        return self.tol.accepts(float(a), float(b), display_factor=self.factor)


def diagnose_number(inst: Instance, parsed: ParsedNumber) -> Diagnosis | None:
    """Names the mistake behind a wrong numeric answer, or None when nothing known explains it."""
    expected = inst.expected
    if not isinstance(expected, (int, float)) or isinstance(expected, bool):
        return None
    match = _Matcher(inst, float(parsed.value))
    named = _misconception(inst, match, float(expected))
    bits = _bits_slip(inst, match, float(expected))
    if named is not None:
        # a cause the calculator does not know can give the same number: name both, never just one
        if bits is None or BITS_AS_BYTES in (named.id, *named.also):
            return named
        return _either(named, bits)
    unit_slip = _unit_slip(inst, parsed, match, float(expected))
    if unit_slip is not None:
        return unit_slip
    factor = _factor_slip(inst, match, float(expected))
    if bits is None:
        return factor
    return _either(bits, factor) if factor is not None and factor.id.startswith("slip-heads") else bits


BITS_AS_BYTES = "bits-as-bytes"
"""The calculators' id for bits counted as bytes; a byte answer 8 times too large is that slip as well."""


def _bits_slip(inst: Instance, match: _Matcher, expected: float) -> Diagnosis | None:
    """A byte count 8 times too large: bits per number (16 for bf16) used where bytes (2) were needed."""
    if unit(inst.unit).dimension != "bytes" or expected == 0 or not match.near(8 * expected):
        return None
    return Diagnosis(
        f"slip-{BITS_AS_BYTES}",
        "You counted bits where bytes were needed",
        _last_step(inst),
        "A number's size in bytes is its bits / 8: bf16 is 16 bits, 2 bytes; fp8 is 1 byte.",
    )


def _either(first: Diagnosis, second: Diagnosis) -> Diagnosis:
    """Two causes that give the same number here, both named: "either X, or Y"."""
    causes = [*(first.causes or (first.text,)), *(second.causes or (second.text,))]
    return Diagnosis(
        first.id,
        f"{_either_text(causes)} (each gives this number here)",
        first.step or second.step,
        "\n".join(e for e in (first.explanation, second.explanation) if e),
        (*first.also, second.id),
        tuple(causes),
    )


def _either_text(labels: list[str]) -> str:
    """ "Either you did X, or you did Y" from labels written as sentences ("You did X")."""
    lowered = [label[0].lower() + label[1:] for label in labels]
    return "Either " + ", ".join(lowered[:-1]) + ", or " + lowered[-1]


def _misconception(inst: Instance, match: _Matcher, expected: float) -> Diagnosis | None:
    """Every named mistake that explains the answer; the question's own trap first when it is one.

    Two wrong formulas can give the same number for some draws (leaving out W_O and leaving out A V when
    T = d, or counting a multiply-add as one FLOP and halving for a causal mask): then the verdict says
    "either X, or Y" rather than guessing one.
    """
    derivation = inst.derivation
    if derivation is None:
        return None
    fits = [
        m
        for m in derivation.misconceptions
        # a misconception that gives the right number here says nothing about the answer
        if not isinstance(m.value, tuple) and not match.same(expected, m.value) and match.near(m.value)
    ]
    if not fits:
        return None
    fits.sort(key=lambda m: m.id != inst.trap)  # stable: otherwise the calculator's order of preference
    first, others = fits[0], fits[1:]
    text = first.label
    causes = tuple(m.label for m in fits) if others else ()
    if others:  # the trap leads, but no one of them is named as the cause
        text = _either_text(list(causes)) + " (each gives this number here)"
    explanation = "\n".join([first.explanation, *(o.explanation for o in others)])
    return Diagnosis(first.id, text, first.step or None, explanation, tuple(o.id for o in others), causes)


def _last_step(inst: Instance) -> str | None:
    steps = inst.derivation.steps if inst.derivation else ()
    return steps[-1].label if steps else None


def _unit_slip(inst: Instance, parsed: ParsedNumber, match: _Matcher, expected: float) -> Diagnosis | None:
    asked = unit(inst.unit)
    step = _last_step(inst)
    if parsed.bare and asked.dimension not in ("number", "ratio"):
        for other in UNITS.values():
            if (
                other.dimension == asked.dimension
                and other.name != asked.name
                and match.same(expected, float(parsed.number) * float(other.factor))
            ):
                return Diagnosis(
                    "slip-bare-number-unit",
                    f"a bare number is read in {asked.name}, the unit asked for; "
                    f"{format_number(parsed.number)} is right in {other.name}, so write the unit",
                    step,
                )
    if asked.dimension == "bytes":
        # Only the prefix levels in play (the asked unit's and the written one's): 2.4% off at the GiB
        # level is a KiB/KB confusion only in theory.
        prefixed = _BINARY + _DECIMAL
        levels = [prefixed.index(n) % 4 + 1 for n in (asked.name, parsed.unit) if n in prefixed]
        for k in dict.fromkeys(levels):
            binary, decimal = _BINARY[k - 1], _DECIMAL[k - 1]
            ratio = (1000 / 1024) ** k
            if match.near(expected * ratio):
                shown = _sig4(expected / 1024**k)
                return Diagnosis(
                    "slip-binary-read-as-decimal",
                    f"that is {shown} {binary} read as {decimal} ({binary} is 2^{10 * k} bytes, "
                    f"{decimal} is 10^{3 * k})",
                    step,
                )
            if match.near(expected / ratio):
                shown = _sig4(expected / 1000**k)
                return Diagnosis(
                    "slip-decimal-read-as-binary",
                    f"that is {shown} {decimal} read as {binary} ({decimal} is 10^{3 * k} bytes, "
                    f"{binary} is 2^{10 * k})",
                    step,
                )
    bases = (1000, 1024) if asked.dimension == "bytes" else (1000,)
    for base in bases:
        for j in (1, 2, 3, 4):
            f = float(base**j)
            if match.near(expected * f) or match.near(expected / f):
                way = "too large" if match.near(expected * f) else "too small"
                return Diagnosis(
                    f"slip-factor-{base}",
                    f"{way} by a factor of {format_number(base**j)}: a unit prefix slipped "
                    f"({'KB, MB, GB' if base == 1000 else 'KiB, MiB, GiB'} are {format_number(base)} apart)",
                    step,
                )
    return None


def _sig4(value: float) -> str:
    """A figure as a person would say it: 80, 85.9, 1.25 (four significant figures at most)."""
    return format_number(float(f"{value:.4g}"))


def _factor_slip(inst: Instance, match: _Matcher, expected: float) -> Diagnosis | None:
    if expected == 0:
        return None
    if match.near(2 * expected):
        return Diagnosis("slip-double", "twice the answer: something is counted two times")
    if match.near(expected / 2):
        return Diagnosis("slip-half", "half the answer: a factor of 2 is missing")
    h = head_count(inst.derivation)
    if h is not None and h > 2:
        if match.near(h * expected):
            return Diagnosis("slip-heads-extra", f"{h} times the answer: an extra factor of h = {h} heads")
        if match.near(expected / h):
            return Diagnosis(
                "slip-heads-missing", f"1/{h} of the answer: the factor of h = {h} heads is missing"
            )
    if match.near(10 * expected) or match.near(expected / 10):
        return Diagnosis("slip-factor-10", "off by a factor of 10: a misplaced decimal point or zero")
    if match.near(-expected):
        return Diagnosis("slip-sign", "the right size with the wrong sign")
    if _is_close(inst, match, expected):
        off = abs(match.got - expected) / abs(expected) * 100
        return Diagnosis(
            "slip-rounding",
            f"close ({off:.2g}% off), but outside the tolerance ({match.tol.describe()}): "
            "round later, or answer in the unit asked for",
        )
    return None


def rounded_forms(value: float) -> tuple[float, ...]:
    """`value` rounded to 1, 2, ... 15 significant figures: the only near misses an exact answer forgives."""
    return tuple(dict.fromkeys(float(f"{value:.{k}g}") for k in range(1, 16)))


def _is_close(inst: Instance, match: _Matcher, expected: float) -> bool:
    """Whether a wrong answer is a rounding slip. On an exact-integer answer only the answer itself
    rounded to some number of significant figures is (in the unit asked for, or in base units): 51.38 for
    51.380224 is a slip, 51.2 is a different method. Other answers keep the 1% rule."""
    if abs(match.got - expected) > CLOSE * abs(expected):
        return False
    if not float(expected).is_integer():
        return True
    for factor in dict.fromkeys((match.factor, 1.0)):
        shown, typed = expected / factor, match.got / factor
        if any(abs(typed - r) <= 1e-9 * max(abs(r), 1e-300) for r in rounded_forms(shown)):
            return True
    return False


def diagnose_shape(inst: Instance, got: tuple[int, ...]) -> Diagnosis | None:
    """Names the mistake behind a wrong shape: a known misconception, wrong order, or a missing axis."""
    expected = inst.expected
    if not isinstance(expected, tuple):
        return None
    if inst.derivation is not None:
        fits = [
            m
            for m in inst.derivation.misconceptions
            if isinstance(m.value, tuple) and m.value != expected and m.value == got
        ]
        if len(fits) == 1:
            m = fits[0]
            return Diagnosis(m.id, m.label, m.step or None, m.explanation)
        if fits:  # two wrong shapes that coincide here: both named, as for numbers
            fits.sort(key=lambda m: m.id != inst.trap)
            causes = tuple(m.label for m in fits)
            return Diagnosis(
                fits[0].id,
                _either_text(list(causes)) + " (each gives this shape here)",
                fits[0].step or None,
                "\n".join(m.explanation for m in fits),
                tuple(m.id for m in fits[1:]),
                causes,
            )
    if inst.unordered:
        return _set_slip(expected, got)
    if sorted(got) == sorted(expected):
        return Diagnosis("slip-shape-order", "the right sizes in the wrong order: check which axes swap")
    if len(got) == len(expected) - 1 and _drops_one(expected, got):
        return Diagnosis("slip-shape-missing-dim", "one dimension is missing")
    if len(got) == len(expected) + 1 and _drops_one(got, expected):
        return Diagnosis("slip-shape-extra-dim", "one dimension too many")
    if len(got) == len(expected):
        wrong = [i for i, (a, b) in enumerate(zip(got, expected, strict=True)) if a != b]
        if len(wrong) == 1:
            i = wrong[0]
            return Diagnosis("slip-shape-one-dim", f"dimension {i + 1} should be {expected[i]}, not {got[i]}")
    return None


def _set_slip(expected: tuple[int, ...], got: tuple[int, ...]) -> Diagnosis:
    """What a wrong set of numbers left out and what it added."""
    missing = ", ".join(str(n) for n in expected if n not in got)
    extra = ", ".join(str(n) for n in got if n not in expected)
    parts = ([f"you left out {missing}"] if missing else []) + ([f"{extra} does not belong"] if extra else [])
    return Diagnosis("slip-set", "; ".join(parts))


def _drops_one(longer: tuple[int, ...], shorter: tuple[int, ...]) -> bool:
    return any(longer[:i] + longer[i + 1 :] == shorter for i in range(len(longer)))
