"""Provides the second step of the confinement, as plain functions on the standard library and ctypes
only: `lock_down(...)`, in the process that runs the learner's code (forked per job), before any of that
code exists there: limits (file size, processes; memory and CPU time come with the job), no new
privileges, every capability dropped, on the path without namespaces Landlock (read the system's
libraries, Python and NumPy; write its own folder: nothing else), from Landlock ABI 6 on both paths with
namespaces or Landlock its scoping (no signal, no abstract unix socket outside the process), and last the
seccomp allowlist of quizapp.runner.seccomp (whose text comes before this module's in the child): the
calls NumPy code needs, signals to this process only, nothing else.

The first step, `enter`, is quizapp.runner.confine_child's. The child program is the confinement's text
(quizapp.runner.child_library: this module's last), run with `python -I -S`, where nothing but the
standard library is importable: there the import of confine_child's names below is dropped, as its text,
run before this one's, has defined them.
"""

# Only the standard library (and confine_child's names, defined by its text before this one's in the child).
import contextlib
import ctypes
import os
import resource
import signal
import struct
from collections.abc import Callable

from quizapp.runner.confine_child import _LIBC, _LINUX, _PR_SET_PDEATHSIG, _WITHOUT, _check, _prctl, _Refused

_PR_CAPBSET_DROP = 24
_PR_SET_SECCOMP, _PR_SET_NO_NEW_PRIVS, _SECCOMP_MODE_FILTER = 22, 38, 2
_LINUX_CAPABILITY_VERSION_3 = 0x20080522
_LANDLOCK_CREATE, _LANDLOCK_ADD_RULE, _LANDLOCK_RESTRICT = 444, 445, 446
_LANDLOCK_VERSION, _LANDLOCK_PATH_BENEATH = 1, 1
_FS_EXECUTE, _FS_WRITE_FILE, _FS_READ_FILE, _FS_READ_DIR = 1 << 0, 1 << 1, 1 << 2, 1 << 3
_FS_BY_ABI = {1: (1 << 13) - 1, 2: (1 << 14) - 1, 3: (1 << 15) - 1, 5: (1 << 16) - 1}
"""Every file-system right Landlock knows at each ABI version: all are handled, so all are refused
unless a rule grants them."""
_SCOPE_ABI, _SCOPE_ABSTRACT_UNIX_SOCKET, _SCOPE_SIGNAL = 6, 1 << 0, 1 << 1
"""From ABI 6, a Landlock domain can be scoped: no signal to a process outside it, no connection to an
abstract unix socket made outside it."""


def grants(roots: list[str], hidden: list[str]) -> list[str]:
    """`roots` with every `hidden` folder beneath one of them cut out: a root that holds one is replaced
    by its entries, each treated the same way, but not the hidden one (Landlock only grants: nothing
    beneath a grant can be taken back). A link among the entries is left out: what it leads to is reached
    through that place's own grant, if it has one."""
    cut = {os.path.realpath(h).rstrip("/") for h in hidden if h}
    found: list[str] = []

    def add(path: str, depth: int) -> None:
        if path in cut:
            return
        if not any(h.startswith(path.rstrip("/") + "/") for h in cut):
            found.append(path)
            return
        try:
            names = sorted(os.listdir(path)) if depth < 32 else []
        except OSError:
            return
        for name in names:
            entry = os.path.join(path, name)
            if not os.path.islink(entry):
                add(entry, depth + 1)

    for root in dict.fromkeys(os.path.realpath(r) for r in roots):
        add(root, 0)
    return found


def landlock_abi() -> int:
    """Landlock's ABI version on this kernel (0: none). Asking creates nothing."""
    if not _LINUX:
        return 0
    version = _LIBC.syscall(ctypes.c_long(_LANDLOCK_CREATE), None, ctypes.c_size_t(0), ctypes.c_uint32(1))
    return max(int(version), 0)


def _landlock(readable: list[str] | None, writable: list[str]) -> None:
    """Only reading (and mapping) beneath `readable`, and anything beneath `writable`: the rest of the
    file system is out of reach, whoever owns it (Landlock, Linux 5.13+, no privilege needed); from ABI
    6 also no signal and no abstract unix socket outside the domain. `readable` None: the scoping alone
    (the confined path, whose mount namespace already decides which files there are)."""
    abi = landlock_abi()
    if abi < 1:
        raise _Refused("Landlock is not available")
    handled = _FS_BY_ABI[max(v for v in _FS_BY_ABI if v <= abi)] if readable is not None else 0
    scoped = _SCOPE_ABSTRACT_UNIX_SOCKET | _SCOPE_SIGNAL if abi >= _SCOPE_ABI else 0
    if not handled and not scoped:
        return
    attr = struct.pack("QQQ", handled, 0, scoped) if scoped else struct.pack("Q", handled)
    ruleset = int(
        _LIBC.syscall(ctypes.c_long(_LANDLOCK_CREATE), attr, ctypes.c_size_t(len(attr)), ctypes.c_uint32(0))
    )
    _check(0 if ruleset >= 0 else -1, "landlock_create_ruleset")
    read = _FS_EXECUTE | _FS_READ_FILE | _FS_READ_DIR
    try:
        for paths, rights in ((readable or [], read), (writable if handled else [], handled)):
            for path in paths:
                try:
                    fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
                except OSError:
                    continue
                allowed = rights & handled
                if not os.path.isdir(path):  # a file (/dev/null): only the rights a file can have
                    allowed &= _FS_EXECUTE | _FS_WRITE_FILE | _FS_READ_FILE | (1 << 14) | (1 << 15)
                rule = struct.pack("=Qi", allowed, fd)  # (packed: allowed_access, parent_fd)
                result = _LIBC.syscall(
                    ctypes.c_long(_LANDLOCK_ADD_RULE), ctypes.c_int(ruleset),
                    ctypes.c_int(_LANDLOCK_PATH_BENEATH), rule, ctypes.c_uint32(0),
                )  # fmt: skip
                os.close(fd)
                _check(int(result), f"landlock_add_rule {path}")
        done = _LIBC.syscall(ctypes.c_long(_LANDLOCK_RESTRICT), ctypes.c_int(ruleset), ctypes.c_uint32(0))
        _check(int(done), "landlock_restrict_self")
    finally:
        os.close(ruleset)


