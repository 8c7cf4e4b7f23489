"""Provides the `quizapp` command line: global options, subcommand dispatch, and no tracebacks for users."""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from quizapp import __version__
from quizapp.errors import QuizappError

# Each module defines `register(subparsers)`, which adds its subcommands with `set_defaults(func=...)`.
COMMAND_MODULES: tuple[str, ...] = (
    "quizapp.commands.catalog",
    "quizapp.commands.check",
    "quizapp.commands.progress",
    "quizapp.commands.plan",
    "quizapp.commands.optimize",
)

EXIT_OK, EXIT_WRONG, EXIT_USAGE = 0, 1, 2


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="quizapp",
        description=(
            "Drill multi-head attention interview questions in the terminal. "
            "Run with no command to open the app."
        ),
    )
    parser.add_argument("--version", action="version", version=f"quizapp {__version__}")
    parser.add_argument("--db", metavar="PATH", help="progress database file (default: in QUIZAPP_HOME)")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMAND_MODULES:
        importlib.import_module(name).register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Runs one command and returns its exit code; user-fixable problems print one line, never a traceback."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        func = getattr(args, "func", None)
        if func is None:
            from quizapp.launch import launch_app

            return launch_app(args)
        result: int = func(args)
        return result
    except QuizappError as exc:
        print(f"quizapp: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return EXIT_OK
    except Exception as exc:  # a bug: say so in one line and keep the details in a log
        from quizapp.crash import write_crash_log

        log = write_crash_log()
        print(f"quizapp: internal error: {exc!r} (details in {log})", file=sys.stderr)
        return 3
