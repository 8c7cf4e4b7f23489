"""The seccomp allowlist (quizapp.runner.seccomp) alone and on every path: every call the issue's attacks
used (signals and limits aimed at another process, a signal-0 scan, the keyring, SysV IPC and POSIX
queues, ptrace, new namespaces, sockets, FIFOs and links) fails with EPERM, made as a raw system call so
no library check stands in for the filter; a bystander process of the same user stays untouched; and
NumPy, threads and files still work under it."""

from __future__ import annotations

import errno
import os
import subprocess
import sys
from pathlib import Path

import pytest
from runner_attacks import LINUX_SECCOMP, SIGTERM, alive, attack, bystander, path, printed_lines, raw_calls

from quizapp.runner import seccomp

__all__ = ["path"]  # the fixture, shared with the other attack suites

pytestmark = pytest.mark.skipif(not LINUX_SECCOMP, reason="seccomp exists on Linux x86_64 and aarch64 only")

SIGINFO = "ct.c_char_p(b'\\x0f\\0\\0\\0\\0\\0\\0\\0\\xff\\xff\\xff\\xff' + bytes(116))"  # SIGTERM, SI_QUEUE
LIMIT = "ct.c_char_p((64).to_bytes(8, 'little') * 2)"  # (soft, hard) = (64, 64)


def refused_calls(target: int) -> dict[str, str]:
    """Each attack as `name[:variant]: arguments`; `target` is a bystander's pid."""
    t = target
    return {
        "kill:probe": f"{t}, 0",
        "kill:term": f"{t}, {SIGTERM}",
        "kill:own-group": "0, 0",
        "kill:everyone": "-1, 0",
        "tgkill": f"{t}, {t}, {SIGTERM}",
        "tkill": f"{t}, {SIGTERM}",
        "rt_sigqueueinfo": f"{t}, {SIGTERM}, {SIGINFO}",
        "rt_tgsigqueueinfo": f"{t}, {t}, {SIGTERM}, {SIGINFO}",
        "pidfd_open": f"{t}, 0",
        "prlimit64:set": f"{t}, 7, {LIMIT}, None",
        "prlimit64:read": f"{t}, 7, None, buf",
        "getpgid": f"{t}",
        "getsid": f"{t}",
        "sched_getaffinity": f"{t}, 128, buf",
        "sched_setaffinity": f"{t}, 8, buf",
        "setpriority": f"0, {t}, 19",
        "ptrace": f"16, {t}, 0, 0",
        "process_vm_readv": f"{t}, buf, 1, buf, 1, 0",
        "kcmp": f"os.getpid(), {t}, 0, 0, 0",
        "move_pages": f"{t}, 0, None, None, None, 0",
        "migrate_pages": f"{t}, 8, buf, buf",
        "capget": "buf, buf",
        "fcntl:F_SETOWN": f"1, 8, {t}",
        "fcntl:F_SETSIG": "1, 10, 15",
        "fcntl:F_SETLEASE": "1, 1024, 1",
        "ioctl:TIOCSTI": "0, 0x5412, ct.c_char_p(b'x')",
        "add_key": "b'user', b'quizapp-attack', b'planted', 7, -3",
        "request_key": "b'user', b'quizapp-attack', None, 0",
        "keyctl:search": "10, -3, b'user', b'quizapp-attack', 0",
        "keyctl:read": "11, -3, buf, 4096",
        "keyctl:join": "1, None",
        "shmget": "0, 4096, 0o1600",
        "shmctl": "0, 2, buf",
        "semget": "0, 1, 0o1600",
        "msgget": "0, 0o1600",
        "mq_open": "b'quizapp-attack', 0o102, 0o600, None",
        "unshare": "0x10000000",
        "setns": "0, 0",
        "clone:new-user-thread": "0x10000000 | 0x10000 | 0x800 | 0x100, None, None, None, 0",
        "socket:inet": "2, 1, 0",
        "socket:unix": "1, 1, 0",
        "socketpair": "1, 1, 0, buf",
        "mknodat:fifo": "-100, b'fifo', 0o10600, 0",
        "symlinkat": "b'/etc/shadow', -100, b'planted-link'",
        "linkat": "-100, b'/etc/passwd', -100, b'planted-hard-link', 0",
        "memfd_create": "b'x', 0",
        "io_uring_setup": "8, buf",
        "bpf": "0, buf, 48",
        "perf_event_open": "buf, 0, -1, -1, 0",
        "userfaultfd": "0",
        "setsid": "",
        "setpgid": "0, 0",
        "mount": "b'none', b'/tmp', b'tmpfs', 0, None",
        "landlock_create_ruleset": "None, 0, 1",
        "chmod": "b'.', 0o700",
        "fchmod": "os.open('.', os.O_RDONLY), 0o700",
        "fchmodat": "-100, b'.', 0o700, 0",
        "fchmodat2": "-100, b'.', 0o700, 0",
        "chown": "b'.', -1, -1",
        "lchown": "b'.', -1, -1",
        "fchown": "os.open('.', os.O_RDONLY), -1, -1",
        "fchownat": "-100, b'.', -1, -1, 0",
        "utime": "b'.', None",
        "utimes": "b'.', None",
        "utimensat": "-100, b'.', None, 0",
        "futimesat": "-100, b'.', None",
    }


