"""Provides StudySession: the study, drill and cram loop the study screen drives, with no UI in it.

One card at a time: pick the next question from the queue, make its Instance with a seed from the
injected rng, time the answer with the injected clock, grade it, and record the review in the store
*before* returning the feedback, so nothing answered is ever lost. Each rung of the hint ladder lowers the
best rating by one; the suggested rating comes with every rating's interval and the user may replace it
(`override`); `undo` takes the last answers back, `set_aside` suspends or buries a question, `dont_know`
shows the answer as Again. Flashcards are self-rated; explain answers are rated from the key points the
user ticks. Everything handed back is a frozen dataclass.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from datetime import date, datetime, timedelta
from typing import TYPE_CHECKING, Literal

from quizapp.content.prose import reflow
from quizapp.errors import QuizappError
from quizapp.grading.code_try import try_code
from quizapp.grading.explain import points_code
from quizapp.grading.grade import Verdict, grade, grade_explain, grade_flashcard, read_answer
from quizapp.grading.rating import AGAIN, HINT_CAPS, RATING_NAMES
from quizapp.store.buried import buried_on, bury, unbury
from quizapp.store.cards import not_new_ids, set_suspended
from quizapp.store.database import Store
from quizapp.store.reviews import answered_before, missed_since
from quizapp.store.settings import load_settings
from quizapp.store.times import day_start
from quizapp.study import (
    QuestionSet,
    QueueItem,
    cram_queue,
    drill_queue,
    format_interval,
    next_card,
    preview_for,
    record_review,
    scheduler_for,
)
from quizapp.study.coming_back import coming_back
from quizapp.study.counts import DueCounts, due_counts
from quizapp.study.hints import hint_ladder
from quizapp.study.limits import new_cards_per_day, new_left_today
from quizapp.study.plan import FINAL_DAYS
from quizapp.study.queues import drawable_instance, due_questions, new_questions
from quizapp.study.scheduler import ReviewOutcome, preview_before, rerate_review, undo_review
from quizapp.study.stored_plan import interview_plan
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
    "UNDO_LIMIT",
    "Card",
    "ExplainPending",
    "Feedback",
    "Hint",
    "InstanceSource",
    "RatingChoice",
    "SessionCounts",
    "StudySession",
    "Unreadable",
    "hint_ladder",
]

if TYPE_CHECKING:
    from fsrs import Scheduler

    from quizapp.content.instance import Instance
    from quizapp.grading.code_try import CodeTry
    from quizapp.study.coming_back import ComingBack
    from quizapp.study.plan import Plan, PlanQuestion

SessionMode = Literal["study", "drill", "cram"]
Clock = Callable[[], datetime]
UNDO_LIMIT = 30
"""Ctrl+Z takes back at most this many of the session's last steps (answers and questions set aside), as
Anki's undo does; older ones stay saved and can no longer be undone."""


