"""Provides the seccomp ALLOWLIST of the process that runs a learner's code, on every Linux path (confined,
Landlock, limits only): the system calls NumPy code needs, each group with the reason it is there; every
other call fails with EPERM (clone3 with ENOSYS, so the C library falls back to clone, which is checked).

Like confine_child, this is plain standard library: the child program is this module's text, then
the confinement's (quizapp.runner.child_library), then standby_child's, run with `python -I -S`.
`filter_program(os.getpid())` is the BPF program lock_down (quizapp.runner.lockdown_child) installs last,
after the limits, the capabilities and Landlock.

What the list leaves out, on purpose (a test calls each and expects EPERM):

- new processes and programs: fork, vfork, clone without CLONE_THREAD, execve, execveat;
- other processes: kill and tgkill anywhere but this process, tkill, rt_sigqueueinfo, rt_tgsigqueueinfo,
  the pidfd calls, ptrace, process_vm_readv/writev, process_madvise, kcmp, move_pages, migrate_pages,
  prlimit64 on another pid, setpriority and the scheduler's setters, fcntl F_SETOWN/F_SETSIG (SIGIO sent
  to another process), ioctl TIOCSTI (typing into a terminal), capget, and every call that takes a pid
  and answers whether it exists (getpgid, getsid, sched_getaffinity on another pid: a scan of processes);
- what outlives the run or is shared with others: the keyring (add_key, request_key, keyctl), SysV IPC
  (shmget, shmat, semget, msgget, ...), POSIX message queues (mq_open, ...), memfd_create, mknod (a FIFO),
  link and symlink (a link planted for the app to follow);
- a file's mode, owner or times: chmod, fchmod, fchmodat, fchmodat2, chown, fchown, lchown, fchownat, utime,
  utimes, utimensat, futimesat. Landlock does not govern them (nor does a read-only descriptor: fchmod
  needs only ownership), so on the Landlock and limits-only paths a run could make any file the app's user
  owns setuid and world-writable, or reset its times; neither NumPy nor the runner needs them (a run that
  wants a private mode passes it to mkdir or open);
- the kernel's larger surfaces: sockets, io_uring, bpf, perf_event_open, userfaultfd, seccomp, Landlock;
- new namespaces and mounts: unshare, setns, clone with a CLONE_NEW* flag, mount, umount2, pivot_root,
  chroot; and setsid, setpgid (the run stays in the process group the app kills).
"""

# Only the standard library: this text runs in a child where nothing else is importable.
import os
import struct

ALLOWED = {
    "memory": (
        "NumPy's arrays and the interpreter's heap: map, grow, protect and give back memory (the "
        "address-space limit bounds it all)",
        ("brk", "mmap", "munmap", "mremap", "mprotect", "madvise", "msync", "mincore", "membarrier"),
    ),
    "threads": (
        "Python's threading and a BLAS's threads (clone itself is checked below): wait and wake, a new "
        "thread's set-up and its end",
        ("futex", "futex_waitv", "set_robust_list", "rseq", "set_tid_address", "gettid", "sched_yield",
         "exit", "exit_group", "restart_syscall", "arch_prctl"),
    ),
    "signals": (
        "the process's own signal handling: Python installs handlers, masks signals in threads, time.sleep "
        "wakes for them (sending one is checked below)",
        ("rt_sigaction", "rt_sigprocmask", "rt_sigreturn", "rt_sigpending", "rt_sigsuspend",
         "rt_sigtimedwait", "sigaltstack", "pause"),
    ),
    "time": (
        "clocks, sleeps and the process's own timers (signal.alarm, setitimer); a timer signals this "
        "process only",
        ("clock_gettime", "clock_getres", "clock_nanosleep", "nanosleep", "gettimeofday", "time", "alarm",
         "setitimer", "getitimer", "timer_create", "timer_settime", "timer_gettime", "timer_getoverrun",
         "timer_delete"),
    ),
    "identity": (
        "questions about this process and the machine that change nothing: who it runs as, its own usage and "
        "limits (os.cpu_count, resource.getrusage), random bytes",
        ("getpid", "getppid", "getuid", "geteuid", "getgid", "getegid", "getgroups", "getresuid", "getresgid",
         "getpgrp", "uname", "sysinfo", "getcpu", "getrandom", "umask", "getrusage", "times", "getrlimit",
         "setrlimit"),
    ),
    "descriptors": (
        "reading and writing what is open (the job's pipe, stdout captured, files), duplicating and closing",
        ("read", "write", "pread64", "pwrite64", "readv", "writev", "preadv", "pwritev", "preadv2",
         "pwritev2", "lseek", "close", "close_range", "dup", "dup2", "dup3", "pipe", "pipe2", "poll", "ppoll",
         "select", "pselect6", "epoll_create", "epoll_create1", "epoll_ctl", "epoll_wait", "epoll_pwait",
         "epoll_pwait2"),
    ),
    "files": (
        "importing the standard library and NumPy, and files in the run's own folder (which files are in "
        "reach is the mount namespace's and Landlock's part, not this filter's)",
        ("open", "openat", "creat", "stat", "fstat", "lstat", "newfstatat", "statx", "access", "faccessat",
         "faccessat2", "readlink", "readlinkat", "getdents", "getdents64", "getcwd", "chdir", "fchdir",
         "mkdir", "mkdirat", "rmdir", "unlink", "unlinkat", "rename", "renameat", "renameat2", "truncate",
         "ftruncate", "fallocate", "fsync", "fdatasync", "flock", "statfs", "fstatfs", "sendfile",
         "copy_file_range", "fadvise64", "getxattr", "lgetxattr", "fgetxattr", "listxattr", "llistxattr",
         "flistxattr"),
    ),
}  # fmt: skip
"""Allowed whatever their arguments: none of these reaches another process, and none outlives the run."""

