"""Provides the run's folder's end, as plain functions on the standard library: the process the app
started holds the folder by its parent's descriptor (opened before any namespace or new root) and removes
it as it ends (quizapp.runner.confine_child._outside); the app removes what an earlier app left with the
same `remove_tree`. The child program is this module's text among the confinement's
(quizapp.runner.child_library), run with `python -I -S`, where nothing but the standard library is
importable.
"""

# Only the standard library: this text runs in a child where nothing else is importable.
import contextlib
import os
import stat

_folder: tuple[int, str] | None = None
"""The run's folder, as its parent's descriptor (opened before any namespace or new root) and its name."""


def _hold_folder(folder: str | None) -> None:
    global _folder
    if folder:
        try:
            parent = os.open(os.path.dirname(folder) or ".", os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        except OSError:
            return
        _folder = (parent, os.path.basename(folder))


def _open_dir(parent: int, name: str, info: os.stat_result) -> int | None:
    """`name` in `parent`, a folder `info` described (lstat), opened (first made readable and searchable
    for its owner, as a run may make it with mode 0); None where it cannot be, or is no longer that one."""
    if info.st_mode & 0o700 != 0o700:
        with contextlib.suppress(OSError, NotImplementedError):
            os.chmod(name, stat.S_IMODE(info.st_mode) | 0o700, dir_fd=parent, follow_symlinks=False)
    try:
        fd = os.open(name, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=parent)
    except OSError:
        return None
    opened = os.fstat(fd)
    if (opened.st_dev, opened.st_ino) != (info.st_dev, info.st_ino):
        os.close(fd)
        return None
    return fd


def remove_tree(parent: int, name: str) -> None:
    """Removes `name` in the folder open as `parent` and all beneath it: never follows a link, never
    leaves its file system, and never recurses (a run can nest thousands of folders, deeper than Python's
    recursion limit and than the descriptors a process may hold): one folder is open at a time, and it
    climbs back by "..", checked against the folder it came from. Never raises; what cannot be removed
    stays."""
    try:
        top = os.lstat(name, dir_fd=parent)
        if not stat.S_ISDIR(top.st_mode):
            os.unlink(name, dir_fd=parent)
            return
        fd = _open_dir(parent, name, top)
    except OSError:
        return
    if fd is None:
        return
    try:
        levels = [(name, (top.st_dev, top.st_ino), os.listdir(fd))]  # (name, key, names still to remove)
        while levels:
            below = None
            pending = levels[-1][2]
            while pending and below is None:
                entry = pending.pop()
                try:
                    info = os.lstat(entry, dir_fd=fd)
                except OSError:
                    continue
                if not stat.S_ISDIR(info.st_mode):
                    with contextlib.suppress(OSError):
                        os.unlink(entry, dir_fd=fd)
                    continue
                with contextlib.suppress(OSError):
                    os.rmdir(entry, dir_fd=fd)  # an empty folder: no need to go in
                    continue
                if info.st_dev != top.st_dev:
                    continue
                below = _open_dir(fd, entry, info)
                if below is not None:
                    try:
                        names = os.listdir(below)
                    except OSError:
                        os.close(below)
                        below = None
                        continue
                    os.close(fd)
                    fd = below
                    levels.append((entry, (info.st_dev, info.st_ino), names))
            if below is not None:
                continue
            done = levels.pop()
            if not levels:
                break
            up = os.open("..", os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC, dir_fd=fd)
            info = os.fstat(up)
            os.close(fd)
            fd = up
            if (info.st_dev, info.st_ino) != levels[-1][1]:  # moved meanwhile: stop rather than guess
                return
            with contextlib.suppress(OSError):
                os.rmdir(done[0], dir_fd=fd)
    except OSError:
        return
    finally:
        os.close(fd)
    with contextlib.suppress(OSError):
        os.rmdir(name, dir_fd=parent)


def _remove_folder() -> None:
    """Removes the run's folder (by descriptor: no link is followed), as the process the app started
    ends: it outlives the run, and ends soon after the app however the app ended (SIGHUP, a kill)."""
    if _folder is not None:
        remove_tree(_folder[0], _folder[1])
