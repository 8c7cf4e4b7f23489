"""Fixtures for the TUI tests: the bundled catalog loaded once, a fresh database, a fixed clock and seed."""

from __future__ import annotations

import threading
import traceback
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from quizapp.content.catalog import Catalog, load_catalog
from quizapp.tui.app import QuizApp, make_app
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


@pytest.fixture(autouse=True)
def store_off_the_event_loop(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[StoreUse]]:
    """Fails any TUI test in which the app touches the progress database from the event loop's thread
    once start-up has handed the backend over: every statement the store's connection runs is traced
    (sqlite3's trace callback runs in the thread that executes it), and those run on the loop's thread
    by app code, rather than by the test's own asserts, are reported at teardown."""
    found: list[StoreUse] = []
    handed_over = QuizApp.on_backend_loaded

    def observe(app: QuizApp, message: BackendLoaded) -> None:
        loop_thread = threading.current_thread()  # the message is handled on the event loop

        def traced(sql: str) -> None:
            if threading.current_thread() is not loop_thread:
                return
            where = _caller(traceback.extract_stack()[:-1])
            if where is not None:
                found.append(StoreUse(sql.strip()[:80], where))

        message.backend.store.conn.set_trace_callback(traced)
        handed_over(app, message)

    monkeypatch.setattr(QuizApp, "on_backend_loaded", observe)
    yield found
    if found:
        places = Counter((use.where, use.sql) for use in found)
        lines = "\n".join(f"  {n}x {sql}  <- {where}" for (where, sql), n in places.most_common(20))
        pytest.fail(f"{len(found)} store statement(s) ran on the event loop after start-up:\n{lines}")
