"""Each layer of the confinement tested ALONE: the others are switched off (confine.TEST_WITHOUT_ENV) so an
attack that one layer must stop meets that layer only, and a control with that layer off too shows the
attack would have worked (so each test can see what it guards). The namespaces are also checked with
every layer on: removing one (the network namespace, say) fails a test even while seccomp still blocks
what it guards."""

from __future__ import annotations

import ctypes
import errno
import os
import secrets
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from runner_attacks import attack, bystander, on_path, printed_lines, raw_calls, without

from quizapp.runner import confine, seccomp
from quizapp.runner.lockdown_child import landlock_abi
from quizapp.runner.standby import POOL

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux's layers")
ROOT = Path(__file__).resolve().parent.parent
NUMBERS = seccomp.numbers(os.uname().machine) or {}


@pytest.fixture(autouse=True)
def _fresh_pool() -> object:
    POOL.close()
    yield
    POOL.close()
    confine.probe.cache_clear()


def test_every_namespace_of_the_confined_run_is_its_own(monkeypatch: pytest.MonkeyPatch) -> None:
    on_path("confined", monkeypatch)
    kinds = ("user", "mnt", "pid", "net", "ipc")
    verdict = attack(
        f"import os\nfor k in {kinds!r}:\n    print('NS', k, os.readlink(f'/proc/self/ns/{{k}}'))\n"
    )
    theirs = printed_lines(verdict, "NS")
    ours = {k: os.readlink(f"/proc/self/ns/{k}") for k in kinds}
    assert set(theirs) == set(kinds), verdict.printed
    shared = [k for k in kinds if theirs[k] == ours[k]]
    assert not shared, f"the run shares the app's {shared} namespace"


def test_the_network_namespace_alone_keeps_the_run_off_the_loopback(monkeypatch: pytest.MonkeyPatch) -> None:
    on_path("confined", monkeypatch)
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(1)
    server.settimeout(0.5)
    code = f"""
        import socket
        try:
            socket.create_connection(("127.0.0.1", {server.getsockname()[1]}), timeout=2).close()
            print("NET connected")
        except OSError as e:
            print("NET refused", e.errno)
        lines = open("/proc/self/net/dev").readlines()[2:]
        print("NET devices", sorted(line.split(":")[0].strip() for line in lines))
    """
    try:
        without(monkeypatch, "seccomp", "landlock")
        alone = printed_lines(attack(code), "NET")
        without(monkeypatch, "seccomp", "landlock", "netns")  # the control: the attack itself works
        control = printed_lines(attack(code), "NET")
    finally:
        server.close()
    assert "refused" in alone and alone["devices"] == "['lo']", alone
    assert "connected" in control, control


