"""Provides FSRS optimisation: weights fitted to the user's own review history, as Anki's "Optimize" does.

The fit runs in fsrs-rs-python, the Rust FSRS that Anki ships (no torch); its weights are FSRS-6 weights,
which the `fsrs` scheduler takes as they are. Each card's history becomes one training item per review
after the first, and an item counts only once it holds a review on a later day than the one before it
(delta_t > 0): same-day learning steps say nothing about forgetting over days.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from itertools import groupby
from typing import TYPE_CHECKING

from quizapp.errors import QuizappError

if TYPE_CHECKING:
    from quizapp.store.database import Store

MIN_ITEMS = 100
"""Fewer reviews on a later day than this, and the fit would only learn noise: the defaults are kept."""
US_PER_DAY = 86_400 * 1_000_000


@dataclass(frozen=True)
class Optimized:
    """The fitted weights and how well each set predicts the user's own history (lower is better)."""

    parameters: tuple[float, ...]
    items: int
    log_loss_before: float
    log_loss_after: float

    @property
    def improved(self) -> bool:
        return self.log_loss_after < self.log_loss_before


def training_items(history: Sequence[tuple[str, int, int]]) -> list[list[tuple[int, int]]]:
    """(rating, days since the previous review) sequences: one per review after a card's first, each
    ending on a review that came a day or more after the one before it."""
    items: list[list[tuple[int, int]]] = []
    for _, rows in groupby(history, key=lambda row: row[0]):
        reviews: list[tuple[int, int]] = []
        previous: int | None = None
        for _, at_us, rating in rows:
            days = 0 if previous is None else _day(at_us) - _day(previous)
            reviews.append((rating, days))
            previous = at_us
            if len(reviews) >= 2 and any(d > 0 for _, d in reviews[1:]) and days > 0:
                items.append(list(reviews))
    return items


def _day(at_us: int) -> int:
    return datetime.fromtimestamp(at_us / 1_000_000, UTC).toordinal()


def optimize(history: Sequence[tuple[str, int, int]], current: Sequence[float] = ()) -> Optimized:
    """Fits FSRS weights to `history` (question id, time, rating; grouped by card, in time order).

    Raises QuizappError, naming the count, when there are too few reviews on later days to fit anything.
    """
    items = training_items(history)
    if len(items) < MIN_ITEMS:
        raise QuizappError(
            f"Optimizing needs at least {MIN_ITEMS} reviews of cards seen on an earlier day; you have "
            f"{len(items)}. Keep studying: the default weights serve until then."
        )
    try:
        import fsrs_rs_python as rs

        data = [rs.FSRSItem([rs.FSRSReview(rating, days) for rating, days in item]) for item in items]
        before_weights = list(current) or list(rs.DEFAULT_PARAMETERS)
        fitted = tuple(float(w) for w in rs.FSRS(before_weights).compute_parameters(data))
        before = float(rs.FSRS(before_weights).evaluate(data).log_loss)
        after = float(rs.FSRS(list(fitted)).evaluate(data).log_loss)
    except ImportError as exc:
        raise QuizappError("Optimizing needs the fsrs-rs-python package; reinstall quizapp.") from exc
    except BaseException as exc:  # a Rust panic arrives as PanicException, a BaseException
        if isinstance(exc, KeyboardInterrupt | SystemExit):
            raise
        raise QuizappError(f"The FSRS optimizer could not fit your history: {exc}") from exc
    return Optimized(fitted, len(items), before, after)


def fit_and_save(store: Store) -> tuple[Optimized, bool]:
    """Fits weights to the user's scheduled reviews and stores them when they predict the history better;
    (the fit, whether the new weights are now in use). Raises QuizappError with too few reviews."""
    from quizapp.store import load_settings, save_setting
    from quizapp.store.fsrs_inputs import scheduled_reviews

    result = optimize(scheduled_reviews(store), load_settings(store).fsrs_parameters)
    if result.improved:
        save_setting(store, "fsrs_parameters", list(result.parameters))
    return result, result.improved


def describe_fit(result: Optimized, saved: bool) -> str:
    """The fit in words, for the command line and the settings screen."""
    lines = [
        f"Fitted on {result.items:,} reviews.",
        f"  log-loss with the weights in use: {result.log_loss_before:.4f}",
        f"  log-loss with the fitted weights: {result.log_loss_after:.4f}",
    ]
    if saved:
        lines.append("Saved: the scheduler now uses your own weights (`quizapp optimize --reset` undoes it).")
    else:
        lines.append("The fitted weights predict your history no better; the weights in use are kept.")
    return "\n".join(lines)
