"""Provides `quizapp completion bash|zsh|fish`: the shell code that completes commands, options and ids.

Completion runs through argcomplete, which re-runs `quizapp` with the command line in the environment;
question and deck ids are completed from the decks the catalog loads.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Mapping
from typing import Any

from argcomplete.shell_integration import shellcode

from engine.exercises import EXERCISES
from quizapp.config import for_run
from quizapp.content.catalog import load_catalog


def run(args: argparse.Namespace) -> int:
    print(shellcode(["quizapp"], shell=args.shell), end="")
    return 0


def _catalog(parsed_args: argparse.Namespace | None) -> Any:
    """The bank with the config's deck folders and any `--decks` typed so far."""
    return load_catalog(for_run(parsed_args or argparse.Namespace()).deck_dirs)


def question_ids(prefix: str, parsed_args: argparse.Namespace | None = None, **_: Any) -> list[str]:
    """Completes a question id (argcomplete completer); nothing when the decks cannot be loaded."""
    try:
        return [qid for qid in _catalog(parsed_args).questions if qid.startswith(prefix)]
    except Exception:  # completion must never print a traceback into the user's shell
        return []


def deck_ids(prefix: str, parsed_args: argparse.Namespace | None = None, **_: Any) -> list[str]:
    """Completes a deck id (argcomplete completer)."""
    try:
        return [deck for deck in _catalog(parsed_args).decks if deck.startswith(prefix)]
    except Exception:
        return []


def exercise_ids(prefix: str, **_: Any) -> list[str]:
    """Completes a coding exercise id (argcomplete completer)."""
    try:
        return [ex for ex in EXERCISES if ex.startswith(prefix)]
    except Exception:
        return []


IDS: dict[tuple[str, str], Callable[..., list[str]]] = {
    ("list", "questions"): deck_ids,
    ("show", "question_id"): question_ids,
    ("check", "id"): question_ids,
    ("cards", "ids"): question_ids,
    ("cards", "question_id"): question_ids,
    ("cards", "deck"): deck_ids,
    ("unsuspend", "ids"): question_ids,
    ("export", "deck"): deck_ids,
    ("plan", "low_priority"): deck_ids,
    ("plan", "normal_priority"): deck_ids,
    ("code", "exercise"): exercise_ids,
}
"""Every (command, argument) that takes a question, deck or exercise id, and what completes it: in one
place, so a command that starts taking ids is one line here (a test checks none is missed)."""


def attach_completers(commands: Mapping[str, argparse.ArgumentParser]) -> None:
    """Gives each id-taking argument of `commands` its completer from IDS."""
    for (command, dest), completer in IDS.items():
        parser = commands.get(command)
        for action in parser._actions if parser is not None else ():
            if action.dest == dest:
                setattr(action, "completer", completer)  # noqa: B010 (argcomplete reads this attribute)