class StudySession:
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
        self._draw = _Draw(items=items, total=total)
        self._turn = _Turn()
        self._tally = _Tally()
        self._saved: list[_Saved | _SetAside] = []
        """Every answer saved and card set aside in this session, newest last: what Ctrl+Z takes back."""
        self._focus = _Focus()
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

    def _follow_plan(
        self,
        questions: QuestionSet,
        plan_questions: Mapping[str, PlanQuestion] | None,
        plan: Plan | None,
    ) -> None:
        """Study's set-up: the day's new-card limit and, with an interview date, the plan's order for new
        cards (quizapp.study.priority) and its focus on the weakest decks in the last days."""
        now = self.clock()
        if plan is None and plan_questions is not None:
            plan = _interview_plan(self.store, questions, now, plan_questions)
        self.new_per_day = _planned_new_per_day(self.store, questions, now, plan_questions, plan)
        if plan is not None and plan.order:
            self.questions = self.questions.led_by(plan.order)
        self._focus_on_weak_decks(plan)

    def queue(self) -> tuple[str, ...]:
        """The questions this study session asks from now on, in order, if each is answered once and
        comes back no sooner than tomorrow: the question on screen, the cards due now (most overdue
        first), in the last days the weakest decks' cards due before the interview, then today's new
        cards in the plan's order."""
        pool, now = self._pool(), self.clock()
        ids = due_questions(self.store, pool, now)
        if self._focus.until is not None:
            asked = {qid for qid, n in self._tally.attempts.items() if n}
            weak = [r.question_id for r in pool.ordered if r.deck_id in self._focus.decks]
            early = due_questions(self.store, pool.select(question_ids=weak), self._focus.until)
            ids += [q for q in early if q not in asked and q not in ids]
        new_left, _ = new_left_today(self.store, now=now, new_per_day=self.new_per_day)
        ids += new_questions(self.store, pool, new_left)
        card = self.current
        if card is not None and not self.answered:
            qid = card.instance.question_id
            ids = [qid, *(q for q in ids if q != qid)]
        return tuple(ids)

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

    def _focus_on_weak_decks(self, plan: Plan | None = None) -> None:
        """In the last days before the interview, the weakest decks (lowest expected recall on the day)
        come first: their new cards lead, and once nothing is due and no new card is left, their cards
        due before the interview are reviewed early. Reviews stay ordinary FSRS reviews."""
        day = load_settings(self.store).interview_date
        now = self.clock()
        today = now.astimezone().date()
        if not day or not 0 <= (date.fromisoformat(day) - today).days <= FINAL_DAYS:
            return
        refs = self.questions.ordered
        if plan is None:
            plan = interview_plan(self.store, self.questions.decks(), now=now)
        if plan is None or not plan.focus:
            return
        weak = set(plan.focus)
        self._focus.decks = plan.focus
        self.questions = QuestionSet(
            by_id=self.questions.by_id,
            ordered=tuple(r for r in refs if r.deck_id in weak)
            + tuple(r for r in refs if r.deck_id not in weak),
        )
        self._focus.until = now + timedelta(days=max(plan.days_left, 0) + 1)

    def _next_item(self) -> QueueItem | None:
        if self._draw.pushback:
            return self._draw.pushback.pop()
        if self._draw.items is not None:
            done = self._draw.broken | (self._tally.solved if self.until_solved else set())
            if self.until_solved and all(r.question_id in done for r in self.questions.ordered):
                return None  # checked first: a drill's queue never runs out
            for item in self._draw.items:
                if item.question.question_id not in done:
                    return item
            return None
        pool, now = self._pool(), self.clock()
        if self._focus.until is not None:  # the last days: due cards, then weak decks' reviews, then new
            found = next_card(self.store, pool, now=now, rng=self.rng, new_per_day=0)
            return found or self._weak_ahead(pool, now) or self._next_new_or_due(pool, now)
        return self._next_new_or_due(pool, now)

    def _next_new_or_due(self, pool: QuestionSet, now: datetime) -> QueueItem | None:
        return next_card(self.store, pool, now=now, rng=self.rng, new_per_day=self.new_per_day)

    def _weak_ahead(self, pool: QuestionSet, now: datetime) -> QueueItem | None:
        """A card of a weak deck due before the interview, reviewed early; each at most once a session
        (answered, the interview date brings it back before the day, so it would be due again at once)."""
        assert self._focus.until is not None
        asked = {qid for qid, n in self._tally.attempts.items() if n}
        weak = [
            r.question_id
            for r in pool.ordered
            if r.deck_id in self._focus.decks and r.question_id not in asked
        ]
        if not weak:
            return None
        return next_card(
            self.store,
            pool.select(question_ids=weak),
            now=now,
            rng=self.rng,
            new_per_day=0,
            learn_ahead=self._focus.until - now,
        )

    def _pool(self) -> QuestionSet:
        skip = self._draw.broken | buried_on(self.store, day_start(self.clock()).date())
        if not skip:
            return self.questions
        keep = [qid for qid in self.questions.by_id if qid not in skip]
        return self.questions.select(question_ids=keep)

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

    def submit(self, text: str) -> Feedback | Unreadable | ExplainPending:
        """Grades a typed answer (numeric, tensor, shape, choice letters, explain text).

        Readable answers are recorded before this returns. Explain answers wait for `finish_explain`.
        """
        card = self._require_open()
        inst = card.instance
        if inst.kind == "flashcard":
            raise QuizappError("Flashcards are rated, not answered: reveal the back, then press 1-4.")
        if inst.kind == "explain":
            if not text.strip():
                return Unreadable("Write your explanation first (Ctrl+S submits it).")
            reading = read_answer(inst, text)
            self._turn.pending = ExplainPending(
                instance=inst,
                answer=text,
                model_answer=inst.expected_text(),
                key_points=inst.key_points,
                reading=reading,
            )
            self._turn.ticked = set(reading.covered())
            return self._turn.pending
        seconds = self._seconds(card)
        verdict = grade(
            inst,
            text,
            hints_used=self._turn.hints,
            seconds=seconds,
            attempt=card.attempt,
            new_card=self._is_new(),
            missed_today=self._missed_today(),
        )
        if verdict.unparseable:
            return Unreadable(verdict.message)
        return self._save(card, verdict, text, seconds, typed=True)

    def try_code(self, text: str) -> CodeTry:
        """Tries the code on practice cases (quizapp.grading.code_try): nothing is rated or saved, the
        model solution stays hidden and the question stays open; `submit` grades it."""
        card = self._require_open()
        if card.instance.kind != "code":
            raise QuizappError("Only code is tried before it is submitted.")

        return try_code(card.instance, text)

    def tick(self, covered: Iterable[int]) -> None:
        """Sets which key points of the pending explain answer are covered (0-based), as the user ticks."""
        self._turn.ticked = set(covered)

    def finish_explain(self, covered: Iterable[int] | None = None) -> Feedback:
        """Rates and records the pending explain answer from the key points ticked."""
        card = self._require_open()
        pending = self._turn.pending
        if pending is None:
            raise QuizappError("Submit the explanation before rating it.")
        if covered is not None:
            self._turn.ticked = set(covered)
        seconds = self._seconds(card)
        verdict = grade_explain(
            card.instance,
            pending.answer,
            frozenset(self._turn.ticked),
            self._turn.hints,
            seconds,
            card.attempt,
            new_card=self._is_new(),
            reading=pending.reading,
            missed_today=self._missed_today(),
        )
        self._turn.pending = None
        ticked = frozenset(self._turn.ticked)
        feedback = self._save(card, verdict, pending.answer, seconds, typed=True, ticked=ticked)
        return replace(feedback, covered=tuple(sorted(ticked)))

    def reveal(self) -> tuple[RatingChoice, ...]:
        """The four ratings of a flashcard, each with its next interval in study mode (as Anki does)."""
        card = self._require_open()
        intervals = {}
        if self.mode == "study":
            previews = preview_for(self.store, card.instance.question_id, self.scheduler, now=self.clock())
            intervals = {int(p.rating): p.label for p in previews}
        return tuple(RatingChoice(r, RATING_NAMES[r], intervals.get(r, "")) for r in (1, 2, 3, 4))

    def rate(self, rating: int) -> Feedback:
        """Records the user's own rating of a flashcard (1 Again .. 4 Easy)."""
        card = self._require_open()
        if rating not in (1, 2, 3, 4):
            raise QuizappError(f"A rating is 1 (again) to 4 (easy), got {rating!r}.")
        verdict = grade_flashcard(card.instance, rating)
        return self._save(card, verdict, RATING_NAMES[rating].lower(), self._seconds(card))

    def dont_know(self) -> Feedback:
        """ "I don't know": the answer and its derivation are shown, and the card is saved as Again."""
        card = self._require_open()
        inst = card.instance
        verdict = Verdict(
            correct=False,
            parsed="I don't know",
            value=None,
            diagnosis=None,
            diagnosis_id=None,
            step=None,
            message=_shown_answer(inst),
            rating=AGAIN,
            expected=inst.expected_text(),
        )
        self._turn.pending = None
        return self._save(card, verdict, "I don't know", self._seconds(card))

    @property
    def can_override(self) -> bool:
        """Whether the answer just saved can be re-rated (it was the last one saved, in study mode)."""
        last = self._saved[-1] if self._saved else None
        return self._turn.answered and isinstance(last, _Saved) and last.outcome.scheduled

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
        self._remember(_SetAside(item, card, how, self._turn.hints))
        self._turn.answered = True  # nothing pending: advance() moves on without saving anything
        self._turn.pending = None
        return self.advance()

    def override(self, rating: int) -> Feedback:
        """Replaces the suggested rating of the answer just saved with the user's own (1 Again .. 4 Easy):
        its review is recorded again with `rating`, in one transaction."""
        if rating not in (1, 2, 3, 4):
            raise QuizappError(f"A rating is 1 (again) to 4 (easy), got {rating!r}.")
        if not self.can_override:
            raise QuizappError("Only the answer just saved, in a scheduled study session, can be re-rated.")
        saved = self._saved[-1]
        assert isinstance(saved, _Saved)
        outcome = rerate_review(
            self.store, saved.item.question, saved.outcome, rating, scheduler=self.scheduler
        )
        feedback = _with_outcome(saved.feedback, outcome, rating)
        self._saved[-1] = replace(saved, outcome=outcome, feedback=feedback)
        return feedback

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
        if isinstance(saved, _SetAside):
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
            isinstance(s, _Saved) and s.feedback.verdict.correct and s.card.instance.question_id == qid
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

    # -- internals --------------------------------------------------------------------------------------

    def _require_open(self) -> Card:
        if self._turn.card is None:
            raise QuizappError("There is no question to answer; the session is over.")
        if self._turn.answered:
            raise QuizappError("This question is already answered; go on to the next one.")
        return self._turn.card

    def _is_new(self) -> bool:
        """The card on screen counts as new, so it is never suggested Easy: Easy sends a card far away, and
        one right answer to a question never met before is no evidence it is known that well (a first
        success suggests Good at most). New means offered by the study queue as new (never scheduled,
        whatever drills logged), or, in any mode, no answer to the question logged at all (a drill or cram
        of a question never seen)."""
        item = self._turn.item
        if item is None:
            return False
        return item.reason == "new" or not answered_before(self.store, item.question.question_id)

    def _missed_today(self) -> bool:
        """A wrong answer to the card on screen was logged today, in any mode (a miss in this morning's
        interview): a right answer now is not suggested Easy."""
        item = self._turn.item
        if item is None:
            return False
        return missed_since(self.store, item.question.question_id, day_start(self.clock()))

    def _seconds(self, card: Card) -> float:
        return max(0.0, (self.clock() - card.shown_at).total_seconds())

    def _save(
        self,
        card: Card,
        verdict: Verdict,
        answer: str,
        seconds: float,
        *,
        typed: bool = False,
        ticked: frozenset[int] | None = None,
    ) -> Feedback:
        """Records the answer and keeps what Ctrl+Z needs; `typed`: the learner wrote `answer` (not a
        flashcard's rating or "I don't know"), so Ctrl+Z puts it back in the input. `ticked`: an
        explanation's key points as the learner left them, saved beside the reader's statuses."""
        assert self._turn.item is not None
        rating = verdict.rating  # the hint ladder's cap is already in it (grading.rating.suggest_rating)
        outcome = record_review(
            self.store,
            self._turn.item.question,
            seed=card.instance.seed,
            answer=answer,
            correct=verdict.correct,
            rating=rating,
            duration_ms=round(seconds * 1000),
            now=self.clock(),
            mode=self.mode,
            diagnosis=verdict.diagnosis,
            diagnosis_id=verdict.diagnosis_id,
            scheduler=self.scheduler,
            points=points_code(verdict.reading, ticked),
        )
        qid = card.instance.question_id
        self._tally.attempts[qid] = self._tally.attempts.get(qid, 0) + 1
        self._turn.answered = True
        self._tally.done += 1
        self._tally.correct += int(verdict.correct)
        if verdict.correct:
            self._tally.solved.add(qid)
        choices: tuple[RatingChoice, ...] = ()
        if outcome.scheduled:
            labels = {int(p.rating): p.label for p in preview_before(outcome, self.scheduler)}
            choices = tuple(RatingChoice(r, RATING_NAMES[r], labels[r]) for r in (1, 2, 3, 4))
        feedback = _with_outcome(
            Feedback(
                instance=card.instance,
                verdict=verdict,
                answer=answer,
                rating=rating,
                hints_used=self._turn.hints,
                seconds=seconds,
                review_id=0,
                scheduled=False,
                next_interval=None,
                became_leech=False,
                choices=choices,
                suggested=rating,
            ),
            outcome,
            rating,
        )
        if outcome.repaired:
            notice = (
                f"The saved schedule of {qid} was damaged ({outcome.repaired}), so it started again as a new "
                "card; its review history is kept."
            )
            feedback = replace(feedback, notice=notice)
        self._remember(_Saved(self._turn.item, card, outcome, feedback, answer if typed else ""))
        return feedback

    def _remember(self, saved: _Saved | _SetAside) -> None:
        """Keeps `saved` for Ctrl+Z, and only the last UNDO_LIMIT steps: each keeps its question's instance
        and worked steps, so an unbounded history grows memory with every review of a long session."""
        self._saved.append(saved)
        if len(self._saved) > UNDO_LIMIT:
            del self._saved[: len(self._saved) - UNDO_LIMIT]