ALLOWED_CALLS = {
    "kill:self": "os.getpid(), 0",
    "tgkill:self": "os.getpid(), os.getpid(), 0",
    "prlimit64:self": "0, 7, None, buf",
    "getpgid:self": "0",
    "sched_getaffinity:self": "0, 128, buf",
    "fcntl:F_GETFL": "1, 3",
}
SCAN = """
import ctypes as ct, os
libc = ct.CDLL(None, use_errno=True)
answers = {}
for pid in range(1, 4097):
    if pid != os.getpid():
        ct.set_errno(0)
        code = 0 if libc.kill(pid, 0) == 0 else ct.get_errno()
        answers[code] = answers.get(code, 0) + 1
print("SCAN", sorted(answers), sum(answers.values()) > 4000)
"""


def _expected(name: str) -> int:
    return errno.ENOSYS if name.startswith("clone3") else errno.EPERM


def _check(found: dict[str, str], calls: dict[str, str], printed: str) -> None:
    table = seccomp.numbers(os.uname().machine) or {}
    wanted = {name for name in calls if name.split(":")[0] in table}
    assert set(found) == wanted, printed  # every call was made (none ended the run early)
    wrong = {name: found[name] for name in wanted if int(found[name]) != _expected(name)}
    assert not wrong, f"not refused by the filter (errno shown): {wrong}\n{printed}"


def _nofile(pid: int) -> str:
    return next(line for line in Path(f"/proc/{pid}/limits").read_text().splitlines() if "open files" in line)


def test_every_attack_call_is_refused_on_each_path_and_the_bystander_is_untouched(path: str) -> None:
    with bystander() as target:
        before = _nofile(target)
        calls = refused_calls(target)
        verdict = attack(raw_calls(calls | {"clone3": "buf, 88"}) + raw_calls(ALLOWED_CALLS))
        found = printed_lines(verdict, "CALL")
        allowed = {name: found.pop(name, "missing") for name in ALLOWED_CALLS}
        _check(found, calls | {"clone3": "buf, 88"}, verdict.printed)
        assert allowed == dict.fromkeys(ALLOWED_CALLS, "0"), allowed  # its own process: allowed
        assert alive(target) and _nofile(target) == before


def test_a_run_changes_no_files_mode_owner_or_times(path: str, tmp_path: Path) -> None:
    """The red team's repro: on the Landlock and limits-only paths chmod and utime reached any file of the
    app's user (Landlock does not govern them): a 0600 file became setuid and world-writable."""
    victim = tmp_path / "victim.txt"
    victim.write_text("x")
    victim.chmod(0o600)
    os.utime(victim, (1_000_000_000, 1_000_000_000))
    before = os.stat(victim)
    verdict = attack(f"""
        import os
        victim = {str(victim)!r}
        for name, act in (
            ("chmod", lambda: os.chmod(victim, 0o4777)),
            ("utime", lambda: os.utime(victim, (0, 0))),
            ("chown", lambda: os.chown(victim, os.getuid(), os.getgid())),
            ("fchmod", lambda: os.fchmod(os.open(victim, os.O_RDONLY), 0o4777)),
            ("futime", lambda: os.utime(os.open(victim, os.O_RDONLY), (0, 0))),
        ):
            try:
                act()
                print("DONE", name, flush=True)
            except OSError as exc:
                print("REFUSED", name, exc.errno, flush=True)
    """)
    after = os.stat(victim)
    assert (after.st_mode, after.st_uid, after.st_mtime) == (before.st_mode, before.st_uid, before.st_mtime)
    assert "DONE" not in verdict.printed, verdict.printed


