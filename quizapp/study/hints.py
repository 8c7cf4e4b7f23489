"""Provides the hint ladder: which quantities matter, the step the question hinges on, then every step
but the last, each rung read off the engine's own derivation and each revealing more than the one before."""

from __future__ import annotations

from typing import Any

from engine import Step, format_quantity


def hint_ladder(steps: tuple[Step, ...], misconceptions: tuple[Any, ...] = ()) -> tuple[str, ...]:
    """The rungs for a derivation, each a strict widening of the one before: the formulas in symbols; the
    numbers of one step before the last (the one most of the calculator's named misconceptions point at,
    else the last before the answer, skipping steps whose numbers the first rung already shows), saying
    so when most mistakes happen in the last step; then every step before the last, worked to its result.
    No rung ever shows the last step's numbers, which are the answer. A one-step derivation stops after
    the first rung: its numbers are the answer."""
    symbols = "; ".join(f"{s.label}: {s.formula}" for s in steps)
    rungs = [f"Which quantities matter: {symbols}"]
    if len(steps) == 1:
        return tuple(rungs)
    labels = [m.step for m in misconceptions if m.step]
    before = steps[:-1]
    # a step whose numbers the first rung already shows ("p_2") would add nothing
    telling = [s for s in before if s.substituted not in rungs[0]] or list(before)
    # the step most mistakes point at, among those before the answer; a tie goes to the later step
    # (nearer the answer), never to chance
    counts = [labels.count(s.label) for s in telling]
    best = max(counts)
    hinge = telling[len(counts) - 1 - counts[::-1].index(best)] if best else telling[-1]
    rung = f"The step it hinges on, {hinge.label}: {hinge.formula} = {hinge.substituted}"
    if labels.count(steps[-1].label) > best:
        rung += f" (most slips come in the last step, {steps[-1].label}: {steps[-1].formula})"
    rungs.append(rung)
    worked = "; ".join(f"{s.label}: {s.substituted} = {format_quantity(s.value, s.unit)}" for s in before)
    rungs.append(f"Everything but the last step: {worked}")
    return tuple(rungs)
