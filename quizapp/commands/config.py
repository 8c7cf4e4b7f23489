"""Provides `quizapp config`: which config file is used, what it sets, and every problem in it.

The app shows the same problems as notifications and commands print them on stderr; this command is
where a user checks an edit before starting the app (exit 1 when anything was ignored).
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from quizapp.config import TEXTUAL_THEMES, UserConfig, for_run


def run(args: argparse.Namespace) -> int:
    config = for_run(args)
    problems = [*config.messages, *_theme_problems(config)]
    if args.json:
        print(json.dumps(_as_json(config, problems), indent=2))
        return 1 if problems else 0
    state = "found" if config.found else "not found: built-in defaults"
    print(f"Config file: {config.file} ({state})")
    for key, value in config.settings:
        print(f"  setting {key} = {value!r}")
    for folder in config.deck_dirs:
        print(f"  decks from {folder}")
    for binding_id, keys in config.keymap:
        print(f"  key {binding_id} = {keys}")
    if config.keymap:
        print("  (binding ids are checked when the app starts; the help screen, ?, lists them)")
    for problem in problems:
        print(f"problem: {problem}")
    return 1 if problems else 0


def _theme_problems(config: UserConfig) -> list[str]:
    """The theme checked against Textual's built-in names, kept in quizapp.config (commands never import
    Textual; a TUI test holds the list to Textual's own)."""
    if not config.theme or config.theme in TEXTUAL_THEMES:
        return []
    known = ", ".join(sorted(TEXTUAL_THEMES))
    return [f"{config.file}: theme {config.theme!r} is not a Textual theme; known: {known}."]


def _as_json(config: UserConfig, problems: list[str]) -> dict[str, Any]:
    return {
        "file": str(config.file),
        "found": config.found,
        "settings": {k: list(v) if isinstance(v, tuple) else v for k, v in config.settings},
        "decks": [str(d) for d in config.deck_dirs],
        "keymap": dict(config.keymap),
        "problems": problems,
    }
