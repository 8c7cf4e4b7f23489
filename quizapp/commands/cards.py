"""Provides `quizapp cards`: the card browser on the command line, and its actions.

quizapp cards [--deck D] [--due | --suspended | --leeches] [--search TEXT] [--json]
quizapp cards --id QID                       one card and its whole history
quizapp cards suspend|unsuspend|bury|reset|study-now QID [QID ...]
"""

from __future__ import annotations

import argparse
import json
import sys
from datetime import datetime
from typing import TYPE_CHECKING, Any

from quizapp.commands.opening import open_store_for
from quizapp.config import for_run, system_now
from quizapp.content.catalog import load_catalog
from quizapp.errors import QuizappError
from quizapp.grading.rating import RATING_NAMES
from quizapp.records.questions import QuestionRef
from quizapp.study.browser import CardFilter, apply_action, card_detail, list_cards, search_texts

if TYPE_CHECKING:
    from quizapp.content.catalog import Catalog
    from quizapp.study.browser import CardView


def run_cards(args: argparse.Namespace) -> int:
    now = system_now()
    catalog = load_catalog(for_run(args).deck_dirs)
    refs = _refs(catalog)
    by_id = {r.question_id: r for r in refs}
    if args.action is not None and not args.ids:
        raise QuizappError(f"Name the cards to {args.action}: `quizapp cards {args.action} QID [QID ...]`.")
    if args.action is None and args.ids:
        raise QuizappError(
            f"{args.ids[0]!r} is not an action; use suspend, unsuspend, bury, reset or study-now, "
            "or --id QID to see one card."
        )
    if args.deck is not None and args.deck not in {r.deck_id for r in refs}:
        raise QuizappError(f"There is no deck {args.deck!r}; `quizapp list` names the decks.")
    for qid in [*args.ids, *([args.question_id] if args.question_id else [])]:
        if qid not in by_id:
            catalog.question(qid)  # raises with the closest ids
    with open_store_for(args, now) as store:
        if args.action is not None:
            for qid in args.ids:
                print(apply_action(store, by_id[qid], args.action, now=now))
            return 0
        if args.question_id:
            detail = card_detail(store, by_id[args.question_id], now=now)
            if args.json:
                doc = detail.card.to_json()
                doc["history"] = [_review_json(r) for r in detail.history]
                print(json.dumps(doc, indent=2))
            else:
                print(_render_detail(detail))
            return 0
        texts = search_texts(catalog.questions) if args.search.strip() else None
        filt = CardFilter(
            args.deck,
            args.due,
            args.suspended,
            args.leeches,
            args.search,
            order="due" if args.due else "catalog",  # --due lists the soonest due first
        )
        page = list_cards(store, refs, filt, now=now, limit=None, texts=texts)
    if args.json:
        print(json.dumps([c.to_json() for c in page.cards], indent=2))
        return 0
    if not page.cards:
        print("No card matches.", file=sys.stderr)
        return 0
    print(f"{'question':<40} {'state':<10} {'due':<16} {'ivl':>5} {'reps':>4} {'laps':>4}  last")
    for card in page.cards:
        print(_row(card, now))
    print(f"{page.total:,} card{'s' * (page.total != 1)}")
    return 0


def _refs(catalog: Catalog) -> list[QuestionRef]:
    return [QuestionRef(o.question_id, o.deck_id, o.difficulty, o.tags) for o in catalog.question_outlines()]


def _when(when: datetime | None, now: datetime) -> str:
    if when is None:
        return "-"
    local = when.astimezone(now.tzinfo)
    return "now" if when <= now else f"{local:%Y-%m-%d %H:%M}"


def _row(card: CardView, now: datetime) -> str:
    name = card.question_id if len(card.question_id) <= 40 else card.question_id[:39] + "…"
    state = "suspended" if card.suspended else ("buried" if card.buried else card.state)
    ivl = "-" if card.interval_days is None else _days(card.interval_days)
    leech = " leech" if card.leech else ""
    return (
        f"{name:<40} {state:<10} {_when(card.due, now):<16} {ivl:>5} {card.reps:>4} {card.lapses:>4}  "
        f"{card.last_rating_name}{leech}"
    )


def _days(days: float) -> str:
    if days < 1:
        return f"{round(days * 1440)}m" if days * 1440 < 60 else f"{round(days * 24)}h"
    return f"{days:.0f}d" if days < 100 else f"{days / 30:.0f}mo"


def _review_json(review: Any) -> dict[str, Any]:
    return {
        "reviewed_at": review.reviewed_at.isoformat(),
        "mode": review.mode,
        "answer": review.answer,
        "correct": review.correct,
        "rating": review.rating,
        "seconds": review.duration_ms / 1000,
        "diagnosis": review.diagnosis,
        "scheduled": review.scheduled,
    }


def _render_detail(detail: Any) -> str:
    c = detail.card
    lines = [
        f"{c.question_id}  (deck {c.deck_id})",
        f"  state {c.state}" + (", suspended" if c.suspended else "") + (", leech" if c.leech else ""),
        f"  due {c.due.isoformat() if c.due else '-'}   interval "
        f"{'-' if c.interval_days is None else _days(c.interval_days)}   reps {c.reps}   lapses {c.lapses}",
        "",
        f"History ({len(detail.history)} answer{'s' * (len(detail.history) != 1)}):"
        if detail.history
        else "Never answered.",
    ]
    for r in detail.history:
        mark = "right" if r.correct else "wrong"
        lines.append(
            f"  {r.reviewed_at:%Y-%m-%d %H:%M}  {r.mode:<9} {mark:<5} {RATING_NAMES[r.rating]:<5} "
            f"{r.duration_ms / 1000:>6.1f} s  {r.answer[:30]}"
        )
    return "\n".join(lines)
