"""Provides SessionAnswers: how a StudySession grades an answer into feedback and saves it.

Typed answers, explanations rated from the key points ticked, flashcards self-rated, "I don't know" as
Again, and the suggested rating replaced by the user's own (`override`). Every answer is recorded in the
store *before* its Feedback is returned, and kept (at most UNDO_LIMIT of them) for Ctrl+Z. A mixin:
StudySession (quizapp.study.session) holds the state it reads.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from typing import TYPE_CHECKING

from quizapp.content.prose import reflow
from quizapp.errors import QuizappError
from quizapp.grading.code_try import try_code
from quizapp.grading.explain_grade import grade_explain, read_answer
from quizapp.grading.explain_reading import points_code
from quizapp.grading.grade import grade, grade_flashcard
from quizapp.grading.rating import AGAIN, RATING_NAMES
from quizapp.grading.verdict import Verdict
from quizapp.store.database import Store
from quizapp.store.reviews import answered_before, missed_since
from quizapp.store.times import day_start
from quizapp.study.scheduler import (
    ReviewOutcome,
    format_interval,
    preview_before,
    preview_for,
    record_review,
    rerate_review,
)
from quizapp.study.session_state import UNDO_LIMIT, Clock, Saved, SessionMode, SetAside, Tally, Turn
from quizapp.study.views import Card, ExplainPending, Feedback, RatingChoice, Unreadable

__all__ = ["SessionAnswers"]

if TYPE_CHECKING:
    from fsrs import Scheduler

    from quizapp.content.instance import Instance
    from quizapp.grading.code_try import CodeTry


class SessionAnswers:
    """The answering half of StudySession: grade, rate, save, re-rate."""

    store: Store
    mode: SessionMode
    clock: Clock
    scheduler: Scheduler
    _turn: Turn
    _tally: Tally
    _saved: list[Saved | SetAside]

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
        return self._turn.answered and isinstance(last, Saved) and last.outcome.scheduled

    def override(self, rating: int) -> Feedback:
        """Replaces the suggested rating of the answer just saved with the user's own (1 Again .. 4 Easy):
        its review is recorded again with `rating`, in one transaction."""
        if rating not in (1, 2, 3, 4):
            raise QuizappError(f"A rating is 1 (again) to 4 (easy), got {rating!r}.")
        if not self.can_override:
            raise QuizappError("Only the answer just saved, in a scheduled study session, can be re-rated.")
        saved = self._saved[-1]
        assert isinstance(saved, Saved)
        outcome = rerate_review(
            self.store, saved.item.question, saved.outcome, rating, scheduler=self.scheduler
        )
        feedback = _with_outcome(saved.feedback, outcome, rating)
        self._saved[-1] = replace(saved, outcome=outcome, feedback=feedback)
        return feedback

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
        self._remember(Saved(self._turn.item, card, outcome, feedback, answer if typed else ""))
        return feedback

    def _remember(self, saved: Saved | SetAside) -> None:
        """Keeps `saved` for Ctrl+Z, and only the last UNDO_LIMIT steps: each keeps its question's instance
        and worked steps, so an unbounded history grows memory with every review of a long session."""
        self._saved.append(saved)
        if len(self._saved) > UNDO_LIMIT:
            del self._saved[: len(self._saved) - UNDO_LIMIT]


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
