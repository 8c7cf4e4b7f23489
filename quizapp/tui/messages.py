"""Provides the app's own messages: small past-tense dataclasses that workers and widgets post upward."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from textual.message import Message

if TYPE_CHECKING:
    from engine.toy import ToyModel
    from quizapp.explore.model import ExploreInputs, ExploreResult
    from quizapp.explore.trained import TrainedInputs, TrainedView
    from quizapp.reports.overview import Overview
    from quizapp.study.readiness import Readiness
    from quizapp.study.records import Progress
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
class RatingChosen(Message):
    """The user rated a flashcard (1 again .. 4 easy)."""

    rating: int


@dataclass
class OverviewLoaded(Message):
    """The home screen's counts were read (in a worker), with the interview plan's line if a date is set."""

    overview: Overview
    plan_line: str


@dataclass
class ReadinessComputed(Message):
    """Each deck's readiness (expected recall on the interview day) was computed (in a worker)."""

    readiness: Readiness


@dataclass
class WeightsFitted(Message):
    """The FSRS optimizer finished (in a worker): what it found, in words, or why it could not run."""

    summary: str
    ok: bool


@dataclass
class ProgressCounted(Message):
    """The study session's cards left were counted (in a worker) for the session bar."""

    progress: Progress


@dataclass
class SandboxComputed(Message):
    """Explore's forward pass finished (in a worker) for the inputs now on screen."""

    result: ExploreResult


@dataclass
class SandboxRefused(Message):
    """Explore's inputs were refused; `message` says why in the user's words."""

    inputs: ExploreInputs
    message: str


@dataclass
class ToyViewComputed(Message):
    """The trained toy's forward pass finished (in a worker) for the inputs now on screen."""

    view: TrainedView


@dataclass
class ToyViewRefused(Message):
    """The trained mode's inputs were refused; `message` says why in the user's words."""

    inputs: TrainedInputs
    message: str


@dataclass
class ToyTrainingProgressed(Message):
    """Training reached a report: the progress line, and the heads as they are now (None if the inputs
    on screen cannot be drawn)."""

    text: str
    view: TrainedView | None


@dataclass
class ToyTrainingEnded(Message):
    """Training finished (`model` set) or was stopped or failed (`model` None)."""

    model: ToyModel | None
    text: str


@dataclass
class AnswerSaved(Message):
    """A study write (an answer, a rating, an undo, a question set aside) was committed in the save worker;
    `then` shows its `outcome` on the screen."""

    outcome: Any
    then: Callable[[Any], Awaitable[None]]


@dataclass
class SaveFailed(Message):
    """A study write in the save worker raised; nothing of it was committed."""

    error: Exception


@dataclass
class Fetched(Message):
    """A read from the progress database (stats, past interviews, a report) finished in a worker; `then`
    shows its `outcome` on the screen."""

    outcome: Any
    then: Callable[[Any], Awaitable[None]]


@dataclass
class FetchFailed(Message):
    """A read in a worker raised; the screen stays as it was."""

    error: Exception


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