def test_the_ipc_namespace_alone_hides_the_machines_objects_and_keeps_none(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    on_path("confined", monkeypatch)
    libc = ctypes.CDLL(None, use_errno=True)
    key, inner = (secrets.randbelow(1 << 30) + 1 for _ in range(2))
    shmid = libc.shmget(key, 4096, 0o1600)  # a segment of the machine's, made by the app's side
    assert shmid >= 0, os.strerror(ctypes.get_errno())
    queue = f"quizapp-{secrets.token_hex(4)}"
    seen = raw_calls({"shmget:seen": f"{key}, 0, 0"})
    made = raw_calls(
        {
            "shmget:made": f"{inner}, 1 << 20, 0o1600",
            "msgget:made": f"{inner}, 0o1600",
            "mq_open:made": f"b'{queue}', 0o102, 0o600, None",
        }
    )
    try:
        without(monkeypatch, "seccomp", "landlock")
        alone = printed_lines(attack(seen + made), "CALL")
        without(monkeypatch, "seccomp", "landlock", "ipcns")
        control = printed_lines(attack(seen), "CALL")  # (the control makes nothing: it would stay)
    finally:
        libc.shmctl(shmid, 0, None)  # IPC_RMID
    made_queue = alone.pop("mq_open:made")  # (nobody may not make one in the box's queue folder: fine)
    assert made_queue in ("0", str(errno.EACCES))
    assert alone == {
        "shmget:seen": str(errno.ENOENT),
        "shmget:made": "0",
        "msgget:made": "0",
    }
    assert control == {"shmget:seen": "0"}
    for table in ("shm", "msg"):
        keys = [line.split()[0] for line in Path(f"/proc/sysvipc/{table}").read_text().splitlines()[1:]]
        assert str(inner) not in keys, f"a SysV {table} object made in the run outlived it"
    mq_open = NUMBERS.get("mq_open")
    if mq_open is not None:
        libc.syscall.restype = ctypes.c_long
        found = libc.syscall(ctypes.c_long(mq_open), queue.encode(), 0, 0, None)
        assert found == -1 and ctypes.get_errno() == errno.ENOENT, "the run's message queue outlived it"


_APP_WITH_A_SECRET = r"""
import ctypes, json, os, struct, sys
from quizapp.runner import seccomp
numbers = seccomp.numbers(os.uname().machine)
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
keyctl, add_key = ctypes.c_long(numbers["keyctl"]), ctypes.c_long(numbers["add_key"])
assert libc.syscall(keyctl, 1, None) > 0  # this app process: a new session keyring of its own
assert libc.syscall(add_key, b"user", b"quizapp-secret", b"hunter2", 7, -3) > 0
from quizapp.grading.code import grade_code
from quizapp.runner.standby import POOL
print(grade_code("code-softmax", sys.argv[1], seed=0).printed)
buf = ctypes.create_string_buffer(4096)
n = libc.syscall(keyctl, 11, -3, buf, 4096)  # KEYCTL_READ of the session keyring: the ids in it
print("KEY left", n // 4)
POOL.close()
"""


@pytest.mark.parametrize("path", ["confined", "landlock", "limits"])
def test_a_fresh_session_keyring_alone_hides_the_apps_keys(
    path: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    if "keyctl" not in NUMBERS:
        pytest.skip("no keyring calls on this architecture")
    on_path(path, monkeypatch)
    steal = raw_calls(
        {"keyctl:search": "10, -3, b'user', b'quizapp-secret', 0", "keyctl:read": "11, -3, buf, 4096"}
    )
    keyctl = NUMBERS["keyctl"]
    steal += f"n = libc.syscall(ct.c_long({keyctl}), 11, -3, buf, 4096)\nprint('KEY session', n // 4)\n"
    plant = raw_calls({"add_key:planted": "b'user', b'quizapp-planted', b'x', 1, -3"})

    def app(*off: str) -> dict[str, str]:
        env = {**os.environ, "PYTHONPATH": str(ROOT), confine.TEST_WITHOUT_ENV: ",".join(off)}
        done = subprocess.run(
            [sys.executable, "-c", _APP_WITH_A_SECRET, steal + plant + "\ndef softmax(x):\n    return x\n"],
            capture_output=True, text=True, timeout=120, env=env, check=False,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
        return printed_lines_of(done.stdout, "KEY") | printed_lines_of(done.stdout, "CALL")

    alone = app("seccomp", "landlock")
    assert alone["keyctl:search"] == str(errno.ENOKEY) and alone["session"] == "0", alone
    assert alone["add_key:planted"] == "0" and alone["left"] == "1", alone  # made in its own: gone with it
    if path == "limits":
        control = app("seccomp", "landlock", "keyring")
        assert control["keyctl:search"] == "0" and control["left"] == "2", control


def printed_lines_of(text: str, prefix: str) -> dict[str, str]:
    found = {}
    for line in text.splitlines():
        if line.startswith(prefix + " "):
            name, _, value = line.removeprefix(prefix + " ").partition(" ")
            found[name] = value
    return found


_SHADOW = """
import os
print("ID", os.getuid(), os.getgid(), os.getgroups())
try:
    open("/etc/shadow").read()
    print("ID shadow read")
except OSError as e:
    print("ID shadow", e.errno)
"""


@pytest.mark.skipif(os.geteuid() != 0, reason="the app runs as root only where the tests do")
def test_an_app_run_as_root_confines_the_run_as_nobody(monkeypatch: pytest.MonkeyPatch) -> None:
    if not Path("/etc/shadow").is_file() or Path("/etc/shadow").stat().st_mode & 0o004:
        pytest.skip("no /etc/shadow closed to others here")
    on_path("confined", monkeypatch)
    every = printed_lines(attack(_SHADOW), "ID")
    without(monkeypatch, "seccomp", "landlock", "keyring")
    alone = printed_lines(attack(_SHADOW), "ID")
    without(monkeypatch, "seccomp", "landlock", "keyring", "nobody")
    control = printed_lines(attack(_SHADOW), "ID")
    for found in (every, alone):
        assert found == {"65534": "65534 []", "shadow": str(errno.EACCES)}, found
    assert control["shadow"] == "read", control


def _scoped() -> None:
    if landlock_abi() < 6:
        pytest.skip("Landlock's scoping needs ABI 6 (Linux 6.12)")


def test_landlock_scoping_alone_refuses_a_signal_out_of_the_run(monkeypatch: pytest.MonkeyPatch) -> None:
    _scoped()
    with bystander() as target:
        code = raw_calls({"kill:bystander": f"{target}, 0", "kill:parent": "os.getppid(), 0"})
        on_path("landlock", monkeypatch)
        without(monkeypatch, "seccomp")
        alone = printed_lines(attack(code), "CALL")
        without(monkeypatch, "seccomp", "landlock")
        control = printed_lines(attack(code), "CALL")
        on_path("confined", monkeypatch)  # there the bystander is out of sight: the parent (PID 1) is not
        without(monkeypatch, "seccomp")
        confined = printed_lines(attack(code), "CALL")
        without(monkeypatch, "seccomp", "landlock")
        confined_control = printed_lines(attack(code), "CALL")
    assert alone == {"kill:bystander": str(errno.EPERM), "kill:parent": str(errno.EPERM)}, alone
    assert control == {"kill:bystander": "0", "kill:parent": "0"}, control
    assert confined["kill:parent"] == str(errno.EPERM) and confined_control["kill:parent"] == "0"


def test_landlock_scoping_alone_refuses_an_abstract_socket_of_the_machine(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _scoped()
    name = f"quizapp-{secrets.token_hex(6)}"
    server = socket.socket(socket.AF_UNIX)
    server.bind("\0" + name)
    server.listen(4)
    code = f"""
        import socket
        s = socket.socket(socket.AF_UNIX)
        try:
            s.connect("\\0{name}")
            print("SOCK connected 0")
        except OSError as e:
            print("SOCK refused", e.errno)
    """
    try:
        on_path("landlock", monkeypatch)
        without(monkeypatch, "seccomp")
        alone = printed_lines(attack(code), "SOCK")
        without(monkeypatch, "seccomp", "landlock")
        control = printed_lines(attack(code), "SOCK")
    finally:
        server.close()
    assert alone == {"refused": str(errno.EPERM)}, alone
    assert "connected" in control, control


def test_the_confined_runs_tmp_bounds_its_files_and_folders(monkeypatch: pytest.MonkeyPatch) -> None:
    """The red team's repro: the private /tmp bounded bytes, not inodes, so folders with long names (no
    bytes of content) cost the kernel ~830 MB. Now it holds at most a few thousand entries."""
    on_path("confined", monkeypatch)
    verdict = attack("""
        import os
        made, why = 0, "none"
        try:
            for i in range(20000):
                os.mkdir("/tmp/" + f"{i:06d}" + "x" * 200)
                made += 1
        except OSError as exc:
            why = exc.errno
        print("MADE", made, why)
    """)
    made = printed_lines(verdict, "MADE")
    assert made, verdict.printed
    assert 0 < int(next(iter(made))) < 5000, verdict.printed
