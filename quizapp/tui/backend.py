"""Provides Backend: the loaded catalog, the open store, the clock and the rng every screen shares.

Loading happens once, in a worker thread (the first run parses every deck), and hands a Backend to the
app. Screens ask the Backend for core objects; they never open files or databases themselves.
"""

from __future__ import annotations

import functools
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from quizapp import __version__, paths
from quizapp.config import system_now
from quizapp.errors import QuizappError
from quizapp.terminal_text import terminal_text

if TYPE_CHECKING:
    from quizapp.config import UserConfig
    from quizapp.content.catalog import Catalog
    from quizapp.content.deck import DeckRef
    from quizapp.content.instance import Instance
    from quizapp.records.settings import Settings
    from quizapp.reports.overview import Overview
    from quizapp.study import QuestionSet
    from quizapp.study.plan import Plan
    from quizapp.study.readiness import Readiness
    from quizapp.workspace import Store, Workspace

Clock = Callable[[], datetime]


@dataclass(frozen=True)
class AppConfig:
    """How the app was started: where progress lives, what time it is, how randomness is seeded."""

    db_path: Path | None = None
    clock: Clock | None = None
    rng_seed: int | None = None
    content_paths: tuple[Path, ...] = ()
    fuzzing: bool = True
    cursor_blink: bool = True
    """Off in snapshot tests, so every screenshot shows the cursor the same way."""
    catalog: Catalog | None = None
    """A catalog loaded already (tests share one); None loads the bundled and user decks."""
    user: UserConfig | None = None
    """config.toml and `--decks`: setting defaults, deck folders, keymap, and the problems to show."""
    report: Callable[[str], None] | None = None
    """Receives a warning, from whichever thread wrote, when the daily backup of the database fails."""

    def now(self) -> datetime:
        """The current time from the injected clock, or the system's (aware, local zone, moved by
        $QUIZAPP_TODAY: quizapp.config.system_now)."""
        if self.clock is not None:
            return self.clock()
        return system_now()

    def deck_key(self) -> tuple[str, ...]:
        """What a remembered deck list is good for (quizapp.content.remembered_decks): this version, its
        bundled decks and this run's deck folders."""
        folders = (*self.content_paths, *(self.user.deck_dirs if self.user is not None else ()))
        # resolved: `--decks decks` from two folders is two keys
        return (__version__, str(paths.bundled_content_dir()), *(str(p.resolve()) for p in folders))


