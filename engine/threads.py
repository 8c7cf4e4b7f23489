"""Provides head-parallel execution: the engine spreads attention heads over the CPU cores itself.

Each NumPy call runs on one core, except BLAS matmuls, which OpenBLAS splits over its own thread pool.
For the many small per-head matmuls of attention that split costs more than it gains (measured at
T=512, d_head=8: 1.3 ms on one thread, 2.0 ms on two), and the pool's threads keep spinning after each
call, so they steal the second core from any other work. The engine therefore runs independent groups of
heads in parallel Python threads (NumPy releases the GIL inside every call), each with BLAS limited to
one thread, through OpenBLAS's per-thread setting `openblas_set_num_threads_local`.

Where that setting cannot be found (NumPy built against another BLAS), heads run one group after the
other, exactly as before: parallelism is an optimisation, never a requirement.
"""

from __future__ import annotations

import contextlib
import ctypes
import functools
import os
import threading
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor, wait
from pathlib import Path

import numpy as np

_SET_LOCAL = "openblas_set_num_threads_local"


@functools.cache
def _openblas_set_local() -> Callable[[int], int] | None:
    """OpenBLAS's per-thread thread count setter, from the library NumPy loaded; None if not found."""
    for path in _loaded_openblas_paths():
        try:
            lib = ctypes.CDLL(str(path))  # already loaded by NumPy: the same library, the same state
            setter = getattr(lib, _SET_LOCAL)
        except (OSError, AttributeError):
            continue
        setter.argtypes, setter.restype = [ctypes.c_int], ctypes.c_int
        return setter  # type: ignore[no-any-return]
    return None


def _loaded_openblas_paths() -> list[Path]:
    """Paths of OpenBLAS libraries this process has mapped (Linux), else those NumPy's wheel ships."""
    found: list[Path] = []
    with contextlib.suppress(OSError):
        for line in Path("/proc/self/maps").read_text().splitlines():
            fields = line.split(maxsplit=5)  # address, perms, offset, device, inode, [path]
            if len(fields) == 6 and "openblas" in fields[5].lower() and Path(fields[5]) not in found:
                found.append(Path(fields[5]))
    numpy_dir = Path(np.__file__).resolve().parent
    for folder in (numpy_dir.parent / "numpy.libs", numpy_dir / ".dylibs"):
        found.extend(p for p in sorted(folder.glob("*openblas*")) if p not in found)
    return found


def _cores() -> int:
    """CPU cores this process may run on."""
    if hasattr(os, "sched_getaffinity"):
        return max(1, len(os.sched_getaffinity(0)))
    return max(1, os.cpu_count() or 1)


def _single_blas_thread() -> None:
    """Pool initialiser: BLAS calls made from this worker thread use one core."""
    setter = _openblas_set_local()
    if setter is not None:
        setter(1)


_pool_lock = threading.Lock()
_pool: ThreadPoolExecutor | None = None


def _workers() -> ThreadPoolExecutor:
    """The engine's worker threads, one per extra core, started on first use and reused."""
    global _pool
    with _pool_lock:
        if _pool is None:
            _pool = ThreadPoolExecutor(
                max_workers=_cores() - 1, thread_name_prefix="engine-heads", initializer=_single_blas_thread
            )
        return _pool


def parallel_parts() -> int:
    """How many groups of heads to run at once: one per core, or 1 when BLAS threads cannot be tamed."""
    if _openblas_set_local() is None:
        return 1
    return _cores()


@contextlib.contextmanager
def blas_on_one_thread() -> Iterator[None]:
    """Limits BLAS calls from the calling thread to one core, then restores its previous setting.

    The engine holds this for a whole forward pass: a single BLAS call that used OpenBLAS's own pool
    would leave that pool's threads spinning on the cores the engine's workers need next.
    """
    setter = _openblas_set_local()
    previous = setter(1) if setter is not None else None
    try:
        yield
    finally:
        if setter is not None and previous is not None:
            setter(previous)


def run_in_parallel(tasks: Sequence[Callable[[], None]]) -> None:
    """Runs the tasks at once, the first on this thread and the rest on the workers; re-raises errors.

    Call it inside blas_on_one_thread(): the workers' BLAS calls already use one core each.
    """
    if len(tasks) <= 1:
        for task in tasks:
            task()
        return
    futures: list[Future[None]] = [_workers().submit(task) for task in tasks[1:]]
    try:
        tasks[0]()
    finally:
        wait(futures)  # the workers write into the caller's arrays: never return before they are done
    for future in futures:
        future.result()


def even_cuts(n: int, parts: int) -> list[slice]:
    """Cuts range(n) into at most `parts` contiguous slices whose lengths differ by at most one."""
    parts = max(1, min(parts, n))
    return [slice(k * n // parts, (k + 1) * n // parts) for k in range(parts)]
