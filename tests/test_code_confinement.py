"""Attacks on the real child process that runs a learner's solution, on each path: confined (Linux
namespaces, where the kernel allows them), Landlock without namespaces (QUIZAPP_CODE_CONFINE=limits, where
the kernel has Landlock) and limits-only (QUIZAPP_CODE_CONFINE=plain: what a kernel with neither gets).
Each attack prints what it reached; the test reads the verdict's printed text. An attack a path cannot
stop is skipped there with the reason (the README says the same)."""

from __future__ import annotations

import ast
import os
import socket
import textwrap
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

import engine
from quizapp.grading.code import CodeVerdict, grade_code
from quizapp.runner import confine
from quizapp.runner.standby import POOL

CONFINED_HERE, WHY_NOT = confine.probe()
STUB = "\ndef softmax(x, axis=-1):\n    return x\n"


@pytest.fixture(params=["confined", "landlock", "limits"])
def path(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """Each attack runs on every path this kernel offers."""
    if request.param == "confined" and not CONFINED_HERE:
        pytest.skip(f"namespaces are refused on this machine: {WHY_NOT}")
    if request.param == "confined":
        monkeypatch.delenv(confine.FORCE_ENV, raising=False)
    else:
        monkeypatch.setenv(confine.FORCE_ENV, "limits" if request.param == "landlock" else "plain")
    if request.param == "landlock":
        confine.probe.cache_clear()
        landlocked = confine.probe()[1].startswith("landlock")
        confine.probe.cache_clear()
        if not landlocked:
            pytest.skip("this kernel has no Landlock")
    POOL.close()  # the next run starts a child with this path's setting
    yield request.param
    POOL.close()


def attack(body: str) -> CodeVerdict:
    return grade_code("code-softmax", textwrap.dedent(body) + STUB, seed=0)


def limits_cannot(path: str, why: str) -> None:
    if path == "limits":
        pytest.skip(f"the limits-only path does not stop this: {why}")


def namespaces_only(path: str, why: str) -> None:
    if path != "confined":
        pytest.skip(f"only the confined path does this: {why}")


def test_each_path_says_what_it_is(path: str) -> None:
    verdict = attack("print('ran')")
    assert "ran" in verdict.printed
    assert verdict.confined is (path == "confined")
    if path == "limits":
        assert "NOT sandboxed" in verdict.confinement
    elif path == "landlock":
        assert "NOT fully sandboxed" in verdict.confinement and "Landlock" in verdict.confinement
    else:
        assert "confined" in verdict.confinement and "NOT" not in verdict.confinement


def test_reading_the_data_folder_home_and_the_apps_code_finds_nothing(path: str, isolated_home: Path) -> None:
    limits_cannot(path, "the code runs as the user and can read what the user can")
    (isolated_home / "progress.db").write_text("secret-progress")
    home_entries = sorted(os.listdir(Path.home())) if Path.home().is_dir() else []
    engine_file = Path(engine.__file__).parent / "exercises" / "__init__.py"
    verdict = attack(f"""
        import os
        for p in [{str(isolated_home / "progress.db")!r}, {str(engine_file)!r}, "/etc/passwd"]:
            try:
                print("READ", p, len(open(p).read()))
            except OSError as e:
                print("BLOCKED", p)
        try:
            print("HOME", sorted(os.listdir({str(Path.home())!r})))
        except OSError:
            print("HOME []")
    """)
    assert "READ" not in verdict.printed.replace("READ /etc/passwd 0", ""), verdict.printed
    shown = ast.literal_eval(verdict.printed.split("HOME ", 1)[1].splitlines()[0])
    assert set(shown) <= _leading_to_python(), (shown, home_entries)


def _leading_to_python() -> set[str]:
    """The one entry of $HOME a confined run may see: the folder on the way to Python's standard library
    or NumPy, when they are installed under $HOME (pyenv, a venv in the home folder)."""
    import sys

    import numpy

    home, names = Path.home().resolve(), set()
    for place in (Path(sys.base_prefix).resolve(), Path(numpy.__file__).resolve().parent):
        if place.is_relative_to(home) and place != home:
            names.add(place.relative_to(home).parts[0])
    return names


def test_the_root_holds_only_the_system_libraries_python_and_numpy(path: str) -> None:
    namespaces_only(path, "without a mount namespace the root is the machine's (Landlock refuses to list it)")
    import sys

    import numpy

    verdict = attack("import os\nprint('ROOT', sorted(os.listdir('/')))")
    shown = ast.literal_eval(verdict.printed.split("ROOT ", 1)[1].splitlines()[0])
    system = {"usr", "lib", "lib64", "lib32", "libx32", "bin", "sbin", "etc", "dev", "proc", "tmp"}
    ours = {Path(p).resolve().parts[1] for p in (sys.base_prefix, numpy.__file__)}
    assert set(shown) <= system | ours, shown


def test_the_apps_environment_open_files_and_terminal_are_out_of_reach(path: str) -> None:
    verdict = attack("""
        import os
        def parent_of(pid):
            with open(f"/proc/{pid}/stat") as fh:
                return int(fh.read().rsplit(")", 1)[1].split()[1])
        pids, pid = [], os.getpid()
        for _ in range(4):
            try:
                pid = parent_of(pid)
            except (OSError, ValueError, IndexError):
                break
            if pid <= 0:
                break
            pids.append(pid)
        for pid in pids:
            for name, mode in (("environ", "rb"), ("fd/1", "wb"), ("fd/0", "rb")):
                try:
                    with open(f"/proc/{pid}/{name}", mode) as fh:
                        fh.write(b"\\x1b]52;c;Zm9yZ2Vk\\x07\\x1b[32mOK\\n") if "w" in mode else fh.read(1)
                    print("REACHED", pid, name)
                except OSError:
                    pass
        print("done", len(pids))
    """)
    assert "done" in verdict.printed, verdict.printed
    assert "REACHED" not in verdict.printed, verdict.printed


def test_no_terminal_device_can_be_opened(path: str) -> None:
    limits_cannot(path, "a terminal the user owns (/dev/pts/N) can be opened by its path")
    verdict = attack("""
        import os
        names = ["/dev/tty", "/dev/console"] + [f"/dev/pts/{n}" for n in range(8)]
        for name in names:
            try:
                with open(name, "wb", buffering=0) as fh:
                    fh.write(b"\\x1b[32mCorrect\\n")
                print("OPENED", name)
            except OSError:
                pass
        try:
            print("devices", sorted(os.listdir("/dev")))
        except OSError:
            print("devices hidden")
    """)
    assert "OPENED" not in verdict.printed and "devices" in verdict.printed, verdict.printed


def test_writing_the_database_drafts_or_a_pth_file_fails(path: str, isolated_home: Path) -> None:
    limits_cannot(path, "the code runs as the user and can write what the user can")
    import numpy

    db = isolated_home / "progress.db"
    db.write_text("intact")
    (isolated_home / "drafts").mkdir()
    site = Path(numpy.__file__).parent.parent
    verdict = attack(f"""
        import os, shutil
        for p in [{str(db)!r}, {str(site / "evil.pth")!r}]:
            try:
                open(p, "w").write("import os")
                print("WROTE", p)
            except OSError:
                pass
        shutil.rmtree({str(isolated_home / "drafts")!r}, ignore_errors=True)
        try:
            os.remove({str(db)!r})
            print("REMOVED")
        except OSError:
            pass
        open("scratch.txt", "w").write("its own folder (the working directory) is writable")
        print("tmp ok")
    """)
    assert "tmp ok" in verdict.printed, verdict.printed
    assert "WROTE" not in verdict.printed and "REMOVED" not in verdict.printed, verdict.printed
    assert db.read_text() == "intact" and (isolated_home / "drafts").is_dir()
    assert not (site / "evil.pth").exists()


def test_a_shell_a_fork_and_a_setsid_grandchild_are_refused_but_threads_work(path: str) -> None:
    verdict = attack("""
        import os, subprocess, threading
        for name, act in [
            ("fork", os.fork),
            ("exec", lambda: os.execv("/bin/sh", ["sh", "-c", "true"])),
            ("subprocess", lambda: subprocess.run(["/bin/sh", "-c", "true"])),
            ("setsid", os.setsid),
            ("kill-app", lambda: os.kill(os.getppid(), 0)),
        ]:
            try:
                act()
                print("ALLOWED", name)
            except OSError:
                print("refused", name)
        box = []
        t = threading.Thread(target=lambda: box.append(1))
        t.start(); t.join()
        print("thread", box)
    """)
    assert "ALLOWED" not in verdict.printed, verdict.printed
    assert "refused fork" in verdict.printed and "thread [1]" in verdict.printed, verdict.printed


def test_a_fork_bomb_leaves_nothing_running(path: str) -> None:
    verdict = attack("""
        import os
        made = 0
        for _ in range(30):
            try:
                if os.fork() == 0:
                    import time
                    time.sleep(60)
                made += 1
            except OSError:
                pass
        print("forked", made)
    """)
    assert "forked 0" in verdict.printed, verdict.printed
    gone = _wait_until(lambda: POOL.last_pid is not None and not Path(f"/proc/{POOL.last_pid}").exists())
    assert gone, "the run's process is still there"


def test_no_connection_reaches_a_socket_on_the_loopback(path: str) -> None:
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(1)
    server.settimeout(0.2)
    port = server.getsockname()[1]
    verdict = attack(f"""
        import socket
        try:
            socket.create_connection(("127.0.0.1", {port}), timeout=2).sendall(b"leak")
            print("CONNECTED")
        except OSError as e:
            print("refused", type(e).__name__)
    """)
    try:
        with pytest.raises(OSError):
            server.accept()
    finally:
        server.close()
    assert "CONNECTED" not in verdict.printed and "refused" in verdict.printed, verdict.printed


def test_the_reference_cannot_be_imported_by_any_means(path: str) -> None:
    root = Path(engine.__file__).parent.parent
    ref = Path(engine.__file__).parent / "exercises" / "__init__.py"
    plain = attack("""
        import sys
        sys.meta_path[:] = [m for m in sys.meta_path if "NumpyOnly" not in type(m).__name__]
        try:
            import engine.exercises
            print("IMPORTED")
        except ImportError:
            print("not importable")
    """)
    assert "IMPORTED" not in plain.printed and "not importable" in plain.printed, plain.printed
    limits_cannot(path, "the app's files are readable by the user, so code can load them from their path")
    by_path = attack(f"""
        import importlib.util, sys
        sys.path.insert(0, {str(root)!r})
        try:
            import engine.exercises
            print("IMPORTED by sys.path")
        except ImportError:
            pass
        try:
            spec = importlib.util.spec_from_file_location("ref", {str(ref)!r})
            spec.loader.exec_module(importlib.util.module_from_spec(spec))
            print("IMPORTED by file")
        except (OSError, ImportError):
            print("no file")
    """)
    assert "IMPORTED" not in by_path.printed and "no file" in by_path.printed, by_path.printed


def test_a_forged_or_bombed_report_is_no_report_and_the_grader_survives(path: str) -> None:
    forged = attack("""
        import os, json, __main__
        token = getattr(__main__, "_end", b"\\nquizapp-standby-end xxxxxxxxxxxxxxxx ")
        fake = json.dumps({"cases": [None], "layout": [], "printed": "FORGED", "sizes": []}).encode() + b"\\n"
        for fd in range(1, 12):
            try:
                os.write(fd, b"\\n" + fake + token + b"%016d\\n" % len(fake))
            except OSError:
                pass
    """)
    assert "FORGED" not in forged.printed and not forged.correct
    for payload in ('b"[" * 200000', 'b"\\xff\\xfe" * 100000', 'b"99999999999\\n" + b"{}"'):
        bombed = attack(f"""
            import os, stat
            body = {payload}
            for fd in range(3, 12):
                try:
                    if stat.S_ISFIFO(os.fstat(fd).st_mode):
                        os.write(fd, str(len(body)).encode() + b"\\n" + body)
                except OSError:
                    pass
            os._exit(0)
        """)
        assert not bombed.correct
        assert bombed.problem is not None and "not a report" in bombed.problem, bombed.problem


def _wait_until(check: object, timeout: float = 20.0) -> bool:
    """Polls `check` until true or the timeout (a condition, not a fixed sleep)."""
    assert callable(check)
    end = time.monotonic() + timeout
    event = threading.Event()
    while time.monotonic() < end:
        if check():
            return True
        event.wait(0.02)
    return bool(check())


def test_the_limits_only_sentence_is_said_once_a_session(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(confine, "_told", [])
    sentence = confine.note(False, "the kernel refused namespaces")
    assert "NOT sandboxed" in sentence and "the kernel refused namespaces" in sentence
    assert confine.say_once(True, confine.note(True, "")) == ""
    assert confine.say_once(False, sentence) == "\n\n" + sentence
    assert confine.say_once(False, sentence) == ""
