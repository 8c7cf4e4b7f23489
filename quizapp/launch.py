"""Provides what `quizapp` with no command does: open the app (status text until the TUI exists)."""

from __future__ import annotations

import argparse

from quizapp import __version__


def launch_app(args: argparse.Namespace) -> int:
    from quizapp.paths import bundled_content_dir, db_path

    print(f"quizapp {__version__}: the attention interview trainer.")
    print(f"  decks:    {bundled_content_dir()}")
    print(f"  progress: {db_path(args.db)}")
    print("The full-screen app is not built yet; try `quizapp --help`.")
    return 0
