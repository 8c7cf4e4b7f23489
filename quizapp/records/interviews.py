"""Provides a mock interview's set-up (InterviewConfig, stored as JSON) and its line in the list of past
interviews (InterviewSummary); quizapp.store.interviews saves and reads them."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from datetime import datetime

from quizapp.terminal_text import terminal_text


@dataclass(frozen=True)
class InterviewConfig:
    """How the interview was set up; stored as JSON so later versions can add fields."""

    questions: int = 10
    minutes: int = 30
    deck_ids: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()
    difficulty_mix: tuple[int, ...] = ()
    update_schedule: bool = False
    seed: int = 0
    unscored: tuple[int, ...] = ()
    """Positions (1-based) of the questions asked that are not scored (explain answers, to compare)."""
    misses_to_review: bool | None = None
    """A missed question is due for review at once; None: as the setting interview_misses_to_review."""

    def to_json(self) -> str:
        return json.dumps(asdict(self), sort_keys=True)

    @classmethod
    def from_json(cls, text: str) -> InterviewConfig:
        """The set-up stored as JSON; its ids pass terminal_text (a `--db` or an import may be someone
        else's)."""
        data = json.loads(text)
        known = {k: v for k, v in data.items() if k in cls.__dataclass_fields__}
        for key in ("deck_ids", "tags", "difficulty_mix", "unscored"):
            if key in known:
                known[key] = tuple(known[key])
        for key in ("deck_ids", "tags"):
            if key in known:
                known[key] = tuple(terminal_text(v) if isinstance(v, str) else v for v in known[key])
        return cls(**known)


@dataclass(frozen=True)
class InterviewSummary:
    """One line of the list of past interviews."""

    id: int
    started_at: datetime
    finished_at: datetime | None
    answered: int
    """Questions answered (skips not included)."""
    correct: int
    questions: int
    skipped: int = 0
    scored: int = 0
    """The score's denominator, as the report counts it: scored questions asked (an explain answer is
    not scored unless skipped) plus those never reached."""
