"""Provides the confinement a standby child applies to itself, as plain functions on the standard library
and ctypes only: the child program (quizapp.runner.standby_child) is quizapp.runner.seccomp's text, the
confinement's (quizapp.runner.child_library: folder_child, this module, lockdown_child), then its own, run
with `python -I -S`, where nothing but the standard library is importable.

Two steps, both taken before any of the learner's code exists in the process:

- `enter(conf)`, once, in the child the app started: on Linux, new user, mount, PID, network and IPC
  namespaces (no SysV IPC object or POSIX queue of the machine's is reachable, and none made inside
  outlives the run); a new read-only root that holds only the system's libraries (/usr, /lib*, /bin, /sbin,
  /etc with /etc/passwd blank), Python's standard library and NumPy, with the app's own packages hidden
  wherever they lie beneath those (so $HOME, the data folder, the app's source, /home, /opt, /var, /run,
  /sys... are simply not there); /dev with null, zero, full, random and urandom only; a private writable
  /tmp; no network (the new namespace's loopback is down); a fresh /proc that shows only the processes
  of the new PID namespace. The process that called it
  stays outside and waits; the call returns in a new process, PID 1 of the namespace (when it ends, the
  kernel kills every process left in the namespace). Where namespaces are refused it returns in a new
  process all the same, and says why in its second value. Where the app runs as root, the confined
  process then becomes nobody (uid and gid 65534, no supplementary group): root in the box would be
  root to every file bound in. On every path it joins a new, empty session keyring.
- `lock_down(...)`, in the process that runs the learner's code (forked per job): limits, no new
  privileges, no capabilities, Landlock, and last the seccomp allowlist (quizapp.runner.lockdown_child,
  which takes the helpers below from this module).

The run's folder is held and removed by quizapp.runner.folder_child, whose text comes before this one's.
"""

# Only the standard library (and folder_child's names, defined by its text before this one's in the child).
import ctypes
import os
import select
import signal
import sys
import time
from typing import Any

from quizapp.runner.folder_child import _hold_folder, _remove_folder

_LINUX = sys.platform.startswith("linux")
_LIBC: Any = ctypes.CDLL(None, use_errno=True) if os.name == "posix" else None
if _LINUX:
    _LIBC.mount.argtypes = [*([ctypes.c_char_p] * 3), ctypes.c_ulong, ctypes.c_char_p]
    _LIBC.syscall.restype = ctypes.c_long
    _LIBC.prctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong]

_CLONE_NEWNS, _CLONE_NEWUSER, _CLONE_NEWPID, _CLONE_NEWNET = 0x20000, 0x10000000, 0x20000000, 0x40000000
_CLONE_NEWIPC = 0x08000000
_NAMESPACES = _CLONE_NEWUSER | _CLONE_NEWNS | _CLONE_NEWPID | _CLONE_NEWNET | _CLONE_NEWIPC
_NOBODY = 65534
"""The uid and gid a confined run takes when the app runs as root: no file of root's is its own."""
_KEYCTL = {"x86_64": 250, "aarch64": 219}
_WITHOUT: set[str] = set()
"""Layers a test switched off (quizapp.runner.confine.TEST_WITHOUT_ENV), to show each other one holds
alone; empty in every real run."""
_KEYCTL_JOIN_SESSION_KEYRING = 1
_MS_RDONLY, _MS_NOSUID, _MS_NODEV, _MS_NOEXEC = 1, 2, 4, 8
_MS_BIND, _MS_REC, _MS_PRIVATE, _MS_REMOUNT = 0x1000, 0x4000, 0x40000, 0x20
_SYS_MOUNT_SETATTR, _AT_RECURSIVE, _MOUNT_ATTR_RDONLY = 442, 0x8000, 1
_PR_SET_PDEATHSIG, _PR_SET_DUMPABLE = 1, 4


class _Refused(Exception):
    """The kernel (or the platform) refused a step: the run goes on with the limits alone."""


def _check(result: int, what: str) -> None:
    if result != 0:
        err = ctypes.get_errno()
        raise _Refused(f"{what}: {os.strerror(err)}")


