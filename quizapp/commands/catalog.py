"""Provides the catalog commands `list` and `schema`; `show` and `validate` have modules of their own
(quizapp.commands.show, quizapp.commands.validate), each importing only what it needs."""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from typing import TYPE_CHECKING, Any

from quizapp.config import for_run
from quizapp.content.catalog import load_catalog
from quizapp.content.json_schema import deck_json_schema as build
from quizapp.content.schema_common import QUESTION_TYPES
from quizapp.errors import QuizappError

if TYPE_CHECKING:
    from quizapp.content.catalog import Catalog

EXIT_OK, EXIT_ERRORS = 0, 1


def load(args: argparse.Namespace) -> Catalog:
    """The bank with the config's and `--decks` folders; each skipped deck said on stderr."""
    catalog = load_catalog(for_run(args).deck_dirs)
    for skipped in catalog.skipped:
        print(skipped, file=sys.stderr)
    return catalog


# --------------------------------------------------------------------------- list


def cmd_list(args: argparse.Namespace) -> int:
    """Prints one row per deck (counts by type and by difficulty), or the question ids."""
    catalog = load(args)
    if args.questions is not None:
        return _list_questions(catalog, args.questions, as_json=args.json)
    columns = ("total", *QUESTION_TYPES, "d1", "d2", "d3")
    table: list[tuple[str, str, Counter[str]]] = []
    for deck in catalog.decks.values():
        counts: Counter[str] = Counter(str(q.type) for q in deck.questions)
        counts.update(f"d{q.difficulty}" for q in deck.questions)
        counts["total"] = len(deck.questions)
        table.append((deck.id, deck.title, counts))
    if args.json:
        decks = [{"id": i, "title": t, **{k: c[k] for k in columns}} for i, t, c in table]
        print(json.dumps({"decks": decks}, indent=2))
        return EXIT_OK
    short = {"numeric": "num", "tensor": "tensor", "shape": "shape", "choice": "choice",
             "flashcard": "card", "explain": "explain", "code": "code", "scenario": "case"}  # fmt: skip
    header = ["deck", "total", *(short[t] for t in QUESTION_TYPES), "d1", "d2", "d3", "title"]
    totals: Counter[str] = sum((c for _, _, c in table), Counter())
    rows = [[i, *(str(c[k]) for k in columns), t] for i, t, c in table]
    rows.append(["TOTAL", *(str(totals[k]) for k in columns), ""])
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header) - 1)]
    for row in [header, *rows]:
        cells = [row[0].ljust(widths[0])] + [c.rjust(w) for c, w in zip(row[1:-1], widths[1:], strict=True)]
        print("  ".join([*cells, row[-1]]).rstrip())
    if not catalog.decks:
        print("no decks loaded", file=sys.stderr)
    return EXIT_OK


def _list_questions(catalog: Catalog, deck_id: str, *, as_json: bool) -> int:
    """One line per question: id, deck, type, difficulty (the ids `show` and `check` take)."""
    if deck_id and deck_id not in catalog.decks:
        raise QuizappError(f"no deck {deck_id!r}; `quizapp list` shows the deck ids")
    decks = [catalog.decks[deck_id]] if deck_id else list(catalog.decks.values())
    rows = [(q.id, d.id, str(q.type), q.difficulty) for d in decks for q in d.questions]
    if as_json:
        keys = ("id", "deck", "type", "difficulty")
        print(json.dumps({"questions": [dict(zip(keys, r, strict=True)) for r in rows]}, indent=2))
        return EXIT_OK
    width = max((len(r[0]) for r in rows), default=2)
    for qid, deck, kind, difficulty in rows:
        print(f"{qid.ljust(width)}  {deck}  {kind}  d{difficulty}")
    return EXIT_OK


# --------------------------------------------------------------------------- show


# --------------------------------------------------------------------------- validate


# --------------------------------------------------------------------------- schema


def cmd_schema(args: argparse.Namespace) -> int:
    """Prints the deck JSON Schema, with the known calculators, presets and units as enums."""
    print(json.dumps(deck_json_schema(), indent=2))
    return EXIT_OK


def deck_json_schema() -> dict[str, Any]:
    """The deck schema in plain JSON Schema (see quizapp.content.json_schema); loaded only when asked."""
    return build()
