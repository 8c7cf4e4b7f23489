"""Provides each coding exercise's solved status, for `quizapp code` and the app's exercise picker: the
deck's code questions, the exercise each one asks, and how the learner's answers to it went."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

from engine.exercises import EXERCISES
from quizapp.store.database import Store
from quizapp.store.stats_queries import answer_records
from quizapp.store.times import from_us

if TYPE_CHECKING:
    from quizapp.content.catalog import Catalog


@dataclass(frozen=True)
class ExerciseStatus:
    """One coding question of the catalog and where the learner stands on it."""

    question_id: str
    exercise_id: str
    title: str
    difficulty: int
    attempts: int
    solved: bool
    """At least one answer to it passed every case."""
    last_attempt: datetime | None

    @property
    def status(self) -> str:
        """One word for a list: solved, tried or new."""
        return "solved" if self.solved else ("tried" if self.attempts else "new")


def exercise_statuses(store: Store, catalog: Catalog) -> tuple[ExerciseStatus, ...]:
    """Every code question of `catalog`, in load order, with its solved status from the store."""
    questions = [
        catalog.questions[o.question_id]
        for o in catalog.question_outlines()
        if catalog.questions[o.question_id].type == "code"
    ]
    records = answer_records(store, [q.id for q in questions])
    out = []
    for q in questions:
        exercise_id = str(getattr(q, "exercise", ""))
        known = EXERCISES.get(exercise_id)
        record = records[q.id]
        out.append(
            ExerciseStatus(
                question_id=q.id,
                exercise_id=exercise_id,
                title=known.title if known is not None else q.id,
                difficulty=q.difficulty,
                attempts=record.attempts,
                solved=record.solved,
                last_attempt=None if record.last_us is None else from_us(record.last_us),
            )
        )
    return tuple(out)
