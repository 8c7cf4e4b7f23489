"""Provides CHILD: the program a standby child runs (python -I -c CHILD folder), as text.

It imports NumPy and warms its first calls, says it is ready, then waits on stdin for one job: the source
first (it sets the limits, compiles and runs it while the parent draws the inputs), then the pickled
inputs. It calls the learner's function on each case with stdout and stderr captured, and writes a JSON
report and each output's raw bytes to stdout, ended by a trailer with the job's token. Only the
learner's own frames are reported; a parent that dies ends it. The __NAMES__ are filled in by
quizapp.grading.standby.StandbyPool.
"""

CHILD = r"""
import contextlib, io, json, linecache, os, pickle, resource, shutil, sys, threading, time, traceback
import numpy as np

folder = sys.argv[1]
_job = os.dup(0)  # the job comes on a copy of stdin; the learner's code finds an empty stdin
_null = os.open(os.devnull, os.O_RDONLY)
os.dup2(_null, 0)
os.close(_null)
_buf = bytearray()
_parent = os.getppid()


def _take(size=None):  # the job's next line, or its next `size` bytes; None: the parent closed the pipe
    global _buf
    while (b"\n" not in _buf) if size is None else (len(_buf) < size):
        chunk = os.read(_job, 1 << 20)
        if not chunk:
            return None
        _buf += chunk
    end = _buf.index(b"\n") + 1 if size is None else size
    got, _buf = bytes(_buf[:end]), _buf[end:]
    return got


def _orphaned():  # the app ended, however it ended (a kill, a closed terminal): so does this run
    while os.getppid() == _parent:
        time.sleep(0.5)
    shutil.rmtree(folder, ignore_errors=True)
    os._exit(1)


class _NumpyOnly:  # the app's own packages are not the learner's to import (the references live there)
    def find_spec(self, name, path=None, target=None):
        if name.partition(".")[0] in ("engine", "quizapp"):
            raise ModuleNotFoundError(f"No module named {name!r} here: use NumPy and the standard library")
        return None


threading.Thread(target=_orphaned, daemon=True).start()
# First calls that would otherwise land on the learner's clock: ufunc loops, BLAS, unpickling arrays.
_a = np.linspace(-1.0, 1.0, 48).reshape(6, 8)
_s = _a @ _a.T / np.sqrt(8.0)
_p = np.exp(_s - _s.max(axis=-1, keepdims=True))
_p = _p / _p.sum(axis=-1, keepdims=True)
_ = np.einsum("ij,jk->ik", _p, _a), np.triu(np.ones((4, 4)), 1), np.split(_a, 2, axis=1)
_ = np.where(_a > 0, _a, -np.inf), np.concatenate([_a, _a]), _a.transpose(1, 0).reshape(4, 12)
_ = pickle.loads(pickle.dumps([{"x": _a, "n": 2, "causal": True}])), np.ascontiguousarray(_p).tobytes()
_ = compile("def f(x):\n    return x\n", "<warm>", "exec"), json.loads(json.dumps({"a": [1.0, "b"]}))
del _a, _s, _p, _
sys.meta_path.insert(0, _NumpyOnly())
os.write(1, __READY__)

head = _take()
if not head:  # the parent closed the pipe or exited: nothing to run
    shutil.rmtree(folder, ignore_errors=True)
    os._exit(0)
os.write(1, __RUNNING__)
job = json.loads(head)
name, source, _end = job["function"], job["source"], __END__ + job["token"].encode() + b" "
resource.setrlimit(resource.RLIMIT_AS, (job["memory"], job["memory"]))
_used = resource.getrusage(resource.RUSAGE_SELF)
_cpu = int(_used.ru_utime + _used.ru_stime + job["seconds"]) + 2
resource.setrlimit(resource.RLIMIT_CPU, (_cpu, _cpu))
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
            f"returned an array of shape {tuple(out.shape)}, {out.nbytes >> 20} MB: far too large to be "
            "the answer (look at the shape)"
        )
    return out


try:
    namespace = {"__name__": "solution"}
    with contextlib.redirect_stdout(printed), contextlib.redirect_stderr(printed):
        exec(compile(source, "<solution>", "exec"), namespace)
    func = namespace.get(name)
    if not callable(func):
        report["unreadable"] = True
        raise NameError(f"your code does not define a function named {name!r}")
    # The inputs come after the code: the parent draws them while this child compiles and runs it.
    size = _take()
    inputs = _take(int(size)) if size else None
    if inputs is None:
        os._exit(3)
    cases = pickle.loads(inputs)
    del size, inputs
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
payload = json.dumps(report).encode() + b"\n" + b"".join(arrays)
with contextlib.suppress(Exception):
    sys.__stdout__.flush()  # whatever the learner's code wrote there comes before the report
view = memoryview(b"\n" + payload + _end + b"%016d\n" % len(payload))
while view:
    view = view[os.write(1, view):]
os._exit(0)  # no interpreter teardown: the report is out and the parent stops reading at its end
"""
