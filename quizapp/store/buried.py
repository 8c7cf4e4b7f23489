"""Provides burying: a question set aside until tomorrow without touching its schedule (as Anki's bury).

The day and the buried ids are one settings row ("buried"), so a new day needs no clean-up: yesterday's
list simply no longer applies.
"""

from __future__ import annotations

import json
from datetime import date

from quizapp.store.database import Store

_KEY = "buried"


def buried_on(store: Store, day: date) -> frozenset[str]:
    """The questions buried on `day` (none once the day is over)."""
    row = store.conn.execute("SELECT value FROM settings WHERE key = ?", (_KEY,)).fetchone()
    if row is None:
        return frozenset()
    try:
        saved = json.loads(row[0])
        if saved.get("day") == day.isoformat():
            return frozenset(str(q) for q in saved.get("ids", []))
    except (ValueError, AttributeError, TypeError):
        pass  # an unreadable row buries nothing; the next bury rewrites it
    return frozenset()


def bury(store: Store, question_id: str, day: date) -> frozenset[str]:
    """Buries `question_id` for the rest of `day`; returns everything buried that day."""
    with store.transaction() as conn:
        ids = sorted(buried_on(store, day) | {question_id})
        value = json.dumps({"day": day.isoformat(), "ids": ids})
        conn.execute("INSERT OR REPLACE INTO settings (key, value) VALUES (?, ?)", (_KEY, value))
    return frozenset(ids)


def unbury(store: Store, question_id: str, day: date) -> None:
    """Takes a question out of `day`'s buried list (undo of a bury)."""
    with store.transaction() as conn:
        ids = sorted(buried_on(store, day) - {question_id})
        value = json.dumps({"day": day.isoformat(), "ids": ids})
        conn.execute("INSERT OR REPLACE INTO settings (key, value) VALUES (?, ?)", (_KEY, value))