THREAD_MARGIN = 256
"""On the paths without namespaces, how many processes and threads the user may start while a run runs
(RLIMIT_NPROC: the run's threads among them)."""


def _tasks_of(uid: int) -> int:
    """How many tasks (processes and their threads) the real user `uid` runs, from /proc."""
    count = 0
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/status", encoding="ascii", errors="replace") as status:
                fields = dict(line.split(":", 1) for line in status if ":" in line)
        except OSError:
            continue
        with contextlib.suppress(KeyError, ValueError, IndexError):
            if int(fields["Uid"].split()[0]) == uid:
                count += int(fields["Threads"])
    return count


def lock_down(
    file_bytes: int,
    confined: bool,
    seccomp: Callable[[int], bytes | None],
    readable: list[str] | None = None,
    writable: list[str] | None = None,
) -> list[str]:
    """Limits and filters for the process that will run the learner's code (the job's memory and CPU
    limits come with the job: lowering a limit needs no privilege), the seccomp allowlist last
    (`seccomp(pid)`: quizapp.runner.seccomp.filter_program); raises when one that this platform has cannot
    be applied; returns those this platform lacks (macOS, Windows, another architecture)."""
    missing: list[str] = []
    resource.setrlimit(resource.RLIMIT_FSIZE, (file_bytes, file_bytes))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    if confined:
        # In its own user namespace the count is the namespace's own processes (Linux 5.14+), not all of
        # the user's: a small cap does not break the learner's threads, and stops a fork bomb even where
        # seccomp is missing. Outside one it would count every process the user runs, so it is not set.
        resource.setrlimit(resource.RLIMIT_NPROC, (64, 64))
    elif _LINUX and os.getuid() != 0:
        # Without a user namespace the count is every process and thread of the user: the cap is what
        # the user runs now and THREAD_MARGIN more (a run that starts threads in a loop stops there). The
        # kernel exempts root from it: an app run as root has no such cap on these paths.
        cap = _tasks_of(os.getuid()) + THREAD_MARGIN
        hard = resource.getrlimit(resource.RLIMIT_NPROC)[1]
        cap = cap if hard == resource.RLIM_INFINITY else min(cap, hard)
        resource.setrlimit(resource.RLIMIT_NPROC, (cap, cap))
    if not _LINUX:
        return ["seccomp", "no-new-privs", "capabilities"]
    for cap in range(64):  # the bounding set first (needs CAP_SETPCAP, which the next step drops)
        if _prctl(_PR_CAPBSET_DROP, cap) != 0:
            break
    header = struct.pack("Ii", _LINUX_CAPABILITY_VERSION_3, 0)
    data = bytes(24)  # effective, permitted, inheritable: none, in both 32-bit halves
    if _LIBC.capset(header, data) != 0:
        missing.append("capabilities")
    _prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)  # after capset, which would clear it
    if _prctl(_PR_SET_NO_NEW_PRIVS, 1) != 0:
        missing.append("no-new-privs")
    if "landlock" in _WITHOUT:
        pass  # (a test's setting)
    elif readable is not None and writable is not None:  # the limits-only path, where Landlock exists
        _landlock(readable, writable)
    elif confined and landlock_abi() >= _SCOPE_ABI:  # the namespaces, and Landlock's scoping
        _landlock(None, [])
    if "seccomp" in _WITHOUT:
        return missing
    program = seccomp(os.getpid())
    if program is None:
        missing.append("seccomp")
        return missing
    filters = ctypes.create_string_buffer(program, len(program))
    fprog = ctypes.create_string_buffer(struct.pack("HxxxxxxP", len(program) // 8, ctypes.addressof(filters)))
    if _LIBC.prctl(_PR_SET_SECCOMP, _SECCOMP_MODE_FILTER, ctypes.addressof(fprog), 0, 0):
        missing.append("seccomp")
    if missing:  # on Linux each of these is expected: never run the code with less than was meant
        raise _Refused(f"could not apply {', '.join(missing)}: {os.strerror(ctypes.get_errno())}")
    return missing
