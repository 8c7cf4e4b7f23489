"""Provides Settings, what the settings screen edits and the store keeps (quizapp.store.settings validates,
reads and writes them)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Settings:
    """What the settings screen edits. Defaults come from the issue: retention 0.9, 20 new cards a day,
    mock interviews of 10 questions in 30 minutes."""

    desired_retention: float = 0.9
    new_per_day: int = 20
    interview_questions: int = 10
    interview_minutes: int = 30
    theme: str = "textual-dark"
    interview_date: str = ""
    """The day of the user's interview as YYYY-MM-DD, or "" for none (study as if there were no date)."""
    fsrs_parameters: tuple[float, ...] = ()
    """FSRS weights fitted to this user's reviews by `quizapp optimize`; () means fsrs's defaults."""
    daily_minutes: int = 0
    """The study time the learner has a day, in minutes, for the plan's triage; 0 means no budget."""
    low_priority_decks: tuple[str, ...] = ()
    """Deck ids the learner marked low priority: the plan leaves them out first when time is short."""
    interview_misses_to_review: bool = True
    """A question missed in a mock interview (wrong or skipped) is due for review at once."""
