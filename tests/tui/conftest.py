"""Fixtures for the TUI tests: the bundled catalog loaded once, a fresh database, a fixed clock and seed."""

from __future__ import annotations

import sqlite3
import threading
import traceback
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

import pytest

from quizapp.content.catalog import Catalog, load_catalog
from quizapp.tui.app import QuizApp, make_app
from quizapp.tui.app_backend import BackendApp
from quizapp.tui.messages import BackendLoaded
from tests.tui.helpers import NOW, SEED


@pytest.fixture(scope="session")
def catalog(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Catalog]:
    """The bundled bank, loaded once for the whole run (without the user cache: tests own no home yet)."""
    loaded = load_catalog(use_cache=False)
    assert loaded.questions, f"the bundled bank did not load: {loaded.skipped[:2]}"
    yield loaded


@pytest.fixture
def db_file(tmp_path: Path) -> Path:
    return tmp_path / "progress.db"


@pytest.fixture
def new_app(catalog: Catalog, db_file: Path) -> Callable[..., QuizApp]:
    """Builds an app on the shared catalog, a fresh database, a fixed clock and a fixed seed."""

    def build(**kw: Any) -> QuizApp:
        kw.setdefault("now", NOW)
        kw.setdefault("rng_seed", SEED)
        return make_app(db_path=db_file, catalog=catalog, cursor_blink=False, **kw)

    return build


@dataclass(frozen=True)
class StoreUse:
    """One statement the app ran on the event loop's thread, and the app code that ran it."""

    sql: str
    where: str


def _caller(stack: list[traceback.FrameSummary]) -> str | None:
    """The TUI code that led to a statement ("file:line in function"), or None when a test's own code
    reached the store first (reading the database for an assert, directly or through the core)."""
    for frame in reversed(stack):
        file = frame.filename.replace("\\", "/")
        if "/quizapp/tui/" in file:
            return f"{file}:{frame.lineno} in {frame.name}"
        if "/tests/" in file and not file.endswith("conftest.py"):
            return None
    return None


class _WatchedConnection:
    """The store's connection, seen through a wrapper that notes statements run on the event loop's thread.

    A wrapper, not sqlite3's trace callback: SQLite runs that callback while holding its connection mutex,
    and it needs the GIL, so a second thread holding the GIL while it waits for the mutex (reading a row
    does) deadlocked the test. The app itself sets no callbacks, so it cannot meet that deadlock."""

    def __init__(
        self, conn: sqlite3.Connection, loop_thread: threading.Thread, found: list[StoreUse]
    ) -> None:
        self._conn = conn
        self._loop_thread = loop_thread
        self._found = found

    def _note(self, sql: str) -> None:
        if threading.current_thread() is not self._loop_thread:
            return
        where = _caller(traceback.extract_stack()[:-2])
        if where is not None:
            self._found.append(StoreUse(sql.strip()[:80], where))

    def execute(self, sql: str, *args: Any) -> sqlite3.Cursor:
        self._note(sql)
        return self._conn.execute(sql, *args)

    def executemany(self, sql: str, *args: Any) -> sqlite3.Cursor:
        self._note(sql)
        return self._conn.executemany(sql, *args)

    def executescript(self, sql: str) -> sqlite3.Cursor:
        self._note(sql)
        return self._conn.executescript(sql)

    def cursor(self) -> sqlite3.Cursor:
        self._note("(a cursor)")
        return self._conn.cursor()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._conn, name)


@pytest.fixture(autouse=True)
def no_internal_errors(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Fails any TUI test in which the app reported a bug of its own ("Internal error": what the guard
    shows for an exception that is not a QuizappError), unless the test is marked `internal_error` (it
    checks that report itself). A user would have seen the notice, even if the test's asserts passed."""
    from quizapp.errors import QuizappError

    found: list[str] = []
    report = QuizApp.report_error

    def noted(app: QuizApp, exc: BaseException) -> None:
        if not isinstance(exc, QuizappError):
            found.append(repr(exc))
        report(app, exc)

    monkeypatch.setattr(QuizApp, "report_error", noted)
    yield
    if found and request.node.get_closest_marker("internal_error") is None:
        pytest.fail(f"the app reported {len(found)} internal error(s): {'; '.join(found[:5])}")


@pytest.fixture(autouse=True)
def no_animations(monkeypatch: pytest.MonkeyPatch) -> None:
    """Scrolls jump instead of gliding (as with TEXTUAL_ANIMATIONS=none): a test that reads a scroll
    position reads where it ends, not a point of the glide a busy machine happened to reach."""
    import textual.constants

    monkeypatch.setattr(textual.constants, "TEXTUAL_ANIMATIONS", "none")


@pytest.fixture(autouse=True)
def store_off_the_event_loop(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[StoreUse]]:
    """Fails any TUI test in which the app touches the progress database from the event loop's thread
    once start-up has handed the backend over: every statement through the store's connection is noted
    with its thread, and those run on the loop's thread by app code, rather than by the test's own asserts,
    are reported at teardown. (A progress import swaps in a new connection, which is not watched.)"""
    found: list[StoreUse] = []
    # patched where it is defined: Textual calls the on_* handler of every class in the app's MRO, so
    # one set on QuizApp would run besides BackendApp's own (the backend handed over twice)
    handed_over = BackendApp.on_backend_loaded

    def observe(app: BackendApp, message: BackendLoaded) -> None:
        store = message.backend.store
        watched = _WatchedConnection(store.conn, threading.current_thread(), found)  # on the event loop
        store.conn = cast(sqlite3.Connection, watched)
        handed_over(app, message)

    monkeypatch.setattr(BackendApp, "on_backend_loaded", observe)
    yield found
    if found:
        places = Counter((use.where, use.sql) for use in found)
        lines = "\n".join(f"  {n}x {sql}  <- {where}" for (where, sql), n in places.most_common(20))
        pytest.fail(f"{len(found)} store statement(s) ran on the event loop after start-up:\n{lines}")
