"""Provides the command line's parsers: every command, its options and its help, and the function that runs
it, named as "module:function" so that only the chosen command's module is imported (quizapp/cli.py
imports it once the line is parsed; quizapp/launch.py lists what that saves).

Built on every run, `quizapp --help` and the shell's completion included: nothing here imports more than
argparse at the top. A command may also name a `prepare` function, which cli.py calls before importing the
command's module (`code ID --file` starts the runner's child first, so that both import NumPy at once).
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


def add_commands(sub: argparse._SubParsersAction[Any]) -> None:
    """Adds every command to `sub`, in the order `quizapp --help` lists them."""
    for add in (_catalog, _check, _progress, _plan, _cards, _optimize, _completion, _config, _code, _heads):
        add(sub)


def _catalog(sub: argparse._SubParsersAction[Any]) -> None:
    """Adds list, show, validate and schema (quizapp.commands.completion.IDS completes their ids)."""
    p = sub.add_parser(
        "list",
        help="list the decks with question counts by type and difficulty",
        description="List the decks, with question counts by type and difficulty; with --questions, "
        "list question ids (of one deck, or of all), as `show` and `check` take them.",
    )
    p.add_argument(
        "--questions",
        nargs="?",
        const="",
        metavar="DECK",
        help="list question ids instead, of DECK only when given",
    )
    p.add_argument("--json", action="store_true", help="print JSON instead of a table")
    p.set_defaults(func="quizapp.commands.catalog:cmd_list")

    p = sub.add_parser(
        "show",
        help="show one question: prompt, answer, derivation, misconceptions",
        description="Show a question as a learner meets it at a seed, with the expected answer, the worked "
        "derivation, the mistakes the engine recognises and the explanation.",
    )
    p.add_argument(
        "question_id", metavar="ID", help="the question id, as `quizapp list --questions` prints it"
    )
    p.add_argument("--seed", type=int, default=0, help="the seed that picks the numbers (default 0)")
    p.add_argument("--json", action="store_true", help="print JSON instead of text")
    p.set_defaults(func="quizapp.commands.show:cmd_show")

    p = sub.add_parser(
        "validate",
        help="check deck files; exit 0 when valid, 1 with one error per line",
        description="Check deck files against the schema and the engine, then the quality gates: "
        "multiple choice cannot be won by picking the longest option, and no wrong options alone justify "
        "themselves nor the right one alone carry colons or brackets; each computed template has at least "
        "8 distinct answers over 50 seeds (or is a cited anchor marked fixed that still draws something); "
        "over 500 seeds no wrong method is accepted and the question's trap is always recognised; every "
        "derivation's arithmetic is true and ends on the asked quantity; no prompt runs a model past its "
        "context without saying it is hypothetical; Markdown renders with whole code fences. "
        "Each problem is one line, file:line:col: question 'id', field 'f': "
        "message. Exit 0 when all are valid, 1 if not.",
    )
    p.add_argument("paths", nargs="*", metavar="PATH", help="deck files or folders (default: all decks)")
    p.add_argument("--no-cache", action="store_true", help="check every file afresh")
    p.add_argument(
        "--no-gates",
        action="store_true",
        help="skip the quality gates (choice balance, distinct answers, diagnoses, derivations over "
        "hundreds of seeds; about a second per 20 computed templates)",
    )
    p.set_defaults(func="quizapp.commands.validate:cmd_validate")

    p = sub.add_parser(
        "schema",
        help="print the JSON Schema of a deck file (for editor completion)",
        description="Print the JSON Schema of a deck file. Save it and point yaml-language-server at it "
        "for completion and checks in your editor (see the README).",
    )
    p.set_defaults(func="quizapp.commands.catalog:cmd_schema")


def _check(sub: argparse._SubParsersAction[Any]) -> None:
    """Adds the `check` subcommand."""
    p = sub.add_parser(
        "check",
        help="grade one answer to one question",
        description=(
            "Grade an answer to question ID at a seed, and print how it was read, the diagnosis and the "
            "worked derivation. Exit status: 0 correct, 1 wrong, 2 unreadable answer or unknown id."
        ),
    )
    p.add_argument("id", metavar="ID", help="question id, as listed by `quizapp list`")
    p.add_argument(
        "--seed", type=int, default=0, help="the seed that fixes the question's numbers (default 0)"
    )
    p.add_argument(
        "--answer",
        required=True,
        action="append",
        metavar="TEXT",
        help='the answer, e.g. "80 GiB" or "a, c"; a scenario takes one --answer per step, in order',
    )
    p.add_argument(
        "--covered",
        metavar="N,N",
        help="explain questions: the key points your answer covered, numbered from 1 (e.g. 1,3)",
    )
    p.add_argument("--seconds", type=float, default=None, help="time taken, for the suggested rating")
    p.add_argument("--hints", type=int, default=0, help="hints used, for the suggested rating")
    p.add_argument("--attempt", type=int, default=1, help="attempt number, for the suggested rating")
    p.add_argument("--json", action="store_true", help="print the verdict as JSON")
    p.set_defaults(func="quizapp.commands.check:run")


def _progress(sub: argparse._SubParsersAction[Any]) -> None:
    """Adds `stats`, `export` and `import`."""
    stats = sub.add_parser(
        "stats",
        help="show reviews, retention, mastery, the due forecast and misconceptions",
        description="Your progress in the terminal: a review calendar, retention, mastery per deck, "
        "the 30-day due forecast and your most frequent mistakes.",
    )
    stats.add_argument("--json", action="store_true", help="print the numbers as JSON")
    stats.set_defaults(func="quizapp.commands.stats:run_stats")

    export = sub.add_parser(
        "export",
        help="export questions to Anki, or progress to a JSON backup",
        description="anki: every question as an Anki card (.apkg), numeric ones with their derivation. "
        "progress: everything you did, as one JSON file that `quizapp import progress` restores. "
        "FILE - writes a progress backup to standard output.",
    )
    export.add_argument(
        "what", choices=("anki", "progress"), help="anki: an .apkg deck; progress: JSON backup"
    )
    export.add_argument("file", metavar="FILE", help="the file to write (FILE.apkg or FILE.json), or -")
    export.add_argument(
        "--deck", action="append", metavar="ID", help="anki only: export just this deck (repeatable)"
    )
    export.add_argument(
        "--force", action="store_true", help="replace FILE even if it is not an earlier export of this kind"
    )
    export.set_defaults(func="quizapp.commands.progress:run_export")

    imp = sub.add_parser(
        "import",
        help="restore progress from a JSON backup (the current one is kept aside)",
        description="Replace your progress with a backup written by `quizapp export progress`; the "
        "progress it replaces is kept in a file beside the database. FILE - reads standard input.",
    )
    imp.add_argument("what", choices=("progress",), help="what the file holds")
    imp.add_argument("file", metavar="FILE", help="a file written by `quizapp export progress`, or -")
    imp.set_defaults(func="quizapp.commands.progress:run_import")

    listing = sub.add_parser(
        "suspended",
        help="list the questions you suspended (Ctrl+T while studying)",
        description="The questions taken out of every queue, one id per line; `quizapp unsuspend ID` "
        "brings one back.",
    )
    listing.set_defaults(func="quizapp.commands.stats:run_suspended")
    back = sub.add_parser(
        "unsuspend",
        help="bring suspended questions back into the queues",
        description="Brings the suspended questions back, with their schedule as it was; --all brings "
        "back every one.",
    )
    back.add_argument("ids", nargs="*", metavar="ID", help="question ids, as `quizapp suspended` lists them")
    back.add_argument("--all", action="store_true", help="every suspended question")
    back.set_defaults(func="quizapp.commands.stats:run_unsuspend")


def _plan(sub: argparse._SubParsersAction[Any]) -> None:
    """Adds `plan`."""
    plan = sub.add_parser(
        "plan",
        help="set the interview date and a daily time budget; see the plan in minutes and what it leaves out",
        description=(
            "With a date, new cards are spread so that every question is seen at least twice before the "
            "interview, every card answered comes back before the day, and each deck's expected recall on "
            "the day is predicted with FSRS. Minutes a day come from your own answer times per question "
            "type (a guess per type until you have answered 3 of it). With a budget (--minutes), the plan "
            "leaves out, in this order, until the day fits: decks marked --low-priority; reviews of easy "
            "questions you already know; new questions of the least interview yield (every deck keeps its "
            "basics, a case study a day fits when it can, serving, KV cache and FlashAttention come "
            "first); the best-known reviews. `--json` lists today's questions in study's order (queue). "
            "The date, budget and priorities are saved as settings."
        ),
    )
    when = plan.add_mutually_exclusive_group()
    when.add_argument("--date", metavar="YYYY-MM-DD", help="the day of your interview (saved)")
    when.add_argument("--clear", action="store_true", help="forget the interview date")
    plan.add_argument(
        "--minutes",
        type=_minutes,
        metavar="N",
        help="the minutes you have a day (saved as daily_minutes; 0 removes the budget)",
    )
    plan.add_argument(
        "--low-priority",
        action="append",
        default=[],
        metavar="DECK",
        help="mark a deck low priority: left out first when time is short (saved; repeatable)",
    )
    plan.add_argument(
        "--normal-priority",
        action="append",
        default=[],
        metavar="DECK",
        help="take a deck off the low-priority list (repeatable)",
    )
    plan.add_argument("--json", action="store_true", help="print the plan as JSON")
    plan.set_defaults(func="quizapp.commands.plan:run_plan")


def _minutes(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"minutes must be a whole number, got {text!r}") from None
    if not 0 <= value <= 1440:
        raise argparse.ArgumentTypeError(f"minutes must be between 0 and 1440, got {value}")
    return value


def _cards(sub: argparse._SubParsersAction[Any]) -> None:
    """Adds `cards`."""
    p = sub.add_parser(
        "cards",
        help="browse every card (state, due, interval, reps, lapses, last rating) and suspend, bury, reset",
        description=(
            "List every question's card: its state (new, learning, review, relearning), when it is due, "
            "its interval, reps, lapses and last rating. --id shows one card's whole history. An action "
            "first (suspend, unsuspend, bury, reset, study-now) applies it to the ids given: reset starts "
            "a card again as new (its history is kept); study-now makes it due now."
        ),
    )
    p.add_argument(
        "action",
        nargs="?",
        choices=("suspend", "unsuspend", "bury", "reset", "study-now"),
        help="what to do to the cards named after it",
    )
    p.add_argument("ids", nargs="*", metavar="QID", help="question ids for the action")
    p.add_argument("--deck", metavar="D", help="only this deck's cards")
    only = p.add_mutually_exclusive_group()
    only.add_argument("--due", action="store_true", help="only cards due now, soonest due first")
    only.add_argument("--suspended", action="store_true", help="only suspended cards")
    only.add_argument("--leeches", action="store_true", help="only leeches (cards forgotten 8 times)")
    p.add_argument("--search", metavar="TEXT", default="", help="only cards whose id or prompt has TEXT")
    p.add_argument("--id", dest="question_id", metavar="QID", help="one card and its history")
    p.add_argument(
        "--json", action="store_true", help="print JSON (every matching card, with --id its history)"
    )
    p.set_defaults(func="quizapp.commands.cards:run_cards")


def _optimize(sub: argparse._SubParsersAction[Any]) -> None:
    """Adds `optimize`."""
    opt = sub.add_parser(
        "optimize",
        help="fit the scheduler's FSRS weights to your own review history",
        description=(
            "Fits FSRS weights to your reviews (as Anki's Optimize does) and prints how well the old and "
            "the new weights predict your history (log-loss and RMSE, lower is better). Only if the new "
            "weights predict it better are they saved and every card's memory state recomputed from its "
            "history under them, in one transaction; otherwise nothing changes and the exit code is 1."
        ),
    )
    opt.add_argument("--reset", action="store_true", help="go back to the default FSRS weights")
    opt.set_defaults(func="quizapp.commands.optimize:run_optimize")


def _completion(sub: argparse._SubParsersAction[Any]) -> None:
    """Adds `completion`."""
    p = sub.add_parser(
        "completion",
        help="print shell completion code for bash, zsh or fish",
        description="Print the code that makes your shell complete quizapp's commands, options and ids:\\n  "
        + "\\n  ".join(INSTALL.values()),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("shell", choices=SHELLS, help="the shell to complete in")
    p.set_defaults(func="quizapp.commands.completion:run")


def _config(sub: argparse._SubParsersAction[Any]) -> None:
    """Adds `config`."""
    p = sub.add_parser(
        "config",
        help="show which config.toml is used, what it sets, and any problem in it",
        description="Print the config file quizapp reads (QUIZAPP_CONFIG, else config.toml in the config "
        "folder), the setting defaults, deck folders and keymap it gives, and one line per problem. "
        "Exit 0 when the file is fine (or absent), 1 when something in it was ignored.",
    )
    p.add_argument("--json", action="store_true", help="print the same as JSON")
    p.set_defaults(func="quizapp.commands.config:run", quiet_config=True)


def _code(sub: argparse._SubParsersAction[Any]) -> None:
    """Adds `code`."""
    p = sub.add_parser(
        "code",
        help="coding exercises: write attention in NumPy, graded by the engine",
        description=(
            "Without ID, lists the exercises with your status on each (solved, tried or new). "
            "With ID, prints the task and the starter code (or the model "
            "solution with --solution). With --file, runs your solution in a separate process (NumPy only, "
            "a time and a memory limit) on the seed's inputs, edge cases first, and says which case fails "
            "and which known mistake it is. Exit status: 0 right, 1 wrong, 2 unreadable file or unknown id."
        ),
    )
    plain_help = p.format_help

    def with_confinement() -> str:
        """The help, then what confines a solution on this machine (checked only when help is asked)."""
        from quizapp.runner.confine import describe  # launch time: see quizapp/launch.py

        return f"{plain_help()}\nOn this machine: {describe()}\n"

    setattr(p, "format_help", with_confinement)  # noqa: B010 (an instance's method, replaced)
    p.add_argument("exercise", nargs="?", metavar="ID", help="an exercise id (see `quizapp code`)")
    p.add_argument("--file", metavar="PATH", help="your solution (a .py file; - reads standard input)")
    p.add_argument("--seed", type=int, default=0, help="which inputs to draw (default 0)")
    p.add_argument("--solution", action="store_true", help="print the model solution")
    p.add_argument("--json", action="store_true", help="print the verdict (or the list) as JSON")
    p.set_defaults(func="quizapp.commands.code:run_code", prepare=warm_the_runner)


def warm_the_runner(args: argparse.Namespace) -> None:
    """Before `code ID --file` imports the engine: the runner's child starts now and imports NumPy while
    this process does the same and reads the file (quizapp/cli.py calls a command's `prepare` first)."""
    if args.exercise is not None and args.file is not None:
        from quizapp.runner.standby import warm  # launch time: see quizapp/launch.py

        warm(keep=False)


def _heads(sub: argparse._SubParsersAction[Any]) -> None:
    """Adds `heads` and `heads train`."""
    p = sub.add_parser(
        "heads",
        help="the trained toy transformer: its heads' scores, or train it again",
        description=(
            "A 2-layer attention-only toy transformer trained on repeated random tokens (not a language "
            "model). Without a command, prints every head's previous-token and induction score and the "
            "in-context loss, measured on sequences drawn from --seed. `heads train` trains it again."
        ),
    )
    p.add_argument("--seed", type=int, default=0, help="which sequences to measure on (default 0)")
    p.add_argument(
        "--model", metavar="PATH", help="a model saved by `heads train` (default: yours, else shipped)"
    )
    p.set_defaults(func="quizapp.commands.heads:run_scores")
    heads_sub = p.add_subparsers(
        dest="heads_command", metavar="COMMAND", title="commands", help="train: train the toy again"
    )
    t = heads_sub.add_parser(
        "train",
        help="train the toy transformer from a seed, with live loss and head scores",
        description=(
            "Trains the toy from scratch on this machine (under a minute on 2 cores) and saves it. "
            "Explore's trained mode and `quizapp heads` then use your model instead of the shipped one. "
            "Ctrl+C stops without writing anything."
        ),
    )
    t.add_argument("--seed", type=int, default=0, help="initial weights and training data (default 0)")
    t.add_argument("--steps", type=int, default=None, help="Adam steps (default: the shipped model's)")
    t.add_argument("--out", metavar="PATH", help="where to save (default: heads.npz in the data folder)")
    t.set_defaults(func="quizapp.commands.heads:run_train")