CHECKED = {
    "clone": "a new thread only: CLONE_THREAD set and no CLONE_NEW* flag (no process, no namespace)",
    "kill": "this process only (os.kill(os.getpid(), ...)): no signal, not even 0, to any other",
    "tgkill": "this process only (signal.raise_signal, a thread's signal): the same",
    "prlimit64": "this process only (pid 0 or its own): resource.getrlimit and setrlimit",
    "getpgid": "this process only: no probe of whether another pid exists",
    "getsid": "this process only: the same",
    "sched_getaffinity": "this process only (NumPy and os.sched_getaffinity count the CPUs): the same",
    "ioctl": "a descriptor's questions only (isatty, a terminal's size, bytes waiting, close-on-exec, "
    "non-blocking): never TIOCSTI, which types into a terminal",
    "fcntl": "descriptor flags, duplicates and locks: never F_SETOWN, F_SETSIG (SIGIO to another process), "
    "a lease or F_NOTIFY",
    "prctl": "a thread's name and a mapping's name only",
}
"""Allowed for some arguments only (the low 32 bits of each: the kernel reads no more of these)."""

NOT_IMPLEMENTED = ("clone3",)
"""Answered ENOSYS: clone3's flags are in memory the filter cannot read, and ENOSYS makes the C library
create a thread with clone, whose flags it can."""

