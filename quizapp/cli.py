"""Provides the `quizapp` command line: global options, subcommand dispatch, and no tracebacks for users."""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Callable, Sequence
from typing import TextIO

from quizapp import __version__
from quizapp.commands.parsers import add_commands
from quizapp.commands.terminal import clean_output, use_ascii_where_needed
from quizapp.crash import write_crash_log
from quizapp.errors import QuizappError
from quizapp.paths import CONFIG_ENV, TODAY_ENV, config_path

EXIT_OK, EXIT_WRONG, EXIT_USAGE = 0, 1, 2
NO_TERMINAL = "quizapp needs a terminal: it {role}, which is not one here; try `quizapp --help`"
WEB_DRIVER = "textual.drivers.web_driver:WebDriver"
"""What textual-serve (and textual-web) set TEXTUAL_DRIVER to: the app then draws packets on standard output
and reads keys from standard input, both pipes to the server that shows it in a browser."""


GLOBAL_OPTIONS: tuple[tuple[str, str, str], ...] = (
    ("--db", "PATH", "progress database file (default: progress.db in the data folder)"),
)
"""Options every command takes, before or after its name: `quizapp --db X stats` = `quizapp stats --db X`."""
DECKS_HELP = "also load the decks in DIR for this run (repeatable; adds to `decks` in config.toml)"


def _epilog() -> str:
    """Where the config file is looked for, so `quizapp --help` answers "which file?"."""
    return (
        f"Run `quizapp COMMAND --help` for a command's options. Config file: {config_path()} "
        f"(set {CONFIG_ENV} to use another; `quizapp config` checks it). Set {TODAY_ENV}=YYYY-MM-DD to "
        "move the clock to that day, the time of day kept, and see what the plan and the queue do then."
    )


def build_parser(*, commands: bool = True, completers: bool = False) -> argparse.ArgumentParser:
    """The command line; `commands` False leaves the subcommands out, for a plain `quizapp`, which opens
    the app and has nothing for them to parse. `completers` gives id arguments their shell completers
    (quizapp.commands.completion, which loads the catalog's code): only when the shell asks."""
    parser = argparse.ArgumentParser(
        prog="quizapp",
        description=(
            "Drill multi-head attention interview questions in the terminal. "
            "Run with no command to open the app."
        ),
        epilog=_epilog(),
    )
    parser.add_argument("--version", action="version", version=f"quizapp {__version__}")
    for flag, metavar, text in GLOBAL_OPTIONS:
        parser.add_argument(flag, metavar=metavar, help=text)
    parser.add_argument("--decks", metavar="DIR", action="append", help=DECKS_HELP)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", title="commands")
    if commands:
        add_commands(sub)
    if commands and completers:
        from quizapp.commands.completion import attach_completers  # launch time: see quizapp/launch.py

        attach_completers(sub.choices)
    for command in sub.choices.values():  # after the command too; SUPPRESS keeps a value given before it
        for flag, metavar, text in GLOBAL_OPTIONS:
            command.add_argument(flag, metavar=metavar, help=text, default=argparse.SUPPRESS)
        # its own dest: a subcommand's namespace replaces, not extends, a list given before the name
        command.add_argument(
            "--decks",
            metavar="DIR",
            action="append",
            dest="decks_after",
            help=DECKS_HELP,
            default=argparse.SUPPRESS,
        )
    return parser


def missing_terminal() -> str | None:
    """Why the full-screen app cannot run here, or None when it can. Textual reads keys from standard input
    and draws on standard error (not standard output): from cron, CI, a pipe or `quizapp 2>/dev/null` it
    would only write escape codes nobody sees and wait for keys that never come. Under the web driver both
    streams are pipes to the server, as they should be."""
    if os.environ.get("TEXTUAL_DRIVER", "").strip() == WEB_DRIVER:
        return None
    for stream, role in (
        (sys.__stdin__, "reads keys from standard input"),
        (sys.__stderr__, "draws on standard error"),
    ):
        if not _is_terminal(stream):
            return NO_TERMINAL.format(role=role)
    return None


def _is_terminal(stream: TextIO | None) -> bool:
    try:
        return stream is not None and stream.isatty()
    except (ValueError, OSError):  # a closed stream
        return False


def main(argv: Sequence[str] | None = None) -> int:
    """Runs one command and returns its exit code; user-fixable problems print one line, never a traceback.
    Every print passes terminal_text (quizapp.commands.terminal.CleanStream): text from decks, progress
    files and file names never drives the terminal, whichever print shows it."""
    use_ascii_where_needed()
    with clean_output():
        return _main(argv)


def command(name: str) -> Callable[[argparse.Namespace], int]:
    """The function a parser names as "module:function" (quizapp.commands.parsers), imported now: only the
    chosen command's module is loaded (quizapp/launch.py lists what that saves)."""
    module, _, function = name.partition(":")
    run: Callable[[argparse.Namespace], int] = getattr(importlib.import_module(module), function)
    return run


def _main(argv: Sequence[str] | None) -> int:
    words = sys.argv[1:] if argv is None else list(argv)
    completing = "_ARGCOMPLETE" in os.environ  # the shell asks for completions (see `quizapp completion`)
    parser = build_parser(commands=bool(words) or completing, completers=completing)
    if completing:
        import argcomplete  # launch time: see quizapp/launch.py

        argcomplete.autocomplete(parser)
    args = parser.parse_args(words)
    if getattr(args, "func", None) is None and (why := missing_terminal()) is not None:
        # where the user sees it: standard error may be the very stream that goes nowhere
        print(why, file=sys.stderr if _is_terminal(sys.__stderr__) else sys.stdout)
        return EXIT_USAGE
    try:
        # launch time (see quizapp/launch.py): `--version`, `--help` and a mistyped option stop before this
        from quizapp.config import load_config, run_deck_args, system_now

        # the first reading of the clock: a malformed $QUIZAPP_TODAY stops here, with exit 2
        args.config = load_config(run_deck_args(args), today=system_now().date())
        func = getattr(args, "func", None)
        if func is not None and not getattr(args, "quiet_config", False):  # the app and `config` show them
            for message in args.config.messages:
                print(f"quizapp: warning: {message}", file=sys.stderr)
        if func is None:
            from quizapp.launch import launch_app  # launch time: see quizapp/launch.py

            return launch_app(args)
        if (prepare := getattr(args, "prepare", None)) is not None:
            prepare(args)  # what starts before the command's module is imported (quizapp.commands.parsers)
        result: int = command(func)(args)
        return result
    except QuizappError as exc:
        print(f"quizapp: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return EXIT_OK
    except Exception as exc:  # a bug: say so in one line and keep the details in a log
        from quizapp.store.sqlite_errors import damaged  # launch time: see quizapp/launch.py

        told = damaged(exc)
        if told is not None:  # not a bug: a damaged page of the database, found while reading it
            print(f"quizapp: {told}", file=sys.stderr)
            return EXIT_USAGE
        log = write_crash_log()
        print(f"quizapp: internal error: {exc!r} (details in {log})", file=sys.stderr)
        return 3
