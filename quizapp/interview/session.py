"""Provides the mock interview: set-up, seeded question choice, a countdown on an injected clock, skip and
flag, silent grading with every answer saved as it is given, and the report (see interview_report).

```python
session = InterviewSession.start(catalog, store, questions, InterviewConfig(questions=5), rng=rng, now=t0)
session.submit("80 GiB", now=t1)       # graded and saved; nothing about correctness is returned
session.skip(now=t2)                   # saved as skipped
session.end("(2, 8", now=t3)           # time up (or ended): the open answer is saved as it stands
report = session.finish(now=t3)        # the same InterviewReport `open_report` rebuilds later
```
No feedback during the run: `submit` only says whether the text could be read. Numeric, tensor, shape and
choice answers are graded by quizapp.grading, and explain answers are read point by point the same way
(a Good or Hard reading counts as right; the report shows each point's status). Flashcards are
self-rated recall cards, so interviews leave them out. Whether answers move the FSRS schedule is the
user's choice at set-up (`update_schedule`, off by default).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from quizapp.content.instance import Instance
from quizapp.errors import QuizappError
from quizapp.grading import Verdict, grade
from quizapp.grading.code_try import try_code
from quizapp.grading.explain_reading import points_code
from quizapp.interview.report import SCORED_KINDS, InterviewReport, build_report, expected_for
from quizapp.interview.setup import _at_most_one_code, _with_code, candidates, check_config, choose
from quizapp.store import (
    InterviewAnswer,
    InterviewConfig,
    Store,
    add_interview_answer,
    finish_interview,
    load_interview,
    load_settings,
    start_interview,
)
from quizapp.store.browse import make_due
from quizapp.store.interviews import save_last_setup
from quizapp.store.reviews import answered_before, missed_since
from quizapp.store.times import day_start
from quizapp.study import QuestionRef, QuestionSet, fresh_seed, record_review, scheduler_for
from quizapp.study.queues import drawable_instance
from quizapp.study.session import Unreadable

if TYPE_CHECKING:
    from fsrs import Scheduler

    from quizapp.content.catalog import Catalog
    from quizapp.grading.code_try import CodeTry

TIME_UP = "Time ran out before an answer was given."
ENDED = "The interview was ended before this was answered."


@dataclass(frozen=True)
class Asked:
    """The question on screen: its place in the interview, the instance, and when it was shown."""

    number: int
    total: int
    instance: Instance
    shown_at: datetime
    flagged: bool = False


@dataclass(frozen=True)
class Saved:
    """The answer was saved; `next` is the following question, or None when the interview is over."""

    position: int
    next: Asked | None


class InterviewSession:
    """A running mock interview: one question at a time against a deadline, every answer saved at once."""

    def __init__(
        self,
        catalog: Catalog,
        store: Store,
        interview_id: int,
        config: InterviewConfig,
        plan: Sequence[tuple[QuestionRef, Instance]],
        *,
        started_at: datetime,
        scheduler: Scheduler | None,
    ) -> None:
        self.catalog = catalog
        self.store = store
        self.id = interview_id
        self.config = config
        self.plan = tuple(plan)
        self.started_at = started_at
        self.deadline = started_at + timedelta(minutes=config.minutes)
        self.scheduler = scheduler
        self._index = 0
        self._skipped = 0
        self._current: Asked | None = None
        self.finished = False
        self.problems: list[str] = []
        if self.plan:
            self._current = Asked(1, len(self.plan), self.plan[0][1], started_at)

    @classmethod
    def start(
        cls,
        catalog: Catalog,
        store: Store,
        questions: QuestionSet,
        config: InterviewConfig,
        *,
        rng: random.Random,
        now: datetime,
        fuzzing: bool = True,
    ) -> InterviewSession:
        """Chooses the questions with `rng`, builds their instances, and saves the set-up (the saved
        config holds the seed and the number of questions really asked)."""
        check_config(config)
        pool = candidates(catalog, questions, config)
        seed = fresh_seed(rng)
        pick = random.Random(seed)
        plan: list[tuple[QuestionRef, Instance]] = []
        problems: list[str] = []
        pool = _at_most_one_code(catalog, pool, pick)
        for ref in _with_code(catalog, pool, choose(pool, config.questions, config.difficulty_mix, pick)):
            try:
                plan.append((ref, drawable_instance(catalog, ref.question_id, fresh_seed(pick))))
            except Exception as exc:  # a broken template is left out, never shown half-made
                problems.append(f"{ref.question_id}: {exc}")
        if not plan:
            raise QuizappError("None of the chosen questions could be built: " + "; ".join(problems))

        misses = config.misses_to_review
        if misses is None:
            misses = load_settings(store).interview_misses_to_review
        unscored = tuple(i for i, (_, inst) in enumerate(plan, start=1) if inst.kind not in SCORED_KINDS)
        saved = replace(config, questions=len(plan), seed=seed, unscored=unscored, misses_to_review=misses)
        interview_id = start_interview(store, saved, now=now)
        save_last_setup(store, replace(config, misses_to_review=misses))
        scheduled = config.update_schedule or misses
        scheduler = scheduler_for(store, fuzzing=fuzzing) if scheduled else None
        session = cls(catalog, store, interview_id, saved, plan, started_at=now, scheduler=scheduler)
        session.problems = problems
        return session

    # -- the clock ----------------------------------------------------------------------------------------

    def remaining(self, now: datetime) -> float:
        """Seconds left before the deadline (0 when time is up)."""
        return max(0.0, (self.deadline - now).total_seconds())

    def time_up(self, now: datetime) -> bool:
        return now >= self.deadline

    def countdown(self, now: datetime) -> str:
        """The header's countdown, "29:59" (rounded up, so it reads 0:00 only when time is up)."""
        return format_clock(self.remaining(now))

    # -- the run ------------------------------------------------------------------------------------------

    @property
    def current(self) -> Asked | None:
        return self._current

    @property
    def answered(self) -> int:
        """Questions answered so far: a skip is not an answer (as the report and the history count)."""
        return self._index - self._skipped

    @property
    def skipped(self) -> int:
        """Questions passed on so far (Ctrl+N)."""
        return self._skipped

    def submit(self, text: str, *, now: datetime) -> Saved | Unreadable:
        """Grades and saves the answer to the open question, silently. Unreadable text is not saved
        (the message says which forms are accepted); an empty explanation counts as unreadable."""
        asked = self._open()
        inst = asked.instance
        if inst.kind == "explain" and not text.strip():
            return Unreadable("Write your explanation first (Ctrl+S submits it).")
        ref = self.plan[asked.number - 1][0]
        seconds = self._seconds(asked, now)
        verdict = grade(
            inst,
            text,
            seconds=seconds,
            interview=True,
            new_card=self._is_new(ref),
            missed_today=missed_since(self.store, ref.question_id, day_start(now)),
        )
        if verdict.unparseable:
            return Unreadable(verdict.message)
        return self._save(asked, text, now=now, verdict=verdict)

    def try_code(self, text: str) -> CodeTry:
        """Tries the open code question's code on practice cases (quizapp.grading.code_try): nothing is
        graded or saved and the question stays open; `submit` is the answer."""
        inst = self._open().instance
        if inst.kind != "code":
            raise QuizappError("Only code is tried before it is submitted.")

        return try_code(inst, text)

    def skip(self, *, now: datetime) -> Saved:
        """Passes on the open question; it is saved as skipped (wrong) and is not asked again."""
        return self._save(self._open(), "", now=now, skipped=True)

    def toggle_flag(self) -> bool:
        """Marks (or unmarks) the open question to look at again in the report; returns the new state."""
        asked = self._open()
        self._current = replace(asked, flagged=not asked.flagged)
        return self._current.flagged

    def end(self, open_text: str, *, now: datetime) -> None:
        """Stops the run: time is up, or the user ended it. The open answer is graded and saved as it
        stands (unreadable text counts as wrong, empty text as not answered); the questions after it are
        not reached."""
        if self._current is None or self.finished:
            return
        asked = self._current
        reason = TIME_UP if self.time_up(now) else ENDED
        if open_text.strip():
            self._save(asked, open_text, now=now, stopped=reason)
        else:
            self._save(asked, "", now=now, skipped=True, stopped=reason)
        self._current = None

    def finish(self, *, now: datetime) -> InterviewReport:
        """Ends the interview (early, on time, or after the last answer) and returns its saved report."""
        if not self.finished:
            finish_interview(self.store, self.id, now=now)
            self.finished = True
            self._current = None
        return open_report(self.store, self.catalog, self.id)

    # -- internals ----------------------------------------------------------------------------------------

    def _open(self) -> Asked:
        if self._current is None or self.finished:
            raise QuizappError("The interview is over; there is no open question.")
        return self._current

    def _is_new(self, ref: QuestionRef) -> bool:
        """No answer to the question is on record, in any mode: then a right answer is rated Good at most,
        never Easy (as study rules): one success at a question never met is no evidence it is known well
        enough to send far away, and with `update_schedule` the rating moves the card. Reads the store, so
        the screen calls submit and end in a worker."""
        return not answered_before(self.store, ref.question_id)

    def _seconds(self, asked: Asked, now: datetime) -> float:
        end = min(now, self.deadline)
        return max(0.0, (end - asked.shown_at).total_seconds())

    def _save(
        self,
        asked: Asked,
        text: str,
        *,
        now: datetime,
        verdict: Verdict | None = None,
        skipped: bool = False,
        stopped: str | None = None,
    ) -> Saved:
        """Saves one answer: a review (graded kinds only) and the interview row, in one transaction."""
        with self.store.transaction():
            position = self._write(asked, text, now=now, verdict=verdict, skipped=skipped, stopped=stopped)
        self._index = asked.number
        self._skipped += skipped
        if self._index < len(self.plan):
            self._current = Asked(self._index + 1, len(self.plan), self.plan[self._index][1], now)
        else:
            self._current = None
        return Saved(position=position, next=self._current)

    def _write(
        self,
        asked: Asked,
        text: str,
        *,
        now: datetime,
        verdict: Verdict | None,
        skipped: bool,
        stopped: str | None,
    ) -> int:
        ref, inst = self.plan[asked.number - 1]
        seconds = self._seconds(asked, now)
        correct, diagnosis, diagnosis_id = False, stopped if skipped else None, None
        if not skipped:
            verdict = verdict or grade(
                inst,
                text,
                seconds=seconds,
                interview=True,
                new_card=self._is_new(ref),
                missed_today=missed_since(self.store, ref.question_id, day_start(now)),
            )
            correct, diagnosis, diagnosis_id = verdict.correct, verdict.diagnosis, verdict.diagnosis_id
            if verdict.unparseable:
                diagnosis = f"Unreadable when the interview stopped: {verdict.message}"
            to_review = bool(self.config.misses_to_review) and not correct
            record_review(
                self.store,
                ref,
                seed=inst.seed,
                answer=text,
                correct=correct,
                rating=verdict.rating,
                duration_ms=round(seconds * 1000),
                now=now,
                mode="interview",
                diagnosis=diagnosis,
                diagnosis_id=diagnosis_id,
                update_schedule=self.config.update_schedule or to_review,
                scheduler=self.scheduler,
                points=points_code(verdict.reading),
            )
        elif skipped and self.config.misses_to_review and inst.kind in SCORED_KINDS:
            make_due(self.store, ref, now)  # not answered, so no review is logged: just due at once
        answer = InterviewAnswer(
            question_id=inst.question_id,
            deck_id=inst.deck_id,
            seed=inst.seed,
            prompt=inst.prompt,
            answer=text,
            correct=correct,
            expected=expected_for(inst),
            diagnosis=diagnosis,
            diagnosis_id=diagnosis_id,
            seconds=seconds,
            skipped=skipped,
            flagged=asked.flagged,
        )
        return add_interview_answer(self.store, self.id, answer)


def open_report(store: Store, catalog: Catalog, interview_id: int) -> InterviewReport:
    """The report of a saved interview (finished or cut short), with derivations rebuilt by seed."""
    return build_report(load_interview(store, interview_id), catalog)


def format_clock(seconds: float) -> str:
    """m:ss for a countdown, rounded up: 1799.2 s -> "30:00", 59.0 -> "0:59", 0 -> "0:00"."""
    whole = int(-(-max(0.0, seconds) // 1))
    return f"{whole // 60}:{whole % 60:02d}"
