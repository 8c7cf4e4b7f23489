"""Provides what `quizapp` with no command does: open the full-screen app.

Textual, NumPy and the engine are imported only here, when the app is really started, so the other
commands (and the app's own first frame) stay fast.
"""

from __future__ import annotations

import argparse


def launch_app(args: argparse.Namespace) -> int:
    """Runs the app until the user quits; returns its exit code (3 after an internal error)."""
    from quizapp.config import for_run
    from quizapp.tui.app import make_app

    app = make_app(db_path=getattr(args, "db", None), user_config=for_run(args))
    return app.run_for_exit_code()
