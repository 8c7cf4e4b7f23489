"""Provides scheduling with fsrs: recording an answer (card update + review log in one transaction) and
the Anki-style preview of the next interval for each rating.

fsrs is pure: `review_card` returns a new card and never mutates its argument, so a preview is just a
review whose result is thrown away.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import date, datetime, time, timedelta

from fsrs import Card, Rating, Scheduler, State

from quizapp.errors import QuizappError
from quizapp.records.questions import QuestionRef
from quizapp.store.cards import (
    CardRecord,
    card_unchanged,
    ensure_card,
    get_card,
    read_card,
    restore_card,
    write_card,
)
from quizapp.store.database import Store
from quizapp.store.reviews import (
    ReviewMode,
    ReviewRecord,
    check_mode,
    check_points,
    delete_review,
    insert_review,
)
from quizapp.store.settings import load_settings
from quizapp.store.times import utc

LEECH_LAPSES = 8
"""A card that lapses (forgotten after it had graduated) this many times is flagged as a leech."""


def make_scheduler(
    desired_retention: float = 0.9, *, fuzzing: bool = True, parameters: tuple[float, ...] = ()
) -> Scheduler:
    """The FSRS scheduler, with the user's fitted weights or fsrs's defaults. The app fuzzes intervals
    (spreads the load); tests do not."""
    if parameters:
        return Scheduler(parameters, desired_retention=desired_retention, enable_fuzzing=fuzzing)
    return Scheduler(desired_retention=desired_retention, enable_fuzzing=fuzzing)


def scheduler_for(store: Store, *, fuzzing: bool = True) -> Scheduler:
    """The scheduler with the user's desired retention and (once optimized) weights from settings."""
    settings = load_settings(store)
    return make_scheduler(settings.desired_retention, fuzzing=fuzzing, parameters=settings.fsrs_parameters)


@dataclass(frozen=True)
class ReviewOutcome:
    """What recording an answer did, for the feedback panel and the session bar."""

    review: ReviewRecord
    card: CardRecord
    """The card after the answer (unchanged schedule in drill, cram and non-scheduling interviews)."""
    scheduled: bool
    lapsed: bool
    """The card was in review state and rated Again: it was forgotten."""
    became_leech: bool
    """This answer made the card a leech (LEECH_LAPSES lapses): tell the user; the card is now flagged."""
    previous: CardRecord | None = None
    """The card row as it was before this answer (None: the question had no row), so it can be undone."""
    repaired: str | None = None
    """The stored card was impossible for FSRS and was started again as new before this answer: why."""
    deadline: datetime | None = None
    """The interview day's start this answer was scheduled against (None: FSRS as it is)."""

    @property
    def interval(self) -> timedelta | None:
        """Time until the card is due again, if this answer scheduled it."""
        if not self.scheduled or self.card.due is None:
            return None
        return self.card.due - self.review.reviewed_at


def interview_deadline(interview_date: str, now: datetime) -> datetime | None:
    """The start of the interview day (midnight in `now`'s time zone), or None with no date set.

    A card answered before this instant must come back before it (see `review_before`)."""
    if not interview_date:
        return None
    day = date.fromisoformat(interview_date)
    return datetime.combine(day, time(0), tzinfo=now.tzinfo)


def review_before(
    scheduler: Scheduler,
    card: Card,
    rating: Rating,
    when: datetime,
    deadline: datetime | None,
    duration_ms: int | None = None,
) -> Card:
    """fsrs's review of `card`, bent so that a learner with an interview ahead meets it again in time.

    Without a deadline, or on/after it, this is exactly `scheduler.review_card`. Before it:
    - a card still in learning (a new card included) rated Easy keeps fsrs's memory state for Easy but
      takes the learning step Good would (Easy never skips the learning steps before an interview);
    - the card is due no later than halfway from `when` to the deadline (whole days once that is a day
      or more), so whatever the rating it comes back at least once before the interview day.
    """
    new, _ = scheduler.review_card(card, rating, when, duration_ms)
    if deadline is None or when >= deadline:
        return new
    if card.state == State.Learning and rating == Rating.Easy and scheduler.learning_steps:
        stepped, _ = scheduler.review_card(card, Rating.Good, when, duration_ms)
        new = replace(stepped, stability=new.stability, difficulty=new.difficulty)
    if new.due >= deadline:
        half = (deadline - when) / 2
        if half >= timedelta(days=1):
            half = timedelta(days=half.days)
        new = replace(new, due=when + half)
    return new


