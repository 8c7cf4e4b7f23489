"""The app never follows what a run leaves: it reads the child's output through descriptors it opened
itself (a link or a FIFO planted where a file was once opened by name changes nothing), removes every
run's folder (after the run, when the app is closed by SIGHUP, and at the next start for an app that was
killed), and on the Landlock path grants the standard library without any package folder."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from runner_attacks import alive, attack, path, wait_until, without

from quizapp.runner import confine
from quizapp.runner.folder_child import remove_tree
from quizapp.runner.lockdown_child import grants
from quizapp.runner.standby import POOL

__all__ = ["path"]
pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="POSIX processes and /proc")
ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def temp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """This test's own temporary folder, where the runs' folders are made (never the machine's)."""
    where = tmp_path / "tmp"
    where.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(where))
    return where


def test_a_link_or_a_fifo_planted_in_the_folder_is_never_followed(
    path: str, temp: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The first round's confused deputy: the app opened `stderr.txt` in the run's folder by name. Here
    seccomp (which refuses links and FIFOs) is off, so the run can plant both; the app reads neither."""
    if path == "confined":
        pytest.skip("the confined run does not see the folder at all")
    secret = tmp_path / "secret.txt"
    secret.write_text("SECRET-LINE\n")
    secret.chmod(0o600)
    without(monkeypatch, "seccomp")
    for plant in (f"os.symlink({str(secret)!r}, name)", "os.mkfifo(name)"):
        body = f"""
            import os
            for name in ("stderr.txt", "stdout.txt", "report.json"):
                {plant}
            os.write(2, b"the real stderr\\n")
            os._exit(3)
        """
        verdict = attack(body, time_limit=5)
        assert verdict.problem is not None and "SECRET" not in verdict.problem, verdict.problem
        # the run's own exit and stderr, not a time-out: the app never waited on a planted FIFO
        assert "exit code 3" in verdict.problem and "the real stderr" in verdict.problem, verdict.problem
    POOL.close()
    assert not list(temp.iterdir()), "a run's folder was left behind"


def test_every_runs_folder_is_removed_even_one_it_locked(path: str, temp: Path) -> None:
    verdict = attack("""
        import os
        for p in ("a/b/c", "d"):
            os.makedirs(p, exist_ok=True)
            open(os.path.join(p, "f"), "w").write("x")
        os.mkdir("a/locked", 0)  # (chmod is refused: a mode given at mkdir is not)
        os.mkdir("e", 0o700)
        open("e/f", "w").write("x")
        os.mkdir("e/g", 0o500)
        os.rename("e", "a/b/e")
        print("locked")
    """)
    assert "locked" in verdict.printed or path == "confined", verdict.printed
    POOL.close()
    assert not list(temp.iterdir()), sorted(p.name for p in temp.iterdir())


_APP = """
import signal, sys, time
signal.signal(signal.SIGHUP, signal.SIG_DFL)  # as in a terminal, even if the suite runs under nohup
from quizapp.runner.standby import POOL
POOL.warm()
assert POOL.wait_ready(60)
print(POOL.standby_pid, flush=True)
time.sleep(120)
"""


def _app(temp: Path) -> subprocess.Popen[str]:
    """The app, in a process of its own (with this test's settings), its standby warmed."""
    environment = {**os.environ, "PYTHONPATH": str(ROOT), "TMPDIR": str(temp)}
    return subprocess.Popen([sys.executable, "-c", _APP], stdout=subprocess.PIPE, text=True, env=environment)


@pytest.mark.parametrize("how", [signal.SIGHUP, signal.SIGKILL])
def test_an_app_closed_by_sighup_or_killed_leaves_no_folder_and_no_process(
    how: signal.Signals, path: str, temp: Path
) -> None:
    with _app(temp) as app:
        try:
            assert app.stdout is not None
            standby = int(app.stdout.readline())
            assert len(list(temp.glob("quizapp-code-*"))) == 1
            app.send_signal(how)
            app.wait(30)
        finally:
            app.kill()
    assert wait_until(lambda: not alive(standby)), "the standby outlived the app"
    assert wait_until(lambda: not list(temp.glob("quizapp-code-*"))), sorted(temp.iterdir())


def test_the_next_start_removes_what_a_killed_app_left_and_nothing_else(temp: Path, tmp_path: Path) -> None:
    gone = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True
    )
    dead = int(gone.stdout)
    stale = temp / f"quizapp-code-{dead}-12345-abcd1234"
    (stale / "locked").mkdir(parents=True)
    (stale / "locked" / "f").write_text("x")
    (stale / "locked").chmod(0)
    legacy = temp / "quizapp-code-k2j3h4g5"
    legacy.mkdir()
    os.utime(legacy, (time.time() - 2 * confine.LEGACY_STALE_S,) * 2)
    recent_legacy = temp / "quizapp-code-zzzzzzzz"
    recent_legacy.mkdir()
    mine = confine.new_folder()  # this process runs: its folder is not stale
    victim = tmp_path / "victim"
    victim.mkdir()
    (victim / "precious.txt").write_text("keep")
    (temp / f"quizapp-code-{dead}-1-linked").symlink_to(victim)
    with _app(temp) as app:
        try:
            assert app.stdout is not None
            int(app.stdout.readline())  # warmed: its housekeeping ran the clean-up first
            ours = {p for p in temp.glob("quizapp-code-*") if p.name.startswith(f"quizapp-code-{app.pid}-")}
        finally:
            app.kill()
            app.wait()
    left = set(temp.iterdir()) - ours
    assert left == {recent_legacy, mine, temp / f"quizapp-code-{dead}-1-linked"}, sorted(left)
    assert (victim / "precious.txt").read_text() == "keep"
    confine.remove_folder(mine)
    assert not mine.exists()


def test_landlock_grants_the_standard_library_without_the_package_folders(
    path: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    if path != "landlock":
        pytest.skip("the Landlock path's grants")
    import json

    packages = json.loads(confine.child_conf())["packages"]
    assert packages, "no package folder found to test with"
    stdlib = Path(json.__file__).parent
    verdict = attack(f"""
        import os
        for p in {packages!r}:
            try:
                os.listdir(p)
                print("PKG listed", p)
            except OSError as e:
                print("PKG shut", e.errno)
        print("PKG stdlib", len(open({str(stdlib / "__init__.py")!r}).read()) > 0)
    """)
    assert "listed" not in verdict.printed and "PKG stdlib True" in verdict.printed, verdict.printed


def test_grants_cut_every_hidden_folder_out_of_a_root_and_follow_no_link(tmp_path: Path) -> None:
    lib = tmp_path / "lib" / "python3.11"
    for name in ("json", "site-packages/quizapp", "site-packages/numpy", "lib-dynload"):
        (lib / name).mkdir(parents=True)
    (lib / "os.py").write_text("")
    (lib / "escape").symlink_to(tmp_path)
    found = grants([str(lib)], [str(lib / "site-packages")])
    assert sorted(found) == sorted(str(lib / n) for n in ("json", "lib-dynload", "os.py"))
    assert grants([str(lib)], [str(tmp_path / "elsewhere")]) == [str(lib)]
    assert grants([str(lib)], [str(lib)]) == []


def test_the_folder_name_says_whose_it_is() -> None:
    folder = confine.new_folder()
    try:
        assert folder.name.startswith(f"quizapp-code-{os.getpid()}-")
        assert folder not in confine.stale_folders(folder.parent)
    finally:
        confine.remove_folder(folder)


DEEP = 2500
"""Deeper than Python's recursion limit, and its path longer than PATH_MAX."""


@pytest.fixture
def deep(tmp_path: Path) -> Iterator[None]:
    """Removes whatever a failed test left in tmp_path without recursion: pytest's own clean-up of old
    temporary folders (shutil.rmtree) would fail on it."""
    yield
    fd = os.open(tmp_path, os.O_RDONLY | os.O_DIRECTORY)
    try:
        for name in os.listdir(fd):
            remove_tree(fd, name)
    finally:
        os.close(fd)


def _nest(folder: Path, depth: int) -> None:
    """`depth` folders, one in another, a file and a locked folder at the bottom (by descriptor)."""
    fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    for _ in range(depth):
        os.mkdir("d", dir_fd=fd)
        below = os.open("d", os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
        os.close(fd)
        fd = below
    os.close(os.open("f", os.O_WRONLY | os.O_CREAT, 0o600, dir_fd=fd))
    os.mkdir("locked", 0, dir_fd=fd)
    os.close(fd)


def test_a_folder_nested_deeper_than_the_recursion_limit_is_removed(
    path: str, temp: Path, deep: None
) -> None:
    """The red team's repro: 1200 nested folders made shutil.rmtree and os.walk raise RecursionError, so the
    run's folder stayed and closing the pool raised (a traceback at the app's exit)."""
    body = f"""
        import os
        for _ in range({DEEP}):
            os.mkdir("d")
            os.chdir("d")
        for i in range(20):
            open(f"f{{i}}", "w").write("x" * 1000)
        os.mkdir("locked", 0)
        print("nested")
    """
    verdict = attack(body)
    assert "nested" in verdict.printed, verdict.printed
    POOL.close()
    assert not list(temp.iterdir()), "a run's folder was left behind"
    assert "nested" in attack(body).printed  # the pool still works
    POOL.close()
    assert not list(temp.iterdir()), "a run's folder was left behind"


_EXITING_APP = """
import os, sys, time
from quizapp.runner.standby import POOL
POOL.warm()
assert POOL.wait_ready(60)
end = time.monotonic() + 60
while os.path.lexists(sys.argv[1]) and time.monotonic() < end:  # the housekeeping's clean-up
    time.sleep(0.05)
print(POOL.standby_pid, POOL._house is not None and POOL._house.is_alive(), flush=True)
"""


def test_the_next_start_removes_a_deep_stale_folder_and_prints_no_traceback(
    temp: Path, tmp_path: Path, deep: None
) -> None:
    gone = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True
    )
    stale = temp / f"quizapp-code-{int(gone.stdout)}-12345-abcd1234"
    stale.mkdir()
    _nest(stale, DEEP)
    victim = tmp_path / "victim"
    victim.mkdir()
    (victim / "precious.txt").write_text("keep")
    (stale / "d" / "link").symlink_to(victim)
    environment = {**os.environ, "PYTHONPATH": str(ROOT), "TMPDIR": str(temp)}
    done = subprocess.run(
        [sys.executable, "-c", _EXITING_APP, str(stale)],
        capture_output=True,
        text=True,
        env=environment,
        timeout=120,
    )
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    assert not stale.exists(), "the stale folder was left"
    assert done.stdout.split()[1:] == ["True"], done.stdout  # the housekeeping thread lives on
    assert (victim / "precious.txt").read_text() == "keep"
    assert wait_until(lambda: not list(temp.iterdir())), sorted(temp.iterdir())


def test_removing_a_folder_never_follows_a_link_and_never_raises(tmp_path: Path, deep: None) -> None:
    folder = tmp_path / "quizapp-code-x"
    folder.mkdir()
    _nest(folder, DEEP)
    victim = tmp_path / "victim"
    victim.mkdir()
    (victim / "precious.txt").write_text("keep")
    (folder / "link").symlink_to(victim)
    (folder / "d" / "file-link").symlink_to(victim / "precious.txt")
    confine.remove_folder(folder)
    assert not folder.exists()
    assert (victim / "precious.txt").read_text() == "keep"
