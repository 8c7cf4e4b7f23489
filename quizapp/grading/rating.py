"""Provides the one rule that turns a graded answer into a suggested FSRS rating (1 Again .. 4 Easy)."""

from __future__ import annotations

from fsrs import Rating

AGAIN, HARD, GOOD, EASY = (int(r) for r in (Rating.Again, Rating.Hard, Rating.Good, Rating.Easy))
RATING_NAMES: dict[int, str] = {int(r): r.name for r in Rating}
"""1 Again .. 4 Easy, named as fsrs names them."""


HINT_CAPS: tuple[int, ...] = (EASY, GOOD, HARD, AGAIN)
"""The best rating after 0, 1, 2 or 3 rungs of the hint ladder: each rung lowers it by one."""


def suggest_rating(
    correct: bool,
    *,
    hints_used: int = 0,
    attempt: int = 1,
    seconds: float | None = None,
    target_seconds: float = 90.0,
) -> int:
    """Suggests how well the card is known, in FSRS's 1-4 scale, from how the answer went.

    - wrong: Again (1);
    - right on a retry (attempt > 1), or slower than `target_seconds`: Hard (2);
    - right, first try, in under half of `target_seconds`: Easy (4);
    - any other right answer: Good (3);
    - and never above the hint ladder's cap: Good after one rung, Hard after two, Again after three.

    `seconds=None` (time unknown) never counts as slow and never earns Easy. The user may override the
    suggestion; this only picks the default.
    """
    if not correct:
        return AGAIN
    cap = HINT_CAPS[min(max(hints_used, 0), len(HINT_CAPS) - 1)]
    if attempt > 1 or (seconds is not None and seconds > target_seconds):
        return min(HARD, cap)
    if seconds is not None and seconds < target_seconds / 2:
        return min(EASY, cap)
    return min(GOOD, cap)