_NUMBERS = {
    "x86_64": (0xC000003E, {
    "brk": 12, "mmap": 9, "munmap": 11, "mremap": 25, "mprotect": 10, "madvise": 28, "msync": 26,
    "mincore": 27, "membarrier": 324, "futex": 202, "futex_waitv": 449, "set_robust_list": 273,
    "rseq": 334, "set_tid_address": 218, "gettid": 186, "sched_yield": 24, "exit": 60, "exit_group": 231,
    "restart_syscall": 219, "arch_prctl": 158, "rt_sigaction": 13, "rt_sigprocmask": 14,
    "rt_sigreturn": 15, "rt_sigpending": 127, "rt_sigsuspend": 130, "rt_sigtimedwait": 128,
    "sigaltstack": 131, "pause": 34, "alarm": 37, "setitimer": 38, "getitimer": 36, "timer_create": 222,
    "timer_settime": 223, "timer_gettime": 224, "timer_getoverrun": 225, "timer_delete": 226,
    "clock_gettime": 228, "clock_getres": 229, "clock_nanosleep": 230, "nanosleep": 35, "gettimeofday": 96,
    "time": 201, "getpid": 39, "getppid": 110, "getuid": 102, "geteuid": 107, "getgid": 104,
    "getegid": 108, "getgroups": 115, "getresuid": 118, "getresgid": 120, "uname": 63, "sysinfo": 99,
    "getcpu": 309, "getrandom": 318, "umask": 95, "getrusage": 98, "times": 100, "getrlimit": 97,
    "setrlimit": 160, "read": 0, "write": 1, "pread64": 17, "pwrite64": 18, "readv": 19, "writev": 20,
    "preadv": 295, "pwritev": 296, "preadv2": 327, "pwritev2": 328, "lseek": 8, "close": 3,
    "close_range": 436, "dup": 32, "dup2": 33, "dup3": 292, "pipe": 22, "pipe2": 293, "open": 2,
    "openat": 257, "creat": 85, "stat": 4, "fstat": 5, "lstat": 6, "newfstatat": 262, "statx": 332,
    "access": 21, "faccessat": 269, "faccessat2": 439, "readlink": 89, "readlinkat": 267, "getdents": 78,
    "getdents64": 217, "getcwd": 79, "chdir": 80, "fchdir": 81, "mkdir": 83, "mkdirat": 258, "rmdir": 84,
    "unlink": 87, "unlinkat": 263, "rename": 82, "renameat": 264, "renameat2": 316, "truncate": 76,
    "ftruncate": 77, "fallocate": 285, "fsync": 74, "fdatasync": 75, "flock": 73, "statfs": 137,
    "fstatfs": 138, "chmod": 90, "fchmod": 91, "fchmodat": 268, "utime": 132, "utimes": 235,
    "utimensat": 280, "futimesat": 261, "sendfile": 40, "copy_file_range": 326, "fadvise64": 221,
    "getxattr": 191, "lgetxattr": 192, "fgetxattr": 193, "listxattr": 194, "llistxattr": 195,
    "flistxattr": 196, "poll": 7, "ppoll": 271, "select": 23, "pselect6": 270, "epoll_create": 213,
    "epoll_create1": 291, "epoll_ctl": 233, "epoll_wait": 232, "epoll_pwait": 281, "epoll_pwait2": 441,
    "clone": 56, "clone3": 435, "kill": 62, "tgkill": 234, "prlimit64": 302, "getpgid": 121, "getsid": 124,
    "getpgrp": 111, "sched_getaffinity": 204, "ioctl": 16, "fcntl": 72, "prctl": 157, "tkill": 200,
    "rt_sigqueueinfo": 129, "rt_tgsigqueueinfo": 297, "pidfd_open": 434, "pidfd_send_signal": 424,
    "pidfd_getfd": 438, "add_key": 248, "request_key": 249, "keyctl": 250, "shmget": 29, "shmat": 30,
    "shmdt": 67, "shmctl": 31, "semget": 64, "semop": 65, "semtimedop": 220, "semctl": 66, "msgget": 68,
    "msgsnd": 69, "msgrcv": 70, "msgctl": 71, "mq_open": 240, "mq_unlink": 241, "mq_timedsend": 242,
    "mq_timedreceive": 243, "mq_notify": 244, "mq_getsetattr": 245, "ptrace": 101, "process_vm_readv": 310,
    "process_vm_writev": 311, "process_madvise": 440, "kcmp": 312, "unshare": 272, "setns": 308,
    "mount": 165, "umount2": 166, "pivot_root": 155, "chroot": 161, "fork": 57, "vfork": 58, "execve": 59,
    "execveat": 322, "socket": 41, "socketpair": 53, "connect": 42, "bind": 49, "setsid": 112,
    "setpgid": 109, "setpriority": 141, "sched_setaffinity": 203, "sched_setscheduler": 144,
    "sched_setattr": 314, "mknod": 133, "mknodat": 259, "link": 86, "linkat": 265, "symlink": 88,
    "symlinkat": 266, "io_uring_setup": 425, "io_uring_enter": 426, "io_uring_register": 427, "bpf": 321,
    "perf_event_open": 298, "userfaultfd": 323, "memfd_create": 319, "seccomp": 317, "move_pages": 279,
    "migrate_pages": 256, "capget": 125, "landlock_create_ruleset": 444, "landlock_add_rule": 445,
    "landlock_restrict_self": 446,
    "fchmodat2": 452, "chown": 92, "fchown": 93, "lchown": 94, "fchownat": 260,
    }),
    "aarch64": (0xC00000B7, {
    "brk": 214, "mmap": 222, "munmap": 215, "mremap": 216, "mprotect": 226, "madvise": 233, "msync": 227,
    "mincore": 232, "membarrier": 283, "futex": 98, "futex_waitv": 449, "set_robust_list": 99, "rseq": 293,
    "set_tid_address": 96, "gettid": 178, "sched_yield": 124, "exit": 93, "exit_group": 94,
    "restart_syscall": 128, "rt_sigaction": 134, "rt_sigprocmask": 135, "rt_sigreturn": 139,
    "rt_sigpending": 136, "rt_sigsuspend": 133, "rt_sigtimedwait": 137, "sigaltstack": 132,
    "setitimer": 103, "getitimer": 102, "timer_create": 107, "timer_settime": 110, "timer_gettime": 108,
    "timer_getoverrun": 109, "timer_delete": 111, "clock_gettime": 113, "clock_getres": 114,
    "clock_nanosleep": 115, "nanosleep": 101, "gettimeofday": 169, "getpid": 172, "getppid": 173,
    "getuid": 174, "geteuid": 175, "getgid": 176, "getegid": 177, "getgroups": 158, "getresuid": 148,
    "getresgid": 150, "uname": 160, "sysinfo": 179, "getcpu": 168, "getrandom": 278, "umask": 166,
    "getrusage": 165, "times": 153, "getrlimit": 163, "setrlimit": 164, "read": 63, "write": 64,
    "pread64": 67, "pwrite64": 68, "readv": 65, "writev": 66, "preadv": 69, "pwritev": 70, "preadv2": 286,
    "pwritev2": 287, "lseek": 62, "close": 57, "close_range": 436, "dup": 23, "dup3": 24, "pipe2": 59,
    "openat": 56, "fstat": 80, "newfstatat": 79, "statx": 291, "faccessat": 48, "faccessat2": 439,
    "readlinkat": 78, "getdents64": 61, "getcwd": 17, "chdir": 49, "fchdir": 50, "mkdirat": 34,
    "unlinkat": 35, "renameat": 38, "renameat2": 276, "truncate": 45, "ftruncate": 46, "fallocate": 47,
    "fsync": 82, "fdatasync": 83, "flock": 32, "statfs": 43, "fstatfs": 44, "fchmod": 52, "fchmodat": 53,
    "utimensat": 88, "sendfile": 71, "copy_file_range": 285, "fadvise64": 223, "getxattr": 8,
    "lgetxattr": 9, "fgetxattr": 10, "listxattr": 11, "llistxattr": 12, "flistxattr": 13, "ppoll": 73,
    "pselect6": 72, "epoll_create1": 20, "epoll_ctl": 21, "epoll_pwait": 22, "epoll_pwait2": 441,
    "clone": 220, "clone3": 435, "kill": 129, "tgkill": 131, "prlimit64": 261, "getpgid": 155,
    "getsid": 156, "sched_getaffinity": 123, "ioctl": 29, "fcntl": 25, "prctl": 167, "tkill": 130,
    "rt_sigqueueinfo": 138, "rt_tgsigqueueinfo": 240, "pidfd_open": 434, "pidfd_send_signal": 424,
    "pidfd_getfd": 438, "add_key": 217, "request_key": 218, "keyctl": 219, "shmget": 194, "shmat": 196,
    "shmdt": 197, "shmctl": 195, "semget": 190, "semop": 193, "semtimedop": 192, "semctl": 191,
    "msgget": 186, "msgsnd": 189, "msgrcv": 188, "msgctl": 187, "mq_open": 180, "mq_unlink": 181,
    "mq_timedsend": 182, "mq_timedreceive": 183, "mq_notify": 184, "mq_getsetattr": 185, "ptrace": 117,
    "process_vm_readv": 270, "process_vm_writev": 271, "process_madvise": 440, "kcmp": 272, "unshare": 97,
    "setns": 268, "mount": 40, "umount2": 39, "pivot_root": 41, "chroot": 51, "execve": 221,
    "execveat": 281, "socket": 198, "socketpair": 199, "connect": 203, "bind": 200, "setsid": 157,
    "setpgid": 154, "setpriority": 140, "sched_setaffinity": 122, "sched_setscheduler": 119,
    "sched_setattr": 274, "mknodat": 33, "linkat": 37, "symlinkat": 36, "io_uring_setup": 425,
    "io_uring_enter": 426, "io_uring_register": 427, "bpf": 280, "perf_event_open": 241,
    "userfaultfd": 282, "memfd_create": 279, "seccomp": 277, "move_pages": 239, "migrate_pages": 238,
    "capget": 90, "landlock_create_ruleset": 444, "landlock_add_rule": 445, "landlock_restrict_self": 446,
    "fchmodat2": 452, "fchownat": 54, "fchown": 55,
    }),
}  # fmt: skip
"""The audit architecture and system call numbers, from the kernel's unistd headers; a call a platform
lacks (aarch64 has no open, fork or stat) is simply not in its table."""

