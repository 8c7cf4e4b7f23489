"""Provides Rater: the facts of one attempt (hints, try, seconds, a new card, a miss today) that turn right
or wrong into a suggested rating and its reason, so each kind's grader only says right or wrong.
"""

from __future__ import annotations

from quizapp.content.instance import Instance
from quizapp.grading.rating import AGAIN, RATING_NAMES, Suggestion, suggest
from quizapp.grading.verdict import Verdict


class Rater:
    """Holds the timing facts of one attempt so each kind's grader only says right or wrong."""

    def __init__(
        self,
        inst: Instance,
        hints_used: int,
        attempt: int,
        seconds: float | None,
        new_card: bool = False,
        missed_today: bool = False,
    ) -> None:
        self.hints_used = hints_used
        self.attempt = attempt
        self.seconds = seconds
        self.target_seconds = inst.target_seconds
        self.new_card = new_card
        self.missed_today = missed_today
        self.rounded_ok = False
        """An exact integer may be answered to 3 significant figures (interviews)."""

    def suggestion(self, correct: bool) -> Suggestion:
        return suggest(
            correct,
            hints_used=self.hints_used,
            attempt=self.attempt,
            seconds=self.seconds,
            target_seconds=self.target_seconds,
            new_card=self.new_card,
            missed_today=self.missed_today,
        )

    def __call__(self, correct: bool) -> int:
        return self.suggestion(correct).rating

    def reason(self, verdict: Verdict) -> str:
        """Why `verdict.rating` was suggested, in a few words ("Good: right in 38 s")."""
        if verdict.unparseable:
            return ""
        plain = self.suggestion(verdict.correct)
        if plain.rating == verdict.rating:
            return plain.reason
        if not verdict.correct and verdict.rating > AGAIN:
            return f"{RATING_NAMES[verdict.rating]}: almost right, partial credit"
        return f"{RATING_NAMES[verdict.rating]}: {plain.reason.split(': ', 1)[-1]}"
