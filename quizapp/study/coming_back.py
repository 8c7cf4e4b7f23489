"""Provides ComingBack: what a finished study session still has to come, and the wait for it.

A failed card comes back in minutes (its learning steps), so a session that ends with "complete" while
cards return within the quarter hour leaves the learner guessing. As Anki's end screen does, this counts
the cards that come back later today and when, or, with none, when the next card is due; `ready(now)` is
the one decision the study screen's countdown asks, with the app's clock.
"""

from __future__ import annotations

import math
from collections.abc import Container
from dataclasses import dataclass
from datetime import datetime, timedelta

from quizapp.store.buried import buried_on
from quizapp.store.cards import due_page
from quizapp.store.database import Store
from quizapp.store.times import day_start, from_us, to_us

PAGE = 200
LAST_ID = "\U0010ffff"
"""Sorts after every question id: paging from (now, LAST_ID) starts strictly after `now`."""


@dataclass(frozen=True)
class ComingBack:
    """The cards that come back later today (count, first and last due time), counted at `now`; with
    none, when the next card is due (None: no card is scheduled at all)."""

    now: datetime
    later_today: int = 0
    first: datetime | None = None
    last: datetime | None = None
    next_due: datetime | None = None

    def ready(self, now: datetime) -> bool:
        """Whether the first card that comes back later today is due at `now` (waiting is over)."""
        return self.first is not None and now >= self.first

    def summary(self) -> str:
        """One sentence for the end of a session ("" when nothing is scheduled at all)."""
        if self.first is not None and self.last is not None:
            first = f"at {self._clock(self.first)} ({in_time(self.first - self.now)})"
            if self.later_today == 1:
                return f"1 card comes back later today, {first}."
            last = f"at {self._clock(self.last)} ({in_time(self.last - self.now)})"
            return f"{self.later_today} cards come back later today: the first {first}, the last {last}."
        if self.next_due is not None:
            return (
                f"Nothing more is due today. The next card is due {self._day(self.next_due)} at "
                f"{self._clock(self.next_due)} ({in_time(self.next_due - self.now)})."
            )
        return ""

    def countdown(self, now: datetime) -> str:
        """The wait at `now`: "2 cards come back in 4:05 (at 09:35)"."""
        if self.first is None:
            return ""
        left = max(0, math.ceil((self.first - now).total_seconds()))
        hours, rest = divmod(left, 3600)
        wait = f"{hours}:{rest // 60:02d}:{rest % 60:02d}" if hours else f"{rest // 60}:{rest % 60:02d}"
        cards = "1 card comes" if self.later_today == 1 else f"{self.later_today} cards come"
        return f"{cards} back in {wait} (at {self._clock(self.first)})"

    def _local(self, when: datetime) -> datetime:
        """`when` in the zone of the clock that counted it (the learner's)."""
        return when.astimezone(self.now.tzinfo)

    def _clock(self, when: datetime) -> str:
        return self._local(when).strftime("%H:%M")

    def _day(self, when: datetime) -> str:
        days = (self._local(when).date() - self.now.date()).days
        if days == 1:
            return "tomorrow"
        return "on " + self._local(when).strftime("%a %d %b").replace(" 0", " ")


def in_time(wait: timedelta) -> str:
    """ "in 3 min", "in 2 h 5 min", "in 4 days": minutes rounded up, so "in 0 min" is never said."""
    minutes = max(1, math.ceil(wait.total_seconds() / 60))
    if minutes < 60:
        return f"in {minutes} min"
    if minutes < 48 * 60:
        hours, rest = divmod(minutes, 60)
        return f"in {hours} h {rest} min" if rest else f"in {hours} h"
    return f"in {round(minutes / 1440)} days"


def coming_back(store: Store, questions: Container[str], *, now: datetime) -> ComingBack:
    """What comes back after `now` among `questions` (the session's, buried ones left out): the cards
    due before the end of `now`'s local day, else the first one due after it. Reads the cards soonest due
    first, a page at a time, and stops as soon as the answer is known."""
    today = day_start(now)
    end_us = to_us(today + timedelta(days=1))
    buried = buried_on(store, today.date())
    count, first_us, last_us = 0, 0, 0
    after = (to_us(now), LAST_ID)
    while page := due_page(store, after, PAGE):
        for qid, due_us in page:
            if qid not in questions or qid in buried:
                continue
            if due_us >= end_us:
                if not count:
                    return ComingBack(now, next_due=from_us(due_us))
                return ComingBack(now, count, from_us(first_us), from_us(last_us))
            first_us = first_us if count else due_us
            count, last_us = count + 1, due_us
        after = (page[-1][1], page[-1][0])
    if not count:
        return ComingBack(now)
    return ComingBack(now, count, from_us(first_us), from_us(last_us))
