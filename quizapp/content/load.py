"""Provides deck loading: finding deck files, parsing and validating them, and the validated-deck cache.

A file's size is checked before it is read (read_deck_bytes), then it is read once and hashed (sha256).
If the cache holds a result for that hash, this app version and this engine code, the deck comes back from
JSON without parsing YAML, importing the engine or running the seed checks; its questions are turned into
models only when first used (quizapp.content.deck). Otherwise the text is checked against the limits of
quizapp.content.guards (aliases included) before any parser sees it, then the YAML
is parsed with yaml_rs (PyYAML's C loader as a fallback), validated against the schema and checked by
quizapp.content.checks.static, and the result (a deck or its problems) is cached. A cache file carries the
sha256 of
its own payload, so a damaged one is noticed and rebuilt, never trusted and never a crash.

The cache is written by one background thread, so a caller has its catalog before the deck's JSON is
serialised (and the parsed YAML freed): this process keeps the outcome in memory meanwhile, another one
sees no file or a whole one (written to a temporary name, then renamed), and the interpreter waits for
the writes at exit. `finish_cache_writes()` waits for them sooner. While a big file is parsed, another
thread checks the templates at its head (quizapp.content.checks.during_parse).
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
from collections.abc import Iterable
from concurrent.futures import Future, ThreadPoolExecutor, wait
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

try:
    import yaml_rs
except ImportError:  # pragma: no cover (a dependency; without it, PyYAML's C loader parses: see parse_yaml)
    yaml_rs = None  # type: ignore[assignment]

from quizapp import __version__, paths
from quizapp.collector import no_collections
from quizapp.content import guards
from quizapp.content.deck import DeckData, Parsed, question_adapter
from quizapp.content.memos import MEMOS
from quizapp.content.problems import (
    Issue,
    Problem,
    compose,
    field_text,
    issue_from_error,
    locate,
    split_question,
    syntax_problem,
)
from quizapp.terminal_text import terminal_text

if TYPE_CHECKING:
    from quizapp.content.checks.during_parse import Ahead
    from quizapp.content.schema import Deck

CACHE_FORMAT = 2
"""2: the header carries each deck's prerequisites and each question's difficulty and tags."""
DECK_SUFFIXES = (".yaml", ".yml")


@dataclass(frozen=True)
class Loaded:
    """The outcome for one file: a valid deck, or the problems that kept it out."""

    path: Path
    deck: DeckData | None
    problems: tuple[Problem, ...]
    digest: str = ""
    deck_id: str = ""
    """The id the file declares, even when it failed, for "skipped deck X" messages."""


@dataclass(frozen=True)
class _Outcome:
    """A cached outcome, independent of where the file lives: problems without a file name."""

    deck: DeckData | None
    problems: tuple[tuple[int, int, str, str, str], ...]
    deck_id: str = ""


_WRITER: list[ThreadPoolExecutor] = []
_PENDING: list[Future[None]] = []


def reset_memos() -> None:
    """Forgets every content memo, as a fresh process would (for benchmarks and tests). The on-disk cache
    stays, its pending writes finished first, so a load after this one finds them."""
    finish_cache_writes()
    MEMOS.reset()


def finish_cache_writes() -> None:
    """Waits until every cache write started so far is done (written, or given up on)."""
    while _PENDING:
        done, _ = wait(list(_PENDING))
        for future in done:
            _PENDING.remove(future)


# --------------------------------------------------------------------------- finding files


def default_sources() -> tuple[Path, ...]:
    """The bundled decks and the user's own decks folder."""
    return (paths.bundled_content_dir(), paths.user_decks_dir())


def find_deck_files(sources: Iterable[Path | str]) -> tuple[list[Path], list[Problem]]:
    """Deck files under each source (a file, or a folder searched recursively), each listed once."""
    found: list[Path] = []
    seen: set[Path] = set()
    problems: list[Problem] = []
    for source in sources:
        path = Path(source).expanduser()
        if path.is_dir():
            files = []
            for file in sorted(p for p in path.rglob("*") if p.suffix in DECK_SUFFIXES and p.is_file()):
                if _leaves(file, path):  # a shared folder's link must not make us read (and cache) any file
                    message = "skipped: a link to a file outside this decks folder"
                    problems.append(Problem(display_path(file), 1, 1, "", "", message))
                else:
                    files.append(file)
        elif path.is_file():
            files = [path]
        else:
            if path != paths.user_decks_dir():  # the user's folder may simply not exist yet
                problems.append(Problem(display_path(path), 1, 1, "", "", "no such deck file or folder"))
            continue
        for file in files:
            key = file.resolve()
            if key not in seen:
                seen.add(key)
                found.append(file)
    return found, problems


