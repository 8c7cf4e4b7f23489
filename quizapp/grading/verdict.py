"""Provides Verdict, the grading of one answer to one Instance, and the parts it carries.

Every grader (numbers, shapes, choices, code, flashcards, explain answers, scenarios) returns one; the study
screen, the interview, the CLI and the store read it. Plain frozen data, so any layer may hold it.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine import Heatmap
from quizapp.grading.explain_reading import Reading

VerdictValue = int | float | tuple[int, ...] | frozenset[str] | str | None


@dataclass(frozen=True)
class OptionFeedback:
    """Why one chosen option of a choice question is wrong, in the question author's words."""

    key: str
    text: str
    feedback: str


@dataclass(frozen=True)
class StepVerdict:
    """One step of a scenario: its verdict against the truth, and whether it was right on the learner's
    own earlier numbers (error carried forward), which rates it no better than Hard."""

    index: int
    """The step's number, from 1."""
    verdict: Verdict
    carried_forward: bool = False
    rating: int = 1
    """This step's suggested rating; the scenario's is the worst of its steps'."""


@dataclass(frozen=True)
class Verdict:
    """The grading of one answer to one Instance."""

    correct: bool
    parsed: str
    """What the answer was read as, in words and base units ("80 GiB = 85,899,345,920 B")."""
    value: VerdictValue
    """The answer in base units (numbers), a tuple (shapes), the chosen keys (choice), or the text."""
    diagnosis: str | None
    """The named mistake, e.g. "You left out the x2 for K and V", or None."""
    diagnosis_id: str | None
    """A misconception id from the engine or a generic slip id ("slip-..."), for statistics."""
    step: str | None
    """The label of the derivation step where the answer went astray, when known."""
    message: str
    """One or two sentences for the user."""
    rating: int
    """The suggested FSRS rating, 1 (Again) to 4 (Easy)."""
    unparseable: bool = False
    option_feedback: tuple[OptionFeedback, ...] = ()
    missed_options: tuple[str, ...] = ()
    """Correct option keys the user did not choose."""
    explanation: str = ""
    """Why the diagnosed mistake is a mistake (from the engine's misconception)."""
    expected: str = ""
    """The expected answer as a user would write it."""
    heatmap: Heatmap | None = None
    """A code answer's first failing case drawn as expected and yours side by side (attention weights)."""
    reason: str = ""
    """Why this rating was suggested, in a few words: "Good: right in 38 s", "Hard: 2 hints"."""
    steps: tuple[StepVerdict, ...] = ()
    """Scenarios: one verdict per step answered, in order."""
    reading: Reading | None = None
    """Explain answers: each key point covered, missing or contradicted, with the words that decided it."""
