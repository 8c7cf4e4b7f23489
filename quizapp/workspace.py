"""Provides the workspace: the progress store and the question catalog, opened the same way by the app and
the command line, and the interview plan built from them, cached until something is saved or the day turns.

```python
with open_workspace(None, clock=clock, user=load_config()) as ws:
    print(ws.plan_line(clock()))       # the catalog is loaded on first use
```
Everything heavy is imported on first use, so the app's start-up pays only for what it shows.
"""

from __future__ import annotations

import contextlib
import functools
import os
import re
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from quizapp.config import UserConfig
    from quizapp.content.catalog import Catalog
    from quizapp.store.database import Store
    from quizapp.study.plan import Plan, PlanQuestion
    from quizapp.study.readiness import Readiness

Clock = Callable[[], datetime]
Report = Callable[[str], None]

TODAY_ENV = "QUIZAPP_TODAY"
"""YYYY-MM-DD: moves the app's clock (every command and the app) to that day, at the real time of day."""
_TODAY_FORM = re.compile(r"\d{4}-\d{2}-\d{2}")
_shifts: dict[str, timedelta] = {}
"""$QUIZAPP_TODAY -> the days it moves the clock by, fixed at its first reading: past midnight the moved day
turns too, as the real one does."""


def system_now() -> datetime:
    """The one place the app reads the system clock: now, aware, in the local zone. With $QUIZAPP_TODAY
    (YYYY-MM-DD) the date moves there and the time of day stays, so a learner can see what their plan, the
    study queue and the interview countdown do in a week; a malformed value is a QuizappError."""
    now = datetime.now().astimezone()
    value = os.environ.get(TODAY_ENV, "").strip()
    if not value:
        return now
    shift = _shifts.get(value)
    if shift is None:
        shift = _shifts.setdefault(value, moved_today(value) - now.date())
    return datetime.combine(now.date() + shift, now.time()).astimezone()  # the zone of the moved day


def moved_today(value: str) -> date:
    """The day $QUIZAPP_TODAY names, or a QuizappError that says how to write it."""
    from quizapp.errors import QuizappError

    day = None
    if _TODAY_FORM.fullmatch(value):
        with contextlib.suppress(ValueError):  # 2026-02-30
            day = date.fromisoformat(value)
    if day is None or not 1971 <= day.year <= 9998:
        raise QuizappError(
            f"{TODAY_ENV}={value[:40]!r} is not a day: write it as YYYY-MM-DD (e.g. {TODAY_ENV}=2026-03-09), "
            "a year from 1971 to 9998, or unset it."
        )
    return day


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
    from quizapp.store.database import open_store
    from quizapp.store.rolling_backup import automatic_backup

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
                from quizapp.content.catalog import load_catalog

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
        key = (self.store.change_stamp(), now.astimezone().date())
        with self._plan_lock:
            if key == self._plan_key:
                return self._plan
            from quizapp.study.planning import interview_plan

            plan = interview_plan(
                self.store, self.catalog.deck_headers(), now=now, questions=self.plan_questions
            )
            self._plan_key, self._plan = key, plan
            return plan

    def readiness(self, now: datetime) -> Readiness:
        """Each deck's expected recall on the interview day: the cached plan's, or without an interview
        date, READINESS_DAYS ahead (quizapp.study.readiness)."""
        from quizapp.reports.stats import readiness_for

        return readiness_for(self.store, self.catalog.deck_headers(), now=now, plan=self.plan(now))

    def plan_line(self, now: datetime) -> str:
        """The plan in one line for home ("" when no interview date is set)."""
        plan = self.plan(now)
        return "" if plan is None else plan.summary()

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


def _ignore(_: str) -> None:
    """A backup failure nobody asked to hear about."""
