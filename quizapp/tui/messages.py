"""Provides the app's own messages: small past-tense dataclasses that workers and widgets post upward."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from textual.message import Message

if TYPE_CHECKING:
    from quizapp.reports.overview import Overview
    from quizapp.study.records import Progress
    from quizapp.tui.backend import Backend


@dataclass
class BackendLoaded(Message):
    """The catalog is loaded and the progress database is open."""

    backend: Backend


@dataclass
class BackendFailed(Message):
    """Loading could not finish; `message` says why in the user's words."""

    message: str


@dataclass
class AnswerSubmitted(Message):
    """The user submitted an answer (the text typed, the letters chosen, or the explanation)."""

    text: str


@dataclass
class RatingChosen(Message):
    """The user rated a flashcard (1 again .. 4 easy)."""

    rating: int


@dataclass
class OverviewLoaded(Message):
    """The home screen's counts were read (in a worker), with the interview plan's line if a date is set."""

    overview: Overview
    plan_line: str


@dataclass
class WeightsFitted(Message):
    """The FSRS optimizer finished (in a worker): what it found, in words, or why it could not run."""

    summary: str
    ok: bool


@dataclass
class ProgressCounted(Message):
    """The study session's cards left were counted (in a worker) for the session bar."""

    progress: Progress