@dataclass
class _Turn:
    """The question on screen: what is asked, and how far its answer has got."""

    card: Card | None = None
    item: QueueItem | None = None
    answered: bool = False
    """The answer is saved; the next call is advance()."""
    hints: int = 0
    pending: ExplainPending | None = None
    """An explain answer submitted and waiting for its key points to be ticked."""
    ticked: set[int] = field(default_factory=set)


@dataclass
class _Tally:
    """What this session saved: answers, right ones, and attempts per question."""

    done: int = 0
    correct: int = 0
    attempts: dict[str, int] = field(default_factory=dict)
    solved: set[str] = field(default_factory=set)
    """Questions answered right in this session (an until-solved drill asks them no more)."""


@dataclass
class _Draw:
    """Where the next question comes from besides the store's study queue."""

    items: Iterator[QueueItem] | None = None
    """A drill or cram queue; None: study, asked from the store after every answer."""
    total: int | None = None
    """The cram queue's length, for the progress bar."""
    taken: int = 0
    pushback: list[QueueItem] = field(default_factory=list)
    """Items to ask again before the queue's next (an undone answer's question)."""
    held: dict[str, str] = field(default_factory=dict)
    """The explanation written for a pushed-back question (Ctrl+Z while its key points were being
    ticked), by question id: it is back in the editor when the question is asked again."""
    broken: set[str] = field(default_factory=set)
    """Questions whose instance could not be built: skipped for the rest of the session."""


