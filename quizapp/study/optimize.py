"""Provides FSRS optimisation: weights fitted to the user's own review history, as Anki's "Optimize" does.

The fit runs in fsrs-rs-python, the Rust FSRS that Anki ships (no torch); its weights are FSRS-6 weights,
which the `fsrs` scheduler takes as they are. Each card's history becomes one training item per review
after the first, and an item counts only once it holds a review on a later day than the one before it
(delta_t > 0): same-day learning steps say nothing about forgetting over days.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from itertools import groupby
from typing import TYPE_CHECKING

from fsrs import Card, Rating, Scheduler

try:
    import fsrs_rs_python as rs
except ImportError:  # a dependency; without it `quizapp optimize` says to reinstall (see optimize)
    rs = None  # type: ignore[assignment]

from quizapp.errors import QuizappError
from quizapp.store import load_settings
from quizapp.store.fsrs_inputs import save_weights_and_memory, scheduled_reviews
from quizapp.store.settings import check_setting

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
    rmse_before: float = 0.0
    """RMSE of predicted against actual recall, in bins (Anki's "RMSE"), with the weights in use."""
    rmse_after: float = 0.0
    cards: int = 0
    """Cards whose memory state was recomputed under the new weights (0 until they are saved)."""

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
    if rs is None:
        raise QuizappError("Optimizing needs the fsrs-rs-python package; reinstall quizapp.")
    try:
        data = [rs.FSRSItem([rs.FSRSReview(rating, days) for rating, days in item]) for item in items]
        before_weights = list(current) or list(rs.DEFAULT_PARAMETERS)
        fitted = tuple(float(w) for w in rs.FSRS(before_weights).compute_parameters(data))
        before = rs.FSRS(before_weights).evaluate(data)
        after = rs.FSRS(list(fitted)).evaluate(data)
    except BaseException as exc:  # a Rust panic arrives as PanicException, a BaseException
        if isinstance(exc, KeyboardInterrupt | SystemExit):
            raise
        raise QuizappError(f"The FSRS optimizer could not fit your history: {exc}") from exc
    return Optimized(
        fitted,
        len(items),
        float(before.log_loss),
        float(after.log_loss),
        float(before.rmse_bins),
        float(after.rmse_bins),
    )


def fit_and_save(store: Store) -> tuple[Optimized, bool]:
    """Fits weights to the user's scheduled reviews; when they predict the history better, stores them
    and recomputes every card's memory state under them, in one transaction. (The fit, whether the new
    weights are now in use.) Raises QuizappError with too few reviews."""
    history = scheduled_reviews(store)
    result = optimize(history, load_settings(store).fsrs_parameters)
    if not result.improved:
        return result, False
    weights = check_setting("fsrs_parameters", list(result.parameters))
    states = memory_states(history, weights)
    save_weights_and_memory(store, weights, states)
    return replace(result, cards=len(states)), True


def memory_states(
    history: Sequence[tuple[str, int, int]], parameters: Sequence[float]
) -> dict[str, tuple[float, float]]:
    """Each card's (stability, difficulty) after replaying its scheduled reviews (question id, time in
    UTC microseconds, rating; grouped by card, in time order) through fsrs with `parameters`: what the
    card would hold had these weights been in use all along. Due dates are left as they are."""
    scheduler = Scheduler(parameters=tuple(parameters), enable_fuzzing=False)
    out: dict[str, tuple[float, float]] = {}
    for qid, rows in groupby(history, key=lambda row: row[0]):
        card: Card | None = None
        for _, at_us, rating in rows:
            when = datetime.fromtimestamp(at_us / 1_000_000, UTC)
            card = card or Card(card_id=1, due=when)
            card, _ = scheduler.review_card(card, Rating(rating), when)
        if card is not None and card.stability is not None and card.difficulty is not None:
            out[qid] = (float(card.stability), float(card.difficulty))
    return out


def describe_fit(result: Optimized, saved: bool) -> str:
    """The fit in words, for the command line and the settings screen."""
    lines = [
        f"Fitted on {result.items:,} reviews.",
        f"  with the weights in use: log-loss {result.log_loss_before:.4f}, RMSE {result.rmse_before:.4f}",
        f"  with the fitted weights: log-loss {result.log_loss_after:.4f}, RMSE {result.rmse_after:.4f}",
    ]
    if saved:
        lines.append(
            f"Saved: the scheduler now uses your own weights, and the memory state of {result.cards:,} "
            "card(s) was recomputed from their history (`quizapp optimize --reset`: the defaults again)."
        )
    else:
        lines.append(
            "Refused: the fitted weights predict your history worse (higher log-loss), so nothing was "
            "changed; the weights in use are kept."
        )
    return "\n".join(lines)
