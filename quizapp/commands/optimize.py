"""Provides `quizapp optimize`: fit FSRS weights to your own reviews, show the gain, and use them."""

from __future__ import annotations

import argparse
from datetime import datetime
from typing import Any


def register(sub: argparse._SubParsersAction[Any]) -> None:
    """Adds `optimize`."""
    opt = sub.add_parser(
        "optimize",
        help="fit the scheduler's FSRS weights to your own review history",
        description=(
            "Fits FSRS weights to your reviews (as Anki's Optimize does), prints how well the old and the "
            "new weights predict your history (log-loss, lower is better), and keeps the new weights "
            "only if they predict it better."
        ),
    )
    opt.add_argument("--reset", action="store_true", help="go back to the default FSRS weights")
    opt.set_defaults(func=run_optimize)


def run_optimize(args: argparse.Namespace) -> int:
    from quizapp.commands.progress import open_store_for
    from quizapp.store import save_setting
    from quizapp.study.optimize import describe_fit, fit_and_save

    now = datetime.now().astimezone()
    with open_store_for(args, now) as store:
        if args.reset:
            save_setting(store, "fsrs_parameters", [])
            print("The scheduler uses the default FSRS weights again.")
            return 0
        print(describe_fit(*fit_and_save(store)))
    return 0
