"""Provides StudySession: the study, drill and cram loop the study screen drives, with no UI in it.

One card at a time: pick the next question from the queue, make its Instance with a seed from the
injected rng, time the answer with the injected clock, grade it, and record the review in the store
*before* returning the feedback, so nothing answered is ever lost. Each rung of the hint ladder lowers the
best rating by one; the suggested rating comes with every rating's interval and the user may replace it
(`override`); `undo` takes the last answers back, `set_aside` suspends or buries a question, `dont_know`
shows the answer as Again. Flashcards are self-rated; explain answers are rated from the key points the
user ticks. Everything handed back is a frozen dataclass.

Built from two mixins: the order of questions (quizapp.study.ordering) and grading and saving answers
(quizapp.study.answering); the state they share is in quizapp.study.session_state.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import replace
from datetime import datetime
from typing import TYPE_CHECKING, Literal

from quizapp.errors import QuizappError
from quizapp.grading.rating import HINT_CAPS, RATING_NAMES
from quizapp.store.buried import bury, unbury
from quizapp.store.cards import set_suspended
from quizapp.store.database import Store
from quizapp.store.times import day_start
from quizapp.study import (
    QuestionSet,
    QueueItem,
    cram_queue,
    drill_queue,
    scheduler_for,
)
from quizapp.study.answering import SessionAnswers
from quizapp.study.coming_back import coming_back
from quizapp.study.counts import DueCounts, due_counts
from quizapp.study.hints import hint_ladder
from quizapp.study.ordering import SessionOrdering
from quizapp.study.queues import drawable_instance
from quizapp.study.scheduler import undo_review
from quizapp.study.session_state import Clock, Draw, Focus, Saved, SessionMode, SetAside, Tally, Turn
from quizapp.study.views import (
    Card,
    ExplainPending,
    Feedback,
    Hint,
    InstanceSource,
    RatingChoice,
    SessionCounts,
    Unreadable,
)

__all__ = [
    "Card",
    "ExplainPending",
    "Feedback",
    "Hint",
    "InstanceSource",
    "RatingChoice",
    "SessionCounts",
    "SessionMode",
    "StudySession",
    "Unreadable",
    "hint_ladder",
]

if TYPE_CHECKING:
    from fsrs import Scheduler

    from quizapp.study.coming_back import ComingBack
    from quizapp.study.plan import Plan, PlanQuestion


class StudySession(SessionOrdering, SessionAnswers):
    """A state machine over one queue; the screen calls advance, then submit / reveal+rate / hint."""

    def __init__(
        self,
        source: InstanceSource,
        store: Store,
        questions: QuestionSet,
        *,
        mode: SessionMode,
        clock: Clock,
        rng: random.Random,
        scheduler: Scheduler,
        items: Iterator[QueueItem] | None = None,
        total: int | None = None,
        title: str = "",
    ) -> None:
        self.source = source
        self.store = store
        self.questions = questions
        self.mode: SessionMode = mode
        self.clock = clock
        self.rng = rng
        self.scheduler = scheduler
        self.title = title or {"study": "Study", "drill": "Drill", "cram": "Cram"}[mode]
        self._draw = Draw(items=items, total=total)
        self._turn = Turn()
        self._tally = Tally()
        self._saved: list[Saved | SetAside] = []
        """Every answer saved and card set aside in this session, newest last: what Ctrl+Z takes back."""
        self._focus = Focus()
        self._decks = sorted({ref.deck_id for ref in questions.ordered})
        """The decks this session draws from, for the progress bar's counts."""
        self.new_per_day: int | None = None
        """Set by start() when an interview date drives the daily new-card limit; None: the setting."""
        self.problems: list[str] = []
        self.redrawn: list[str] = []
        """Questions asked with other numbers because the ones drawn first could not be built."""
        self.finished = False
        self.until_solved = False
        """A drill that ends once each question is answered right (set by start())."""

    # -- construction -----------------------------------------------------------------------------------

    @property
    def focus_decks(self) -> tuple[str, ...]:
        """In the interview's last days, the weakest decks, which come first (see _focus_on_weak_decks)."""
        return self._focus.decks

    @classmethod
    def start(
        cls,
        source: InstanceSource,
        store: Store,
        questions: QuestionSet,
        *,
        mode: SessionMode,
        clock: Clock,
        rng: random.Random,
        deck_id: str | None = None,
        question_ids: Iterable[str] | None = None,
        fuzzing: bool = True,
        title: str = "",
        plan_questions: Mapping[str, PlanQuestion] | None = None,
        plan: Plan | None = None,
        until_solved: bool = False,
    ) -> StudySession:
        """A session over the whole catalog (study, cram) or one deck / set of questions (drill, cram),
        already advanced to its first card (check `finished` for an empty queue). `plan_questions` (id ->
        type and difficulty, Workspace.plan_questions) lets a daily budget's plan set the new-card limit,
        as home and stats count it, and the interview plan's order lead the new cards; `plan` is that plan
        when the caller has it already (Workspace.plan). `until_solved`: a drill that ends once each of its
        questions is answered right (an exercise picked to be solved), where a drill is otherwise endless."""
        pool = questions
        if deck_id is not None or question_ids is not None:
            pool = questions.select(deck_id=deck_id, question_ids=question_ids)
        if not len(pool):
            raise QuizappError("No question matches that deck or selection.")
        scheduler = scheduler_for(store, fuzzing=fuzzing)
        items: Iterator[QueueItem] | None = None
        total: int | None = None
        if mode == "drill":
            items = drill_queue(pool, rng=rng)
        elif mode == "cram":
            queue = cram_queue(store, pool, rng=rng)
            items, total = iter(queue), len(queue)
        session = cls(
            source,
            store,
            pool,
            mode=mode,
            clock=clock,
            rng=rng,
            scheduler=scheduler,
            items=items,
            total=total,
            title=title,
        )
        session.until_solved = until_solved
        if mode == "study":
            session._follow_plan(questions, plan_questions, plan)
        session.advance()
        return session

    @classmethod
    def today_queue(
        cls,
        source: InstanceSource,
        store: Store,
        questions: QuestionSet,
        *,
        now: datetime,
        plan_questions: Mapping[str, PlanQuestion] | None = None,
        plan: Plan | None = None,
    ) -> tuple[str, ...]:
        """Today's study questions at `now`, in the order a study session started now asks them (each
        answered once and not due again today): built by the session's own set-up and queue."""
        session = cls(
            source,
            store,
            questions,
            mode="study",
            clock=lambda: now,
            rng=random.Random(0),
            scheduler=scheduler_for(store, fuzzing=False),
        )
        session._follow_plan(questions, plan_questions, plan)
        return session.queue()

    # -- state ------------------------------------------------------------------------------------------

    @property
    def current(self) -> Card | None:
        return self._turn.card

    @property
    def answered(self) -> bool:
        """The current card's answer is saved; the next call is advance()."""
        return self._turn.answered

    @property
    def hints_used(self) -> int:
        return self._turn.hints

    @property
    def done(self) -> int:
        """Answers saved in this session."""
        return self._tally.done

    @property
    def correct(self) -> int:
        """Of those, how many were right."""
        return self._tally.correct

    @property
    def empty_message(self) -> str:
        if self.mode == "study":
            return "Nothing is due and today's new cards are done. Drill a deck (d) or cram (c) instead."
        return "There is nothing to show in this selection."

    def progress(self) -> SessionCounts:
        """Done, correct and left; in study mode `left` is counted fresh from the store."""
        left: int | None
        if self.mode == "drill":
            left = None
        elif self.mode == "cram":
            waiting = 0 if self._turn.answered or self._turn.card is None else 1
            left = max(0, (self._draw.total or 0) - self._draw.taken) + waiting
        else:  # the same count as home and stats (study.counts): bury, suspend, undo and limits included
            left = self.counts().total
        return SessionCounts(done=self._tally.done, correct=self._tally.correct, left=left)

    def counts(self) -> DueCounts:
        """New, Learning and Review cards waiting now over this session's questions (study mode)."""
        return due_counts(self.store, self.questions.decks(), now=self.clock(), new_per_day=self.new_per_day)

    def coming_back(self) -> ComingBack | None:
        """At the end of a study session, the cards of this session that come back later today (a failed
        card's learning steps), or when the next one is due; None in drill and cram, which schedule
        nothing."""
        if self.mode != "study":
            return None

        return coming_back(self.store, self._pool().by_id, now=self.clock())

    def resume(self) -> Card | None:
        """After the wait for cards that come back (ComingBack.ready): the session goes on with them;
        None, and still finished, when none is due after all (set aside meanwhile, or the clock moved)."""
        self.finished = False
        return self.advance()

    # -- the loop ---------------------------------------------------------------------------------------

    def advance(self) -> Card | None:
        """Moves to the next card (None, and `finished`, when the queue is empty).

        A pending explain answer is saved first. A question whose instance cannot be built is skipped and
        reported in `problems`, never shown half-made.
        """
        self.close()
        self._turn.card, self._turn.item = None, None
        self._turn.answered, self._turn.hints, self._turn.ticked = False, 0, set()
        while True:
            item = self._next_item()
            if item is None:
                self.finished = True
                return None
            qid = item.question.question_id
            try:
                inst = drawable_instance(self.source, qid, item.seed)
            except Exception as exc:  # a broken template must not end the session
                self._draw.broken.add(qid)
                self.problems.append(f"{qid}: {exc}")
                continue
            if inst.seed != item.seed:
                self.redrawn.append(
                    f"{qid}: the numbers of seed {item.seed} could not be built, so it is asked with seed "
                    f"{inst.seed}. `quizapp validate` names the template for its author."
                )
            self._draw.taken += 1
            held = self._draw.held.pop(qid, "")  # other numbers: a new question, to answer afresh
            attempt = self._tally.attempts.get(qid, 0) + 1
            self._turn.item = item
            self._turn.card = Card(
                number=self._tally.done + 1,
                instance=inst,
                reason=item.reason,
                attempt=attempt,
                shown_at=self.clock(),
                answer=held if inst.seed == item.seed else "",
            )
            return self._turn.card

    def hint(self) -> Hint | None:
        """The next rung of the hint ladder (None for questions without a derivation, or past the last)."""
        card = self._require_open()
        derivation = card.instance.derivation
        if derivation is None or not derivation.steps:
            return None
        ladder = hint_ladder(derivation.steps, derivation.misconceptions)
        if self._turn.hints >= len(ladder):
            return None
        self._turn.hints += 1
        return Hint(
            self._turn.hints,
            len(ladder),
            ladder[self._turn.hints - 1],
            RATING_NAMES[HINT_CAPS[self._turn.hints]],
        )

    def shown_hints(self) -> tuple[Hint, ...]:
        """The rungs of the hint ladder already shown for the card on screen (after Ctrl+Z, the hints
        the undone answer used, so the screen can show them again)."""
        card = self._turn.card
        if card is None or not self._turn.hints or card.instance.derivation is None:
            return ()
        derivation = card.instance.derivation
        ladder = hint_ladder(derivation.steps, derivation.misconceptions)
        return tuple(
            Hint(n, len(ladder), ladder[n - 1], RATING_NAMES[HINT_CAPS[n]])
            for n in range(1, min(self._turn.hints, len(ladder)) + 1)
        )

    def set_aside(self, how: Literal["suspend", "bury"]) -> Card | None:
        """Suspends the question on screen (out of every queue until brought back) or buries it (until
        tomorrow, its schedule untouched), then moves on. Ctrl+Z brings it back."""
        card, item = self._turn.card, self._turn.item
        if card is None or item is None:
            raise QuizappError("There is no question on screen to set aside.")
        if self._turn.answered or self._turn.pending is not None:
            raise QuizappError("This question is answered and saved; set aside the next one instead.")
        if how == "suspend":
            set_suspended(self.store, item.question, True)
        else:
            bury(self.store, item.question.question_id, day_start(self.clock()).date())
        self._remember(SetAside(item, card, how, self._turn.hints))
        self._turn.answered = True  # nothing pending: advance() moves on without saving anything
        self._turn.pending = None
        return self.advance()

    @property
    def can_undo(self) -> bool:
        return bool(self._saved)

    def undo(self) -> Card:
        """Takes the last saved answer back (its review row deleted, its card exactly as before, in one
        transaction) and asks that question again; a question on screen unanswered is asked after it."""
        if not self._saved:
            raise QuizappError("Nothing to undo: no answer has been saved in this session.")
        saved = self._saved.pop()
        if self._turn.card is not None and self._turn.item is not None and not self._turn.answered:
            self._draw.pushback.append(self._turn.item)
            self._draw.taken -= 1
            if self._turn.pending is not None:  # an explanation waiting for its key points: kept for later
                self._draw.held[self._turn.item.question.question_id] = self._turn.pending.answer
        if isinstance(saved, SetAside):
            if saved.how == "suspend":
                set_suspended(self.store, saved.item.question, False)
            else:
                unbury(self.store, saved.item.question.question_id, day_start(self.clock()).date())
            self._turn.pending, self._turn.answered, self._turn.ticked = None, False, set()
            self._turn.hints = saved.hints
            self._turn.item, self._turn.card = saved.item, replace(saved.card, shown_at=self.clock())
            self.finished = False
            return self._turn.card
        undo_review(self.store, saved.outcome)
        qid = saved.card.instance.question_id
        self._tally.attempts[qid] = max(0, self._tally.attempts.get(qid, 1) - 1)
        self._tally.done -= 1
        self._tally.correct -= int(saved.feedback.verdict.correct)
        if saved.feedback.verdict.correct and not any(
            isinstance(s, Saved) and s.feedback.verdict.correct and s.card.instance.question_id == qid
            for s in self._saved
        ):
            self._tally.solved.discard(qid)  # solved only by the answer taken back
        self._turn.pending, self._turn.answered, self._turn.ticked = None, False, set()
        self._turn.hints = saved.feedback.hints_used  # the hints used come back with the question
        self._turn.item = saved.item
        self._turn.card = replace(
            saved.card, number=self._tally.done + 1, shown_at=self.clock(), answer=saved.typed
        )
        self.finished = False
        return self._turn.card

    def close(self) -> Feedback | None:
        """Saves a pending explain answer with the points ticked so far (on Escape or before advancing)."""
        if self._turn.pending is not None and self._turn.card is not None and not self._turn.answered:
            return self.finish_explain()
        return None
