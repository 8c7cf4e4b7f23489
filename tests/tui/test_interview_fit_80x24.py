"""At 80x24 the mock interview opens a question as study does: a tensor question's sentence (what is asked)
comes after its matrices, so it and the answer box used to be below the bottom edge. The countdown, flag,
skip and submit keys go on working on such a question."""

from __future__ import annotations

from collections.abc import Callable

from textual.pilot import Pilot
from textual.widgets import Input

from quizapp.content.catalog import Catalog
from quizapp.content.instance import Instance
from quizapp.store import reviews_for
from quizapp.tui.app import QuizApp
from quizapp.tui.screens.interview import InterviewScreen
from quizapp.tui.screens.interview_report import InterviewReportScreen
from quizapp.tui.widgets.question_card import PromptView
from tests.tui.helpers import NOW, press, until
from tests.tui.interview_helpers import Clock
from tests.tui.test_fit_80x24 import asking_sentence, inside, type_text
from tests.tui.test_interview import start_interview

SMALL = (80, 24)
WORKED = "worked-example"
"""The tag of the worked examples: tensor questions only, several with matrices taller than 80x24."""


def current(screen: InterviewScreen) -> Instance | None:
    asked = screen.session.current
    return None if asked is None else asked.instance


def left(screen: InterviewScreen) -> str:
    """The countdown the header should show now, from the session's own clock arithmetic."""
    return f"⏱ {screen.session.countdown(screen.router.config.now())} left"


async def skip(pilot: Pilot[None], screen: InterviewScreen) -> None:
    """Ctrl+N, and waits until the skip is saved (in a worker)."""
    session = screen.session
    number = session.skipped + session.answered + 1
    await press(pilot, "ctrl+n")
    await until(pilot, lambda: session.skipped + session.answered == number, "the skip saved")


async def test_a_tall_tensor_question_opens_with_its_sentence_and_box_in_view_and_the_keys_still_work(
    new_app: Callable[..., QuizApp], catalog: Catalog
) -> None:
    worked = [q for q in catalog.questions.values() if WORKED in q.tags]
    assert worked and {q.type for q in worked} == {"tensor"}
    clock = Clock(NOW)
    app = new_app(now=clock)
    async with app.run_test(size=SMALL) as pilot:
        await start_interview(app, pilot, WORKED, questions=len(worked), minutes=60)
        await until(pilot, lambda: isinstance(app.screen, InterviewScreen), "the interview screen")
        screen = app.screen
        assert isinstance(screen, InterviewScreen)
        session, body = screen.session, screen.body
        tall: list[str] = []  # questions taller than the screen, in the order asked
        while len(tall) < 2:
            asked = session.current
            assert asked is not None, f"fewer than two tall questions were asked: {tall}"
            inst = asked.instance
            await until(pilot, lambda: screen.pane.instance is current(screen), "the question shown")
            field = screen.query_one("#answer", Input)
            assert field.has_focus
            view = body.scrollable_content_region
            if inst.prompt_heatmap:  # heatmaps stand between what is asked and the box: the top first
                assert body.scroll_y == 0
            else:
                sentence = asking_sentence(app, screen.query_one("#prompt", PromptView), inst.prompt)
                assert inside(view, sentence), (inst.question_id, sentence, view)
                assert inside(view, field.region), (inst.question_id, field.region, view)
            if body.max_scroll_y == 0 or inst.prompt_heatmap:
                await skip(pilot, screen)  # the next question
                continue
            tall.append(inst.question_id)
            assert body.scroll_y > 0  # opened at its end, not its top
            top = body.scroll_y
            await press(pilot, "ctrl+f")  # flag: the bar says so, the view stays
            assert "flagged" in str(screen.query_one("#interview-bar").render())
            assert body.scroll_y == top and field.has_focus
            clock.advance(seconds=20)  # the countdown still ticks on the app's clock
            await until(
                pilot, lambda: str(screen.sub_title).startswith(left(screen)), "the countdown redrawn"
            )
            if len(tall) == 1:
                await type_text(pilot, inst.expected_text())  # submit: saved, and the next one opens
                assert inside(body.scrollable_content_region, field.region)
                await press(pilot, "enter")
                await until(pilot, lambda: session.answered == 1, "the answer saved")
            else:
                await skip(pilot, screen)
        store = app.backend.store  # type: ignore[union-attr]
        (review,) = reviews_for(store, tall[0])
        assert review.correct and review.mode == "interview"
        await press(pilot, "escape", "y")
        await until(pilot, lambda: isinstance(app.screen, InterviewReportScreen), "the report")


async def test_skip_and_flag_say_so_in_the_bar_not_in_a_toast_over_the_question(
    new_app: Callable[..., QuizApp],
) -> None:
    """A toast covered the question's text at 80x24; the bar says what the key did, on one line."""
    app = new_app(now=Clock(NOW))
    async with app.run_test(size=SMALL) as pilot:
        await start_interview(app, pilot, WORKED, questions=3, minutes=60)
        await until(pilot, lambda: isinstance(app.screen, InterviewScreen), "the interview screen")
        screen = app.screen
        assert isinstance(screen, InterviewScreen)
        bar = screen.query_one("#interview-bar")

        def said() -> str:
            return str(bar.render())

        await skip(pilot, screen)
        await until(pilot, lambda: "Q1 counts as not answered" in said(), "the skip said in the bar")
        assert "1 skipped" in said() and bar.size.height == 1
        await press(pilot, "ctrl+f")
        assert "⚑ flagged for the report" in said() and "Q1" not in said()
        await press(pilot, "ctrl+f")
        assert "flag removed" in said() and "⚑" not in said()
        await skip(pilot, screen)  # the note goes with the question it was about
        assert "flag removed" not in said() and "Q2 counts as not answered" in said()
        assert not app.query("Toast")  # by type name: Toast is not public API
