"""Provides `quizapp plan`: study for the day of the interview, in minutes, within a daily budget.

The date, the daily budget and the low-priority decks are settings, so the app's home screen shows the
same plan; this command sets them and prints the plan in full, deck by deck, with what the budget leaves
out and why.
"""

from __future__ import annotations

import argparse
import json
from dataclasses import asdict
from datetime import datetime
from typing import TYPE_CHECKING, Any

from quizapp.errors import QuizappError

if TYPE_CHECKING:
    from quizapp.content.catalog import Catalog
    from quizapp.store.database import Store


def register(sub: argparse._SubParsersAction[Any]) -> None:
    """Adds `plan`."""
    plan = sub.add_parser(
        "plan",
        help="set the interview date and a daily time budget; see the plan in minutes and what it leaves out",
        description=(
            "With a date, new cards are spread so that every question is seen at least twice before the "
            "interview, every card answered comes back before the day, and each deck's expected recall on "
            "the day is predicted with FSRS. Minutes a day come from your own answer times per question "
            "type (a guess per type until you have answered 3 of it). With a budget (--minutes), the plan "
            "leaves out, in this order, until the day fits: decks marked --low-priority; reviews of easy "
            "questions you already know; new questions, the most advanced first; the best-known reviews. "
            "The date, budget and priorities are saved as settings."
        ),
    )
    when = plan.add_mutually_exclusive_group()
    when.add_argument("--date", metavar="YYYY-MM-DD", help="the day of your interview (saved)")
    when.add_argument("--clear", action="store_true", help="forget the interview date")
    plan.add_argument(
        "--minutes",
        type=_minutes,
        metavar="N",
        help="the minutes you have a day (saved as daily_minutes; 0 removes the budget)",
    )
    plan.add_argument(
        "--low-priority",
        action="append",
        default=[],
        metavar="DECK",
        help="mark a deck low priority: left out first when time is short (saved; repeatable)",
    )
    plan.add_argument(
        "--normal-priority",
        action="append",
        default=[],
        metavar="DECK",
        help="take a deck off the low-priority list (repeatable)",
    )
    plan.add_argument("--json", action="store_true", help="print the plan as JSON")
    plan.set_defaults(func=run_plan)


def _minutes(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"minutes must be a whole number, got {text!r}") from None
    if not 0 <= value <= 1440:
        raise argparse.ArgumentTypeError(f"minutes must be between 0 and 1440, got {value}")
    return value


def run_plan(args: argparse.Namespace) -> int:
    from quizapp.commands.progress import workspace_for
    from quizapp.reports.plan_text import render_plan
    from quizapp.store import load_settings, save_setting
    from quizapp.store.settings import check_interview_date

    now = datetime.now().astimezone()
    if args.date is not None:
        if not args.date.strip():
            raise QuizappError(
                "Give the day of your interview as YYYY-MM-DD (like 2026-12-03); to forget the date, "
                "use `quizapp plan --clear`."
            )
        check_interview_date(args.date, now.date())
    with workspace_for(args, now) as ws:
        store, catalog = ws.store, ws.catalog
        if args.clear:
            save_setting(ws.store, "interview_date", "")
            print("The interview date is cleared: study goes on at your own pace.")
            return 0
        if args.date is not None:
            save_setting(store, "interview_date", check_interview_date(args.date, now.date()))
        if args.minutes is not None:
            save_setting(store, "daily_minutes", args.minutes)
        if args.low_priority or args.normal_priority:
            _set_priorities(store, catalog, args.low_priority, args.normal_priority)
        settings = load_settings(store)
        plan = ws.plan(now)
        if plan is None:
            raise QuizappError("No interview date is set. Set one with `quizapp plan --date YYYY-MM-DD`.")
    if args.json:
        doc = asdict(plan)
        doc["left_out"] = [asdict(item) for item in plan.left_out]  # every one, made from the plan's columns
        doc["low_priority_decks"] = list(settings.low_priority_decks)
        print(json.dumps(doc, default=str, indent=2))
    else:
        print(render_plan(plan, titles={d: t for d, t, _ in catalog.deck_headers()}))
    return 0


def _set_priorities(store: Store, catalog: Catalog, low: list[str], normal: list[str]) -> None:
    """Adds `low` to the saved low-priority decks and takes `normal` off; an unknown deck is refused."""
    import difflib

    from quizapp.store import load_settings, save_setting

    known = [d for d, _, _ in catalog.deck_headers()]
    for deck in (*low, *normal):
        if deck not in known:
            close = difflib.get_close_matches(deck, known, n=3, cutoff=0.5)
            hint = f" Did you mean {', '.join(close)}?" if close else f" Decks: {', '.join(known)}."
            raise QuizappError(f"There is no deck {deck!r}.{hint}")
    current = load_settings(store).low_priority_decks
    marked = [d for d in (*current, *low) if d not in normal]
    save_setting(store, "low_priority_decks", list(dict.fromkeys(marked)))
