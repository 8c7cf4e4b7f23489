"""Provides the app's own messages: small past-tense dataclasses that workers and widgets post upward. A
screen's worker has no message of its own: QuizScreen.fetch and write bring every outcome back as
WorkerDone or WorkerFailed."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from textual.message import Message

if TYPE_CHECKING:
    from quizapp.reports.overview import Overview
    from quizapp.study.session import StudySession
    from quizapp.tui.backend import Backend


@dataclass
class BackendLoaded(Message):
    """The catalog is loaded and the progress database is open; the home screen's first counts and the
    saved theme were read in the same worker, so the decks show without a second trip."""

    backend: Backend
    overview: OverviewLoaded | None
    """None if reading the counts failed (home then tries again in its own worker)."""
    theme: str


@dataclass
class BackendFailed(Message):
    """Loading could not finish; `message` says why in the user's words."""

    message: str


@dataclass
class BackupFailed(Message):
    """The daily backup of the progress database failed (the write went ahead); posted from any thread."""

    message: str


@dataclass
class AnswerSubmitted(Message):
    """The user submitted an answer (the text typed, the letters chosen, or the explanation)."""

    text: str


@dataclass
class CodeTryAsked(Message):
    """The user asked to try the code on the practice cases (Ctrl+R or Try): nothing is rated."""

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
class WorkerDone(Message):
    """A screen's worker (QuizScreen.write, fetch) finished a step or reported progress; `then` shows its
    `outcome` on the screen, on the event loop."""

    outcome: Any
    then: Callable[[Any], Awaitable[None] | None]


@dataclass
class WorkerFailed(Message):
    """A screen's worker raised; `failed` shows it (None: the app reports it). Nothing of a write that
    failed was committed."""

    error: Exception
    failed: Callable[[Exception], Awaitable[None] | None] | None


@dataclass
class SessionOpened(Message):
    """A study, drill or cram session was started in a worker: its first card is drawn, with what the
    first card's editor opens with (code questions) and the count of cards left."""

    session: StudySession
    code: str
    left: int | None


@dataclass
class SessionRefused(Message):
    """Starting a session found nothing to do, or failed; `error` is None when it was only empty."""

    message: str
    error: Exception | None
