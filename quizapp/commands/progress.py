"""Provides the progress commands: `stats`, `export anki|progress FILE`, `import progress FILE`.

Each opens the database named by the global `--db` (or the default one) and reads the clock once, here at
the edge; everything below takes `now` as an argument.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from typing import Any

from quizapp.errors import QuizappError


def register(sub: argparse._SubParsersAction[Any]) -> None:
    """Adds `stats`, `export` and `import`."""
    stats = sub.add_parser(
        "stats",
        help="show reviews, retention, mastery, the due forecast and misconceptions",
        description="Your progress in the terminal: a review calendar, retention, mastery per deck, "
        "the 30-day due forecast and your most frequent mistakes.",
    )
    stats.add_argument("--json", action="store_true", help="print the numbers as JSON")
    stats.set_defaults(func=run_stats)

    export = sub.add_parser(
        "export",
        help="export questions to Anki, or progress to a JSON backup",
        description="anki: every question as an Anki card (.apkg), numeric ones with their derivation. "
        "progress: everything you did, as one JSON file that `quizapp import progress` restores. "
        "FILE - writes a progress backup to standard output.",
    )
    export.add_argument(
        "what", choices=("anki", "progress"), help="anki: an .apkg deck; progress: JSON backup"
    )
    export.add_argument("file", metavar="FILE", help="the file to write (FILE.apkg or FILE.json), or -")
    export.add_argument(
        "--deck", action="append", metavar="ID", help="anki only: export just this deck (repeatable)"
    )
    export.add_argument(
        "--force", action="store_true", help="replace FILE even if it is not an earlier export of this kind"
    )
    export.set_defaults(func=run_export)

    imp = sub.add_parser(
        "import",
        help="restore progress from a JSON backup (the current one is kept aside)",
        description="Replace your progress with a backup written by `quizapp export progress`; the "
        "progress it replaces is kept in a file beside the database. FILE - reads standard input.",
    )
    imp.add_argument("what", choices=("progress",), help="what the file holds")
    imp.add_argument("file", metavar="FILE", help="a file written by `quizapp export progress`, or -")
    imp.set_defaults(func=run_import)

    listing = sub.add_parser(
        "suspended",
        help="list the questions you suspended (Ctrl+T while studying)",
        description="The questions taken out of every queue, one id per line; `quizapp unsuspend ID` "
        "brings one back.",
    )
    listing.set_defaults(func=run_suspended)
    back = sub.add_parser(
        "unsuspend",
        help="bring suspended questions back into the queues",
        description="Brings the suspended questions back, with their schedule as it was; --all brings "
        "back every one.",
    )
    back.add_argument("ids", nargs="*", metavar="ID", help="question ids, as `quizapp suspended` lists them")
    back.add_argument("--all", action="store_true", help="every suspended question")
    back.set_defaults(func=run_unsuspend)


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
                from quizapp.terminal_text import terminal_text

                data = terminal_text(data.decode("utf-8")).encode("utf-8")
            sys.stdout.buffer.write(data)
            sys.stdout.flush()


def _copy_stdin(path: Path) -> None:
    """Standard input into `path`, streamed, stopping at the progress file's size limit (issue 28: a
    2 GiB stream is refused after MAX_FILE_BYTES, not copied whole to the temporary folder first)."""
    from quizapp.progress.format import MAX_FILE_BYTES

    copied = 0
    with path.open("wb") as fh:
        while block := sys.stdin.buffer.read(1 << 20):
            copied += len(block)
            if copied > MAX_FILE_BYTES:
                raise QuizappError(
                    f"Standard input holds more than {MAX_FILE_BYTES >> 30} GiB: far larger than any quizapp "
                    "progress file; is it the right stream?"
                )
            fh.write(block)


def _now() -> datetime:
    """The local time, aware, so "today" in stats is the user's day ($QUIZAPP_TODAY moves it)."""
    from quizapp.workspace import system_now

    return system_now()


def open_store_for(args: argparse.Namespace, now: datetime) -> Any:
    """The store named by the global `--db`, with config.toml's setting defaults and the daily backup of the
    default database; anything opening repaired, or a backup that failed, is said on stderr."""
    return workspace_for(args, now).store