_CLONE_THREAD = 0x10000
_CLONE_NEW = 0x7E020080
"""CLONE_NEWNS, NEWCGROUP, NEWUTS, NEWIPC, NEWUSER, NEWPID, NEWNET and NEWTIME."""
_IOCTLS = (0x5401, 0x5413, 0x541B, 0x5421, 0x5450, 0x5451)
"""TCGETS (isatty), TIOCGWINSZ, FIONREAD, FIONBIO, FIONCLEX, FIOCLEX."""
_FCNTLS = (0, 1, 2, 3, 4, 5, 6, 7, 36, 37, 38, 1030, 1032)
"""F_DUPFD, F_GETFD, F_SETFD, F_GETFL, F_SETFL, F_GETLK, F_SETLK, F_SETLKW, the OFD locks,
F_DUPFD_CLOEXEC, F_GETPIPE_SZ."""
_PRCTLS = (15, 16, 0x53564D41)
"""PR_SET_NAME, PR_GET_NAME, PR_SET_VMA (a mapping's name)."""

_RET_ALLOW, _RET_ERRNO, _RET_KILL = 0x7FFF0000, 0x00050000, 0x80000000
_LD_ABS_W, _JEQ_K, _JGE_K, _JSET_K, _RET_K = 0x20, 0x15, 0x35, 0x45, 0x06
_EPERM, _ENOSYS = 1, 38
_X32 = 0x40000000
_NR, _ARCH = 0, 4


