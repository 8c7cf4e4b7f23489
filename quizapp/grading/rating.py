"""Provides the one rule that turns a graded answer into a suggested FSRS rating (1 Again .. 4 Easy)."""

from __future__ import annotations

from dataclasses import dataclass

from fsrs import Rating

AGAIN, HARD, GOOD, EASY = (int(r) for r in (Rating.Again, Rating.Hard, Rating.Good, Rating.Easy))
RATING_NAMES: dict[int, str] = {int(r): r.name for r in Rating}
"""1 Again .. 4 Easy, named as fsrs names them."""


HINT_CAPS: tuple[int, ...] = (EASY, GOOD, HARD, AGAIN)
"""The best rating after 0, 1, 2 or 3 rungs of the hint ladder: each rung lowers it by one."""


EASY_SHARE = 1 / 3
"""Easy is suggested only for a right answer in under this share of the question's target time."""


@dataclass(frozen=True)
class Suggestion:
    """A suggested rating and, in a few words, why: "Good: right in 38 s", "Hard: 2 hints"."""

    rating: int
    reason: str


def suggest(
    correct: bool,
    *,
    hints_used: int = 0,
    attempt: int = 1,
    seconds: float | None = None,
    target_seconds: float = 90.0,
    new_card: bool = False,
    missed_today: bool = False,
) -> Suggestion:
    """Suggests how well the card is known, in FSRS's 1-4 scale, from how the answer went, with the reason.

    - wrong: Again (1);
    - right on a retry (attempt > 1), or slower than `target_seconds`: Hard (2);
    - right, first try, no hint, on a card already seen (not `new_card`), in under EASY_SHARE (a third)
      of `target_seconds`: Easy (4). Easy sends a card far away, so it takes a clear case: a new card is
      never suggested Easy, and a time that is unknown never earns it; nor is a card `missed_today` (a
      wrong answer logged since the day began, in any mode): minutes after a miss, a right answer shows
      it was just seen, not that it is known;
    - any other right answer: Good (3);
    - and never above the hint ladder's cap: Good after one rung, Hard after two, Again after three.

    The user may override the suggestion; this only picks the default.
    """
    if not correct:
        return Suggestion(AGAIN, "Again: wrong")
    hints = min(max(hints_used, 0), len(HINT_CAPS) - 1)
    cap = HINT_CAPS[hints]
    took = f" in {_secs(seconds)}" if seconds is not None else ""
    if attempt > 1:
        rating, why = HARD, f"right on try {attempt}"
    elif seconds is not None and seconds > target_seconds:
        rating, why = HARD, f"right in {_secs(seconds)}, over the {_secs(target_seconds)} target"
    elif seconds is not None and seconds < target_seconds * EASY_SHARE and not hints and missed_today:
        rating, why = GOOD, f"right{took} (missed earlier today, so not Easy)"
    elif seconds is not None and seconds < target_seconds * EASY_SHARE and not hints and not new_card:
        rating, why = EASY, f"right first try{took}, no hints"
    elif seconds is not None and seconds < target_seconds * EASY_SHARE and not hints:
        rating, why = GOOD, f"right{took} (a new card is never suggested Easy)"
    else:
        rating, why = GOOD, f"right{took}"
    if hints and cap <= rating:
        rating, why = cap, f"{hints} hint{'s' * (hints != 1)}"
    return Suggestion(rating, f"{RATING_NAMES[rating]}: {why}")


def suggest_rating(
    correct: bool,
    *,
    hints_used: int = 0,
    attempt: int = 1,
    seconds: float | None = None,
    target_seconds: float = 90.0,
    new_card: bool = False,
    missed_today: bool = False,
) -> int:
    """The rating of `suggest`, without its reason."""
    return suggest(
        correct,
        hints_used=hints_used,
        attempt=attempt,
        seconds=seconds,
        target_seconds=target_seconds,
        new_card=new_card,
        missed_today=missed_today,
    ).rating


def _secs(seconds: float) -> str:
    """38 s, 2 min 5 s: how long an answer took, as the reason line says it."""
    whole = round(seconds)
    if whole < 120:
        return f"{whole} s"
    return f"{whole // 60} min" + (f" {whole % 60} s" if whole % 60 else "")
