"""Provides the user's config file (config.toml): setting defaults, extra deck folders, a keymap, a theme.

The file is optional and never fatal: every problem becomes one line in `UserConfig.messages` (the file,
the key, what is allowed) and the key falls back to its built-in default, so a typo cannot keep the app
from starting. Precedence, lowest first: built-in defaults < config.toml < what was saved from the Settings
screen (or `quizapp plan`) in the progress database. Deck folders add up: bundled decks, the user's decks
folder, `decks = [...]` from the file, then `--decks DIR` for this run.

Plain Python on purpose (tomllib, no textual): commands read it too. It also holds the run's clock
(system_now, moved by $QUIZAPP_TODAY), which every run reads first. Binding ids and theme names can only
be checked against the app itself, so the TUI warns about unknown ones when it applies them.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import re
import tomllib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from datetime import date, datetime, timedelta
from pathlib import Path
from typing import Any

from quizapp import paths
from quizapp.errors import QuizappError
from quizapp.paths import TODAY_ENV
from quizapp.records.settings import Settings

_TODAY_FORM = re.compile(r"\d{4}-\d{2}-\d{2}")
_shifts: dict[str, timedelta] = {}
"""$QUIZAPP_TODAY -> the days it moves the clock by, fixed at its first reading: past midnight the moved day
turns too, as the real one does."""


def system_now() -> datetime:
    """The one place the app reads the system clock: now, aware, in the local zone. With $QUIZAPP_TODAY
    (YYYY-MM-DD) the date moves there and the time of day stays, so a learner can see what their plan, the
    study queue and the interview countdown do in a week; a malformed value is a QuizappError."""
    now = datetime.now().astimezone()
    value = os.environ.get(TODAY_ENV, "").strip()
    if not value:
        return now
    shift = _shifts.get(value)
    if shift is None:
        shift = _shifts.setdefault(value, moved_today(value) - now.date())
    return datetime.combine(now.date() + shift, now.time()).astimezone()  # the zone of the moved day


def moved_today(value: str) -> date:
    """The day $QUIZAPP_TODAY names, or a QuizappError that says how to write it."""
    day = None
    if _TODAY_FORM.fullmatch(value):
        with contextlib.suppress(ValueError):  # 2026-02-30
            day = date.fromisoformat(value)
    if day is None or not 1971 <= day.year <= 9998:
        raise QuizappError(
            f"{TODAY_ENV}={value[:40]!r} is not a day: write it as YYYY-MM-DD (e.g. {TODAY_ENV}=2026-03-09), "
            "a year from 1971 to 9998, or unset it."
        )
    return day


TOP_KEYS = ("settings", "decks", "keymap", "theme")
TEXTUAL_THEMES = frozenset(
    {
        "ansi-dark", "ansi-light", "atom-one-dark", "atom-one-light", "catppuccin-frappe",
        "catppuccin-latte", "catppuccin-macchiato", "catppuccin-mocha", "dracula", "flexoki", "gruvbox",
        "monokai", "nord", "rose-pine", "rose-pine-dawn", "rose-pine-moon", "solarized-dark",
        "solarized-light", "textual-dark", "textual-light", "tokyo-night",
    }
)  # fmt: skip
"""Textual's built-in theme names, for `quizapp config` (the core never imports Textual to ask it;
tests/tui/test_config_keymap.py holds this list to textual.theme.BUILTIN_THEMES)."""


@dataclass(frozen=True)
class UserConfig:
    """What config.toml (and `--decks`) asks for, validated; `messages` says what was ignored and why."""

    file: Path | None = None
    """The config file looked at (it may not exist)."""
    found: bool = False
    settings: tuple[tuple[str, Any], ...] = ()
    """Valid (key, value) pairs from [settings] (and the top-level theme), in file order."""
    deck_dirs: tuple[Path, ...] = ()
    """Extra deck folders that exist: the file's `decks`, then `--decks` in order."""
    keymap: tuple[tuple[str, str], ...] = ()
    """(binding id, keys) pairs; keys as Textual takes them, several joined by commas."""
    messages: tuple[str, ...] = ()
    """One line per problem, for stderr or a notification."""

    def setting_defaults(self) -> Settings | None:
        """The built-in settings with the file's values over them; None when the file sets none."""
        if not self.settings:
            return None

        return replace(Settings(), **dict(self.settings))

    @property
    def theme(self) -> str:
        """The theme the file asks for, or ""."""
        return str(dict(self.settings).get("theme", ""))


def load_config(
    extra_decks: Iterable[str | Path] = (), *, file: Path | None = None, today: date | None = None
) -> UserConfig:
    """Reads config.toml (`file`, else $QUIZAPP_CONFIG or the default place) and adds `--decks` folders.

    Never raises for anything in the file: a missing default file is simply no config, anything else
    wrong is a message. With `today`, an interview date already past is refused (a message) too."""
    explicit = file is not None or bool(_env_config())
    target = file if file is not None else paths.config_path()
    messages: list[str] = []
    data: dict[str, Any] = {}
    found = target.is_file()
    if found:
        data = _read(target, messages)
    elif target.exists():
        messages.append(f"{target}: is not a file; using the built-in defaults.")
    elif explicit:
        messages.append(f"{target}: no such config file (named by {paths.CONFIG_ENV}); using the defaults.")
    unknown = sorted(set(data) - set(TOP_KEYS))
    if unknown:
        messages.append(
            f"{target}: unknown key{'s' if len(unknown) > 1 else ''} {', '.join(unknown)} ignored; "
            f"known: {', '.join(TOP_KEYS)}."
        )
    settings = _settings(target, data, messages, today)
    decks = _deck_dirs(target, data.get("decks"), messages)
    for extra in extra_decks:
        folder = Path(extra).expanduser()
        if folder.exists():
            decks.append(folder)
        else:
            messages.append(f"--decks {extra}: no such deck folder; it is left out.")
    keymap = _keymap(target, data.get("keymap"), messages)
    return UserConfig(
        file=target,
        found=found,
        settings=settings,
        deck_dirs=tuple(decks),
        keymap=keymap,
        messages=tuple(messages),
    )


