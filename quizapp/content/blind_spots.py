"""Provides the blind spots of one drawn instance: where its numbers cannot tell right from wrong.

A draw has a blind spot when a wrong method's number lands inside the answer's tolerance (it would be
marked correct), or when the question's own trap gives the right answer (the draw cannot catch the
mistake the question exists for). Instantiation draws again when it meets one, and the quality gates
report templates that keep meeting them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from quizapp.content.instance import Instance
from quizapp.content.units import unit


@dataclass(frozen=True)
class BlindSpot:
    """What is blind, in words for a deck author; `kind` groups repeats, `field` is the deck key to fix."""

    kind: str
    message: str
    field: str


def blind_spots(inst: Instance) -> list[BlindSpot]:
    """The blind spots of `inst` (empty for a draw that tells every known mistake from the answer)."""
    if inst.kind == "scenario":  # each step must tell its own mistakes apart
        return [spot for step in inst.steps for spot in blind_spots(step)]
    d = inst.derivation
    if d is None:
        return []
    expected = inst.expected
    numeric = isinstance(expected, (int, float)) and not isinstance(expected, bool)
    tol = inst.tolerance
    factor = float(unit(inst.unit).factor) if numeric else 1.0

    def same(a: object, b: object) -> bool:
        if not numeric or isinstance(a, tuple) or isinstance(b, tuple):
            return a == b
        assert isinstance(a, (int, float)) and isinstance(b, (int, float))
        if tol is None:
            return math.isclose(a, b, rel_tol=1e-9)
        return tol.accepts(float(a), float(b), display_factor=factor)

    out: list[BlindSpot] = []
    for m in d.misconceptions:
        if m.value != expected and same(expected, m.value):
            out.append(
                BlindSpot(
                    f"free-{m.id}",
                    f"the wrong method {m.id!r} ({m.label}) gives {m.value}, inside the tolerance of the "
                    f"answer {expected}: it would be marked correct; tighten the tolerance or the draw",
                    "tolerance",
                )
            )
    if inst.trap is not None:
        trap = next((m for m in d.misconceptions if m.id == inst.trap), None)
        if trap is None:
            out.append(
                BlindSpot(
                    "trap",
                    f"its trap {inst.trap!r} gives the right answer here (or the calculator does not know "
                    "it), so the draw cannot catch it",
                    "trap",
                )
            )
        elif same(expected, trap.value):
            out.append(
                BlindSpot("trap", f"its trap {inst.trap!r} gives an answer inside the tolerance", "trap")
            )
    return out
