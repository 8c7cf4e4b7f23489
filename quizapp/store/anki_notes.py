"""Provides the notes of an earlier Anki export, read back from its package (a zip holding SQLite).

The Anki export keeps each unchanged note's modification time so a re-import updates only the notes
that changed; it needs the previous package's notes, and SQL lives only in quizapp/store.
"""

from __future__ import annotations

import sqlite3
import tempfile
import zipfile
from pathlib import Path

from quizapp.store.connection import connect


def previous_anki_notes(path: Path) -> dict[str, tuple[int, str, str]]:
    """guid -> (mod, fields, tags) of the notes in the package at `path`; empty when there is none or it
    cannot be read (then every note counts as new, as on a first export)."""
    if not path.is_file():
        return {}
    try:
        with zipfile.ZipFile(path) as z, tempfile.TemporaryDirectory() as tmp:
            z.extract("collection.anki2", tmp)
            conn = connect(Path(tmp) / "collection.anki2")  # the file at that path may be anyone's
            try:
                rows = conn.execute("SELECT guid, mod, flds, tags FROM notes").fetchall()
            finally:
                conn.close()
    except (OSError, KeyError, zipfile.BadZipFile, sqlite3.Error):
        return {}
    return {str(g): (int(m), str(f), str(t)) for g, m, f, t in rows}
