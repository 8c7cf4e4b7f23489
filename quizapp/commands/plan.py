"""Provides `quizapp plan`: study for the day of the interview, in minutes, within a daily budget.

The date, the daily budget and the low-priority decks are settings, so the app's home screen shows the
same plan; this command sets them and prints the plan in full, deck by deck, with what the budget leaves
out and why.
"""

from __future__ import annotations

import argparse
import difflib
import json
from dataclasses import asdict
from typing import TYPE_CHECKING, Any

from quizapp.commands.opening import workspace_for
from quizapp.config import system_now
from quizapp.errors import QuizappError
from quizapp.reports.plan_text import render_plan
from quizapp.store import load_settings, save_setting
from quizapp.store.settings import check_interview_date
from quizapp.study.queues import QuestionSet
from quizapp.study.session import StudySession

if TYPE_CHECKING:
    from datetime import datetime

    from quizapp.content.catalog import Catalog
    from quizapp.store.database import Store
    from quizapp.study.plan import Plan
    from quizapp.workspace import Workspace


def run_plan(args: argparse.Namespace) -> int:
    now = system_now()
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
            if not args.json:
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
        if plan is None and args.json:  # an answer, not an error: a script asked what the plan is
            doc = _no_date_json(now.date().isoformat(), len(ws.plan_questions), settings)
            print(json.dumps(doc, indent=2))
            return 0
        if plan is None:
            raise QuizappError(NO_DATE)
        queue = today_queue(ws, plan, now)
    if args.json:
        doc = asdict(plan)
        ready = doc.pop("readiness")  # the keys as before the plan carried a Readiness
        doc["recall"], doc["decks"] = ready["recall"], ready["decks"]
        doc["queue"] = list(queue)  # today's questions, in the order study asks them
        doc["left_out"] = [asdict(item) for item in plan.left_out]  # every one, made from the plan's columns
        doc["low_priority_decks"] = list(settings.low_priority_decks)
        print(json.dumps(doc, default=str, indent=2))
    else:
        headers = catalog.deck_refs()
        deck_of = {q: d.id for d in headers for q in d.question_ids}
        print(render_plan(plan, titles={d.id: d.title for d in headers}, queue=queue, deck_of=deck_of))
    return 0


def today_queue(ws: Workspace, plan: Plan, now: datetime) -> tuple[str, ...]:
    """Today's question ids in the order a study session started now asks them (the session's own
    set-up and queue, with the workspace's plan)."""
    questions = QuestionSet.from_catalog(ws.catalog)
    return StudySession.today_queue(
        ws.catalog, ws.store, questions, now=now, plan_questions=ws.plan_questions, plan=plan
    )


NO_DATE = "No interview date is set. Set one with `quizapp plan --date YYYY-MM-DD`."


def _no_date_json(today: str, questions: int, settings: Any) -> dict[str, Any]:
    """`plan --json` without a date: the plan's keys that still mean something (the interview is null)."""
    return {
        "interview": None,
        "today": today,
        "questions": questions,
        "budget_minutes": settings.daily_minutes or None,
        "low_priority_decks": list(settings.low_priority_decks),
        "message": NO_DATE,
    }


def _set_priorities(store: Store, catalog: Catalog, low: list[str], normal: list[str]) -> None:
    """Adds `low` to the saved low-priority decks and takes `normal` off; an unknown deck is refused."""
    known = [d.id for d in catalog.deck_refs()]
    for deck in (*low, *normal):
        if deck not in known:
            close = difflib.get_close_matches(deck, known, n=3, cutoff=0.5)
            hint = f" Did you mean {', '.join(close)}?" if close else f" Decks: {', '.join(known)}."
            raise QuizappError(f"There is no deck {deck!r}.{hint}")
    current = load_settings(store).low_priority_decks
    marked = [d for d in (*current, *low) if d not in normal]
    save_setting(store, "low_priority_decks", list(dict.fromkeys(marked)))
