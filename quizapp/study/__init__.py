"""Provides studying: FSRS scheduling of answers and the study, drill and cram queues.

The TUI's whole study loop: `next_card(...)` -> ask -> grade -> `record_review(...)` -> feedback.
"""

from __future__ import annotations

from quizapp.records.questions import QuestionRef
from quizapp.study.limits import new_left_today
from quizapp.study.queues import (
    QuestionSet,
    QueueItem,
    StudyQueue,
    cram_queue,
    drill_queue,
    fresh_seed,
    next_card,
    study_queue,
)
from quizapp.study.scheduler import (
    LEECH_LAPSES,
    IntervalPreview,
    ReviewOutcome,
    format_interval,
    make_scheduler,
    preview_for,
    preview_intervals,
    record_review,
    scheduler_for,
)

__all__ = [
    "LEECH_LAPSES",
    "IntervalPreview",
    "QuestionRef",
    "QuestionSet",
    "QueueItem",
    "ReviewOutcome",
    "StudyQueue",
    "cram_queue",
    "drill_queue",
    "format_interval",
    "fresh_seed",
    "make_scheduler",
    "new_left_today",
    "next_card",
    "preview_for",
    "preview_intervals",
    "record_review",
    "scheduler_for",
    "study_queue",
]