def workspace_for(args: argparse.Namespace, now: datetime) -> Any:
    """The workspace of this run (quizapp.workspace): the store named by `--db`, and the catalog of the
    bundled decks and the user's (loaded on first use); anything opening repaired is said on stderr."""
    from quizapp.config import for_run
    from quizapp.workspace import open_workspace

    ws = open_workspace(getattr(args, "db", None), clock=_now, user=for_run(args), report=_warn, now=now)
    if ws.store.notice:
        print(f"quizapp: {ws.store.notice}", file=sys.stderr)
    return ws


def _warn(message: str) -> None:
    print(f"quizapp: warning: {message}", file=sys.stderr)


def run_stats(args: argparse.Namespace) -> int:
    from quizapp.reports.stats import compute_stats
    from quizapp.reports.text import render_stats

    now = _now()
    with workspace_for(args, now) as ws:
        try:  # the stats still print (with deck ids, without readiness) if the decks cannot be loaded
            catalog = ws.catalog
            headers = catalog.deck_headers()
            questions = ws.plan_questions  # a daily budget's plan sets the new-card count, as in the app
            plan = ws.plan(now)  # readiness and that count, computed once
        except (ImportError, QuizappError, OSError):
            catalog, headers, questions, plan = None, None, None, None
        stats = compute_stats(
            ws.store, now=now, decks=headers, questions=questions, catalog=catalog, plan=plan
        )
    if args.json:
        print(json.dumps(dataclasses.asdict(stats), default=str, indent=2))
    else:
        titles = {deck.id: deck.title for deck in headers or ()}
        print(render_stats(stats, deck_titles=titles))
    return 0


def run_suspended(args: argparse.Namespace) -> int:
    from quizapp.store.cards import suspended_ids

    with open_store_for(args, _now()) as store:
        ids = suspended_ids(store)
    for qid in ids:
        print(qid)
    if not ids:
        print("No question is suspended.", file=sys.stderr)
    return 0


def run_unsuspend(args: argparse.Namespace) -> int:
    from quizapp.store.cards import QuestionRef, get_card, set_suspended, suspended_ids

    with open_store_for(args, _now()) as store:
        suspended = suspended_ids(store)
        wanted = list(suspended) if args.all else list(args.ids)
        if not wanted:
            print("quizapp: name the questions to bring back, or pass --all", file=sys.stderr)
            return 2
        unknown = [qid for qid in wanted if qid not in suspended]
        if unknown:
            print(f"quizapp: not suspended: {', '.join(unknown)}", file=sys.stderr)
            return 2
        for qid in wanted:
            card = get_card(store, qid)
            assert card is not None
            set_suspended(store, QuestionRef(qid, card.deck_id), False)
            print(f"back in the queues: {qid}")
    return 0


def _check_replace(file: str, what: str, force: bool) -> None:
    """Refuses to overwrite a file that is not an earlier export of the same kind (unless --force)."""
    path = Path(file)
    if file == "-":
        return
    from quizapp.paths import NotARegularFile, check_target

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
        import zipfile

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
    now = _now()
    if args.what == "progress":
        from quizapp.progress.writer import export_progress

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
    from quizapp.config import for_run
    from quizapp.content.catalog import load_catalog
    from quizapp.reports.anki import export_anki

    result = export_anki(load_catalog(for_run(args).deck_dirs), args.file, now=now, deck_ids=args.deck)
    print(f"Wrote {result.path}: {result.notes:,} cards in {result.decks} decks.")
    for question_id, reason in result.skipped:
        print(f"quizapp: skipped {question_id}: {reason}", file=sys.stderr)
    return 0


def run_import(args: argparse.Namespace) -> int:
    from quizapp.progress.reader import check_progress_file, import_progress

    with _file_for(args.file, "r") as source:
        check_progress_file(source)  # a foreign file is refused before the database is opened
        now = _now()
        with open_store_for(args, now) as store:
            counts = import_progress(store, source, now=now)  # checked as it loads into a fresh file
            where = store.path
    print(
        f"Imported into {where}: {counts.cards:,} cards, {counts.reviews:,} reviews, "
        f"{counts.interviews:,} interviews, {counts.settings:,} settings."
    )
    if counts.backup is not None:
        print(f"The progress it replaced was kept in {counts.backup}.")
    return 0
