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


def test_without_a_terminal_the_app_refuses_at_once_and_commands_still_work() -> None:
    """From cron, CI or a pipe (`quizapp </dev/null >/dev/null`) the full-screen app cannot run: it says
    so and exits 2 instead of writing escape codes and waiting for keys. The timeout only bounds a hang."""
    app = subprocess.run(
        [sys.executable, "-m", "quizapp"],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert app.returncode == 2
    assert app.stderr.strip() == "quizapp needs a terminal; try `quizapp --help`"
    assert app.stdout == ""  # not one escape code
    listed = subprocess.run(
        [sys.executable, "-m", "quizapp", "list"],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert listed.returncode == 0, listed.stderr
    assert "kv-cache" in listed.stdout


def test_a_plain_quizapp_parses_as_the_full_command_line_would() -> None:
    """With no arguments the subcommands are left out of the parser (their imports cost the app's
    start-up): what it parses must be what the full parser gives, or the app would start differently."""
    from quizapp.cli import build_parser

    plain, full = build_parser(commands=False), build_parser()
    assert vars(plain.parse_args([])) == vars(full.parse_args([]))
    assert " validate " in full.format_help() and " validate " not in plain.format_help()  # really left out
