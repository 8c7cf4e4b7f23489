"""Provides the progress store: one SQLite file holding cards, reviews, interviews and settings.

Open it with `open_store(path_or_None, now=...)`; check `store.notice` for anything opening repaired.
"""

from __future__ import annotations

from quizapp.records.interviews import InterviewConfig, InterviewSummary
from quizapp.records.questions import QuestionRef
from quizapp.records.settings import Settings
from quizapp.store.cards import (
    CardRecord,
    card_id_collisions,
    card_id_for,
    check_card_ids,
    get_card,
    set_flagged,
    set_suspended,
)
from quizapp.store.database import Store
from quizapp.store.interviews import (
    InterviewAnswer,
    InterviewRecord,
    add_interview_answer,
    finish_interview,
    list_interviews,
    load_interview,
    start_interview,
)
from quizapp.store.migrations import SCHEMA_VERSION
from quizapp.store.opening import open_store
from quizapp.store.reviews import (
    REVIEW_MODES,
    ReviewMode,
    ReviewRecord,
    get_review,
    review_count,
    reviewed_between,
    reviews_for,
    seeds_used,
)
from quizapp.store.settings import load_settings, save_setting, save_settings

__all__ = [
    "REVIEW_MODES",
    "SCHEMA_VERSION",
    "CardRecord",
    "InterviewAnswer",
    "InterviewConfig",
    "InterviewRecord",
    "InterviewSummary",
    "QuestionRef",
    "ReviewMode",
    "ReviewRecord",
    "Settings",
    "Store",
    "add_interview_answer",
    "card_id_collisions",
    "card_id_for",
    "check_card_ids",
    "finish_interview",
    "get_card",
    "get_review",
    "list_interviews",
    "load_interview",
    "load_settings",
    "open_store",
    "review_count",
    "reviewed_between",
    "reviews_for",
    "save_setting",
    "save_settings",
    "seeds_used",
    "set_flagged",
    "set_suspended",
    "start_interview",
]
