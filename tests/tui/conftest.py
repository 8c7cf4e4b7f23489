"""Fixtures for the TUI tests: the bundled catalog loaded once, a fresh database, a fixed clock and seed."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from quizapp.content.catalog import Catalog, load_catalog
from quizapp.tui.app import QuizApp, make_app
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
