"""Provides the user's settings: a frozen Settings record stored as key/JSON rows.

Unknown keys in the table (written by a newer quizapp) are kept untouched; a hand-edited value of the
wrong type falls back to its default when read, and is refused with a clear message when written.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass, fields, replace
from datetime import date
from typing import Any

from quizapp.errors import QuizappError
from quizapp.store.database import Store


@dataclass(frozen=True)
class Settings:
    """What the settings screen edits. Defaults come from the issue: retention 0.9, 20 new cards a day,
    mock interviews of 10 questions in 30 minutes."""

    desired_retention: float = 0.9
    new_per_day: int = 20
    interview_questions: int = 10
    interview_minutes: int = 30
    theme: str = "textual-dark"
    interview_date: str = ""
    """The day of the user's interview as YYYY-MM-DD, or "" for none (study as if there were no date)."""
    fsrs_parameters: tuple[float, ...] = ()
    """FSRS weights fitted to this user's reviews by `quizapp optimize`; () means fsrs's defaults."""


_RANGES: dict[str, tuple[float, float]] = {
    "desired_retention": (0.70, 0.99),
    "new_per_day": (0, 9999),
    "interview_questions": (1, 200),
    "interview_minutes": (1, 600),
}
SETTING_NAMES: tuple[str, ...] = tuple(f.name for f in fields(Settings))


def check_setting(key: str, value: Any) -> Any:
    """The value if it is valid for `key`; otherwise QuizappError saying what is allowed."""
    default = getattr(Settings(), key, None)
    if key not in SETTING_NAMES:
        raise QuizappError(f"Unknown setting {key!r}; known: {', '.join(SETTING_NAMES)}.")
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


def save_settings(store: Store, settings: Settings) -> Settings:
    """Validates every field of `settings` and stores, in one transaction, those that differ from the
    settings in force or were saved before: a field the user left alone keeps following config.toml."""
    checked = {f.name: check_setting(f.name, getattr(settings, f.name)) for f in fields(Settings)}
    current = load_settings(store)
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
