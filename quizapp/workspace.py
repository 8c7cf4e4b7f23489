"""Provides the workspace: the progress store and the question catalog, opened the same way by the app and
the command line, and the interview plan built from them, cached until something is saved or the day turns.

```python
with open_workspace(None, clock=clock, user=load_config()) as ws:
    print(ws.plan_line(clock()))       # the catalog is loaded on first use
```
The catalog and the plan are built on first use. Importing this module loads the store's and the catalog's
code; the plan's and readiness's (quizapp.study, quizapp.reports) wait for their first use, so the app's
load worker draws the deck table about 40 ms sooner (benchmarks/startup.py, home + decks).
"""

from __future__ import annotations

import functools
import os
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import date, datetime
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING

from quizapp.content.catalog import load_catalog
from quizapp.errors import QuizappError
from quizapp.store.connection import BUSY_TIMEOUT_S
from quizapp.store.interviews import list_interviews
from quizapp.store.opening import open_store
from quizapp.store.reviews import reviews_for
from quizapp.store.rolling_backup import automatic_backup
from quizapp.store.settings import load_settings, save_settings
from quizapp.store.sqlite_errors import damaged as damaged_page
from quizapp.store.sqlite_errors import from_the_store as sqlite_error

if TYPE_CHECKING:
    from quizapp.config import UserConfig
    from quizapp.content.catalog import Catalog
    from quizapp.records.interviews import InterviewSummary
    from quizapp.records.settings import Settings
    from quizapp.store.database import Store as Store  # named here for the TUI, which never imports the store
    from quizapp.study.plan import Plan, PlanQuestion
    from quizapp.study.readiness import Readiness

Clock = Callable[[], datetime]
Report = Callable[[str], None]


def open_progress(
    db: str | os.PathLike[str] | None,
    *,
    clock: Clock,
    user: UserConfig | None = None,
    report: Report,
    now: datetime | None = None,
) -> Store:
    """The progress database (`db`, or the default one) with config.toml's setting defaults, and the daily
    rolling backup when it is the default database (`clock` tells its day at each first write; `report`
    receives a backup that failed). `now` (else `clock()`) stamps a damaged file moved aside. Anything
    opening repaired is in `store.notice`, for the caller to show."""
    defaults = user.setting_defaults() if user is not None else None
    backup = automatic_backup(db, clock, report)
    return open_store(db, now=now or clock(), defaults=defaults, backup=backup)


