"""The console script answers --help and --version, and runs without a subcommand."""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import pty
import select
import struct
import subprocess
import sys
import termios
import threading
import time
from collections.abc import Callable
from pathlib import Path

from quizapp import __version__
from quizapp.cli import WEB_DRIVER


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
    # standard error is no terminal either, so the reason goes to standard output, and not one escape code
    assert app.stdout.strip() == (
        "quizapp needs a terminal: it reads keys from standard input, which is not one here; "
        "try `quizapp --help`"
    )
    assert app.stderr == ""
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


def test_with_standard_error_thrown_away_the_app_refuses_and_says_why_on_standard_output() -> None:
    """Textual draws on standard error: `quizapp 2>/dev/null` in a terminal would draw nowhere and wait for
    keys, so it exits 2 and prints the reason where the user sees it. The timeout only bounds a hang."""
    main_side, terminal = pty.openpty()
    app = subprocess.Popen(
        [sys.executable, "-m", "quizapp"], stdin=terminal, stdout=terminal, stderr=subprocess.DEVNULL
    )
    os.close(terminal)
    try:
        code = app.wait(timeout=120)
    finally:
        app.kill()
        app.wait()
    shown = b""
    while True:
        try:
            chunk = os.read(main_side, 4096)
        except OSError:  # the terminal's other side is closed: all was read
            break
        if not chunk:
            break
        shown += chunk
    os.close(main_side)
    assert code == 2
    assert shown.decode().strip() == (
        "quizapp needs a terminal: it draws on standard error, which is not one here; try `quizapp --help`"
    )


def test_with_standard_output_redirected_the_app_still_runs_in_the_terminal(tmp_path: Path) -> None:
    """`quizapp >log` in a terminal: keys come from standard input and the screen goes to standard error,
    so the app runs (it used to refuse), draws there, quits on q and writes nothing to standard output.
    Everything waits on what the screen shows; the deadline only bounds a hang."""
    main_side, terminal = pty.openpty()
    fcntl.ioctl(terminal, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
    log = tmp_path / "stdout.log"
    with log.open("wb") as out:
        app = subprocess.Popen([sys.executable, "-m", "quizapp"], stdin=terminal, stdout=out, stderr=terminal)
    os.close(terminal)
    drawn, deadline = b"", time.monotonic() + 120

    def read_until(done: Callable[[], bool], seconds: float = 120) -> None:
        nonlocal drawn
        until = min(deadline, time.monotonic() + seconds)
        while not done() and time.monotonic() < until:
            if select.select([main_side], [], [], 0.2)[0]:
                try:
                    drawn += os.read(main_side, 65536)
                except OSError:  # the app closed the terminal: it has ended
                    return

    try:
        read_until(lambda: b"answered today" in drawn)  # home, with the decks loaded
        while app.poll() is None and time.monotonic() < deadline:
            with contextlib.suppress(OSError):  # q again if the first came before home took keys
                os.write(main_side, b"q")
            read_until(lambda: app.poll() is not None, seconds=2)
    finally:
        app.kill()
        code = app.wait()
        os.close(main_side)
    assert b"answered today" in drawn
    assert code == 0
    assert log.read_bytes() == b""


def test_under_textual_serve_s_web_driver_the_app_starts_and_draws_its_packets() -> None:
    """textual-serve runs `quizapp` with TEXTUAL_DRIVER naming the web driver and pipes, not a terminal, on
    all three streams: the app must start, greet the server and draw its screen as packets on standard
    output, then quit when the server asks. A watchdog kills it only if it hangs."""
    env = {**os.environ, "TEXTUAL_DRIVER": WEB_DRIVER, "COLUMNS": "80", "ROWS": "24"}
    with subprocess.Popen(
        [sys.executable, "-m", "quizapp"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
    ) as app:
        assert app.stdin is not None and app.stdout is not None and app.stderr is not None
        watchdog = threading.Timer(120, app.kill)
        watchdog.start()
        try:
            greeting = app.stdout.readline()
            drawn = b""
            while b"attention trainer" not in drawn:
                kind, size = app.stdout.read(1), app.stdout.read(4)
                assert kind in (b"D", b"M"), (greeting, drawn, app.stderr.read())
                payload = app.stdout.read(int.from_bytes(size, "big"))
                drawn += payload if kind == b"D" else b""
            quit_meta = json.dumps({"type": "quit"}).encode()
            app.stdin.write(b"M" + len(quit_meta).to_bytes(4, "big") + quit_meta)
            app.stdin.close()
            code = app.wait(timeout=120)
        finally:
            watchdog.cancel()
            app.kill()
    assert greeting == b"__GANGLION__\n"  # the line textual-serve waits for before it shows anything
    assert b"multi-head attention trainer" in drawn and b"quizapp" in drawn  # the home screen's title
    assert code == 0
