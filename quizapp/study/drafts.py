"""Provides the drafts of code answers: one file per question in the data folder, written atomically, so
what was typed survives Escape, a crash or a restart, and `$EDITOR` can edit the very file."""

from __future__ import annotations

import os
from pathlib import Path

from quizapp import paths


def draft_path(question_id: str) -> Path:
    """Where the draft of a code question lives (question ids are slugs, safe as file names)."""
    return paths.data_dir() / "drafts" / f"{question_id}.py"


def load_draft(question_id: str) -> str | None:
    try:
        return draft_path(question_id).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None


def save_draft(question_id: str, text: str) -> Path:
    """Writes the draft (a temporary file renamed over the old one: never half a draft)."""
    target = draft_path(question_id)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = paths.temp_beside(target)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(text)
        os.replace(tmp, target)
    finally:
        tmp.unlink(missing_ok=True)
    return target