def _leaves(file: Path, folder: Path) -> bool:
    """Whether `file`, links followed, lies outside `folder`."""
    try:
        return not file.resolve().is_relative_to(folder.resolve())
    except OSError:
        return True


def display_path(path: Path) -> str:
    """A path as messages show it: relative to the working folder when inside it, and passed through
    terminal_text (a shared folder's file name can hold an escape sequence)."""
    try:
        return terminal_text(str(path.resolve().relative_to(Path.cwd())))
    except (ValueError, OSError):
        return terminal_text(str(path))


# --------------------------------------------------------------------------- one file


class DeckTooBig(Exception):
    """A deck file refused before it was read: its size, or its kind (a FIFO, a device)."""


def read_deck_bytes(path: Path) -> bytes:
    """The file's bytes, its size checked with fstat before a byte is read: a sparse 3 GB file is refused
    unread (reading it whole took 6.3 GB of memory). At most one byte past the limit is ever read, so a
    file that grows meanwhile, or one whose size the system does not tell, is refused as well. Opened
    without blocking: a FIFO put in the file's place is refused, never waited on. Raises OSError, or
    DeckTooBig with the user's words."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    fd = os.open(path, flags)
    with os.fdopen(fd, "rb") as fh:  # buffered: read(n) reads on until n bytes or the end
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise DeckTooBig("not a regular file (a FIFO, a device or a socket); a deck is a file")
        if info.st_size > guards.MAX_DECK_BYTES:
            raise DeckTooBig(_too_big(info.st_size))
        raw = fh.read(guards.MAX_DECK_BYTES + 1)
    if len(raw) > guards.MAX_DECK_BYTES:
        raise DeckTooBig(_too_big(len(raw)))
    return raw


def _too_big(size: int) -> str:
    limit = guards.MAX_DECK_BYTES >> 20
    shown = f"{size / 2**30:.1f} GB" if size >= 2**30 else f"{size / 2**20:.1f} MB"
    return f"the file is {shown}: larger than the {limit} MB a deck may be (it was not read)"


def load_file(path: Path, *, use_cache: bool = True) -> Loaded:
    """Loads one deck file: from the cache when its content is unchanged, else parsed and checked."""
    try:
        raw = read_deck_bytes(path)
    except OSError as exc:
        problem = Problem(display_path(path), 1, 1, "", "", f"cannot read the file: {exc.strerror}")
        return Loaded(path, None, (problem,))
    except DeckTooBig as exc:
        return Loaded(path, None, (Problem(display_path(path), 1, 1, "", "", str(exc)),))
    digest = hashlib.sha256(raw).hexdigest()
    key = _cache_key(digest)
    outcome = MEMOS.outcomes.get(key) if use_cache else None
    if outcome is None and use_cache:
        outcome = _read_cache(key)
    if outcome is None:
        outcome, parsed = _validate(raw, proven=_proven_file() if use_cache else None)
        if use_cache:
            _write_later(_cache_file(key), outcome, parsed)
            del parsed  # the writer frees it, off the caller's path
    if use_cache:
        MEMOS.outcomes[key] = outcome
    problems = tuple(Problem(display_path(path), *p) for p in outcome.problems)
    return Loaded(path, outcome.deck, problems, digest, outcome.deck_id)


def control_warnings(path: Path) -> tuple[Problem, ...]:
    """Where a deck's text holds control characters or escape sequences, located. Loading already removes
    them (quizapp.terminal_text: deck text never drives the terminal); `validate` warns so the author can
    remove them. Files that fail to load have their own problems and get no warnings."""
    try:
        raw = read_deck_bytes(path)
    except (OSError, DeckTooBig):
        return ()
    if not guards.may_hold_controls(raw):
        return ()
    try:
        text = raw.decode("utf-8").removeprefix("\ufeff")
        if guards.text_problem(text) is not None:
            return ()
        data = parse_yaml(text)
    except (UnicodeDecodeError, ValueError):
        return ()
    if not isinstance(data, dict) or guards.data_problem(data) is not None:
        return ()
    _, found = guards.clean_text(data)
    if not found:
        return ()
    placed = _place([Issue(loc, message) for loc, message in found], text, data)
    return tuple(Problem(display_path(path), *p) for p in placed)


def parse_yaml(text: str) -> Any:
    """The fastest safe parse available: yaml_rs, else PyYAML's C safe loader. Raises ValueError."""
    if yaml_rs is None:  # pragma: no cover (yaml_rs is a dependency; the fallback keeps odd installs working)
        import yaml  # only without yaml_rs: importing PyYAML costs the catalog's start about 10 ms

        loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
        try:
            with no_collections():
                return yaml.load(text, Loader=loader)
        except yaml.YAMLError as exc:
            raise ValueError(str(exc)) from None
    try:
        with no_collections():
            return yaml_rs.loads(text, parse_datetime=False)
    except BaseException as exc:  # a Rust panic arrives as PanicException, a BaseException: skip the deck
        if type(exc).__name__ != "PanicException":
            raise
        raise ValueError(f"the YAML parser failed on this file: {exc}") from None


