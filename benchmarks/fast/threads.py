"""Provides head-parallel execution: the engine spreads attention heads over the CPU cores itself.

Each NumPy call runs on one core, except BLAS matmuls, which OpenBLAS splits over its own thread pool.
For the many small per-head matmuls of attention that split costs more than it gains (measured at
T=512, d_head=8: 1.3 ms on one thread, 2.0 ms on two), and the pool's threads keep spinning after each
call, so they steal the second core from any other work. The engine therefore runs independent groups of
heads in parallel Python threads (NumPy releases the GIL inside every call), each with BLAS limited to
one thread, through OpenBLAS's per-thread setting `openblas_set_num_threads_local`.

The workers wait on plain locks (about 10 us a hand-off, against 45 us through concurrent.futures). On
request (`pin=True`), the caller and each worker are pinned to CPUs of their own while they work (see
_pin_apart): that helps on an idle machine after a pause and costs 1.4x to 1.6x on a busy one, so it is
off by default.

Where the OpenBLAS setting cannot be found (NumPy built against another BLAS), heads run one group after the
other, exactly as before: parallelism is an optimisation, never a requirement. Where threads cannot be
pinned (not Linux), they run unpinned.
"""

from __future__ import annotations

import contextlib
import ctypes
import functools
import os
import threading
from collections.abc import Callable, Sequence

from engine.blas import openblas_set_local


@functools.cache
def _allowed_cpus() -> tuple[int, ...]:
    """The CPUs this process may run on (their numbers; 0..n-1 where the OS cannot say)."""
    if hasattr(os, "sched_getaffinity"):
        return tuple(sorted(os.sched_getaffinity(0))) or (0,)
    return tuple(range(os.cpu_count() or 1))


def _cores() -> int:
    """CPU cores this process may run on."""
    return len(_allowed_cpus())


@functools.cache
def _sched_getcpu() -> Callable[[], int] | None:
    """The C library's sched_getcpu (the CPU the calling thread is on now); None where there is none."""
    if not hasattr(os, "sched_setaffinity"):
        return None
    try:
        getcpu = ctypes.CDLL(None).sched_getcpu
    except (OSError, AttributeError):
        return None
    getcpu.argtypes, getcpu.restype = [], ctypes.c_int
    return getcpu


def _pin_apart(workers: Sequence[_Worker]) -> set[int] | None:
    """Pins the caller to its CPU and the workers to the others; returns the caller's old affinity.

    Left free, threads woken after an idle spell are put on the CPU of the thread that woke them, so
    the caller and its workers take turns on one CPU until Linux's load balancer spreads them, about
    60 ms later: after a 0.3 s pause, calls at T=128, d_model=64 took 0.62 ms for that long, then
    0.40 ms. The app calls the engine after idle spells, not in a loop, so without this nearly every
    call a learner makes would be a slow one. None: nothing was pinned (no OS support, one CPU).
    """
    getcpu = _sched_getcpu()
    here = -1 if getcpu is None else getcpu()
    others = [cpu for cpu in _allowed_cpus() if cpu != here]
    if here < 0 or not others:
        return None
    for k, worker in enumerate(workers):
        worker.pin(others[k % len(others)])
    try:
        saved = os.sched_getaffinity(0)
        os.sched_setaffinity(0, {here})
    except OSError:
        return None
    return saved


