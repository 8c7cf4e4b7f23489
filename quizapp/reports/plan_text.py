"""Provides the plain-text interview plan for `quizapp plan`: the daily load, then each deck's outlook."""

from __future__ import annotations

from quizapp.study.plan import Plan


def _bar(share: float, width: int = 12) -> str:
    full = round(max(0.0, min(1.0, share)) * width)
    return "█" * full + "░" * (width - full)


def render_plan(plan: Plan) -> str:
    """The plan as it reads in a terminal of 80 columns, weakest deck first so the eye lands on it."""
    day = f"{plan.interview:%a} {plan.interview.day} {plan.interview:%b %Y}"
    if plan.passed:
        return f"Your interview was on {day}. Set a new date with `quizapp plan --date YYYY-MM-DD`."
    left = "today" if plan.days_left == 0 else f"in {plan.days_left} day{'s' * (plan.days_left != 1)}"
    lines = [
        f"Interview on {day}, {left}.",
        "",
        f"  New cards    {plan.new_per_day:>5} a day   "
        f"({plan.unseen:,} of {plan.questions:,} questions unseen)",
        f"  Reviews      {plan.reviews_per_day:>5} a day   (about; if each card is answered Good)",
        f"  Recall       {plan.recall:>5.0%}         expected on the day if you stopped studying now",
        "",
        f"  {'deck':<44} {'seen':>9}  {'recall on the day':<18}",
    ]
    for deck in sorted(plan.decks, key=lambda d: (d.recall, d.title)):
        title = deck.title if len(deck.title) <= 44 else deck.title[:43] + "…"
        seen = f"{deck.seen}/{deck.questions}"
        focus = "  <- focus" if deck.deck_id in plan.focus else ""
        lines.append(f"  {title:<44} {seen:>9}  {deck.recall:>4.0%} {_bar(deck.recall)}{focus}")
    if plan.focus:
        lines += ["", "The last days lean on the decks marked focus: your weakest."]
    return "\n".join(lines)
