"""Provides the user's settings: a frozen Settings record stored as key/JSON rows.

Unknown keys in the table (written by a newer quizapp) are kept untouched; a hand-edited value of the
wrong type falls back to its default when read, and is refused with a clear message when written.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import fields, replace
from datetime import date
from typing import Any

from quizapp.errors import QuizappError
from quizapp.records.settings import Settings
from quizapp.store.database import Store
from quizapp.terminal_text import terminal_text

_RANGES: dict[str, tuple[float, float]] = {
    "desired_retention": (0.70, 0.99),
    "new_per_day": (0, 9999),
    "interview_questions": (1, 200),
    "interview_minutes": (1, 600),
    "daily_minutes": (0, 1440),
}
SETTING_NAMES: tuple[str, ...] = tuple(f.name for f in fields(Settings))


def check_setting(key: str, value: Any) -> Any:
    """The value if it is valid for `key`; otherwise QuizappError saying what is allowed."""
    default = getattr(Settings(), key, None)
    if key not in SETTING_NAMES:
        raise QuizappError(f"Unknown setting {key!r}; known: {', '.join(SETTING_NAMES)}.")
    if isinstance(default, bool):
        if not isinstance(value, bool):
            raise QuizappError(f"Setting {key} must be true or false, got {value!r}.")
        return value
    if isinstance(default, float):
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise QuizappError(f"Setting {key} must be a number, got {value!r}.")
        value = float(value)
    elif isinstance(default, int):
        if isinstance(value, bool) or not isinstance(value, int):
            raise QuizappError(f"Setting {key} must be a whole number, got {value!r}.")
    elif key == "interview_date":
        return _check_date(value)
    elif key == "fsrs_parameters":
        return _check_weights(value)
    elif key == "low_priority_decks":
        return _check_ids(value, key)
    elif not isinstance(value, str) or not value.strip():
        raise QuizappError(f"Setting {key} must be a non-empty text, got {value!r}.")
    elif key == "theme" and not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}", value):
        shown = value[:40].encode("unicode_escape").decode("ascii")  # escape codes written out, never sent
        raise QuizappError(f"Setting theme must be a theme's name (letters, digits, - and _), got {shown!r}.")
    if key in _RANGES:
        low, high = _RANGES[key]
        if not low <= value <= high:
            raise QuizappError(f"Setting {key} must be between {low:g} and {high:g}, got {value!r}.")
    return value


def _check_date(value: Any) -> str:
    """ "" (no date) or a real calendar day written YYYY-MM-DD."""
    if value == "":
        return ""
    if isinstance(value, str) and re.fullmatch(r"\d{4}-\d{2}-\d{2}", value):
        try:
            return date.fromisoformat(value).isoformat()
        except ValueError:
            raise QuizappError(f"The interview date {value} is not a day of the calendar.") from None
    raise QuizappError(
        f"The interview date must be a day written YYYY-MM-DD, like 2026-12-03, got {value!r}."
    )


def check_interview_date(value: str, today: date) -> str:
    """A date the learner gives for an upcoming interview: "" (no date) or YYYY-MM-DD not before `today`.
    The plan command, config and the Settings screen all refuse a past day with this message."""
    day = _check_date(value)
    if day and date.fromisoformat(day) < today:
        raise QuizappError(
            f"The interview date {day} has already passed; give the day of an upcoming interview "
            "(YYYY-MM-DD). For no date, empty the field in Settings or run `quizapp plan --clear`."
        )
    return day


def _check_ids(value: Any, key: str) -> tuple[str, ...]:
    """A list of ids (deck ids), each a non-empty text without spaces, or anything terminal_text would
    remove (an imported file's ids are shown); kept in order, once each."""
    if isinstance(value, list | tuple) and all(
        isinstance(v, str) and v.strip() == v and v and terminal_text(v) is v for v in value
    ):
        return tuple(dict.fromkeys(value))
    raise QuizappError(f"Setting {key} must be a list of deck ids, got {value!r}.")


def _check_weights(value: Any) -> tuple[float, ...]:
    """() or 21 finite numbers, the shape of FSRS-6 weights."""
    if isinstance(value, list | tuple) and (
        not value
        or (
            len(value) == 21
            and all(
                isinstance(w, int | float) and not isinstance(w, bool) and math.isfinite(w) for w in value
            )
        )
    ):
        return tuple(float(w) for w in value)
    raise QuizappError("FSRS weights must be a list of 21 finite numbers (or empty for the defaults).")


def load_settings(store: Store) -> Settings:
    """The stored settings, with defaults for anything missing or unreadable."""
    values: dict[str, Any] = {}
    for key, raw in store.conn.execute("SELECT key, value FROM settings"):
        if key not in SETTING_NAMES:
            continue
        try:
            values[key] = check_setting(key, json.loads(raw))
        except (ValueError, QuizappError):
            continue
    return replace(store.defaults or Settings(), **values)


def save_setting(store: Store, key: str, value: Any) -> Settings:
    """Validates and stores one setting; returns the settings now in force."""
    value = check_setting(key, value)
    with store.transaction() as conn:
        conn.execute("INSERT OR REPLACE INTO settings (key, value) VALUES (?, ?)", (key, json.dumps(value)))
    return load_settings(store)


def save_settings(store: Store, settings: Settings, *, today: date | None = None) -> Settings:
    """Validates every field of `settings` and stores, in one transaction, those that differ from the
    settings in force or were saved before: a field the user left alone keeps following config.toml.
    With `today` (the Settings screen passes it), a changed interview date in the past is refused."""
    checked = {f.name: check_setting(f.name, getattr(settings, f.name)) for f in fields(Settings)}
    current = load_settings(store)
    if today is not None and checked["interview_date"] != current.interview_date:
        check_interview_date(checked["interview_date"], today)
    with store.transaction() as conn:
        saved = {str(k) for (k,) in conn.execute("SELECT key FROM settings")}
        conn.executemany(
            "INSERT OR REPLACE INTO settings (key, value) VALUES (?, ?)",
            [(k, json.dumps(v)) for k, v in checked.items() if k in saved or v != getattr(current, k)],
        )
    return load_settings(store)


def raw_settings(store: Store) -> dict[str, str]:
    """Every stored row as key -> JSON text, unknown keys included (export)."""
    return {str(k): str(v) for k, v in store.conn.execute("SELECT key, value FROM settings ORDER BY key")}
