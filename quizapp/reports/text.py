"""Provides the plain-text rendering of Stats for `quizapp stats`: a calendar of shade characters, bars,
and tables that fit 80 columns and read fine without colour."""

from __future__ import annotations

import textwrap
from collections.abc import Callable, Mapping
from datetime import timedelta

from quizapp.reports.stats import DayCount, KeyPointMiss, Stats
from quizapp.study.readiness import Readiness

SHADES = "·░▒▓█"
"""Zero reviews, then four levels up to the busiest day."""
BLOCKS = " ▁▂▃▄▅▆▇█"
_WEEKDAYS = ("Mon", "", "Wed", "", "Fri", "", "Sun")


def shade(count: int, busiest: int) -> str:
    """The shade character of a day with `count` reviews when the busiest day had `busiest`."""
    if count <= 0 or busiest <= 0:
        return SHADES[0]
    level = -(-4 * count // busiest)  # ceil: any review at all shows at least the lightest shade
    return SHADES[min(4, max(1, level))]


def calendar_grid(calendar: tuple[DayCount, ...]) -> list[str]:
    """Weeks as columns (Monday on top), like GitHub's contribution graph, with month names above."""
    if not calendar:
        return []
    busiest = max(d.reviews for d in calendar)
    first = calendar[0].day
    grid_start = first - timedelta(days=first.weekday())
    weeks = (calendar[-1].day - grid_start).days // 7 + 1
    rows = [[" "] * weeks for _ in range(7)]
    months = [" "] * (weeks + 3)
    for d in calendar:
        col = (d.day - grid_start).days // 7
        rows[d.day.weekday()][col] = shade(d.reviews, busiest)
        if d.day.day == 1:
            name = d.day.strftime("%b")
            if all(c == " " for c in months[col : col + 4]):
                months[col : col + 3] = list(name)
    lines = ["    " + "".join(months).rstrip()]
    lines += [f"{_WEEKDAYS[i]:<4}" + "".join(rows[i]).rstrip() for i in range(7)]
    lines.append("    less " + " ".join(SHADES) + f" more (busiest day: {busiest:,})")
    return lines


def bar(share: float, width: int = 20) -> str:
    """A horizontal bar of full blocks and light shade, `share` of the way across."""
    full = round(max(0.0, min(1.0, share)) * width)
    return "█" * full + "░" * (width - full)


def _plural(n: int, word: str) -> str:
    return f"{n:,} {word}{'' if n == 1 else 's'}"


def format_hours(seconds: float) -> str:
    """Study time as people say it: "45 min", "3 h 05 min"."""
    minutes = round(seconds / 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours:,} h {minutes:02d} min" if hours else f"{minutes} min"


def readiness_lines(readiness: Readiness, name: Callable[[str], str] = str) -> list[str]:
    """Readiness per deck, weakest first, under the line that says what it means."""
    lines = [
        f"Readiness on {readiness.on:%a} {readiness.on.day} {readiness.on:%b}: {readiness.recall:.0%}",
        *textwrap.wrap(readiness.meaning, 78, initial_indent="  ", subsequent_indent="  "),
    ]
    for deck in sorted(readiness.decks, key=lambda d: (d.recall, d.deck_id)):
        lines.append(
            f"  {name(deck.deck_id):<28} {bar(deck.recall)} {deck.recall * 100:3.0f}%"
            f"  ({deck.seen}/{deck.questions} seen)"
        )
    return lines


def render_stats(stats: Stats, *, deck_titles: Mapping[str, str] | None = None) -> str:
    """The whole stats report as text; deck ids are shown with their titles when given."""
    titles = deck_titles or {}

    def name(deck_id: str) -> str:
        text = titles.get(deck_id, deck_id)
        return text if len(text) <= 28 else text[:27] + "…"

    year = sum(d.reviews for d in stats.calendar)
    out = [
        f"Reviews, last {len(stats.calendar)} days: {year:,}   today: {stats.reviews_today:,}"
        f"   streak: {_plural(stats.streak_days, 'day')}",
        *calendar_grid(stats.calendar),
        "",
        f"Time spent: {format_hours(stats.total_seconds)} over {_plural(stats.total_reviews, 'answer')}",
        "",
        "True retention (scheduled reviews of cards in review state):",
    ]
    if stats.retention:
        for r in stats.retention:
            out.append(
                f"  {name(r.deck_id):<28} {(r.retention or 0) * 100:5.1f}%  ({r.passed:,}/{r.total:,})"
            )
        overall = stats.overall_retention
        out.append(f"  {'all decks':<28} {(overall or 0) * 100:5.1f}%")
    else:
        out.append("  no reviews of graduated cards yet")
    if stats.counts is not None:
        c = stats.counts
        out += ["", f"Waiting now: {c.new:,} new · {c.learning:,} learning · {c.review:,} review"]
    if stats.readiness is not None:
        out += ["", *readiness_lines(stats.readiness, name)]
    out += ["", "Mastery (share of cards in review state with stability >= 21 days):"]
    if any(m.in_review for m in stats.mastery):
        for m in stats.mastery:
            share = m.share or 0.0
            out.append(
                f"  {name(m.deck_id):<28} {bar(share)} {share * 100:3.0f}%  ({m.mastered}/{m.in_review})"
            )
    else:
        out.append("  no cards in review state yet")
    out += ["", f"Due, next {len(stats.forecast)} days (overdue now: {stats.overdue:,}):"]
    peak = max((d.due for d in stats.forecast), default=0)
    spark = "".join(BLOCKS[-(-8 * d.due // peak)] if peak and d.due else "·" for d in stats.forecast)
    week = sum(d.due for d in stats.forecast[:7])
    month = sum(d.due for d in stats.forecast)
    today = stats.forecast[0].due if stats.forecast else 0
    out.append(f"  {spark}  today {today:,} · 7 days {week:,} · {len(stats.forecast)} days {month:,}")
    out += ["", "Most frequent misconceptions:"]
    if stats.diagnoses:
        for d in stats.diagnoses:
            qids = ", ".join(d.question_ids[:3]) + (" …" if len(d.question_ids) > 3 else "")
            head = f"  {d.count:>5,}×  "  # a long diagnosis wraps under itself, within 80 columns
            out += textwrap.wrap(
                f"{d.label}  [{qids}]", 80, initial_indent=head, subsequent_indent=" " * len(head)
            )
    else:
        out.append("  none diagnosed yet")
    if stats.point_misses:
        out += ["", *key_point_lines(stats)]
    return "\n".join(out)


def key_point_lines(stats: Stats) -> list[str]:
    """The key points the learner's ticks overruled the grader on most: each named by question id, number
    and text (when the decks still have it), and how often each way."""
    lines = [
        "Key points the grader misses most:",
        "  (missed: you ticked it, the grader did not; over-credited: the reverse)",
    ]
    for m in stats.point_misses:
        where = f"{m.question_id}, point {m.point}"
        lines += textwrap.wrap(
            f"{where}: {m.text}" if m.text else where, 80, initial_indent="  ", subsequent_indent="      "
        )
        lines.append("      " + disagreement_counts(m))
    return lines


def disagreement_counts(miss: KeyPointMiss) -> str:
    """How often each way the learner overruled the grader on a key point: "3× missed · 1× over-credited"."""
    ways = [f"{miss.missed:,}× missed"] if miss.missed else []
    ways += [f"{miss.over_credited:,}× over-credited"] if miss.over_credited else []
    return " · ".join(ways)