@dataclass(eq=False)
class Workspace:
    """An open store and the catalog of questions, for one run of the app or of a command."""

    store: Store
    deck_paths: tuple[Path, ...] = ()
    """Deck files and folders beyond the bundled ones (the user's, config.toml's, `--decks`)."""
    preloaded: Catalog | None = None
    """A catalog loaded already (tests share one); None loads the bundled decks and `deck_paths`."""
    _catalog: Catalog | None = field(default=None, repr=False)
    _plan_key: tuple[object, ...] | None = field(default=None, repr=False)
    _plan: Plan | None = field(default=None, repr=False)
    _plan_lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    @property
    def catalog(self) -> Catalog:
        """The questions, loaded on first use (slow on a first run, when every deck is parsed)."""
        if self._catalog is None:
            if self.preloaded is not None:
                self._catalog = self.preloaded
            else:
                self._catalog = load_catalog(self.deck_paths)
        return self._catalog

    @functools.cached_property
    def plan_questions(self) -> dict[str, PlanQuestion]:
        """Each question's type and difficulty, which price a day of the plan in minutes, and its
        near-duplicate family and deck prerequisites, which order it (built once)."""
        from quizapp.study.plan import PlanQuestion
        from quizapp.study.priority import family_key

        outlines = self.catalog.question_outlines()  # from the deck headers: no question model is built
        return {
            q.question_id: PlanQuestion(
                q.type, q.difficulty, family_key(q.deck_id, q.type, q.tags), tuple(q.deck_after)
            )
            for q in outlines
        }

    def plan(self, now: datetime) -> Plan | None:
        """The interview plan over the whole catalog at `now`, or None without an interview date.

        Cached under the store's change stamp and the local date: going home again costs one PRAGMA, and
        any saved answer, setting or import (from any process), or a new day, builds it afresh. Home's
        counts, its plan line and readiness, and a study session's start all read this one plan; a second
        thread asking while it is built waits for it rather than building it again."""
        from quizapp.study.stored_plan import interview_plan

        key = (self.store.change_stamp(), now.astimezone().date())
        with self._plan_lock:
            if key == self._plan_key:
                return self._plan

            plan = interview_plan(
                self.store, self.catalog.deck_refs(), now=now, questions=self.plan_questions
            )
            self._plan_key, self._plan = key, plan
            return plan

    def readiness(self, now: datetime) -> Readiness:
        """Each deck's expected recall on the interview day: the cached plan's, or without an interview
        date, READINESS_DAYS ahead (quizapp.study.readiness)."""
        from quizapp.reports.stats import readiness_for

        return readiness_for(self.store, self.catalog.deck_refs(), now=now, plan=self.plan(now))

    def plan_line(self, now: datetime) -> str:
        """The plan in one line for home ("" when no interview date is set)."""
        plan = self.plan(now)
        return "" if plan is None else plan.summary()

    def settings(self) -> Settings:
        """The settings in force (a store read), with config.toml's defaults for those never saved."""
        return load_settings(self.store)

    def save_settings(self, settings: Settings, *, today: date | None = None) -> Settings:
        """Validates and saves `settings` (a write); returns them as the store validated them. With `today`,
        a changed interview date in the past is refused (quizapp.store.settings.save_settings)."""
        return save_settings(self.store, settings, today=today)

    def last_answer(self, question_id: str) -> str | None:
        """The last answer given to the question that is not blank, or None (a code question's editor
        shows it as comments)."""
        answered = [r.answer for r in reviews_for(self.store, question_id) if r.answer.strip()]
        return answered[-1] if answered else None

    def interviews(self) -> tuple[InterviewSummary, ...]:
        """Every saved mock interview, newest first (a store read)."""
        return list_interviews(self.store)

    def close(self) -> None:
        """Closes the progress database (every answer was committed when it was given)."""
        self.store.close()

    def __enter__(self) -> Workspace:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()


def open_workspace(
    db: str | os.PathLike[str] | None,
    *,
    clock: Clock,
    user: UserConfig | None = None,
    deck_paths: Iterable[Path] = (),
    catalog: Catalog | None = None,
    report: Report | None = None,
    now: datetime | None = None,
) -> Workspace:
    """Opens the store (see open_progress); the catalog of the bundled decks, `deck_paths` and the user's
    deck folders is loaded when first asked for, unless `catalog` is given."""
    store = open_progress(db, clock=clock, user=user, report=report or _ignore, now=now)
    paths = (*deck_paths, *(user.deck_dirs if user is not None else ()))
    return Workspace(store=store, deck_paths=paths, preloaded=catalog)


def from_the_store(exc: BaseException) -> bool:
    """True for an error SQLite raised: after the app closed the store on its way out, a worker still
    reading meets one, and nothing is lost (quizapp.store.sqlite_errors.from_the_store)."""
    return sqlite_error(exc)


def damaged(exc: BaseException) -> QuizappError | None:
    """The user's words for a database page SQLite found damaged while the app runs (where the backups are
    and how to restore one), or None: not that (quizapp.store.sqlite_errors.damaged)."""
    return damaged_page(exc)


def busy_timeout_s() -> float:
    """Seconds opening or writing the store waits for another quizapp's transaction before giving up."""
    return BUSY_TIMEOUT_S


def _ignore(_: str) -> None:
    """A backup failure nobody asked to hear about."""