def _updates_schedule(mode: ReviewMode, update_schedule: bool) -> bool:
    if mode == "study":
        return True
    if mode == "interview":
        return update_schedule
    return False


def record_review(
    store: Store,
    question: QuestionRef,
    *,
    seed: int,
    answer: str,
    correct: bool,
    rating: int,
    duration_ms: int,
    now: datetime,
    mode: ReviewMode = "study",
    diagnosis: str | None = None,
    diagnosis_id: str | None = None,
    update_schedule: bool = False,
    scheduler: Scheduler | None = None,
    deadline: datetime | str | None = "settings",
    points: str | None = None,
) -> ReviewOutcome:
    """Logs one answer and (in study mode, or an interview with `update_schedule`) reschedules the card.

    The card update and the review row are one transaction, committed before this returns: feedback is
    never shown for an answer that is not saved. Drill and cram never touch the schedule. `deadline` is
    the start of the interview day (see `review_before`); by default it comes from the interview date in
    settings, in `now`'s time zone. `points`: an explain answer's key points, the grader's status of each and
    the learner's final tick (quizapp.store.reviews.POINT_CODES), saved on the review row.
    """
    check_mode(mode)
    check_points(points)
    if not 1 <= int(rating) <= 4:
        raise QuizappError(f"A rating is 1 (again) to 4 (easy), got {rating!r}.")
    if duration_ms < 0:
        raise QuizappError(f"A review cannot take negative time ({duration_ms} ms).")
    when = utc(now)
    scheduled = _updates_schedule(mode, update_schedule)
    if scheduled and scheduler is None:
        scheduler = scheduler_for(store)
    if isinstance(deadline, str):
        deadline = interview_deadline(load_settings(store).interview_date, now) if scheduled else None
    with store.transaction() as conn:
        previous = read_card(conn, question.question_id)
        before = ensure_card(conn, question)
        if before.repaired:
            write_card(conn, before)  # a sound row, whatever this answer does to the schedule
        after, lapsed, became_leech = before, False, False
        if scheduled:
            assert scheduler is not None
            after, lapsed, became_leech = _reviewed(
                before, scheduler, Rating(int(rating)), when, duration_ms, deadline
            )
            write_card(conn, after)
        review = ReviewRecord(
            id=0,
            question_id=question.question_id,
            deck_id=question.deck_id,
            reviewed_at=when,
            seed=seed,
            answer=answer,
            correct=bool(correct),
            rating=int(rating),
            duration_ms=int(duration_ms),
            diagnosis=diagnosis,
            diagnosis_id=diagnosis_id,
            mode=mode,
            state_before=None if before.is_new else before.state,
            scheduled=scheduled,
            points=points,
        )
        review = replace(review, id=insert_review(conn, review))
    return ReviewOutcome(
        review=review,
        card=after,
        scheduled=scheduled,
        lapsed=lapsed,
        became_leech=became_leech,
        previous=previous,
        repaired=before.repaired,
        deadline=deadline,
    )


def undo_review(store: Store, outcome: ReviewOutcome) -> None:
    """Takes one recorded answer back: its review row goes and its card is exactly as before, in one
    transaction. Only the most recent answer to a card can be undone this way (as Anki's Ctrl+Z)."""
    with store.transaction() as conn:
        if not delete_review(conn, outcome.review.id):
            raise QuizappError("That answer was already taken back.")
        if not card_unchanged(conn, outcome.review.question_id, outcome.card):  # (rolled back: kept)
            raise QuizappError(
                "Not undone: this card changed since that answer (another quizapp window answered or "
                "edited it), and undoing would overwrite that."
            )
        restore_card(conn, outcome.review.question_id, outcome.previous)


