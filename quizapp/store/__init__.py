"""Provides the progress store: one SQLite file holding cards, reviews, interviews and settings.

Open it with `open_store(path_or_None, now=...)`; check `store.notice` for anything opening repaired.

Names are imported from their modules on first use (PEP 562), so opening the store at start-up does not
also load the interview, review and card modules (and fsrs) before anything needs them.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from quizapp.store.cards import (
        CardRecord,
        QuestionRef,
        card_id_collisions,
        card_id_for,
        check_card_ids,
        get_card,
        set_flagged,
        set_suspended,
    )
    from quizapp.store.database import Store, open_store
    from quizapp.store.interviews import (
        InterviewAnswer,
        InterviewConfig,
        InterviewRecord,
        InterviewSummary,
        add_interview_answer,
        finish_interview,
        list_interviews,
        load_interview,
        start_interview,
    )
    from quizapp.store.migrations import SCHEMA_VERSION
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
    from quizapp.store.settings import Settings, load_settings, save_setting, save_settings

_MODULE_OF: dict[str, str] = {
    "CardRecord": "cards",
    "QuestionRef": "cards",
    "card_id_collisions": "cards",
    "card_id_for": "cards",
    "check_card_ids": "cards",
    "get_card": "cards",
    "set_flagged": "cards",
    "set_suspended": "cards",
    "Store": "database",
    "open_store": "database",
    "InterviewAnswer": "interviews",
    "InterviewConfig": "interviews",
    "InterviewRecord": "interviews",
    "InterviewSummary": "interviews",
    "add_interview_answer": "interviews",
    "finish_interview": "interviews",
    "list_interviews": "interviews",
    "load_interview": "interviews",
    "start_interview": "interviews",
    "SCHEMA_VERSION": "migrations",
    "REVIEW_MODES": "reviews",
    "ReviewMode": "reviews",
    "ReviewRecord": "reviews",
    "get_review": "reviews",
    "review_count": "reviews",
    "reviewed_between": "reviews",
    "reviews_for": "reviews",
    "seeds_used": "reviews",
    "Settings": "settings",
    "load_settings": "settings",
    "save_setting": "settings",
    "save_settings": "settings",
}
"""Public name -> the module of quizapp.store that defines it."""


def __getattr__(name: str) -> Any:
    module = _MODULE_OF.get(name)
    if module is None:
        raise AttributeError(f"module 'quizapp.store' has no attribute {name!r}")
    return getattr(importlib.import_module(f"quizapp.store.{module}"), name)


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
