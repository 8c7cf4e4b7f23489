"""Provides `quizapp completion bash|zsh|fish`: the shell code that completes commands, options and ids.

Completion runs through argcomplete, which re-runs `quizapp` with the command line in the environment;
question and deck ids are completed from the decks the catalog loads.
"""

from __future__ import annotations

import argparse
from typing import Any

SHELLS = ("bash", "zsh", "fish")
INSTALL = {
    "bash": 'eval "$(quizapp completion bash)"    # in ~/.bashrc',
    "zsh": 'eval "$(quizapp completion zsh)"     # in ~/.zshrc',
    "fish": "quizapp completion fish > ~/.config/fish/completions/quizapp.fish",
}


def register(sub: argparse._SubParsersAction[Any]) -> None:
    """Adds `completion`."""
    p = sub.add_parser(
        "completion",
        help="print shell completion code for bash, zsh or fish",
        description="Print the code that makes your shell complete quizapp's commands, options and ids:\\n  "
        + "\\n  ".join(INSTALL.values()),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("shell", choices=SHELLS, help="the shell to complete in")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from argcomplete.shell_integration import shellcode

    print(shellcode(["quizapp"], shell=args.shell), end="")
    return 0


def _catalog(parsed_args: argparse.Namespace | None) -> Any:
    """The bank with the config's deck folders and any `--decks` typed so far."""
    from quizapp.config import for_run
    from quizapp.content.catalog import load_catalog

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
