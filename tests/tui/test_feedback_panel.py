"""The feedback panel is built hidden with the question and rendered ahead (so an answer only reveals it),
and the answer puts it at the top of the body in the frame that shows it, with the keys still scrolling.
"""

from __future__ import annotations

from collections.abc import Callable

from textual.widgets import Input

from quizapp.content.catalog import Catalog
from quizapp.content.instance import Instance
from quizapp.tui.app import QuizApp
from quizapp.tui.widgets.derivation import DerivationView
from quizapp.tui.widgets.feedback import FeedbackPanel
from quizapp.tui.widgets.study_body import StudyBody
from tests.tui.helpers import current, drill, press, question_ids


def _with_heatmap(inst: Instance) -> bool:
    return inst.heatmap is not None and inst.derivation is not None


async def test_the_answer_reveals_a_panel_rendered_while_the_question_was_shown(
    new_app: Callable[..., QuizApp], catalog: Catalog
) -> None:
    qid = question_ids(catalog, "tensor", _with_heatmap)[0]
    app = new_app()
    async with app.run_test(size=(100, 40)) as pilot:
        screen = await drill(app, pilot, qid)
        await pilot.pause()
        panel = screen.query_one(FeedbackPanel)
        assert not panel.display
        derivation = panel.query_one(DerivationView)
        prepared = [width for width in range(1, 101) if derivation.is_prepared(width)]
        assert prepared  # rendered while the question is on screen
        screen.query_one("#answer", Input).value = current(screen).expected_text()
        await press(pilot, "enter")
        await pilot.pause()
        assert panel.display
        assert derivation.content_size.width in prepared  # at the width it was going to have

        body = screen.query_one(StudyBody)
        top = panel.virtual_region.y - panel.styles.margin.top
        assert body.scroll_y == min(top, body.max_scroll_y) > 0
        assert screen.focused is None  # nothing restyled by a focus move
        await press(pilot, "home")
        assert body.scroll_y == 0  # the screen's keys scroll the body instead
        await press(pilot, "down")
        assert body.scroll_y == 1


async def test_an_unreadable_answer_leaves_the_panel_hidden_and_a_right_one_shows_it_at_the_top(
    new_app: Callable[..., QuizApp], catalog: Catalog
) -> None:
    qid = question_ids(catalog, "numeric", lambda i: i.derivation is not None)[0]
    app = new_app()
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await drill(app, pilot, qid)
        field = screen.query_one("#answer", Input)
        field.value = "not a number at all"
        await press(pilot, "enter")
        await pilot.pause()
        assert screen.query_one("#answer-error").display
        assert not screen.query_one(FeedbackPanel).display

        field.value = current(screen).expected_text()
        await press(pilot, "enter")
        await pilot.pause()
        panel = screen.query_one(FeedbackPanel)
        assert panel.display and not screen.query_one("#answer-error").display
        body = screen.query_one(StudyBody)
        assert body.scroll_y == min(panel.virtual_region.y - panel.styles.margin.top, body.max_scroll_y)


async def test_long_key_points_keep_one_checkbox_each_and_the_highlighted_one_reads_in_full() -> None:
    from pathlib import Path

    from textual.app import App, ComposeResult
    from textual.widgets import Static

    import quizapp.tui.app as tui_app
    from quizapp.content.catalog import load_catalog
    from quizapp.study.views import ExplainPending
    from quizapp.tui.widgets.key_points import KeyPointList, KeyPointsPanel

    long = (
        "Same parameters and projection FLOPs as one wide head, because the heads only slice the same three "
        "d_model x d_model matrices into h parts"
    )
    catalog = load_catalog(use_cache=False)
    qid = next(q for q in sorted(catalog.questions) if catalog.questions[q].type == "explain")
    pending = ExplainPending(catalog.instance(qid, 0), "my answer", "the model answer", (long, "short", long))

    class OnePanel(App[None]):
        CSS_PATH = Path(tui_app.__file__).with_name("app.tcss")  # the app's own stylesheet

        def compose(self) -> ComposeResult:
            yield KeyPointsPanel(pending)

    app = OnePanel()
    async with app.run_test(size=(60, 20)) as pilot:
        await pilot.pause()
        points = app.query_one(KeyPointList)
        # one line, so one checkbox, per point: a wrapped point got a box per line and shifted the rest
        assert points.size.height == 3
        full = app.query_one("#key-point-full", Static)
        assert str(full.render()) == f"1. {long}"
        points.focus()
        await pilot.press("down")
        await pilot.pause()
        assert str(full.render()) == "2. short"
