"""The console script answers --help and --version, and runs without a subcommand."""

from __future__ import annotations

import subprocess
import sys

from quizapp import __version__


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "quizapp", *args], capture_output=True, text=True, timeout=60
    )


def test_version_prints_the_package_version() -> None:
    out = _run("--version")
    assert out.returncode == 0
    assert __version__ in out.stdout


def test_help_lists_the_commands() -> None:
    out = _run("--help")
    assert out.returncode == 0
    assert "usage: quizapp" in out.stdout
