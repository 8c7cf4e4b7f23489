"""Provides `quizapp optimize`: fit FSRS weights to your own reviews, show the gain, and use them."""

from __future__ import annotations

import argparse
import sys
from typing import Any


def register(sub: argparse._SubParsersAction[Any]) -> None:
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
    opt.set_defaults(func=run_optimize)


def run_optimize(args: argparse.Namespace) -> int:
    from quizapp.commands.progress import open_store_for
    from quizapp.store import save_setting
    from quizapp.study.optimize import describe_fit, fit_and_save
    from quizapp.workspace import system_now

    now = system_now()
    with open_store_for(args, now) as store:
        if args.reset:
            save_setting(store, "fsrs_parameters", [])
            print("The scheduler uses the default FSRS weights again.")
            return 0
        result, saved = fit_and_save(store)
    if not saved:
        print(describe_fit(result, saved), file=sys.stderr)
        return 1
    print(describe_fit(result, saved))
    return 0