class _Worker:
    """One extra core's thread: runs the tasks it is handed, with BLAS on one thread, and reports back.

    It waits on a plain lock rather than an executor's queue (see the module's docstring).
    """

    def __init__(self, name: str) -> None:
        self._go = threading.Lock()  # released by the caller when tasks are ready
        self._done = threading.Lock()  # released by the worker when they have run
        self._go.acquire()
        self._done.acquire()
        self._tasks: Sequence[Callable[[], None]] = ()
        self.error: BaseException | None = None
        self._cpu: int | None = None  # the CPU it is pinned to, if any
        thread = threading.Thread(target=self._serve, name=name, daemon=True)
        thread.start()
        self._thread_id = thread.native_id

    def pin(self, cpu: int) -> None:
        """Keeps the thread on one CPU (see _pin_apart); where the OS refuses, it stays free."""
        if cpu == self._cpu or self._thread_id is None:
            return
        try:
            os.sched_setaffinity(self._thread_id, {cpu})
        except OSError:  # the CPU was taken from this process since: stay where the OS puts it
            return
        self._cpu = cpu

    def start(self, tasks: Sequence[Callable[[], None]]) -> None:
        """Hands the tasks over; they run while the caller goes on."""
        self._tasks, self.error = tasks, None
        self._go.release()

    def join(self) -> None:
        """Waits until the tasks handed over have run (their error, if any, is in self.error)."""
        self._done.acquire()

    def _serve(self) -> None:
        setter = openblas_set_local()
        if setter is not None:
            setter(1)
        while True:
            self._go.acquire()
            self.error = _run_all(self._tasks)
            self._tasks = ()
            self._done.release()


def _run_all(tasks: Sequence[Callable[[], None]]) -> BaseException | None:
    """Runs every task even when one fails (they write into shared arrays); returns the first error."""
    first: BaseException | None = None
    for task in tasks:
        try:
            task()
        except BaseException as error:  # handed to run_in_parallel's caller, which re-raises it
            first = error if first is None else first
    return first


_pool_lock = threading.Lock()
"""Held by the one caller using the workers; a caller that finds it taken runs its tasks itself."""
_pool: list[_Worker] = []


def _workers() -> list[_Worker]:
    """The engine's worker threads, one per extra core, started on first use and reused."""
    if not _pool:
        _pool.extend(_Worker(f"engine-heads-{k}") for k in range(_cores() - 1))
    return _pool


def _forget_workers() -> None:
    """A forked child has none of its parent's threads: it starts its own when it needs them."""
    global _pool_lock
    _pool_lock = threading.Lock()
    _pool.clear()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_workers)


def parallel_parts() -> int:
    """How many groups of heads to run at once: one per core, or 1 when BLAS threads cannot be tamed."""
    if openblas_set_local() is None:
        return 1
    return _cores()


def run_in_parallel(tasks: Sequence[Callable[[], None]], *, pin: bool = False) -> None:
    """Runs the tasks at once, the first share on this thread and the rest on the workers; with `pin`,
    the caller and each worker keep a CPU of their own for the call (see _pin_apart).

    Every task has run when this returns, and the first error (the caller's own first) is re-raised.
    Call it inside engine.blas.blas_on_one_thread(): the workers' BLAS calls already use one core each. When
    another thread is using the workers (two engine calls at once), the tasks run here, one by one.
    """
    if len(tasks) <= 1 or not _pool_lock.acquire(blocking=False):
        error = _run_all(tasks)
    else:
        try:
            error = _hand_out(tasks, pin)
        finally:
            _pool_lock.release()
    if error is not None:
        raise error


def _hand_out(tasks: Sequence[Callable[[], None]], pin: bool) -> BaseException | None:
    """Deals the tasks out like cards, this thread first, then worker 1, 2, ...; returns the first error."""
    workers = _workers()
    n = len(workers) + 1
    handed = [(worker, tasks[k::n]) for k, worker in enumerate(workers, start=1) if tasks[k::n]]
    saved_affinity = _pin_apart(workers) if pin else None
    for worker, share in handed:
        worker.start(share)
    error = _run_all(tasks[::n])
    for worker, _ in handed:  # the workers write into the caller's arrays: wait for all of them
        worker.join()
        error = worker.error if error is None else error
    if saved_affinity is not None:
        with contextlib.suppress(OSError):
            os.sched_setaffinity(0, saved_affinity)
    return error


def even_cuts(n: int, parts: int) -> list[slice]:
    """Cuts range(n) into at most `parts` contiguous slices whose lengths differ by at most one."""
    parts = max(1, min(parts, n))
    return [slice(k * n // parts, (k + 1) * n // parts) for k in range(parts)]