@dataclass
class _Focus:
    """In the interview's last days: the weakest decks, which come first, and how far ahead their due
    cards may be reviewed early."""

    decks: tuple[str, ...] = ()
    until: datetime | None = None


@dataclass(frozen=True)
class _Saved:
    """One saved answer of the session, with what undoing or re-rating it needs."""

    item: QueueItem
    card: Card
    outcome: ReviewOutcome
    feedback: Feedback
    typed: str = ""
    """What the learner wrote or chose, put back in the input when Ctrl+Z asks the question again."""


@dataclass(frozen=True)
class _SetAside:
    """A question suspended or buried in this session, so Ctrl+Z can bring it back."""

    item: QueueItem
    card: Card
    how: Literal["suspend", "bury"]
    hints: int = 0
    """Hints shown before it was set aside, shown again when it comes back."""


def _with_outcome(feedback: Feedback, outcome: ReviewOutcome, rating: int) -> Feedback:
    """The feedback for `outcome`: its review id, the rating saved and where the card goes next."""
    interval = outcome.interval
    return replace(
        feedback,
        rating=rating,
        review_id=outcome.review.id,
        scheduled=outcome.scheduled,
        next_interval=format_interval(interval) if interval is not None else None,
        became_leech=outcome.became_leech,
    )


def _interview_plan(
    store: Store, questions: QuestionSet, now: datetime, plan_questions: Mapping[str, PlanQuestion]
) -> Plan | None:
    """The interview plan over `questions` (None without a date), priced and ordered by `plan_questions`."""
    return interview_plan(store, questions.decks(), now=now, questions=plan_questions)


