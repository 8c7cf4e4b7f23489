"""Provides what `quizapp` with no command does: open the full-screen app; and the one list of the imports
that start-up leaves for later.

Imports go at the top of their module. The exceptions are on the launch path only: quizapp/__main__.py ->
quizapp/cli.py (with quizapp/commands/parsers.py, the parsers every run builds) -> this module, and the
TUI's own start (quizapp/tui). cli.py imports this module only when the app opens, so Textual and the TUI
load for the app alone. Each deferred import is a row below, with what it saves: the CPU milliseconds
that importing it costs a run that does not need it (min of 9 runs, `python -c "import ..."` with and
without it, on the 2-core dev machine). tests/test_import_budget.py reads the first two columns: a
function-level import not listed here counts against its small budget.

| file | imports | saves | when it is imported |
| --- | --- | --- | --- |
| quizapp/cli.py | quizapp.config | 14 ms | after parsing: not for --version, --help |
| quizapp/cli.py | quizapp.launch | 265 ms | only with no command: Textual and the TUI |
| quizapp/cli.py | quizapp.commands.completion | 212 ms | only when the shell asks to complete |
| quizapp/cli.py | argcomplete | - | only when the shell asks to complete |
| quizapp/cli.py | quizapp.store.sqlite_errors | 24 ms | only after an unexpected error |
| quizapp/cli.py | (importlib) quizapp.commands.* | 655 ms | command(): the chosen command's alone |
| quizapp/commands/parsers.py | quizapp.runner.confine | 22 ms | only for `quizapp code --help` |
| quizapp/commands/parsers.py | quizapp.runner.standby | 22 ms | `code ID --file`: the child starts first |
| quizapp/tui/session_opening.py | quizapp.study.session | 950 ms | a session's start (worker; warm-up) |
| quizapp/tui/app.py | textual.widgets | 24 ms | set_blink's TextArea: only with blink off (tests) |
| quizapp/tui/app_backend.py | quizapp.workspace | 100 ms | report_error: after an error, the store open |
| quizapp/tui/backend.py | quizapp.workspace | 100 ms | load_backend, in the load worker |
| quizapp/tui/backend.py | quizapp.study | 66 ms | Backend.questions, in the load worker after home's counts |
| quizapp/tui/backend.py | quizapp.study.drafts | 57 ms | code_text (quizapp.study's package), in a worker |
| quizapp/tui/backend.py | quizapp.reports.overview | 71 ms | home's counts, in the load worker |
| quizapp/tui/backend.py | quizapp.reports.plan_text | 96 ms | home's plan line, in a worker |
| quizapp/tui/backend.py | quizapp.study.session | 950 ms | home's plan line (today's queue), in a worker |
| quizapp/tui/backend.py | quizapp.study.optimize | 88 ms | Settings' fit of the FSRS weights, in a worker |
| quizapp/tui/screens/home.py | quizapp.workspace | 100 ms | still loading after 2 s (the loader has it) |
| quizapp/tui/screens/home.py | quizapp.tui.screens.exercises | 354 ms | `d` on a deck of code questions |
| quizapp/tui/keys.py | quizapp.tui.app | - | not a cost: a cycle (app.py imports keys for the keymap) |

The quizapp/tui rows save the time before the app's first frame: min of 9 imports in a process that has
imported quizapp.tui.app and the home screen already. The home screen's remembered decks and deck table are
imported at the top: a second start draws them in the first frame anyway.
"""

from __future__ import annotations

import argparse

from quizapp.config import for_run
from quizapp.tui.app import make_app


def launch_app(args: argparse.Namespace) -> int:
    """Runs the app until the user quits; returns its exit code (3 after an internal error)."""
    app = make_app(db_path=getattr(args, "db", None), user_config=for_run(args))
    return app.run_for_exit_code()
