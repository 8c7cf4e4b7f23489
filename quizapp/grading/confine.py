"""Provides the app's side of confining a learner's solution: what the child hides (child_conf), whether
this machine confines it or only limits it (mode), the sentence that says so, and the clean-up after each
run (the app is a child subreaper and kills whatever a run left behind).

The child does the confining itself (quizapp.grading.confine_child); this module only decides what it is
given and reports what it did. Three paths: confined (namespaces), Landlock without namespaces, limits
only. `QUIZAPP_CODE_CONFINE=limits` skips the namespaces (Landlock still applies where the kernel has it),
`=plain` takes the limits alone (for tests, or a kernel whose namespaces misbehave).
"""

from __future__ import annotations

import contextlib
import ctypes
import functools
import json
import os
import signal
import subprocess
import sys
from pathlib import Path

FORCE_ENV = "QUIZAPP_CODE_CONFINE"
"""Set to "limits" to run solutions without namespaces even where they are allowed (Landlock still
applies where the kernel has it), or "plain" for the limits alone (as on a kernel without either)."""
FILE_LIMIT_BYTES = 16 << 20
"""Largest file a solution may write (RLIMIT_FSIZE): only its private temporary folder is writable."""

CONFINED_NOTE = (
    "Solutions run confined: each in its own user, mount, PID and network namespaces, in a read-only root "
    "holding only the system's libraries, Python and NumPy (your home, the app's data and its code are not "
    "there); a private temporary folder; no network; no new processes, no exec; the memory, CPU-time and "
    "file-size limits."
)
LANDLOCK_NOTE = (
    "Solutions are NOT fully sandboxed here ({why}): no namespaces, but Landlock lets them read only the "
    "system's libraries, Python and NumPy and write only a private folder (your home, the app's data and "
    "its code are out of reach), and seccomp refuses new processes, exec, sockets and signals; memory, "
    "CPU-time and file-size limits apply. They share the machine's network namespace and process list."
)
LIMITS_NOTE = (
    "Solutions are NOT sandboxed here ({why}): they run under limits only (memory, CPU time, file size; no "
    "new processes, exec, sockets or signals where seccomp exists), but they can read and write your files "
    "as you can. Run only code you wrote or read."
)


def forced_limits() -> str:
    """ "limits" (no namespaces; Landlock where the kernel has it), "plain" (limits alone) or ""."""
    value = os.environ.get(FORCE_ENV, "").strip().lower()
    return value if value in ("limits", "plain") else ""


def _hidden_roots() -> list[str]:
    """The app's own code: each package folder, and the checkout holding it (with its git store)."""
    import engine
    import quizapp

    found: list[str] = []
    folders = [Path(m.__file__ or "").parent for m in (quizapp, engine)]
    for entry in sys.path:
        for name in ("quizapp", "engine"):
            candidate = Path(entry or ".") / name
            if candidate.is_dir():
                folders.append(candidate)
    for folder in folders:
        found.append(str(folder))
        root = folder.parent
        if (root / "pyproject.toml").exists() or (root / ".git").exists():
            found.append(str(root))
            git = root / ".git"
            if git.is_file():  # a worktree: its objects live in the main checkout's git folder
                text = git.read_text(encoding="utf-8", errors="replace").strip()
                if text.startswith("gitdir:"):
                    found.append(str(Path(text.removeprefix("gitdir:").strip()).parent.parent))
    return found


def child_conf() -> str:
    """What the child is told, as JSON: NumPy's folder, and the folders to hide (see confine_child)."""
    import numpy

    from quizapp import paths

    hide = ["/home", "/root", "/run", "/sys", "/var/tmp", "/dev/shm", "/mnt", "/media", str(Path.home())]
    with contextlib.suppress(Exception):  # a bad QUIZAPP_HOME is the app's to report, not the runner's
        hide += [str(paths.data_dir()), str(paths.config_path().parent), str(paths.cache_dir())]
    hide += _hidden_roots()
    conf = {"numpy": str(Path(numpy.__file__).parent), "hide": hide, "force_limits": forced_limits()}
    return json.dumps(conf)