def _validate(raw: bytes, proven: Path | None = None) -> tuple[_Outcome, Parsed | None]:
    """Parses and checks a file's bytes; every problem in the file is reported, not just the first."""
    from pydantic import ValidationError

    from quizapp.content.checks import static as static_checks
    from quizapp.content.schema import Deck

    try:
        text = raw.decode("utf-8").removeprefix("\ufeff")  # a byte-order mark some editors write
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        return _Outcome(None, ((line, 1, "", "", "the file is not UTF-8 text"),)), None
    refused = guards.text_problem(text)
    if refused is not None:  # before any parser: a C parser's stack must never meet such a file
        return _Outcome(None, ((*refused[:2], "", "", refused[2]),)), None
    ahead = _check_ahead(text, proven)
    try:
        data = parse_yaml(text)
    except ValueError as exc:
        return _Outcome(None, (syntax_problem(text, str(exc)),)), None
    finally:
        if ahead is not None:
            ahead.stop()
    if not isinstance(data, dict):
        msg = "a deck file is a mapping with id, title, topic, description and questions"
        return _Outcome(None, ((1, 1, "", "", msg),)), None
    too_big = guards.data_problem(data)
    if too_big is not None:
        qid, inner = split_question(*too_big[:1], data)
        line = guards.line_of_id(text, qid)  # composing a huge file for its marks would take seconds
        return _Outcome(None, ((line, 1, qid, field_text(inner), too_big[1]),)), None
    if guards.may_hold_controls(raw):
        data, _ = guards.clean_text(data)
    issues: list[Issue] = []

    deck: Deck | None = None
    with no_collections():
        try:
            deck = Deck.model_validate(data)
        except ValidationError as exc:
            issues.extend(issue_from_error(e, data) for e in exc.errors())
    questions = _valid_questions(deck, data, issues)
    keys: list[str | None] = []
    if questions:
        if proven is not None:
            static_checks.remember_proven(proven)
        models = [question for _, question in questions]
        raws = [data["questions"][index] for index, _ in questions]
        keys = [static_checks.signature(question, item) for question, item in zip(models, raws, strict=True)]
        try:
            with no_collections():
                found = static_checks.check_questions(models, raws, keys)
        except (MemoryError, OverflowError, ValueError, RecursionError) as exc:
            # sizes or values no bound foresaw: this deck is skipped, the others load
            found = [[] for _ in questions]
            found[0] = [
                Issue((), "checking this question ran out of memory: its sizes or inputs are too large")
                if isinstance(exc, MemoryError)
                else Issue((), f"checking this deck's questions failed on a value too large: {exc}")
            ]
        for (index, _), problems in zip(questions, found, strict=True):
            if problems:
                issues.extend(Issue(("questions", index, *i.loc), i.message, i.offset) for i in problems)
        if proven is not None:
            static_checks.save_proven(proven)
    issues.extend(_duplicate_ids(questions))
    if deck is not None and not issues:  # then `questions` holds every question, in order
        return _Outcome(DeckData.from_deck(deck), (), deck.id), (data["questions"], keys)
    deck_id = data.get("id") if isinstance(data.get("id"), str) else ""
    return _Outcome(None, _place(issues, text, data), str(deck_id)), None


def _check_ahead(text: str, proven: Path | None) -> Ahead | None:
    """For a big file, a thread that proves templates while `text` is parsed
    (quizapp.content.checks.during_parse), told
    first which templates earlier runs proved."""
    from quizapp.content.checks import during_parse
    from quizapp.content.checks import static as static_checks

    if len(text) < during_parse.MIN_TEXT:
        return None

    if proven is not None:
        static_checks.remember_proven(proven)
    return during_parse.Ahead(text)


def _valid_questions(deck: Deck | None, data: dict[str, Any], issues: list[Issue]) -> list[tuple[int, Any]]:
    """The schema-valid questions with their index (validated one by one when the deck failed)."""
    from pydantic import ValidationError

    if deck is not None:
        return list(enumerate(deck.questions))
    items = data.get("questions")
    if not isinstance(items, list):
        return []

    bad = {i.loc[1] for i in issues if len(i.loc) >= 2 and i.loc[0] == "questions"}
    out = []
    for index, item in enumerate(items):
        if index not in bad:
            try:
                out.append((index, question_adapter().validate_python(item)))
            except ValidationError:  # pragma: no cover (already reported by the deck validation)
                continue
    return out


