"""Provides how a command opens what it works on: the progress database named by the global `--db` (or the
default one) and the workspace around it, with the clock read once, here at the edge; everything below takes
`now` as an argument."""

from __future__ import annotations

import argparse
import sys
from datetime import datetime
from typing import Any

from quizapp.config import for_run, system_now
from quizapp.workspace import open_workspace


def read_clock() -> datetime:
    """The local time, aware, so "today" in stats is the user's day ($QUIZAPP_TODAY moves it)."""
    return system_now()


def open_store_for(args: argparse.Namespace, now: datetime) -> Any:
    """The store named by the global `--db`, with config.toml's setting defaults and the daily backup of the
    default database; anything opening repaired, or a backup that failed, is said on stderr."""
    return workspace_for(args, now).store


def workspace_for(args: argparse.Namespace, now: datetime) -> Any:
    """The workspace of this run (quizapp.workspace): the store named by `--db`, and the catalog of the
    bundled decks and the user's (loaded on first use); anything opening repaired is said on stderr."""
    ws = open_workspace(getattr(args, "db", None), clock=read_clock, user=for_run(args), report=warn, now=now)
    if ws.store.notice:
        print(f"quizapp: {ws.store.notice}", file=sys.stderr)
    return ws


def warn(message: str) -> None:
    print(f"quizapp: warning: {message}", file=sys.stderr)
