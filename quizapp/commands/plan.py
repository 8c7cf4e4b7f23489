"""Provides `quizapp plan [--date YYYY-MM-DD | --clear] [--json]`: study for the day of the interview.

The date is a setting, so the app's home screen shows the same plan; this command sets it and prints the
plan in full, deck by deck.
"""

from __future__ import annotations

import argparse
import json
from dataclasses import asdict
from datetime import date, datetime
from typing import Any

from quizapp.errors import QuizappError


def register(sub: argparse._SubParsersAction[Any]) -> None:
    """Adds `plan`."""
    plan = sub.add_parser(
        "plan",
        help="set the interview date and see the daily plan and the recall to expect",
        description=(
            "With a date, new cards are spread so that every question is seen at least twice before the "
            "interview, and each deck's expected recall on the day is predicted with FSRS."
        ),
    )
    when = plan.add_mutually_exclusive_group()
    when.add_argument("--date", metavar="YYYY-MM-DD", help="the day of your interview (saved)")
    when.add_argument("--clear", action="store_true", help="forget the interview date")
    plan.add_argument("--json", action="store_true", help="print the plan as JSON")
    plan.set_defaults(func=run_plan)


def run_plan(args: argparse.Namespace) -> int:
    from quizapp.commands.progress import open_store_for
    from quizapp.config import for_run
    from quizapp.content.catalog import load_catalog
    from quizapp.reports.plan_text import render_plan
    from quizapp.store import load_settings, save_setting
    from quizapp.store.memory import card_memories
    from quizapp.store.settings import check_setting
    from quizapp.study.plan import make_plan
    from quizapp.study.scheduler import scheduler_for

    now = datetime.now().astimezone()
    with open_store_for(args, now) as store:
        if args.clear:
            save_setting(store, "interview_date", "")
            print("The interview date is cleared: study goes on at your own pace.")
            return 0
        if args.date is not None:
            day = check_setting("interview_date", args.date)
            if date.fromisoformat(day) < now.date():
                raise QuizappError(f"{day} has already passed; give the day of an upcoming interview.")
            save_setting(store, "interview_date", day)
        settings = load_settings(store)
        if not settings.interview_date:
            raise QuizappError("No interview date is set. Set one with `quizapp plan --date YYYY-MM-DD`.")
        plan = make_plan(
            load_catalog(for_run(args).deck_dirs).deck_headers(),
            card_memories(store),
            interview=date.fromisoformat(settings.interview_date),
            today=now.date(),
            now=now,
            scheduler=scheduler_for(store, fuzzing=False),
        )
    if args.json:
        print(json.dumps(asdict(plan), default=str, indent=2))
    else:
        print(render_plan(plan))
    return 0
