"""Provides CHILD: the program a standby child runs (python -I -S -c CHILD folder conf), as text.

It first confines itself (quizapp.runner.confine_child.enter: namespaces where the kernel allows them),
then imports NumPy from a sys.path that holds the standard library and NumPy only, warms NumPy's first
calls, says it is ready (and whether it is confined), and waits on stdin for one job: the source first,
then the pickled inputs.

Two processes do the job, so the report travels on a channel the learner's code cannot reach:

- the trusted one (this program, before any learner's code exists) keeps the pipe to the app. Ahead of
  the job it forks
- the learner's process, which drops every privilege (lockdown_child.lock_down: limits, no capabilities,
  the seccomp allowlist of quizapp.runner.seccomp: no new process, exec, socket, keyring, IPC or signal
  to another process) and keeps only the job's
  pipe (which it can only read). It reads the job, tells the trusted side the job's token, compiles and
  runs the code, calls the function on each case with stdout and stderr captured, and writes a JSON
  report and each output's raw bytes to a pipe of its own.

The trusted process reads that pipe up to a size limit, checks every field (any bytes, any nesting: a
bad report is "no report"), and writes a report of its own making to the app, ended by a trailer with the
job's token. The learner's process cannot write to the app's pipe (it is closed there), ptrace the
trusted one or read its memory or its /proc entries (no capabilities; the trusted one is not dumpable),
nor signal it. The __NAMES__ are filled in by quizapp.runner.standby_process.child_program.
"""

from quizapp.runner import child_library