def for_run(args: argparse.Namespace) -> UserConfig:
    """The config `quizapp` loaded for this run (main() puts it on args); loaded afresh, quietly, for a
    command function called on its own (tests, shell completion)."""
    loaded = getattr(args, "config", None)
    if isinstance(loaded, UserConfig):
        return loaded
    return load_config(run_deck_args(args))


def run_deck_args(args: argparse.Namespace) -> list[str]:
    """Every `--decks DIR` given, before the command name and after it, in order."""
    return [*(getattr(args, "decks", None) or ()), *(getattr(args, "decks_after", None) or ())]


def _env_config() -> str:
    return os.environ.get(paths.CONFIG_ENV, "")


def _read(target: Path, messages: list[str]) -> dict[str, Any]:
    try:
        with target.open("rb") as fh:
            return tomllib.load(fh)
    except tomllib.TOMLDecodeError as exc:
        messages.append(f"{target}: not valid TOML ({exc}); using the built-in defaults.")
    except OSError as exc:
        messages.append(f"{target}: cannot be read ({exc.strerror or exc}); using the built-in defaults.")
    return {}


def _settings(
    target: Path, data: Mapping[str, Any], messages: list[str], today: date | None = None
) -> tuple[tuple[str, Any], ...]:
    """The valid [settings] values (and a top-level theme), each checked like the Settings screen does."""
    table = data.get("settings", {})
    if not isinstance(table, dict):
        messages.append(f"{target}: settings must be a table ([settings]); it is ignored.")
        table = {}
    raw = dict(table)
    if "theme" in data:
        if "theme" in raw:
            messages.append(f"{target}: theme is set twice; the one in [settings] is used.")
        else:
            raw["theme"] = data["theme"]
    if not raw:
        return ()
    # Here, not at the top: importing the store's package loads its card, review and interview modules
    # and fsrs (10 ms), and every launch reads the config before its first frame; few files set settings.
    from quizapp.store.settings import SETTING_NAMES, check_interview_date, check_setting

    defaults = Settings()
    values: list[tuple[str, Any]] = []
    for key, value in raw.items():
        where = f"{target}: [settings] {key}" if key in table else f"{target}: {key}"
        if key not in SETTING_NAMES:
            messages.append(f"{where}: unknown setting, ignored; known: {', '.join(SETTING_NAMES)}.")
            continue
        if isinstance(value, date):  # TOML has real dates: interview_date = 2026-12-03
            value = value.isoformat()
        try:
            if key == "interview_date" and today is not None:
                check_interview_date(value, today)
            values.append((key, check_setting(key, value)))
        except QuizappError as exc:
            messages.append(f"{where}: {exc} Using the default {getattr(defaults, key)!r}.")
    return tuple(values)


def _deck_dirs(target: Path, value: Any, messages: list[str]) -> list[Path]:
    """Existing folders from `decks`; a relative one is taken from the config file's folder."""
    if value is None:
        return []
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value):
        messages.append(f'{target}: decks must be a list of folder names, like decks = ["~/my-decks"].')
        return []
    found: list[Path] = []
    for name in value:
        folder = Path(name).expanduser()
        if not folder.is_absolute():
            folder = target.parent / folder
        if folder.exists():
            found.append(folder)
        else:
            messages.append(f"{target}: decks: {name}: no such deck folder; it is left out.")
    return found


def _keymap(target: Path, value: Any, messages: list[str]) -> tuple[tuple[str, str], ...]:
    """(binding id, keys) pairs. `study.hint = "f1"` unquoted is a nested table in TOML: it is flattened."""
    if value is None:
        return ()
    if not isinstance(value, dict):
        messages.append(f'{target}: keymap must be a table, like [keymap] "study.hint" = "f1".')
        return ()
    pairs: list[tuple[str, str]] = []
    for binding_id, keys in _flatten(value):
        if isinstance(keys, str):
            keys = [keys]
        ok = isinstance(keys, list) and all(isinstance(k, str) for k in keys)
        names = [k.strip() for k in keys] if ok else []
        if not names or not all(k and " " not in k for k in names):
            messages.append(
                f'{target}: [keymap] {binding_id}: keys must be a key name or a list of them, like "f1" '
                'or ["f1", "ctrl+h"]; ignored.'
            )
            continue
        pairs.append((binding_id, ",".join(names)))
    return tuple(pairs)


def _flatten(table: Mapping[str, Any], prefix: str = "") -> list[tuple[str, Any]]:
    out: list[tuple[str, Any]] = []
    for key, value in table.items():
        name = f"{prefix}{key}"
        if isinstance(value, dict):
            out.extend(_flatten(value, f"{name}."))
        else:
            out.append((name, value))
    return out
