"""Provides `quizapp optimize`: fit FSRS weights to your own reviews, show the gain, and use them."""

from __future__ import annotations

import argparse
import sys

from quizapp.commands.opening import open_store_for
from quizapp.config import system_now
from quizapp.store import save_setting
from quizapp.study.optimize import describe_fit, fit_and_save


def run_optimize(args: argparse.Namespace) -> int:
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
