"""Provides the app's side of confining a learner's solution: what the child hides (child_conf), whether
this machine confines it or only limits it (mode), the sentence that says so, and the clean-up after each
run (the app is a child subreaper and kills whatever a run left behind).

The child does the confining itself (quizapp.runner.confine_child); this module only decides what it is
given and reports what it did. Three paths: confined (namespaces), Landlock without namespaces, limits
only. `QUIZAPP_CODE_CONFINE=limits` skips the namespaces (Landlock still applies where the kernel has it),
`=plain` takes the limits alone (for tests, or a kernel whose namespaces misbehave).
"""

from __future__ import annotations

import contextlib
import ctypes
import functools
import importlib.util
import json
import os
import signal
import site
import stat
import subprocess
import sys
import sysconfig
import tempfile
import time
from pathlib import Path

from quizapp import paths
from quizapp.runner import child_library
from quizapp.runner.folder_child import remove_tree

FORCE_ENV = "QUIZAPP_CODE_CONFINE"
"""Set to "limits" to run solutions without namespaces even where they are allowed (Landlock still
applies where the kernel has it), or "plain" for the limits alone (as on a kernel without either)."""
TEST_WITHOUT_ENV = "QUIZAPP_CODE_TEST_WITHOUT"
"""For the attack suites only: a comma-separated list of LAYERS to switch off, to show that each other
layer holds alone. The sentence on what confines the code says so whenever it is set."""
LAYERS = ("seccomp", "landlock", "netns", "ipcns", "keyring", "nobody")
FILE_LIMIT_BYTES = 16 << 20
"""Largest file a solution may write (RLIMIT_FSIZE): only its private temporary folder is writable."""

CONFINED_NOTE = (
    "Solutions run confined: each in its own user, mount, PID, network and IPC namespaces, as you (as "
    "nobody where the app runs as root) without privileges, in a read-only root holding only the system's "
    "libraries, Python and NumPy (your home, the app's data and its code are not there; the packages "
    "installed in Python's own folder or under /usr are readable and importable, the app's excepted); a "
    "private temporary folder (64 MB, 4096 files); no network; a new, empty keyring; a seccomp allowlist "
    "(no new process, exec, socket, keyring, IPC, signal to another process, or change of a file's mode, "
    "owner or times); the memory, CPU-time, file-size and 64-process limits."
)
LANDLOCK_NOTE = (
    "Solutions are NOT fully sandboxed here ({why}): no namespaces, but Landlock lets them read only the "
    "system's libraries, Python's standard library without its package folders, and NumPy, and write only "
    "a private folder (your home, the app's data and its code are out of reach); the same seccomp "
    "allowlist and limits apply (threads: what you run now plus 256, none where the app runs as root). "
    "They run as you (as root, if the app runs as root) on the machine's network and process list, which "
    "seccomp and Landlock keep them from using."
)
LIMITS_NOTE = (
    "Solutions are NOT sandboxed here ({why}): they run under limits only (memory, CPU time, file size; "
    "on Linux what you run now plus 256 threads, none as root; where seccomp exists, its allowlist: no new "
    "process, exec, socket, keyring, IPC, signal to another process or change of a file's mode, owner or "
    "times), but they can read and write your files as you can. Run only code you wrote or read."
)


def forced_limits() -> str:
    """ "limits" (no namespaces; Landlock where the kernel has it), "plain" (limits alone) or ""."""
    value = os.environ.get(FORCE_ENV, "").strip().lower()
    return value if value in ("limits", "plain") else ""


def switched_off() -> list[str]:
    """The LAYERS a test switched off (TEST_WITHOUT_ENV); [] in every real run."""
    names = os.environ.get(TEST_WITHOUT_ENV, "").replace(" ", "").split(",")
    return [name for name in LAYERS if name in names]


def _hidden_roots() -> list[str]:
    """The app's own code: each package folder, and the checkout holding it (with its git store)."""
    found: list[str] = []
    folders = [package_folder(name) for name in ("quizapp", "engine")]
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


def package_folder(name: str) -> Path:
    """Where an installed package lives, found without importing it (the engine would load NumPy)."""
    spec = importlib.util.find_spec(name)
    return Path(spec.origin if spec is not None and spec.origin else "").parent


def package_folders() -> list[str]:
    """Every folder where this Python, or the one a virtual environment is made from, or the system's,
    installs packages (site-packages, dist-packages): the app may be installed in any of them, and a run is
    granted the standard library without them (NumPy's own folders are granted on their own)."""
    version = f"python{sys.version_info.major}.{sys.version_info.minor}"
    found = {sysconfig.get_paths()[key] for key in ("purelib", "platlib")}
    base = {"base": sys.base_prefix, "platbase": sys.base_exec_prefix}
    found |= {sysconfig.get_paths(vars=base)[key] for key in ("purelib", "platlib")}
    with contextlib.suppress(AttributeError):  # (site's functions exist unless Python runs with -S)
        found |= set(site.getsitepackages()) | {site.getusersitepackages()}
    for prefix in {"/usr", "/usr/local", sys.base_prefix, sys.prefix}:
        for lib in ("lib", "lib64"):
            found |= {f"{prefix}/{lib}/{version}/{name}" for name in ("site-packages", "dist-packages")}
            found.add(f"{prefix}/{lib}/python3/dist-packages")
    return sorted(p for p in found if os.path.isdir(p))


