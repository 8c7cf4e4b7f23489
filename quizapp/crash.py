"""Provides the crash log: the one place a bug's traceback goes, so the user sees one line, never a trace."""

from __future__ import annotations

import traceback


def write_crash_log(exc: BaseException | None = None) -> str:
    """Appends the traceback of `exc` (or of the exception being handled) to crash.log in the data folder,
    and returns where it went, or why it could not be written."""
    from quizapp.paths import data_dir

    text = "".join(traceback.format_exception(exc)) if exc is not None else traceback.format_exc()
    try:
        path = data_dir() / "crash.log"
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("a", encoding="utf-8") as fh:
            fh.write(text + "\n")
        return str(path)
    except OSError:
        return "nowhere: the data folder is not writable"