def _prctl(option: int, arg: int = 0) -> int:
    return int(_LIBC.prctl(option, arg, 0, 0, 0))


def _mount(source: str | None, target: str, fstype: str | None, flags: int, data: str | None) -> None:
    enc = [s.encode() if s is not None else None for s in (source, target, fstype, data)]
    _check(_LIBC.mount(enc[0], enc[1], enc[2], flags, enc[3]), f"mount {target}")


_DEVICES = ("null", "zero", "full", "random", "urandom")
"""The only devices a confined run sees: /dev is an empty tmpfs with these bound in."""


_SYSTEM = ("/usr", "/lib", "/lib64", "/lib32", "/libx32", "/bin", "/sbin", "/etc")
"""What the system lends a new root: the C library and the dynamic loader's files (and /etc for its
cache); nothing else of the machine (no /home, /root, /opt, /srv, /var, /run, /sys, /mnt, /media)."""
_STAGE = "/tmp"
"""Where the new root is built (a tmpfs mounted over it in this mount namespace only), then entered."""


def _new_root(conf: dict[str, Any]) -> None:
    """Builds a root that holds only the system's libraries (_SYSTEM), Python's standard library and
    NumPy, each bound read-only at its own path; the app's own packages hidden wherever they lie beneath
    those; /dev with five harmless devices; an empty /proc (mounted by the next process); a private
    writable /tmp; then enters it (chroot; the learner's process has no capability to leave it)."""
    links = {p: os.readlink(p) for p in _SYSTEM if os.path.islink(p)}
    paths = [p for p in _SYSTEM if p not in links and os.path.isdir(p)]
    paths += [os.path.realpath(p) for p in conf["expose"] if os.path.isdir(p)]
    opened = {p: os.open(p, os.O_PATH | os.O_DIRECTORY) for p in sorted(set(paths))}
    devices = {d: os.open(f"/dev/{d}", os.O_PATH) for d in _DEVICES if os.path.exists(f"/dev/{d}")}
    blank = os.open("/dev/null", os.O_PATH)
    root = _STAGE
    _mount("tmpfs", root, "tmpfs", _MS_NOSUID | _MS_NODEV, "size=1m,mode=755")
    # Python or NumPy installed under /tmp (a virtualenv in a clone there) would be covered by the private
    # /tmp mounted last: those are bound again on top of it, read-only, once it is there.
    under_tmp = {p: fd for p, fd in opened.items() if p.startswith("/tmp/")}
    for path, fd in opened.items():  # parents first (sorted): a folder inside another is bound over it
        os.makedirs(root + path, exist_ok=True)
        _mount(f"/proc/self/fd/{fd}", root + path, None, _MS_BIND | _MS_REC, None)
        if path not in under_tmp:
            os.close(fd)
    for path, target in links.items():  # /lib -> usr/lib on a merged /usr
        os.symlink(target, root + path)
    shown = list(opened)
    for folder in sorted({os.path.realpath(p) for p in conf["hide"]}):  # the app's code under /usr, say
        leads_to_shown = any(s == folder or s.startswith(folder.rstrip("/") + "/") for s in shown)
        if not leads_to_shown and os.path.isdir(root + folder):
            _mount("tmpfs", root + folder, "tmpfs", _MS_NOSUID | _MS_NODEV, "size=64k,mode=755")
    if os.path.isfile(root + "/etc/passwd"):
        _mount(f"/proc/self/fd/{blank}", root + "/etc/passwd", None, _MS_BIND, None)
    os.close(blank)
    for name in ("dev", "proc", "tmp"):
        os.makedirs(f"{root}/{name}", exist_ok=True)
    for name, fd in devices.items():
        with open(f"{root}/dev/{name}", "w"):
            pass
        _mount(f"/proc/self/fd/{fd}", f"{root}/dev/{name}", None, _MS_BIND, None)
        os.close(fd)

    class _Attr(ctypes.Structure):
        _fields_ = [(n, ctypes.c_uint64) for n in ("attr_set", "attr_clr", "propagation", "userns_fd")]

    attr = _Attr(_MOUNT_ATTR_RDONLY, 0, 0, 0)
    _check(
        _LIBC.syscall(
            ctypes.c_long(_SYS_MOUNT_SETATTR), ctypes.c_int(-100), root.encode(),
            ctypes.c_uint(_AT_RECURSIVE), ctypes.byref(attr), ctypes.c_size_t(ctypes.sizeof(attr)),
        ),
        "a read-only root (mount_setattr, Linux 5.12+)",
    )  # fmt: skip
    # Writable: its size and its count of files and folders are bounded (each costs kernel memory).
    _mount("tmpfs", root + "/tmp", "tmpfs", _MS_NOSUID | _MS_NODEV, "size=64m,nr_inodes=4096,mode=1777")
    tops = {"/tmp/" + path.split("/")[2] for path in under_tmp}  # the folders leading to them
    for path in under_tmp:
        os.makedirs(root + path, exist_ok=True)
    for top in sorted(tops):  # read-only too: nothing can be written beside what is bound (a .pth)
        _mount(root + top, root + top, None, _MS_BIND | _MS_REC, None)
        _mount(None, root + top, None, _MS_BIND | _MS_REMOUNT | _MS_RDONLY, None)
    for path, fd in under_tmp.items():
        _mount(f"/proc/self/fd/{fd}", root + path, None, _MS_BIND | _MS_REC, None)
        os.close(fd)
        _mount(None, root + path, None, _MS_BIND | _MS_REMOUNT | _MS_RDONLY, None)
    os.chroot(root)
    os.chdir("/tmp")


