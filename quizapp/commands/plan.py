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
    from quizapp.commands.progress import workspace_for
    from quizapp.reports.plan_text import render_plan
    from quizapp.store import save_setting
    from quizapp.store.settings import check_setting

    now = datetime.now().astimezone()
    with workspace_for(args, now) as ws:
        if args.clear:
            save_setting(ws.store, "interview_date", "")
            print("The interview date is cleared: study goes on at your own pace.")
            return 0
        if args.date is not None:
            day = check_setting("interview_date", args.date)
            if date.fromisoformat(day) < now.date():
                raise QuizappError(f"{day} has already passed; give the day of an upcoming interview.")
            save_setting(ws.store, "interview_date", day)
        plan = ws.plan(now)
        if plan is None:
            raise QuizappError("No interview date is set. Set one with `quizapp plan --date YYYY-MM-DD`.")
    if args.json:
        print(json.dumps(asdict(plan), default=str, indent=2))
    else:
        print(render_plan(plan))
    return 0