def _planned_new_per_day(
    store: Store,
    questions: QuestionSet,
    now: datetime,
    plan_questions: Mapping[str, PlanQuestion] | None,
    plan: Plan | None = None,
) -> int | None:
    """With an interview date ahead, today's new-card limit (limits.new_cards_per_day, as home counts)."""
    if not load_settings(store).interview_date:
        return None
    taken = not_new_ids(store)
    unseen = sum(1 for qid in questions.by_id if qid not in taken)
    return new_cards_per_day(
        store, questions.decks(), unseen=unseen, now=now, questions=plan_questions, plan=plan
    )


def _shown_answer(inst: Instance) -> str:
    """What "I don't know" says, by the kind of question: a model answer is read, a number is worked.
    A back or model answer is reflowed: the breaks its YAML was wrapped at made ragged lines on screen."""
    if inst.kind == "code":
        return "The model solution is below. Read it, then write it yourself again soon."
    if inst.kind == "flashcard":  # its back is the answer, not a model to say in other words
        return f"The answer: {reflow(inst.expected_text())}\nRecall it again soon."
    if inst.kind == "explain":
        return f"A model answer: {reflow(inst.expected_text())}\nTry it in your own words again soon."
    steps = " Read the worked steps, then try it again soon." if inst.derivation else " Try it again soon."
    return f"The answer is {inst.expected_text()}.{steps}"