def test_a_signal_0_scan_learns_nothing(path: str) -> None:
    verdict = attack(SCAN)
    assert f"SCAN [{errno.EPERM}] True" in verdict.printed, verdict.printed  # no ESRCH, no success


def test_the_filter_alone_refuses_the_attacks_and_numpy_threads_and_files_still_work(tmp_path: Path) -> None:
    """No namespace, no Landlock, no dropped capability: only no_new_privs and the filter, in a plain
    Python process with NumPy importable. Whatever the other layers do, this one holds by itself."""
    program = (
        Path(seccomp.__file__).read_text(encoding="utf-8")
        + """
import ctypes, threading
libc = ctypes.CDLL(None, use_errno=True)
libc.prctl.argtypes = [ctypes.c_int] + [ctypes.c_ulong] * 4
assert libc.prctl(38, 1, 0, 0, 0) == 0  # PR_SET_NO_NEW_PRIVS
prog = filter_program(os.getpid())
buf = ctypes.create_string_buffer(prog, len(prog))
fprog = ctypes.create_string_buffer(struct.pack("HxxxxxxP", len(prog) // 8, ctypes.addressof(buf)))
assert libc.prctl(22, 2, ctypes.addressof(fprog), 0, 0) == 0  # PR_SET_SECCOMP, SECCOMP_MODE_FILTER
import numpy as np
a = np.random.default_rng(0).standard_normal((64, 64))
box = []
t = threading.Thread(target=lambda: box.append(float(np.linalg.inv(a).sum())))
t.start(); t.join()
with open("scratch.txt", "w") as fh:
    fh.write("x")
print("WORKS", len(box), os.path.getsize("scratch.txt"), flush=True)
"""
    )
    work = tmp_path / "work"
    work.mkdir()
    with bystander() as target:
        calls = refused_calls(target)
        done = subprocess.run(
            [sys.executable, "-c", program + raw_calls(calls) + SCAN],
            capture_output=True, text=True, timeout=120, cwd=work, check=False,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
        assert "WORKS 1 1" in done.stdout, done.stdout + done.stderr
        found = {}
        for line in done.stdout.splitlines():
            if line.startswith("CALL "):
                name, _, value = line.removeprefix("CALL ").partition(" ")
                found[name] = value
        _check(found, calls, done.stdout)
        assert f"SCAN [{errno.EPERM}] True" in done.stdout
        assert alive(target)
    assert sorted(p.name for p in work.iterdir()) == ["scratch.txt"]  # no FIFO, no link


def test_the_lists_name_no_refused_call_and_every_number_is_the_kernels() -> None:
    allowed = {name for _, names in seccomp.ALLOWED.values() for name in names}
    assert not allowed & set(seccomp.CHECKED), "a call is both allowed outright and checked"
    refused = {name.split(":")[0] for name in refused_calls(1)} - set(seccomp.CHECKED)
    assert not allowed & refused, allowed & refused
    for machine in ("x86_64", "aarch64"):
        table = seccomp.numbers(machine)
        assert table is not None
        assert len(set(table.values())) == len(table), f"{machine}: two names share a number"
        assert set(seccomp.CHECKED) | {"clone3"} <= set(table), machine
    x86 = seccomp.numbers("x86_64") or {}
    assert allowed <= set(x86), allowed - set(x86)
    # A few numbers checked by hand against the kernel's arch/x86/entry/syscalls/syscall_64.tbl.
    assert (x86["read"], x86["kill"], x86["rt_sigqueueinfo"], x86["keyctl"], x86["clone3"]) == (
        0,
        62,
        129,
        250,
        435,
    )
    assert seccomp.filter_program(1, "sparc") is None
