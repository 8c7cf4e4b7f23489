"""PLACEHOLDER: subcommands not written yet."""

import argparse
from typing import Any


def register(sub: "argparse._SubParsersAction[Any]") -> None:
    """Adds no subcommands yet."""