def _arg(index: int) -> int:
    """Offset of an argument's low 32 bits in struct seccomp_data (little-endian)."""
    return 16 + 8 * index


def numbers(machine: str) -> dict[str, int] | None:
    """The system call numbers of `machine` (os.uname().machine), or None where no filter exists."""
    spec = _NUMBERS.get(machine)
    return dict(spec[1]) if spec is not None else None


def filter_program(own_pid: int, machine: str = "") -> bytes | None:
    """The BPF program (sock_filter structs) for a process whose pid is `own_pid`; None on an architecture
    without a table (then lock_down reports seccomp as missing). Wrong architecture (or the x32 ABI under
    x86_64) kills the process; a call neither ALLOWED nor CHECKED gets EPERM."""
    spec = _NUMBERS.get(machine or os.uname().machine)
    if spec is None:
        return None
    arch, nr = spec
    prog: list[tuple[int, int, int, int]] = []

    def op(code: int, jt: int, jf: int, k: int) -> None:
        prog.append((code, jt, jf, k))

    def one_of(call: str, offset: int, values: tuple[int, ...]) -> None:
        """Allows `call` when the 32-bit word at `offset` is one of `values`; else EPERM."""
        if call not in nr:
            return
        op(_JEQ_K, 0, len(values) + 3, nr[call])
        op(_LD_ABS_W, 0, 0, offset)
        for i in range(len(values)):
            op(_JEQ_K, len(values) - i, 0, values[i])
        op(_RET_K, 0, 0, _RET_ERRNO | _EPERM)
        op(_RET_K, 0, 0, _RET_ALLOW)
        op(_LD_ABS_W, 0, 0, _NR)  # the call's number again, for the next test

    op(_LD_ABS_W, 0, 0, _ARCH)
    op(_JEQ_K, 1, 0, arch)
    op(_RET_K, 0, 0, _RET_KILL)
    op(_LD_ABS_W, 0, 0, _NR)
    op(_JGE_K, 0, 1, _X32)
    op(_RET_K, 0, 0, _RET_ERRNO | _EPERM)
    # Argument-free rules first: the kernel caches their verdict per call, so they cost nothing after.
    for _, names in ALLOWED.values():
        for name in names:
            if name in nr:
                op(_JEQ_K, 0, 1, nr[name])
                op(_RET_K, 0, 0, _RET_ALLOW)
    for name in NOT_IMPLEMENTED:
        op(_JEQ_K, 0, 1, nr[name])
        op(_RET_K, 0, 0, _RET_ERRNO | _ENOSYS)
    op(_JEQ_K, 0, 5, nr["clone"])
    op(_LD_ABS_W, 0, 0, _arg(0))  # clone's flags
    op(_JSET_K, 1, 0, _CLONE_NEW)
    op(_JSET_K, 1, 0, _CLONE_THREAD)
    op(_RET_K, 0, 0, _RET_ERRNO | _EPERM)
    op(_RET_K, 0, 0, _RET_ALLOW)
    op(_LD_ABS_W, 0, 0, _NR)
    pid = own_pid & 0xFFFFFFFF
    one_of("kill", _arg(0), (pid,))
    one_of("tgkill", _arg(0), (pid,))
    one_of("prlimit64", _arg(0), (0, pid))
    one_of("getpgid", _arg(0), (0, pid))
    one_of("getsid", _arg(0), (0, pid))
    one_of("sched_getaffinity", _arg(0), (0, pid))
    one_of("ioctl", _arg(1), _IOCTLS)
    one_of("fcntl", _arg(1), _FCNTLS)
    one_of("prctl", _arg(0), _PRCTLS)
    op(_RET_K, 0, 0, _RET_ERRNO | _EPERM)
    return b"".join(struct.pack("HBBI", *ins) for ins in prog)