def child_conf() -> str:
    """What the child is told, as JSON: NumPy's folder, the folders to hide (see confine_child) and the
    package folders (package_folders)."""
    hide = ["/home", "/root", "/run", "/sys", "/var/tmp", "/dev/shm", "/mnt", "/media", str(Path.home())]
    with contextlib.suppress(Exception):  # a bad QUIZAPP_HOME is the app's to report, not the runner's
        hide += [str(paths.data_dir()), str(paths.config_path().parent), str(paths.cache_dir())]
    hide += _hidden_roots()
    conf = {"numpy": str(package_folder("numpy")), "hide": hide, "force_limits": forced_limits()}
    conf["without"] = switched_off()
    conf["packages"] = package_folders()
    return json.dumps(conf)


FOLDER_PREFIX = "quizapp-code-"
"""A run's folder: FOLDER_PREFIX, the app's pid and start time, then mkdtemp's random letters."""
LEGACY_STALE_S = 3600.0
"""A folder of the older name (no pid in it) is taken for left behind after this long."""


def _started(pid: int) -> str:
    """A process's start time in clock ticks since boot (/proc/PID/stat), "0" where there is no /proc."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return "0"
    return text[text.rfind(")") + 2 :].split()[19]


def new_folder() -> Path:
    """A new private folder for one run, named after this process, so a later start can tell which
    folders a process that is gone left behind (stale_folders)."""
    prefix = f"{FOLDER_PREFIX}{os.getpid()}-{_started(os.getpid())}-"
    return Path(tempfile.mkdtemp(prefix=prefix))


def stale_folders(where: Path | None = None, now: float | None = None) -> list[Path]:
    """Run folders in the temporary folder that no running app owns: made by this user, real folders (a
    link is never followed), and named after a process that has ended (or a pid now reused), or of the
    older name and older than LEGACY_STALE_S."""
    where = where or Path(tempfile.gettempdir())
    now = time.time() if now is None else now
    found = []
    try:
        names = [n for n in os.listdir(where) if n.startswith(FOLDER_PREFIX)]
    except OSError:
        return []
    for name in names:
        try:
            info = os.lstat(where / name)
        except OSError:
            continue
        if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.geteuid():
            continue
        parts = name.removeprefix(FOLDER_PREFIX).split("-")
        if len(parts) >= 3 and parts[0].isdigit() and parts[1].isdigit():
            if _started(int(parts[0])) != parts[1]:
                found.append(where / name)
        elif now - info.st_mtime > LEGACY_STALE_S:
            found.append(where / name)
    return found


def remove_folder(folder: Path) -> None:
    """Removes a run's folder and all in it, never following a link, first giving back to this user any
    folder inside that the run made unreadable or unwritable; without recursion, however deep the run
    nested its folders (folder_child.remove_tree). Never raises."""
    if not os.path.isdir(folder) or os.path.islink(folder):
        return
    try:
        parent = os.open(os.path.dirname(folder) or ".", os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    except OSError:
        return
    try:
        remove_tree(parent, os.path.basename(folder))
    finally:
        os.close(parent)


def clean_stale_folders() -> int:
    """Removes the run folders an earlier app left behind (killed, its terminal closed); returns how many."""
    stale = stale_folders()
    for folder in stale:
        with contextlib.suppress(Exception):  # (one that resists must not stop the others)
            remove_folder(folder)
    return len(stale)


@functools.cache
def probe() -> tuple[bool, str]:
    """Whether a solution would run confined here, and if not why: a tiny child tries (cached)."""
    source = child_library.text(child_library.CONFINEMENT)
    source += (
        "\nimport json\nconf = json.loads(sys.argv[1])\nc, why = enter(conf)\n"
        "ll = not c and conf['force_limits'] != 'plain' and landlock_abi() >= 1\n"
        "os.write(2, (('confined' if c else ('landlock ' if ll else 'limits ') + why) + '\\n').encode())\n"
        "os._exit(0)\n"
    )
    conf = json.dumps({"expose": [], "hide": [], "force_limits": forced_limits(), "without": switched_off()})
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
    off = switched_off()
    if off:
        return _note(confined, why) + f" TEST SETTING: {', '.join(off)} switched off ({TEST_WITHOUT_ENV})."
    return _note(confined, why)


def _note(confined: bool, why: str) -> str:
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
