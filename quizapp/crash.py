"""Provides the crash log: the one place a bug's traceback goes, so the user sees one line, never a trace."""

from __future__ import annotations

import traceback

from quizapp.paths import data_dir


def write_crash_log(exc: BaseException | None = None) -> str:
    """Appends the traceback of `exc` (or of the exception being handled) to crash.log in the data folder,
    and returns where it went, or why it could not be written."""

    text = "".join(traceback.format_exception(exc)) if exc is not None else traceback.format_exc()
    return write_crash_text(text)


def write_crash_text(text: str) -> str:
    """Appends `text` (a traceback already rendered) to crash.log; returns where it went, or why not."""
    try:
        path = data_dir() / "crash.log"
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("a", encoding="utf-8") as fh:
            fh.write(text + "\n")
        return str(path)
    except OSError:
        return "nowhere: the data folder is not writable"
