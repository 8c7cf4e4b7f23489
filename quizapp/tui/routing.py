"""Provides the one way to open a screen: every screen by name in one registry, and the Router protocol
through which screens ask the app for things without importing it.

Screens say `self.router.open_screen("stats")` or `open_screen("report", report, replace=True)`; the app
looks the name up here, imports the screen's module only then, and pushes it. The help screen reads the
same registry to list every key of every screen, so a new screen cannot be forgotten there.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from textual.screen import Screen
    from textual.widget import Widget

    from quizapp.study.session import SessionMode
    from quizapp.tui.backend import AppConfig, Backend


@dataclass(frozen=True)
class ScreenEntry:
    """A screen the app can open: its name, what the help calls it, and where its class lives."""

    name: str
    title: str
    target: str
    """"module:Class", imported on first use so start-up loads only the home screen."""
    needs_backend: bool = True
    """Opening waits for the decks to load (help and home do not need them)."""

    def screen_class(self) -> type[Screen[Any]]:
        module, _, name = self.target.partition(":")
        cls: type[Screen[Any]] = getattr(importlib.import_module(module), name)
        return cls


SCREENS: tuple[ScreenEntry, ...] = (
    ScreenEntry("home", "Home", "quizapp.tui.screens.home:HomeScreen", needs_backend=False),
    ScreenEntry("study", "Study, drill and cram", "quizapp.tui.screens.study:StudyScreen"),
    ScreenEntry(
        "interview", "Mock interview: set-up", "quizapp.tui.screens.interview_setup:InterviewSetupScreen"
    ),
    ScreenEntry("interview-run", "Mock interview: running", "quizapp.tui.screens.interview:InterviewScreen"),
    ScreenEntry("interview-end", "End the interview?", "quizapp.tui.screens.interview:EndInterviewScreen"),
    ScreenEntry("report", "Interview report", "quizapp.tui.screens.interview_report:InterviewReportScreen"),
    ScreenEntry("history", "Past interviews", "quizapp.tui.screens.interview_history:InterviewHistoryScreen"),
    ScreenEntry("explore", "Explore", "quizapp.tui.screens.explore:ExploreScreen"),
    ScreenEntry(
        "trained",
        "Explore: the trained toy",
        "quizapp.tui.screens.trained:TrainedScreen",
        needs_backend=False,
    ),
    ScreenEntry("browser", "Card browser", "quizapp.tui.screens.browser:BrowserScreen"),
    ScreenEntry("exercises", "Coding exercises", "quizapp.tui.screens.exercises:ExercisePickerScreen"),
    ScreenEntry("stats", "Stats", "quizapp.tui.screens.stats:StatsScreen"),
    ScreenEntry("settings", "Settings", "quizapp.tui.screens.settings:SettingsScreen"),
    ScreenEntry("settings-leave", "Leave the settings?", "quizapp.tui.screens.settings:LeaveSettingsScreen"),
    ScreenEntry("help", "Help", "quizapp.tui.screens.help:HelpScreen", needs_backend=False),
)
REGISTRY: dict[str, ScreenEntry] = {entry.name: entry for entry in SCREENS}


class Router(Protocol):
    """What a screen may ask of the app (QuizApp implements it)."""

    backend: Backend | None
    config: AppConfig

    def open_screen(
        self, name: str, *args: Any, replace: bool = False, callback: Callable[[Any], None] | None = None
    ) -> None: ...

    def start_session(
        self,
        mode: SessionMode,
        *,
        deck_id: str | None = None,
        question_ids: tuple[str, ...] | None = None,
        title: str = "",
        until_solved: bool = False,
    ) -> None: ...

    def require_backend(self) -> Backend | None: ...

    def report_error(self, exc: BaseException) -> None: ...

    def set_blink(self, root: Widget) -> None: ...