def _duplicate_ids(questions: list[tuple[int, Any]]) -> list[Issue]:
    ids = [question.id for _, question in questions]
    if len(set(ids)) == len(ids):  # the usual case, told at C speed
        return []
    first: dict[str, int] = {}
    issues = []
    for index, question in questions:
        if question.id in first:
            issues.append(
                Issue(
                    ("questions", index, "id"),
                    f"duplicate question id {question.id!r}",
                    also=("questions", first[question.id], "id"),
                )
            )
        else:
            first[question.id] = index
    return issues


def _place(issues: list[Issue], text: str, data: Any) -> tuple[tuple[int, int, str, str, str], ...]:
    """Gives each issue its line and column (composing the YAML once, on this error path only)."""
    root = compose(text)
    placed = []
    for issue in issues:
        line, col = locate(root, issue.loc, issue.offset, text)
        qid, inner = split_question(issue.loc, data)
        message = issue.message
        if issue.also is not None:
            message += f" (also at line {locate(root, issue.also)[0]})"
        placed.append((line, col, qid, field_text(inner), message))
    placed.sort(key=lambda p: (p[0], p[1]))
    return tuple(placed)


# --------------------------------------------------------------------------- the cache


def _code_stamp() -> str:
    """A hash of every source file an Instance depends on: the whole engine and the whole content package.

    Derived from the files' bytes rather than a hand-kept list, so no module can be forgotten; hashing
    about 60 small files costs about a millisecond and happens once per process.
    """
    if not MEMOS.code_stamp:
        package = Path(__file__).resolve().parent
        files = sorted((package.parent.parent / "engine").rglob("*.py")) + sorted(package.rglob("*.py"))
        files.append(package.parent / "terminal_text.py")  # what a deck's text is cleaned with
        digest = hashlib.sha256()
        for file in files:
            try:
                digest.update(file.name.encode() + b"\0" + file.read_bytes())
            except OSError:
                continue
        MEMOS.code_stamp.append(digest.hexdigest())
    return MEMOS.code_stamp[0]


def _proven_file() -> Path:
    """Where template signatures that passed the seed checks are remembered, per code version."""
    return paths.cache_dir() / f"templates-{_code_stamp()[:16]}-{__version__}.txt"


def _cache_key(digest: str) -> str:
    stamp = f"{digest}:{__version__}:{CACHE_FORMAT}:{_code_stamp()}"
    return hashlib.sha256(stamp.encode()).hexdigest()[:40]


def _cache_file(key: str) -> Path:
    return paths.cache_dir() / "decks" / f"{key}.json"


def _read_cache(key: str) -> _Outcome | None:
    """A cached outcome, or None when missing, unreadable or damaged (then the file is checked afresh)."""
    try:
        blob = _cache_file(key).read_bytes()
    except OSError:
        return None
    checksum, _, payload = blob.partition(b"\n")
    if hashlib.sha256(payload).hexdigest().encode() != checksum:
        return None
    try:
        if payload.startswith(b'{"problems"'):
            data = json.loads(payload)
            rows = tuple((int(a), int(b), str(c), str(d), str(e)) for a, b, c, d, e in data["problems"])
            return _Outcome(None, rows, str(data.get("id", "")))
        deck = DeckData.from_cache(payload)
        return _Outcome(deck, (), deck.id)
    except (ValueError, TypeError, KeyError, AttributeError):
        return None


def _write_later(target: Path, outcome: _Outcome, parsed: Parsed | None) -> None:
    """Hands the write to the writer thread; `target` is resolved now, where the caller's paths hold."""
    _PENDING[:] = [f for f in _PENDING if not f.done()]
    try:
        if not _WRITER:
            _WRITER.append(ThreadPoolExecutor(max_workers=1, thread_name_prefix="quizapp-cache"))
        _PENDING.append(_WRITER[0].submit(_write_cache, target, outcome, parsed))
    except RuntimeError:  # the interpreter is shutting down and takes no new thread: write it now
        _write_cache(target, outcome, parsed)


def _write_cache(target: Path, outcome: _Outcome, parsed: Parsed | None = None) -> None:
    """Writes atomically (temp file + rename); an unwritable cache folder only costs speed."""
    try:
        if outcome.deck is not None:
            parts = outcome.deck.to_cache(parsed)
        else:
            parts = [json.dumps({"problems": outcome.problems, "id": outcome.deck_id}).encode()]
    except (TypeError, ValueError):  # a value JSON cannot hold (PyYAML's dates): just do not cache
        return
    payload = b"".join(parts)
    try:
        target.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        fd, tmp = paths.temp_beside(target)  # private to the user (a deck's text is the author's)
    except OSError:
        return
    try:
        with os.fdopen(fd, "wb") as out:  # the checksum line, then the payload
            out.writelines([hashlib.sha256(payload).hexdigest().encode(), b"\n", payload])
        os.replace(tmp, target)
    except OSError:
        tmp.unlink(missing_ok=True)
        return
