"""Provides blas_on_one_thread: BLAS calls from one thread kept on one core, through OpenBLAS's per-thread
setting `openblas_set_num_threads_local`.

OpenBLAS splits a matmul over its own thread pool, and the pool's threads keep spinning after each call, so
they steal the cores any other busy thread needs: the toy's training (engine.toy.train) ran 10x slower
beside one. Where the setting cannot be found (NumPy built against another BLAS), nothing
changes: it is an optimisation, never a requirement.
"""

from __future__ import annotations

import contextlib
import ctypes
import functools
from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np

_SET_LOCAL = "openblas_set_num_threads_local"


@functools.cache
def openblas_set_local() -> Callable[[int], int] | None:
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


@contextlib.contextmanager
def blas_on_one_thread() -> Iterator[None]:
    """Limits BLAS calls from the calling thread to one core, then restores its previous setting.

    Hold it for a whole computation (a training run, a forward pass): a single BLAS call that used
    OpenBLAS's own pool would leave that pool's threads spinning on the cores other threads need next.
    """
    setter = openblas_set_local()
    previous = setter(1) if setter is not None else None
    try:
        yield
    finally:
        if setter is not None and previous is not None:
            setter(previous)