def rerate_review(
    store: Store,
    question: QuestionRef,
    outcome: ReviewOutcome,
    rating: int,
    *,
    scheduler: Scheduler | None = None,
) -> ReviewOutcome:
    """The same answer with another rating (the user overrides the suggestion): the review is undone and
    recorded again at its original time with `rating`, in one transaction."""
    r = outcome.review
    with store.transaction():
        undo_review(store, outcome)
        return record_review(
            store,
            question,
            seed=r.seed,
            answer=r.answer,
            correct=r.correct,
            rating=rating,
            duration_ms=r.duration_ms,
            now=r.reviewed_at,
            mode=r.mode,
            diagnosis=r.diagnosis,
            diagnosis_id=r.diagnosis_id,
            update_schedule=r.scheduled,
            scheduler=scheduler,
            deadline=outcome.deadline,
            points=r.points,
        )


def _reviewed(
    card: CardRecord,
    scheduler: Scheduler,
    rating: Rating,
    when: datetime,
    duration_ms: int,
    deadline: datetime | None,
) -> tuple[CardRecord, bool, bool]:
    """The card after an FSRS review (bent for the interview day), with lapse and leech bookkeeping."""
    new = review_before(scheduler, card.to_fsrs(when), rating, when, deadline, duration_ms)
    lapsed = card.state == State.Review and rating == Rating.Again
    lapses = card.lapses + int(lapsed)
    became_leech = lapsed and lapses >= LEECH_LAPSES and not card.flagged
    after = replace(
        card,
        state=new.state,
        step=new.step,
        stability=new.stability,
        difficulty=new.difficulty,
        due=new.due,
        last_review=new.last_review,
        introduced=card.introduced or when,
        reps=card.reps + 1,
        lapses=lapses,
        flagged=card.flagged or became_leech,
    )
    return after, lapsed, became_leech


@dataclass(frozen=True)
class IntervalPreview:
    """What one rating would do: when the card comes back, and the short label on the button."""

    rating: Rating
    due: datetime
    interval: timedelta
    label: str


def preview_intervals(
    card: CardRecord | None, scheduler: Scheduler, *, now: datetime, deadline: datetime | None = None
) -> tuple[IntervalPreview, ...]:
    """The next interval for ratings 1-4 ("1m / 10m / 1d / 3d"), computed without fuzzing or saving.

    `card` None means a question never seen; `deadline` the interview day's start (see review_before).
    Nothing is mutated: fsrs returns new cards.
    """
    when = utc(now)
    plain = Scheduler(
        parameters=scheduler.parameters,
        desired_retention=scheduler.desired_retention,
        learning_steps=scheduler.learning_steps,
        relearning_steps=scheduler.relearning_steps,
        maximum_interval=scheduler.maximum_interval,
        enable_fuzzing=False,
    )
    record = card if card is not None else CardRecord(question_id="", card_id=0, deck_id="")
    fsrs_card = record.to_fsrs(when)
    previews = []
    for rating in Rating:
        new = review_before(plain, fsrs_card, rating, when, deadline)
        interval = new.due - when
        previews.append(
            IntervalPreview(rating=rating, due=new.due, interval=interval, label=format_interval(interval))
        )
    return tuple(previews)


def preview_for(
    store: Store, question_id: str, scheduler: Scheduler, *, now: datetime
) -> tuple[IntervalPreview, ...]:
    """preview_intervals for a question's stored card (or a new card if it has none), against the
    interview date in settings."""
    deadline = interview_deadline(load_settings(store).interview_date, now)
    return preview_intervals(get_card(store, question_id), scheduler, now=now, deadline=deadline)


def preview_before(outcome: ReviewOutcome, scheduler: Scheduler) -> tuple[IntervalPreview, ...]:
    """The interval each rating would have given the answer just recorded (for overriding it)."""
    return preview_intervals(
        outcome.previous, scheduler, now=outcome.review.reviewed_at, deadline=outcome.deadline
    )


def format_interval(interval: timedelta) -> str:
    """A short interval label as Anki writes it: 45s, 10m, 3h, 4d, 1.5mo, 2.1y."""
    seconds = max(0.0, interval.total_seconds())
    if seconds < 60:
        return f"{round(seconds)}s"
    if seconds < 3600:
        return f"{round(seconds / 60)}m"
    if seconds < 86_400:
        return f"{round(seconds / 3600)}h"
    days = seconds / 86_400
    if days < 30:
        return f"{round(days)}d"
    if days < 365:
        return f"{days / 30:.1f}mo".replace(".0mo", "mo")
    return f"{days / 365:.1f}y".replace(".0y", "y")
