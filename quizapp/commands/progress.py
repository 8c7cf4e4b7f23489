"""Provides the progress files: `export anki|progress FILE` and `import progress FILE`.

Each opens the database named by the global `--db` (or the default one) and reads the clock once, here at
the edge (quizapp.commands.opening); everything below takes `now` as an argument.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import zipfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from quizapp.commands.opening import open_store_for, read_clock
from quizapp.config import for_run
from quizapp.content.catalog import load_catalog
from quizapp.errors import QuizappError
from quizapp.paths import NotARegularFile, check_target
from quizapp.progress import format as progress_format
from quizapp.progress.reader import check_progress_file, import_progress
from quizapp.progress.writer import export_progress
from quizapp.reports.anki import export_anki
from quizapp.terminal_text import terminal_text


@contextmanager
def _file_for(name: str, mode: str) -> Iterator[str]:
    """The path to write or read: `name` itself, or for `-` a private temporary file that is copied to
    standard output afterwards (mode "w") or filled from standard input first (mode "r")."""
    if name != "-":
        yield name
        return
    with tempfile.TemporaryDirectory(prefix="quizapp-") as folder:
        path = Path(folder) / "progress.json"
        if mode == "r":
            _copy_stdin(path)
        yield str(path)
        if mode == "w" and path.exists():
            data = path.read_bytes()
            if sys.stdout.isatty():  # shown, not kept: JSON leaves bidi and C1 characters as they are
                data = terminal_text(data.decode("utf-8")).encode("utf-8")
            sys.stdout.buffer.write(data)
            sys.stdout.flush()


def _copy_stdin(path: Path) -> None:
    """Standard input into `path`, streamed, stopping at the progress file's size limit (issue 28: a
    2 GiB stream is refused after MAX_FILE_BYTES, not copied whole to the temporary folder first)."""
    copied = 0
    with path.open("wb") as fh:
        while block := sys.stdin.buffer.read(1 << 20):
            copied += len(block)
            limit = progress_format.MAX_FILE_BYTES  # read here: a test lowers it
            if copied > limit:
                raise QuizappError(
                    f"Standard input holds more than {limit >> 30} GiB: far larger than any quizapp "
                    "progress file; is it the right stream?"
                )
            fh.write(block)


def _check_replace(file: str, what: str, force: bool) -> None:
    """Refuses to overwrite a file that is not an earlier export of the same kind (unless --force)."""
    path = Path(file)
    if file == "-":
        return

    try:
        check_target(path)  # before anything opens it: reading a FIFO to see what it holds waits for ever
    except NotARegularFile as exc:
        raise QuizappError(f"Cannot write {path}: {exc.strerror}; give a file name.") from exc
    if force or not path.exists():
        return
    if path.is_dir():
        raise QuizappError(f"{path} is a folder; give a file name.")
    if what == "progress":
        with path.open("rb") as fh:
            ours = b'"format": "quizapp-progress"' in fh.read(200)
    else:
        ours = False
        if zipfile.is_zipfile(path):
            with zipfile.ZipFile(path) as package:
                ours = "collection.anki2" in package.namelist()
    if not ours:
        kind = "progress backup" if what == "progress" else "Anki package"
        raise QuizappError(
            f"{path} exists and is not a quizapp {kind}; it was left untouched. "
            "Choose another name, or pass --force to replace it."
        )


def run_export(args: argparse.Namespace) -> int:
    _check_replace(args.file, args.what, args.force)
    now = read_clock()
    if args.what == "progress":
        if args.deck:
            raise QuizappError("--deck applies to `export anki` only; a progress backup holds everything.")
        with open_store_for(args, now) as store, _file_for(args.file, "w") as target:
            counts = export_progress(store, target, now=now)
        where = "standard output" if args.file == "-" else args.file
        print(
            f"Wrote {where}: {counts.cards:,} cards, {counts.reviews:,} reviews, "
            f"{counts.interviews:,} interviews, {counts.settings:,} settings.",
            file=sys.stderr if args.file == "-" else sys.stdout,
        )
        return 0
    if args.file == "-":
        raise QuizappError("An Anki package is a binary file; give a file name ending in .apkg.")

    result = export_anki(load_catalog(for_run(args).deck_dirs), args.file, now=now, deck_ids=args.deck)
    print(f"Wrote {result.path}: {result.notes:,} cards in {result.decks} decks.")
    for question_id, reason in result.skipped:
        print(f"quizapp: skipped {question_id}: {reason}", file=sys.stderr)
    return 0


def run_import(args: argparse.Namespace) -> int:
    with _file_for(args.file, "r") as source:
        checked = check_progress_file(source)  # a foreign file is refused before the database is opened
        now = read_clock()
        with open_store_for(args, now) as store:
            counts = import_progress(store, checked, now=now)  # checked as it loads into a fresh file
            where = store.path
    print(
        f"Imported into {where}: {counts.cards:,} cards, {counts.reviews:,} reviews, "
        f"{counts.interviews:,} interviews, {counts.settings:,} settings."
    )
    if counts.backup is not None:
        print(f"The progress it replaced was kept in {counts.backup}.")
    return 0