@functools.cache
def probe() -> tuple[bool, str]:
    """Whether a solution would run confined here, and if not why: a tiny child tries (cached)."""
    source = Path(__file__).with_name("confine_child.py").read_text(encoding="utf-8")
    source += (
        "\nimport json\nconf = json.loads(sys.argv[1])\nc, why = enter(conf)\n"
        "ll = not c and conf['force_limits'] != 'plain' and landlock_abi() >= 1\n"
        "os.write(2, (('confined' if c else ('landlock ' if ll else 'limits ') + why) + '\\n').encode())\n"
        "os._exit(0)\n"
    )
    conf = json.dumps({"expose": [], "hide": [], "force_limits": forced_limits()})
    try:
        done = subprocess.run(
            [sys.executable, "-I", "-S", "-c", source, conf], capture_output=True, timeout=20, check=False
        )
    except (OSError, subprocess.SubprocessError) as exc:
        return False, f"the check could not run: {exc}"
    line = done.stderr.decode("utf-8", "replace").strip().splitlines()[-1:] or [""]
    if line[0] == "confined":
        return True, ""
    return False, line[0].removeprefix("limits ").strip() or "the check failed"  # "landlock ..." is kept


def note(confined: bool, why: str) -> str:
    """The sentence that says what confines the learner's code on this machine (`why` starts with
    "landlock " where Landlock applies without namespaces)."""
    if confined:
        return CONFINED_NOTE
    if why.startswith("landlock"):
        return LANDLOCK_NOTE.format(why=why.removeprefix("landlock").strip() or "namespaces unavailable")
    return LIMITS_NOTE.format(why=why or "namespaces unavailable")


_told: list[str] = []


def say_once(confined: bool, sentence: str) -> str:
    """The limits-only sentence, as a paragraph to add to the first code verdict of this session (the
    app's process); "" after that, and always where the code ran confined."""
    if confined or _told:
        return ""
    _told.append(sentence)
    return "\n\n" + sentence


def describe() -> str:
    """note() for this machine, from a probe (for `quizapp code --help`)."""
    return note(*probe())


_PR_SET_DUMPABLE, _PR_SET_CHILD_SUBREAPER = 4, 36


def _prctl(option: int, value: int) -> None:
    if sys.platform.startswith("linux"):
        with contextlib.suppress(OSError, AttributeError):
            ctypes.CDLL(None).prctl(option, ctypes.c_ulong(value), 0, 0, 0)


def become_subreaper() -> None:
    """Whatever a run leaves behind is re-parented to the app, not to init, so kill_strays finds it."""
    _prctl(_PR_SET_CHILD_SUBREAPER, 1)


def shield_app() -> None:
    """The app's own /proc entries (its open files, its terminal, its environment) become unreadable to
    processes without CAP_SYS_PTRACE, a solution's included: on the limits-only path nothing else hides
    them. Costs the app its core dumps."""
    _prctl(_PR_SET_DUMPABLE, 0)


def kill_strays(group: int) -> int:
    """Kills the processes re-parented to the app (it is a subreaper) that were in a run's process
    `group`; repeats while new ones appear (their children, re-parented in turn). Returns how many."""
    if not sys.platform.startswith("linux"):
        return 0
    me, killed = os.getpid(), 0
    for _ in range(20):
        found = []
        for entry in os.listdir("/proc"):
            if not entry.isdigit():
                continue
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            fields = stat[stat.rfind(")") + 2 :].split()
            if int(fields[1]) == me and int(fields[2]) == group:
                found.append(int(entry))
        if not found:
            break
        for pid in found:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
            with contextlib.suppress(OSError):
                os.waitpid(pid, 0)
            killed += 1
    return killed
