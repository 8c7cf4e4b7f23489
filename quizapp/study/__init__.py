"""Provides studying: FSRS scheduling of answers and the study, drill and cram queues.

The TUI's whole study loop: `next_card(...)` -> ask -> grade -> `record_review(...)` -> feedback.

Names are imported from their modules on first use (PEP 562), so the home screen's counts, which need only
quizapp.study.limits, do not also load the scheduler and the queues at start-up.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from quizapp.store.cards import QuestionRef
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

_MODULE_OF: dict[str, str] = {
    "QuestionRef": "quizapp.store.cards",
    "new_left_today": "quizapp.study.limits",
    "QuestionSet": "quizapp.study.queues",
    "QueueItem": "quizapp.study.queues",
    "StudyQueue": "quizapp.study.queues",
    "cram_queue": "quizapp.study.queues",
    "drill_queue": "quizapp.study.queues",
    "fresh_seed": "quizapp.study.queues",
    "next_card": "quizapp.study.queues",
    "study_queue": "quizapp.study.queues",
    "IntervalPreview": "quizapp.study.scheduler",
    "LEECH_LAPSES": "quizapp.study.scheduler",
    "ReviewOutcome": "quizapp.study.scheduler",
    "format_interval": "quizapp.study.scheduler",
    "make_scheduler": "quizapp.study.scheduler",
    "preview_for": "quizapp.study.scheduler",
    "preview_intervals": "quizapp.study.scheduler",
    "record_review": "quizapp.study.scheduler",
    "scheduler_for": "quizapp.study.scheduler",
}
"""Public name -> the module that defines it."""


def __getattr__(name: str) -> Any:
    module = _MODULE_OF.get(name)
    if module is None:
        raise AttributeError(f"module 'quizapp.study' has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)


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