_PROGRAM = r"""
import contextlib, io, json, linecache, pickle, traceback

folder, _conf = sys.argv[1], json.loads(sys.argv[2])
_numpy = os.path.dirname(_conf["numpy"])  # the folder NumPy is installed in (only NumPy is taken from it)
_conf["expose"] = [p for p in sys.path if p] + [os.path.join(_numpy, n) for n in ("numpy", "numpy.libs")]
_conf["folder"] = folder  # the process the app started removes it as it ends
_confined, _why = enter(_conf)
# Without namespaces, Landlock (where the kernel has it) still keeps the learner's process to reading the
# system's libraries, Python and NumPy, and writing its own folder. "plain" asks for limits alone.
_landlocked = not _confined and _conf.get("force_limits") != "plain" and landlock_abi() >= 1
# It reads the system's libraries and the standard library, without any folder packages are installed in
# (the app may be installed in one: its reference must not be readable) nor the app's own folders; then
# NumPy's folders on their own.
_readable = []
if _landlocked:
    _roots = [p for p in _SYSTEM if p != "/etc" and os.path.isdir(p)] + [p for p in sys.path if p]
    _readable = grants(_roots, _conf["hide"] + _conf.get("packages", []))
    _readable += [os.path.join(_numpy, n) for n in ("numpy", "numpy.libs")]
    _readable += ["/etc/ld.so.cache", "/etc/localtime"] + [f"/dev/{d}" for d in ("zero", "random", "urandom")]
_writable = [folder, "/dev/null"]
_shelf = os.path.join("/tmp" if _confined else folder, "quizapp-numpy")
os.makedirs(_shelf, exist_ok=True)
for _name in ("numpy", "numpy.libs"):
    _there = os.path.join(_numpy, _name)
    if os.path.isdir(_there) and not os.path.lexists(os.path.join(_shelf, _name)):
        os.symlink(_there, os.path.join(_shelf, _name))
sys.path[:] = [p for p in sys.path if p] + [_shelf]  # (-I -S) the standard library, and NumPy only
import numpy as np

_job = os.dup(0)  # the job comes on a copy of stdin, read by the learner's process; its stdin is empty
_null = os.open(os.devnull, os.O_RDONLY)
os.dup2(_null, 0)
os.close(_null)
_bufs = {}


def _take(fd, size=None):  # the next line, or the next `size` bytes, from fd; None: the pipe closed
    buf = _bufs.setdefault(fd, bytearray())
    while (b"\n" not in buf) if size is None else (len(buf) < size):
        chunk = os.read(fd, 1 << 20)
        if not chunk:
            return None
        buf += chunk
    end = buf.index(b"\n") + 1 if size is None else size
    got = bytes(buf[:end])
    del buf[:end]
    return got


# First calls that would otherwise land on the learner's clock: ufunc loops, BLAS, unpickling arrays.
_a = np.linspace(-1.0, 1.0, 48).reshape(6, 8)
_s = _a @ _a.T / np.sqrt(8.0)
_p = np.exp(_s - _s.max(axis=-1, keepdims=True))
_p = _p / _p.sum(axis=-1, keepdims=True)
_ = np.einsum("ij,jk->ik", _p, _a), np.triu(np.ones((4, 4)), 1), np.split(_a, 2, axis=1)
_ = np.where(_a > 0, _a, -np.inf), np.concatenate([_a, _a]), _a.transpose(1, 0).reshape(4, 12)
_ = pickle.loads(pickle.dumps([{"x": _a, "n": 2, "causal": True}])), np.ascontiguousarray(_p).tobytes()
_ = compile("def f(x):\n    return x\n", "<warm>", "exec"), json.loads(json.dumps({"a": [1.0, "b"]}))
_ = traceback.extract_tb, io.StringIO, contextlib.redirect_stdout, linecache.cache
del _a, _s, _p, _
class _NumpyOnly:  # a clear message: the app's own packages are not there to import (nor their files)
    def find_spec(self, name, path=None, target=None):
        if name.partition(".")[0] in ("engine", "quizapp"):
            raise ModuleNotFoundError(f"No module named {name!r} here: use NumPy and the standard library")
        return None


sys.meta_path.insert(0, _NumpyOnly())
# The learner's process is forked and locked down ahead of the job too (a fork and its exit cost
# milliseconds on a busy machine): it waits for the job on a pipe from this process.
_hello_r, _hello_w = os.pipe()
_back_r, _back_w = os.pipe()
_learner = os.fork()
if _learner == 0:
    # ---- the learner's process: nothing of the trusted side is left in reach, then the code runs ----
    # It reads the job from the app's pipe itself (one wake-up fewer on the learner's clock): a pipe it
    # can only read, which brings the learner's own code and inputs. The trusted side is told the job's
    # token (before any of the learner's code exists here); it alone writes to the app.
    os.close(_hello_r)
    os.close(_back_r)
    os.dup2(2, 1)  # what the code writes to the file descriptors goes with stderr, not to the app
    _keep = sorted((_job, _hello_w, _back_w))
    os.closerange(3, _keep[0])
    os.closerange(_keep[0] + 1, _keep[1])
    os.closerange(_keep[1] + 1, _keep[2])
    os.closerange(_keep[2] + 1, 1 << 16)
    try:
        if _landlocked:
            lock_down(__FILE_LIMIT__, _confined, filter_program, _readable, _writable)
        else:
            lock_down(__FILE_LIMIT__, _confined, filter_program)
    except BaseException:
        os._exit(70)  # never run the code with less than was meant
    head = _take(_job)
    if not head:
        os._exit(0)
    job = json.loads(head)
    os.write(_hello_w, job["token"].encode()[:64] + b"\n")
    os.close(_hello_w)
    _used = resource.getrusage(resource.RUSAGE_SELF)
    _cpu = int(_used.ru_utime + _used.ru_stime + job["seconds"]) + 2
    resource.setrlimit(resource.RLIMIT_AS, (int(job["memory"]), int(job["memory"])))
    resource.setrlimit(resource.RLIMIT_CPU, (_cpu, _cpu))
    name, source = job["function"], job["source"]
    del _used, _cpu, job, head
    linecache.cache["<solution>"] = (len(source), None, source.splitlines(True), "<solution>")
    printed = io.StringIO()
    report = {"cases": [], "error": None, "layout": []}
    arrays = []

    def _cut(text):
        return text if len(text) <= __OUTPUT_LIMIT__ else text[:__OUTPUT_LIMIT__] + "... (cut)"

    def own_frames(exc):  # the learner's own lines only; a line repeated (a recursion) shown three times
        frames = [f for f in traceback.extract_tb(exc.__traceback__) if f.filename == "<solution>"]
        shown, last, repeats = [], None, 0
        for line in [f"line {f.lineno}, in {f.name}: {(f.line or '').strip()}" for f in frames] + [None]:
            if line == last:
                repeats += 1
                if repeats >= 3:
                    continue
            else:
                if repeats >= 3:
                    shown.append(f"[the line above repeated {repeats - 2} more times]")
                last, repeats = line, 0
            if line is not None:
                shown.append(line)
        return "\n".join(shown + [_cut(f"{type(exc).__name__}: {exc}")])

    def described(exc):
        if isinstance(exc, SystemExit):
            return f"your code called exit({exc.code!r}): a solution returns its result instead"
        return own_frames(exc)

    def as_output(value):
        out = np.asarray(value)
        if out.dtype == object:
            kind = type(out.flat[0]).__name__ if out.size else "object"
            raise TypeError(f"returned {kind} values, not numbers")
        if out.dtype.kind not in "biufc":
            raise TypeError(f"returned {out.dtype} values ({out.dtype.name}), not numbers")
        if out.nbytes > __ARRAY_LIMIT__ or sum(map(len, arrays)) + out.nbytes > __SENT_LIMIT__:
            raise ValueError(
                f"returned an array of shape {tuple(out.shape)}, {out.nbytes >> 20} MB: far too large to "
                "be the answer (look at the shape)"
            )
        return out

    def _inputs():
        size = _take(_job)
        return _take(_job, int(size)) if size else None

    try:
        namespace = {"__name__": "solution"}
        with contextlib.redirect_stdout(printed), contextlib.redirect_stderr(printed):
            exec(compile(source, "<solution>", "exec"), namespace)
        func = namespace.get(name)
        if not callable(func):
            report["unreadable"] = True
            raise NameError(f"your code does not define a function named {name!r}")
        inputs = _inputs()  # the parent drew them while this process compiled and ran the code
        if inputs is None:
            os._exit(3)
        cases = pickle.loads(inputs)
        del inputs
        for i, case in enumerate(cases):
            try:
                with contextlib.redirect_stdout(printed), contextlib.redirect_stderr(printed):
                    out = as_output(func(**case))
                arrays.append(np.ascontiguousarray(out).tobytes())
                report["layout"].append([out.dtype.str, list(out.shape)])
                report["cases"].append(None)
            except (Exception, KeyboardInterrupt, SystemExit) as exc:
                arrays.append(b"")
                report["layout"].append(None)
                report["cases"].append(described(exc))
    except SyntaxError as exc:
        report["error"] = f"line {exc.lineno}: {exc.msg}" if exc.lineno else str(exc.msg)
        report["unreadable"] = True
    except (Exception, KeyboardInterrupt, SystemExit) as exc:
        report["error"] = described(exc)
    report["printed"] = printed.getvalue()[:__OUTPUT_LIMIT__]
    report["sizes"] = [len(a) for a in arrays]
    head = json.dumps(report).encode()
    view = memoryview(b"%d\n" % len(head) + head + b"".join(arrays))
    while view:
        view = view[os.write(_back_w, view):]
    os.close(_back_w)  # the trusted side reads the end now, not after this process's slow teardown
    os._exit(0)

# ---- the trusted side: hears the job's token, reads the learner's report, checks it, answers ----
os.close(_job)
os.close(_hello_w)
os.close(_back_w)
_mode = b"confined" if _confined else (b"landlock " if _landlocked else b"limits ") + _why.encode()[:300]
os.write(1, __READY__ + _mode + b"\n")

_token = _take(_hello_r)
if not _token or outside_gone():  # the parent closed the pipe or exited, or the outside was killed
    os._exit(0)
os.write(1, __RUNNING__)
_end = __END__ + _token.strip()[:64] + b" "
os.close(_hello_r)
_raw = bytearray()
while len(_raw) <= __SENT_LIMIT__ + __HEAD_LIMIT__:
    _chunk = os.read(_back_r, 1 << 20)
    if not _chunk:
        break
    _raw += _chunk
else:  # more than any honest report: it is not one
    os.kill(_learner, signal.SIGKILL)
    _raw = bytearray(b"-")
_oversize = _raw == b"-"


def _text(value, limit):
    return value[:limit] if isinstance(value, str) else None


def _checked(raw):  # the learner's report, every field checked, rebuilt; None: not a report
    line, _, rest = bytes(raw).partition(b"\n")
    if not line.isdigit() or len(line) > 12 or int(line) > __HEAD_LIMIT__ or int(line) > len(rest):
        return None
    try:
        got = json.loads(rest[: int(line)])
    except (ValueError, RecursionError, MemoryError):
        return None
    blob = rest[int(line):]
    if not isinstance(got, dict):
        return None
    layout, cases, sizes = got.get("layout"), got.get("cases"), got.get("sizes")
    if not all(isinstance(x, list) for x in (layout, cases, sizes)):
        return None
    if not len(layout) == len(cases) == len(sizes) or not all(type(n) is int and n >= 0 for n in sizes):
        return None
    if sum(sizes) != len(blob):
        return None
    clean = {"layout": [], "cases": [], "sizes": sizes}
    for meta, error, size in zip(layout, cases, sizes):
        clean["cases"].append(_text(error, __ERROR_LIMIT__))
        if meta is None:
            if size:
                return None
            clean["layout"].append(None)
            continue
        try:
            dtype, shape = np.dtype(str(meta[0])[:16]), meta[1]
            ok = (
                len(meta) == 2 and dtype.kind in "biufc" and isinstance(shape, list) and len(shape) <= 32
                and all(type(n) is int and 0 <= n <= size for n in shape)
            )  # fmt: skip
            ok = ok and int(np.prod(shape, dtype=np.int64)) * dtype.itemsize == size
        except (TypeError, ValueError, IndexError, KeyError, OverflowError):
            ok = False
        if not ok:
            return None
        clean["layout"].append([dtype.str, shape])
    clean["error"] = _text(got.get("error"), __ERROR_LIMIT__)
    clean["printed"] = _text(got.get("printed"), __OUTPUT_LIMIT__) or ""
    clean["unreadable"] = got.get("unreadable") is True
    return clean, blob


_got = _checked(_raw)
if _got is None:  # "malformed": it said something, and that was not a report
    _, _status = os.waitpid(_learner, 0)
    _code = os.waitstatus_to_exitcode(_status)
    _malformed = _oversize or (bool(_raw) and _code == 0)
    _report, _blob = {"ended": _code, "malformed": _malformed, "sizes": []}, b""
else:
    _report, _blob = _got
payload = json.dumps(_report).encode() + b"\n" + _blob
view = memoryview(b"\n" + payload + _end + b"%016d\n" % len(payload))
while view:
    view = view[os.write(1, view):]
os._exit(0)  # no interpreter teardown: the report is out and the parent stops reading at its end
"""

LIBRARY = ("seccomp.py", *child_library.CONFINEMENT)
"""The modules whose text the child program starts with: the seccomp allowlist and the confinement's
functions, plain standard library."""
CHILD = child_library.text(LIBRARY) + _PROGRAM
"""The library's text, then the program that uses it."""
