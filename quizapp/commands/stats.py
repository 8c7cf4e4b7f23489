"""Provides `stats` and the suspended questions (`suspended`, `unsuspend ID`): what you studied, read from the
progress database."""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys

from quizapp.commands.opening import open_store_for, read_clock, workspace_for
from quizapp.errors import QuizappError
from quizapp.records.questions import QuestionRef
from quizapp.reports.stats import compute_stats
from quizapp.reports.text import render_stats
from quizapp.store.cards import get_card, set_suspended, suspended_ids


def run_stats(args: argparse.Namespace) -> int:
    now = read_clock()
    with workspace_for(args, now) as ws:
        try:  # the stats still print (with deck ids, without readiness) if the decks cannot be loaded
            catalog = ws.catalog
            headers = catalog.deck_refs()
            questions = ws.plan_questions  # a daily budget's plan sets the new-card count, as in the app
            plan = ws.plan(now)  # readiness and that count, computed once
        except (ImportError, QuizappError, OSError):
            catalog, headers, questions, plan = None, None, None, None
        stats = compute_stats(
            ws.store, now=now, decks=headers, questions=questions, catalog=catalog, plan=plan
        )
    if args.json:
        print(json.dumps(dataclasses.asdict(stats), default=str, indent=2))
    else:
        titles = {deck.id: deck.title for deck in headers or ()}
        print(render_stats(stats, deck_titles=titles))
    return 0


def run_suspended(args: argparse.Namespace) -> int:
    with open_store_for(args, read_clock()) as store:
        ids = suspended_ids(store)
    for qid in ids:
        print(qid)
    if not ids:
        print("No question is suspended.", file=sys.stderr)
    return 0


def run_unsuspend(args: argparse.Namespace) -> int:
    with open_store_for(args, read_clock()) as store:
        suspended = suspended_ids(store)
        wanted = list(suspended) if args.all else list(args.ids)
        if not wanted:
            print("quizapp: name the questions to bring back, or pass --all", file=sys.stderr)
            return 2
        unknown = [qid for qid in wanted if qid not in suspended]
        if unknown:
            print(f"quizapp: not suspended: {', '.join(unknown)}", file=sys.stderr)
            return 2
        for qid in wanted:
            card = get_card(store, qid)
            assert card is not None
            set_suspended(store, QuestionRef(qid, card.deck_id), False)
            print(f"back in the queues: {qid}")
    return 0