def enter(conf: dict[str, Any]) -> tuple[bool, str]:
    """Confines this process (see the module's text) and returns in a new one: (confined, why not)."""
    reason = ""
    confined = False
    _WITHOUT.update(conf.get("without", []))
    _hold_folder(conf.get("folder"))
    namespaces = _NAMESPACES & ~(_CLONE_NEWNET if "netns" in _WITHOUT else 0)
    namespaces &= ~(_CLONE_NEWIPC if "ipcns" in _WITHOUT else 0)
    if conf.get("force_limits"):
        reason = f"the limits-only path was asked for (QUIZAPP_CODE_CONFINE={conf['force_limits']})"
    elif not _LINUX:
        reason = f"{sys.platform} has no Linux namespaces"
    else:
        uid, gid = os.getuid(), os.getgid()
        try:
            if os.geteuid() == 0:
                _unshare_as_root(namespaces)
            else:
                _check(_LIBC.unshare(namespaces), "unshare")
                maps = (("setgroups", "deny"), ("uid_map", f"{uid} {uid} 1"), ("gid_map", f"{gid} {gid} 1"))
                for name, text in maps:
                    with open(f"/proc/self/{name}", "w") as fh:
                        fh.write(text)
            _mount(None, "/", None, _MS_REC | _MS_PRIVATE, None)
            _new_root(conf)
            confined = True
        except (_Refused, OSError) as exc:
            reason = f"the kernel refused namespaces ({exc})"
    global _lifeline
    _lifeline, alive = os.pipe()  # held open by the outside process: at its end, this pipe reads as ended
    child = os.fork()
    if child:
        os.close(_lifeline)
        _outside(child)
    os.close(alive)
    if _LINUX:
        _prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
    if confined:
        try:
            _mount("proc", "/proc", "proc", _MS_NOSUID | _MS_NODEV | _MS_NOEXEC, None)
        except _Refused:  # a /proc with masked parts (some containers) cannot be mounted anew: hide it
            _mount("tmpfs", "/proc", "tmpfs", _MS_NOSUID | _MS_NODEV, "size=4k,mode=555")
        if os.geteuid() == 0 and "nobody" not in _WITHOUT:  # root in the box is root to every file bound in
            os.setgroups([])
            os.setresgid(_NOBODY, _NOBODY, _NOBODY)
            os.setresuid(_NOBODY, _NOBODY, _NOBODY)
            _prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)  # (a change of uid clears it)
    if _LINUX and "keyring" not in _WITHOUT:
        _new_session_keyring()
        _prctl(_PR_SET_DUMPABLE, 0)  # the learner's process, without capabilities, cannot read this one
    signal.signal(signal.SIGINT, signal.SIG_DFL)  # PID 1 takes no signal it has no handler for
    return confined, reason


