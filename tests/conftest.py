"""Shared fixtures: every test runs with QUIZAPP_HOME in its own temporary folder."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

settings.register_profile(
    "default", deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
settings.load_profile("default")


def pytest_collection_finish(session: pytest.Session) -> None:
    """Moves what collection built (every module, the bundled bank some test files load at import) out of
    the collector's sight, so the collection after each test (no_store_left_open) walks only what tests
    made since: it took 20-150 ms a test, over 1,600 tests, walking the same import-time objects."""
    from quizapp.collector import freeze_survivors

    freeze_survivors()


@pytest.fixture(autouse=True)
def isolated_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """Keeps every test out of the real home directory, even one that unsets QUIZAPP_HOME: the platform
    folders point into this test's tmp folder too."""
    home = tmp_path / "quizapp-home"
    home.mkdir()
    monkeypatch.setenv("QUIZAPP_HOME", str(home))
    for name in ("XDG_DATA_HOME", "XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_STATE_HOME"):
        monkeypatch.setenv(name, str(tmp_path / "xdg" / name.lower()))
    monkeypatch.delenv("NO_COLOR", raising=False)
    yield home
    from quizapp.content import deck_cache

    deck_cache.finish_cache_writes()  # a deck cache written in the background lands in this test's folder


@pytest.fixture(autouse=True)
def no_store_left_open() -> Iterator[None]:
    """After each test a collection finds any store it dropped unclosed: Store's ResourceWarning (the
    check Python 3.13's sqlite3 makes) then fails this test, not a later one. What the test's apps froze
    is given back first (quizapp.collector.give_back): frozen, every app of the session stayed in memory
    (10k objects a TUI test), and a study screen's release made one collection walk them all."""
    from quizapp.collector import frozen_count, give_back

    before = frozen_count()
    yield
    give_back(before)
