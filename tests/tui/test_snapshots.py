"""SVG snapshots of the screens a user sees most, at 80x24 (the smallest supported terminal).

Fixed clock, seed and catalog (two frozen decks in tests/tui/decks, so a growing question bank does not
change the pictures), cursor blink off: the pictures only change when the screens do. Update with
`pytest tests/tui/test_snapshots.py --snapshot-update`, and look at the new SVGs before committing them.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import Input, TextArea

from quizapp.content.catalog import Catalog, load_catalog
from quizapp.content.instance import Instance
from quizapp.tui.app import QuizApp
from quizapp.tui.screens.study import StudyScreen
from tests.tui.helpers import current, press, question_ids, seed_history

SMALL = (80, 24)
DECKS = Path(__file__).with_name("decks")
Snap = Callable[..., bool]


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    """The frozen snapshot decks only (overrides the bundled bank for this module)."""
    loaded = load_catalog([DECKS], include_default=False, use_cache=False)
    assert not loaded.skipped, loaded.skipped
    return loaded


def _has_heatmap(inst: Instance) -> bool:
    return inst.heatmap is not None and inst.kind in ("numeric", "tensor")


def _heatmap_question(catalog: Catalog) -> str:
    """The first numeric-answer question whose feedback draws attention weights."""
    return (question_ids(catalog, "tensor", _has_heatmap) + question_ids(catalog, "numeric", _has_heatmap))[0]


async def _wait(pilot: Pilot[Any]) -> None:
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()


def _drill_and(qid: str, then: Callable[[StudyScreen, Pilot[Any]], Awaitable[None]]) -> Callable[..., Any]:
    async def run_before(pilot: Pilot[Any]) -> None:
        await _wait(pilot)
        app = pilot.app
        assert isinstance(app, QuizApp)
        app.start_session("drill", question_ids=(qid,))
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, StudyScreen)
        await then(screen, pilot)
        await pilot.pause()

    return run_before


async def _answer_right(screen: StudyScreen, pilot: Pilot[Any]) -> None:
    screen.query_one("#answer", Input).value = current(screen).expected_text()
    await press(pilot, "enter")


async def _show_heatmap(screen: StudyScreen, pilot: Pilot[Any]) -> None:
    """Answers, then scrolls to the end of the feedback (the heatmap and the explanation), as End does."""
    await _answer_right(screen, pilot)
    await pilot.pause()
    await pilot.pause()
    await press(pilot, "end")


class TestHome:
    def test_first_run_at_80x24(self, snap_compare: Snap, new_app: Callable[..., QuizApp]) -> None:
        assert snap_compare(new_app(), terminal_size=SMALL, run_before=_wait)

    def test_home_with_the_interview_plan(
        self, snap_compare: Snap, new_app: Callable[..., QuizApp], db_file: Path
    ) -> None:
        """A date set: the plan line ("N days left: x new + ~y reviews a day; expected recall") on home."""
        from datetime import timedelta

        from quizapp.store import open_store, save_setting
        from tests.tui.helpers import NOW

        with open_store(db_file, now=NOW) as store:
            save_setting(store, "interview_date", (NOW + timedelta(days=9)).date().isoformat())
        assert snap_compare(new_app(), terminal_size=SMALL, run_before=_wait)

    def test_help(self, snap_compare: Snap, new_app: Callable[..., QuizApp]) -> None:
        assert snap_compare(new_app(), press=["question_mark"], terminal_size=SMALL, run_before=_wait)


class TestStudy:
    def test_numeric_feedback_verdict_and_derivation(
        self, snap_compare: Snap, new_app: Callable[..., QuizApp], catalog: Catalog
    ) -> None:
        qid = _heatmap_question(catalog)
        assert snap_compare(new_app(), terminal_size=SMALL, run_before=_drill_and(qid, _answer_right))

    def test_numeric_feedback_heatmap_in_colour(
        self, snap_compare: Snap, new_app: Callable[..., QuizApp], catalog: Catalog
    ) -> None:
        assert snap_compare(
            new_app(), terminal_size=SMALL, run_before=_drill_and(_heatmap_question(catalog), _show_heatmap)
        )

    def test_flashcard_revealed_with_intervals(
        self, snap_compare: Snap, new_app: Callable[..., QuizApp], catalog: Catalog
    ) -> None:
        qid = question_ids(catalog, "flashcard")[0]

        async def run_before(pilot: Pilot[Any]) -> None:
            await _wait(pilot)
            app = pilot.app
            assert isinstance(app, QuizApp)
            app.start_session("study", question_ids=(qid,))
            await pilot.pause()
            await press(pilot, "space")
            await pilot.pause()

        assert snap_compare(new_app(), terminal_size=SMALL, run_before=run_before)

    def test_study_answer_with_its_rating_to_override(
        self, snap_compare: Snap, new_app: Callable[..., QuizApp], catalog: Catalog
    ) -> None:
        """After a study answer: the suggested rating with its reason and every rating's interval; 1-4
        would save another and move on, Enter accepts this one."""
        qid = question_ids(catalog, "numeric")[0]

        async def run_before(pilot: Pilot[Any]) -> None:
            await _wait(pilot)
            app = pilot.app
            assert isinstance(app, QuizApp)
            app.start_session("study", question_ids=(qid,))
            await pilot.pause()
            screen = app.screen
            assert isinstance(screen, StudyScreen)
            await _answer_right(screen, pilot)
            await pilot.pause()

        assert snap_compare(new_app(), terminal_size=SMALL, run_before=run_before)

    def test_hint_ladder_two_rungs(
        self, snap_compare: Snap, new_app: Callable[..., QuizApp], catalog: Catalog
    ) -> None:
        """Two presses of h: which quantities matter, then the step it hinges on, each capping the rating."""

        async def two_hints(screen: StudyScreen, pilot: Pilot[Any]) -> None:
            await press(pilot, "h")
            await pilot.pause()
            await press(pilot, "h")

        qid = question_ids(catalog, "numeric")[0]
        assert snap_compare(new_app(), terminal_size=SMALL, run_before=_drill_and(qid, two_hints))

    def test_explain_key_points(
        self, snap_compare: Snap, new_app: Callable[..., QuizApp], catalog: Catalog
    ) -> None:
        qid = question_ids(catalog, "explain")[0]

        async def submit(screen: StudyScreen, pilot: Pilot[Any]) -> None:
            screen.query_one("#explain-text", TextArea).text = "Heads attend in separate subspaces."
            await press(pilot, "ctrl+s")
            await pilot.pause()
            await press(pilot, "space", "down", "space")

        assert snap_compare(new_app(), terminal_size=SMALL, run_before=_drill_and(qid, submit))


class TestNoColor:
    def test_heatmap_uses_shading_and_values(
        self,
        snap_compare: Snap,
        new_app: Callable[..., QuizApp],
        catalog: Catalog,
        monkeypatch: pytest.MonkeyPatch,
    ) -> None:
        monkeypatch.setenv("NO_COLOR", "1")
        qid = _heatmap_question(catalog)

        assert snap_compare(new_app(), terminal_size=SMALL, run_before=_drill_and(qid, _show_heatmap))


class TestStatsAndSettings:
    def test_stats_on_a_seeded_database(
        self, snap_compare: Snap, new_app: Callable[..., QuizApp], catalog: Catalog, db_file: Path
    ) -> None:
        seed_history(db_file, catalog)
        assert snap_compare(new_app(), press=["t"], terminal_size=SMALL, run_before=_wait)

    def test_settings(self, snap_compare: Snap, new_app: Callable[..., QuizApp]) -> None:
        assert snap_compare(new_app(), press=["comma"], terminal_size=SMALL, run_before=_wait)