@dataclass(eq=False)
class Backend:
    """Everything loaded at start: the screens read from it and call core functions with it."""

    config: AppConfig
    catalog: Catalog
    rng: random.Random
    workspace: Workspace
    """The store and catalog as opened (quizapp.workspace), which caches the interview plan; screens reach
    the store through it (and hand `store` on to core functions in their workers)."""
    skipped_decks: tuple[str, ...] = ()
    """Names of the deck files that failed to load (their questions are left out)."""
    notices: tuple[str, ...] = ()
    decks: tuple[DeckRef, ...] = field(default=())
    last_settings: Settings | None = None
    """The settings as last read or saved (in a worker): forms open with them without a store read."""

    def now(self) -> datetime:
        return self.config.now()

    @property
    def store(self) -> Store:
        """The workspace's open progress database, for the core functions a worker calls."""
        return self.workspace.store

    @functools.cached_property
    def questions(self) -> QuestionSet:
        """Every question in the order to introduce them: built when a session or an interview first
        asks, not at start-up, where the home screen needs only the counts."""
        from quizapp.study import QuestionSet

        return QuestionSet.from_catalog(self.catalog)

    def settings(self) -> Settings:
        """Reads the settings (a store read: call it in a worker) and keeps them in last_settings."""
        self.last_settings = self.workspace.settings()
        return self.last_settings

    def save_settings(self, settings: Settings, *, today: date | None = None) -> Settings:
        """Saves the settings (a write: call it in a worker); returns them as the store validated them.
        With `today`, a changed interview date in the past is refused."""
        self.last_settings = self.workspace.save_settings(settings, today=today)
        return self.last_settings

    def code_question_in(self, questions: QuestionSet) -> Instance | None:
        """A code question of `questions`, made concrete (call it in a worker): what a study screen
        builds its editor with while its first card is read. None when there is none."""
        for ref in questions.ordered:
            if self.catalog.type_of(ref.question_id) == "code":
                return self.catalog.instance(ref.question_id, 0)
        return None

    def code_text(self, question_id: str, starter: str) -> str:
        """What a code question's editor opens with: the draft (every Ctrl+R here keeps one), else the
        starter code, with the code last submitted below it as comments. That code may come from an
        imported progress file, someone else's: Ctrl+R must never run it unread, so it is text until the
        learner uncomments it."""
        from quizapp.study.drafts import load_draft  # quizapp.study's package: 80 ms, in a worker

        draft = load_draft(question_id)
        if draft is not None:
            return terminal_text(draft)
        return with_last_answer(starter, self.workspace.last_answer(question_id))

    def overview(self) -> Overview:
        """Home's counts; a daily budget's new-card limit comes from the workspace's cached plan."""
        from quizapp.reports.overview import build_overview

        now = self.now()
        return build_overview(
            self.store, self.decks, now=now, questions=self.workspace.plan_questions, plan=self.plan(now)
        )

    def plan(self, now: datetime) -> Plan | None:
        """The interview plan at `now`, cached by the workspace until something is saved or the day turns:
        home's counts, plan line and readiness and a study session's start all read this one (a worker)."""
        return self.workspace.plan(now)

    def readiness(self) -> Readiness:
        """Each deck's expected recall on the interview day (or in 7 days), by FSRS's forgetting curve:
        the cached plan's when an interview date is set."""
        return self.workspace.readiness(self.now())

    def plan_line(self) -> str:
        """The interview plan in one line for home ("" when no date is set), with the minutes a day and
        what the daily budget left out; the plan is cached by the workspace until an answer is saved or
        the day turns."""
        plan = self.workspace.plan(self.now())
        if plan is None:
            return ""
        line = plan.summary()
        if plan.passed:
            return line
        if plan.minutes_per_day:
            line += f"; about {plan.minutes_per_day:.0f} min a day"
        if plan.left_out and plan.budget_minutes is not None:
            line += (
                f" ({len(plan.left_out)} left out to fit your {plan.budget_minutes:g} min: "
                "`quizapp plan` says which and why)"
            )
        return line + "\n" + self.today_line(plan)

    def today_line(self, plan: Plan) -> str:
        """Today's queue in one line (how many questions, from how many decks, which first), in the order
        a study session asks them: the session's own code (StudySession.today_queue). In a worker."""
        from quizapp.reports.plan_text import queue_line
        from quizapp.study.session import StudySession

        queue = StudySession.today_queue(
            self.catalog,
            self.store,
            self.questions,
            now=self.now(),
            plan_questions=self.workspace.plan_questions,
            plan=plan,
        )
        return queue_line(queue, {q: d.id for d in self.decks for q in d.question_ids})

    def fit_weights(self) -> tuple[str, bool]:
        """Runs the FSRS optimizer on the user's history: (what it found in words, whether it ran)."""
        from quizapp.study.optimize import describe_fit, fit_and_save

        try:
            return describe_fit(*fit_and_save(self.store)), True
        except QuizappError as exc:
            return str(exc), False

    def close(self) -> None:
        """Closes the progress database (every answer was committed when it was given)."""
        self.workspace.close()

    def deck_title(self, deck_id: str) -> str:
        for deck in self.decks:
            if deck.id == deck_id:
                return deck.title
        return deck_id


def load_backend(config: AppConfig) -> Backend:
    """Opens the store and loads the catalog (slow on a first run: call it from a worker thread)."""
    from quizapp.workspace import open_workspace

    workspace = open_workspace(
        config.db_path,
        clock=config.now,
        user=config.user,
        deck_paths=config.content_paths,
        catalog=config.catalog,
        report=config.report,
    )
    store, catalog = workspace.store, workspace.catalog
    decks = catalog.deck_refs()
    skipped = tuple(s.deck_id or Path(s.file).stem for s in catalog.skipped)
    return Backend(
        config=config,
        catalog=catalog,
        rng=random.Random(config.rng_seed),
        workspace=workspace,
        skipped_decks=skipped,
        notices=(store.notice,) if store.notice else (),
        decks=decks,
    )


LAST_ANSWER_SHOWN = 20_000
"""Characters of a previous answer shown in the editor (as comments): a longer one is cut."""


def with_last_answer(starter: str, last: str | None) -> str:
    """The starter, then `last` (the code last submitted, maybe imported) as comments: shown, not run."""
    if last is None or last.strip() == starter.strip():
        return starter
    cut = terminal_text(last[:LAST_ANSWER_SHOWN])  # never an escape sequence in the editor
    lines = "\n".join(f"# {line}".rstrip() for line in cut.splitlines())
    more = "\n# ... (cut: the rest is in your history)" if len(last) > LAST_ANSWER_SHOWN else ""
    return (
        f"{starter.rstrip()}\n\n"
        "# Your last submitted code (from your history, perhaps an imported progress file), as comments:\n"
        "# it is not run. Read it, then uncomment what you want to keep.\n"
        f"{lines}{more}\n"
    )
