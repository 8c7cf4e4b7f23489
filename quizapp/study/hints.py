"""Provides the hint ladder: which quantities matter, the step the question hinges on, then every step
but the last, each rung read off the engine's own derivation."""

from __future__ import annotations

from typing import Any

from engine import Step, format_quantity


def hint_ladder(steps: tuple[Step, ...], misconceptions: tuple[Any, ...] = ()) -> tuple[str, ...]:
    """The rungs for a derivation: the formulas in symbols; the step where mistakes happen (the one most
    of the calculator's named misconceptions point at, else the last), with its numbers; then every
    step before the last, worked. A one-step derivation stops after the first rung: its numbers are the
    answer."""
    symbols = "; ".join(f"{s.label}: {s.formula}" for s in steps)
    rungs = [f"Which quantities matter: {symbols}"]
    if len(steps) == 1:
        return tuple(rungs)
    labels = [m.step for m in misconceptions if m.step]
    # the step most mistakes point at; a tie goes to the later step (nearer the answer), never to chance
    counts = [labels.count(s.label) for s in steps]
    best = max(counts)
    hinge = steps[len(counts) - 1 - counts[::-1].index(best)] if best else steps[-1]
    rungs.append(f"The step it hinges on, {hinge.label}: {hinge.formula} = {hinge.substituted}")
    worked = "; ".join(f"{s.label}: {s.substituted} = {format_quantity(s.value, s.unit)}" for s in steps[:-1])
    rungs.append(f"Everything but the last step: {worked}")
    return tuple(rungs)