def _unshare_as_root(namespaces: int) -> None:
    """unshare() for an app run as root. Only a process left outside the new user namespace may map
    other ids than its own, so a helper forked first writes the maps: 0 (which builds the new root) and
    _NOBODY (which the run becomes once it is built, so /etc/shadow and every root-only file stay shut)."""
    go_r, go_w = os.pipe()
    done_r, done_w = os.pipe()
    helper = os.fork()
    if helper == 0:  # the helper: root, outside
        os.close(go_w)
        os.close(done_r)
        status = 1
        try:
            if os.read(go_r, 1) == b"1":
                for name in ("uid_map", "gid_map"):
                    with open(f"/proc/{os.getppid()}/{name}", "w") as fh:
                        fh.write(f"0 0 1\n{_NOBODY} {_NOBODY} 1\n")
                os.write(done_w, b"1")
                status = 0
        finally:
            os._exit(status)
    os.close(go_r)
    os.close(done_w)
    try:
        result = int(_LIBC.unshare(namespaces))
        err = ctypes.get_errno()
        os.write(go_w, b"1" if result == 0 else b"0")
        mapped = os.read(done_r, 1) == b"1"
    finally:
        os.close(go_w)
        os.close(done_r)
        os.waitpid(helper, 0)
    if result != 0:
        raise _Refused(f"unshare: {os.strerror(err)}")
    if not mapped:
        raise _Refused("the uid and gid maps for an unprivileged user could not be written")


def _new_session_keyring() -> bool:
    """Joins a new, empty session keyring: no key of the user's session is reachable, and none the run
    could add outlives it. Whether it could: where it cannot (a kernel without keys, a full key quota)
    the run goes on, as seccomp refuses the keyring calls anyway (this step is called after the fork into
    the namespace: a failure here could no longer fall back to another path)."""
    number = _KEYCTL.get(os.uname().machine)
    if number is None:
        return False
    return int(_LIBC.syscall(ctypes.c_long(number), ctypes.c_long(_KEYCTL_JOIN_SESSION_KEYRING), None)) >= 0


_lifeline = -1


def outside_gone() -> bool:
    """Whether the process the app started has ended (killed from outside): then no job is taken."""
    return bool(select.select([_lifeline], [], [], 0)[0]) if _lifeline >= 0 else False


def _outside(child: int) -> None:
    """The process the app started: waits for the confined one, ends it if the app ends, then exits as it
    did (its exit code, or the same signal), so the app reads how the run ended from this process."""
    null = os.open(os.devnull, os.O_RDWR)
    os.dup2(null, 0)
    os.dup2(null, 1)
    os.close(null)
    parent = os.getppid()
    # No thread here (after unshare(CLONE_NEWPID) this process may not start one): a child's end wakes
    # it at once; every half second it checks that the app is still there, and ends the run if not.
    wait = getattr(signal, "sigtimedwait", None)  # Linux; elsewhere a short poll
    if wait is not None:
        signal.pthread_sigmask(signal.SIG_BLOCK, [signal.SIGCHLD])
    while True:
        done, status = os.waitpid(child, os.WNOHANG)
        if done:
            break
        if os.getppid() != parent:  # the app ended, however it ended (a kill, a closed terminal)
            os.kill(child, signal.SIGKILL)
        if wait is not None:
            wait([signal.SIGCHLD], 0.5)
        else:
            time.sleep(0.01)
    _remove_folder()
    if os.WIFSIGNALED(status):
        if os.WTERMSIG(status) not in (signal.SIGKILL, signal.SIGSTOP):  # (theirs cannot be set)
            signal.signal(os.WTERMSIG(status), signal.SIG_DFL)
        os.kill(os.getpid(), os.WTERMSIG(status))
    os._exit(os.waitstatus_to_exitcode(status) if os.WIFEXITED(status) else 1)
