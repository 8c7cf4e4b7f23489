"""Provides the plain-text interview plan for `quizapp plan`: the daily load, then each deck's outlook."""

from __future__ import annotations

import textwrap
from collections.abc import Mapping, Sequence

from quizapp.study.budget import MIN_ANSWERS, AnswerTime
from quizapp.study.plan import Plan

SHOWN_LEFT_OUT = 4
"""Questions named per reason in the text; `--json` lists them all."""


def _bar(share: float, width: int = 12) -> str:
    full = round(max(0.0, min(1.0, share)) * width)
    return "█" * full + "░" * (width - full)


def _seconds(seconds: float) -> str:
    return f"{seconds:.0f} s" if seconds < 120 else f"{seconds / 60:.0f} min"


def _time_item(time: AnswerTime) -> str:
    """ "code 5 min", with no-break spaces: a kind and its time stay on one line when the text wraps."""
    return f"{time.kind} {_seconds(time.seconds)}".replace(" ", "\u00a0")


def time_lines(plan: Plan) -> list[str]:
    """Minutes a day, where the answer times come from, and the budget: what fits and what does not."""
    own = [_time_item(t) for t in plan.answer_times if t.own]
    guessed = [_time_item(t) for t in plan.answer_times if not t.own]
    source = "; ".join(
        part
        for part in (
            "your pace: " + ", ".join(own) if own else "",
            f"a first guess until you answer {MIN_ANSWERS} of a kind: " + ", ".join(guessed)
            if guessed
            else "",
            "plus reading each feedback, and a new card's learning steps",
        )
        if part
    )
    lines = textwrap.wrap(
        f"  Time         {plan.minutes_per_day:>5.0f} min a day   ({source})",
        78,
        subsequent_indent=" " * 30,
        break_on_hyphens=False,
    )
    if plan.budget_minutes is None:
        return lines
    if not plan.left_out:
        lines.append(f"  Budget       {plan.budget_minutes:>5g} min a day   (everything fits)")
        return lines
    lines.append(
        f"  Budget       {plan.budget_minutes:>5g} min a day   (all of it: {plan.minutes_needed:.0f} min; "
        "left out below)"
    )
    return lines


def left_out_lines(plan: Plan, titles: Mapping[str, str]) -> list[str]:
    """What the budget left out: decks first, then questions grouped by why, with a few ids each."""
    if not plan.left_out:
        return []
    lines = ["", "Left out to fit the budget (what the interview needs least goes first):"]
    for item in (i for i in plan.left_out if i.kind == "deck"):
        lines.append(f"  deck {titles.get(item.id, item.id)}")
        lines.append(f"       {item.reason}")
    groups: dict[str, list[str]] = {}
    for item in (i for i in plan.left_out if i.kind == "question"):
        groups.setdefault(item.reason.split(":")[0], []).append(item.id)
    for reason, ids in groups.items():
        lines.append(f"  {len(ids):>4} question{'s' * (len(ids) != 1)}: {reason}")
        shown = ", ".join(ids[:SHOWN_LEFT_OUT]) + (", ..." if len(ids) > SHOWN_LEFT_OUT else "")
        lines += textwrap.wrap(
            shown, 78, initial_indent=" " * 7, subsequent_indent=" " * 7, break_on_hyphens=False
        )
    lines.append("  (`quizapp plan --json` lists each one with its reason)")
    return lines


SHOWN_QUEUE = 12
"""Questions of today's queue named in the text; `--json` lists them all."""


def _today_count(queue: Sequence[str], deck_of: Mapping[str, str]) -> str:
    decks = len({deck_of.get(q, q) for q in queue})
    return f"{len(queue)} question{'s' * (len(queue) != 1)} from {decks} deck{'s' * (decks != 1)}"


def queue_line(queue: Sequence[str], deck_of: Mapping[str, str]) -> str:
    """Today's queue in one line: "Today: 19 questions from 17 decks, first kv-cache-anchor-gqa"."""
    if not queue:
        return "Today: nothing left to study; the plan goes on tomorrow."
    return f"Today: {_today_count(queue, deck_of)}, first {queue[0]}"


def queue_lines(queue: Sequence[str], deck_of: Mapping[str, str]) -> list[str]:
    """Today's queue for `quizapp plan`: how much, then the first SHOWN_QUEUE ids in study's order."""
    if not queue:
        return ["", queue_line(queue, deck_of)]
    shown = ", ".join(queue[:SHOWN_QUEUE]) + (", ..." if len(queue) > SHOWN_QUEUE else "")
    return [
        "",
        f"Today, in the order study asks them ({_today_count(queue, deck_of)}):",
        *textwrap.wrap(shown, 78, initial_indent="  ", subsequent_indent="  ", break_on_hyphens=False),
    ]


def render_plan(
    plan: Plan,
    titles: Mapping[str, str] | None = None,
    *,
    queue: Sequence[str] | None = None,
    deck_of: Mapping[str, str] | None = None,
) -> str:
    """The plan as it reads in a terminal of 80 columns, weakest deck first so the eye lands on it; with
    `queue` (today's question ids in study's order; `deck_of`: question id -> deck id), today's share."""
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
        *time_lines(plan),
        "",
        f"  {'deck':<44} {'seen':>9}  {'recall on the day':<18}",
    ]
    for deck in sorted(plan.readiness.decks, key=lambda d: (d.recall, d.title)):
        title = deck.title if len(deck.title) <= 44 else deck.title[:43] + "…"
        seen = f"{deck.seen}/{deck.questions}"
        focus = "  <- focus" if deck.deck_id in plan.focus else ""
        lines.append(f"  {title:<44} {seen:>9}  {deck.recall:>4.0%} {_bar(deck.recall)}{focus}")
    if plan.focus:
        lines += ["", "The last days review the decks marked focus (your weakest) before new cards."]
    lines += [
        "",
        "Recall on the day: the share of a deck's questions you would recall then with no",
        "more study, by FSRS's forgetting curve; questions never seen count as not known.",
    ]
    lines += left_out_lines(plan, titles or {})
    if queue is not None:
        lines += queue_lines(queue, deck_of or {})
    return "\n".join(lines)
