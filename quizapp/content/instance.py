"""Provides Instance: a Question made concrete by a seed, with its expected answer and derivation.

Instances are what every consumer sees (grading, the CLI, the TUI, the store); they never see YAML.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Literal

from engine import Derivation, Heatmap, format_quantity
from engine.exercises.inputs import InputSpec
from quizapp.content.patterns import PointSpec, RejectSpec
from quizapp.content.tolerance import Tolerance
from quizapp.content.units import to_display, unit

QuestionKind = Literal["numeric", "tensor", "shape", "choice", "flashcard", "explain", "code", "scenario"]
Expected = int | float | tuple[int, ...] | frozenset[str] | str | None
ANSWER_KINDS: frozenset[str] = frozenset({"numeric", "tensor", "shape"})


@dataclass(frozen=True)
class ChoiceOption:
    """One option of a choice question, after the seeded shuffle gave it its letter."""

    key: str
    text: str
    correct: bool
    feedback: str


@dataclass(frozen=True, eq=False)
class Instance:
    """A question with its numbers fixed by `seed`.

    `expected` is in base units for numeric and tensor questions (bytes, params, ...), a tuple for shape
    questions, the set of correct option keys for choice questions, and the back / model answer text for
    flashcards and explain questions. `unit` is the display unit the prompt asks for.
    """

    question_id: str
    deck_id: str
    deck_title: str
    kind: QuestionKind
    seed: int
    prompt: str
    expected: Expected
    unit: str = ""
    base_unit: str = ""
    tolerance: Tolerance | None = None
    derivation: Derivation | None = None
    heatmap: Heatmap | None = None
    unordered: bool = False
    """Shape questions whose answer is a set of numbers: the order typed does not matter."""
    answer_format: str = ""
    """What to type, when the deck says it better than the kind's default hint."""
    prompt_heatmap: bool = False
    """The heatmap is part of the question (drawn before the answer), not only of the feedback."""
    options: tuple[ChoiceOption, ...] = ()
    multiple: bool = False
    key_points: tuple[str, ...] = ()
    point_specs: tuple[PointSpec, ...] = ()
    """Explain questions: each key point with the forms that state it (no forms: the learner ticks)."""
    rejects: tuple[RejectSpec, ...] = ()
    """Explain questions: the misconceptions the question knows, with the forms that state them."""
    explanation: str = ""
    difficulty: int = 1
    tags: tuple[str, ...] = ()
    source: str = ""
    target_seconds: float = 90.0
    trap: str | None = None
    """The misconception this question exists to catch: named first when several explain an answer."""
    exercise: str = ""
    """Code questions: the engine exercise the solution is run against."""
    starter: str = ""
    """Code questions: what the editor opens with."""
    mistakes: tuple[tuple[str, str], ...] = ()
    """Code questions: (id, sentence) of the wrong versions it names (empty: all the exercise knows; an
    empty sentence: the exercise's own)."""
    code_tolerance: tuple[float, float] | None = None
    """Code questions: (rtol, atol) when the deck sets them (None: the exercise's)."""
    code_inputs: InputSpec | None = None
    """Code questions: how the seed's inputs are drawn when the deck says (None: the exercise's)."""
    steps: tuple[Instance, ...] = ()
    """Scenarios: each step as a numeric Instance (its prompt is the step's question), in asking order."""
    step_names: tuple[str, ...] = ()
    """Scenarios: each step's name, as later steps' args refer to its answer."""
    step_uses: tuple[tuple[str, ...], ...] = ()
    """Scenarios: for each step, the names of the earlier steps whose answers its numbers use."""
    follow_up: Instance | None = None
    """Scenarios: the "explain your choice" part asked after the numbered steps (an explain Instance)."""
    rework: Callable[[int, Mapping[str, int | float]], Instance] | None = None
    """Scenarios: step k worked again with some earlier answers replaced (name -> base-unit value), so
    a wrong earlier number can be carried forward; raises InstanceError when those numbers cannot work."""

    @property
    def expected_display(self) -> int | float | None:
        """The expected number in the unit the prompt asks for (numeric and tensor questions only)."""
        if self.kind not in ("numeric", "tensor") or not isinstance(self.expected, (int, float)):
            return None
        return to_display(self.expected, self.unit)

    def expected_text(self) -> str:
        """The expected answer as a user would write it, in the asked unit."""
        if self.kind in ("numeric", "tensor") and isinstance(self.expected, (int, float)):
            shown = format_quantity(to_display(self.expected, self.unit), "")
            suffix = f" {self.unit}" if self.unit else ""
            return f"{shown}{suffix}"
        if self.kind == "shape" and isinstance(self.expected, tuple):
            return format_quantity(self.expected)
        if self.kind == "choice" and isinstance(self.expected, frozenset):
            return ", ".join(sorted(self.expected))
        if self.kind == "scenario":
            parts = [*self.steps, *([self.follow_up] if self.follow_up is not None else [])]
            return "; ".join(f"{i}) {s.expected_text().strip()}" for i, s in enumerate(parts, start=1))
        return str(self.expected or "")

    def answer_hint(self) -> str:
        """A one-line reminder of what to type, with the tolerance, shown under the input."""
        if self.answer_format:
            return self.answer_format
        if self.kind == "shape":
            return "Type a shape such as (2, 8, 128, 64)."
        if self.kind == "choice":
            return "Type letters, e.g. b" + (" or a, c (select all that apply)." if self.multiple else ".")
        if self.kind in ("numeric", "tensor"):
            asked = unit(self.unit)
            tol = self.tolerance.describe() if self.tolerance else "exact answer"
            what = f"in {asked.name} ({asked.words})" if asked.name else "as a number"
            return f"Answer {what}; {tol}. Arithmetic like 4*512^2 or 2*80*8*128 B works."
        if self.kind == "explain":
            return "In words, as you would say it: it is read point by point."
        if self.kind == "code":
            return "Write the function in NumPy; Ctrl+R runs it on the seed's inputs, edge cases first."
        if self.kind == "scenario":
            return (
                f"{len(self.steps)} steps, one answer each, asked in turn; a later step may use your number."
            )
        return ""
