"""Explore's trained mode as a learner uses it: open it from Explore, ablate a head by key and by mouse,
type a sentence, and train the toy in a worker while the heads redraw; and a question whose heatmap is
part of the prompt draws it before the answer."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from textual.widgets import Checkbox, Input, Static

from engine import toy
from quizapp.tui.app import QuizApp
from quizapp.tui.screens.trained import TrainedScreen
from quizapp.tui.widgets.heatmap import HeatmapView
from quizapp.tui.widgets.question_card import QuestionCard
from tests.tui.helpers import current, drill, settled, text_of

SIZE = (80, 24)


async def _trained(pilot) -> TrainedScreen:  # type: ignore[no-untyped-def]
    await pilot.press("e")
    await settled(pilot)
    await pilot.press("t")
    await settled(pilot)
    screen = pilot.app.screen
    assert isinstance(screen, TrainedScreen)
    return screen


def _text(screen: TrainedScreen, selector: str) -> str:
    return str(screen.query_one(selector, Static).render())


async def _until(pilot: Any, condition: Callable[[], bool], what: str) -> None:
    """Waits until `condition` holds, however loaded the machine; the cap (at least two minutes) only
    stops a hang from running forever."""
    for _ in range(2400):
        if condition():
            return
        await pilot.pause(0.05)
    raise AssertionError(f"gave up waiting for {what}")


async def test_ablating_the_previous_token_head_changes_the_loss_and_the_induction_head(
    new_app: Callable[..., QuizApp],
) -> None:
    scores = toy.head_scores(toy.pretrained(), seed=0)
    (pl, ph, _), (il, ih, _) = scores.best_prev_token, scores.best_induction
    app = new_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await _trained(pilot)
        assert "not a language model" in _text(screen, "#tr-note")
        layer1 = screen.query_one(f"#tr-layer-{il}", HeatmapView)
        before = layer1.heatmap.weights[ih].copy()
        assert "induction" in layer1.heatmap.head_labels[ih]
        loss_before = screen.view.in_context_loss

        await pilot.press(str(pl * 4 + ph + 1))  # the digit keys ablate L0H0..L1H3
        await settled(pilot)
        assert screen.query_one(f"#tr-ablate-{pl * 4 + ph}", Checkbox).value
        assert screen.view.in_context_loss > loss_before
        assert "the intact model" in _text(screen, "#tr-loss")
        assert not np.allclose(layer1.heatmap.weights[ih], before)

        await pilot.click(f"#tr-ablate-{pl * 4 + ph}")  # the mouse puts it back
        await settled(pilot)
        assert screen.view.inputs.ablate == frozenset()
        np.testing.assert_array_equal(layer1.heatmap.weights[ih], before)


async def test_a_sentence_is_drawn_twice_and_a_bad_one_explains_itself(
    new_app: Callable[..., QuizApp],
) -> None:
    app = new_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await _trained(pilot)
        screen.query_one("#tr-sentence", Input).value = "the cat sat on the mat"
        await settled(pilot)
        assert screen.view.tokens == ("the", "cat", "sat", "on", "the", "mat") * 2
        screen.query_one("#tr-sentence", Input).value = "word " * 17
        await settled(pilot)
        error = screen.query_one("#tr-error", Static)
        assert error.display and "2 to 16 words" in str(error.render())
        assert screen.view.tokens[0] == "the"  # the last valid picture stays


async def test_training_in_the_worker_redraws_the_heads_and_can_be_stopped(
    new_app: Callable[..., QuizApp],
) -> None:
    app = new_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await _trained(pilot)
        shipped = screen.model
        await pilot.press("t")
        await _until(pilot, lambda: "step" in _text(screen, "#tr-progress"), "the first progress report")
        assert "previous-token" in _text(screen, "#tr-progress")
        assert screen.training and screen.view.note.startswith("Training from seed 0")
        await pilot.press("t")  # stop: training ends at its next report
        assert "Stopp" in _text(screen, "#tr-progress")  # "Stopping…", or already "Stopped."
        await _until(pilot, lambda: not screen.training, "training to stop")
        await settled(pilot)
        assert not screen.training and screen.model is shipped
        assert "Stopped" in _text(screen, "#tr-progress")


async def test_a_heatmap_that_is_part_of_the_question_is_drawn_before_the_answer(
    new_app: Callable[..., QuizApp],
) -> None:
    app = new_app()
    async with app.run_test(size=(100, 40)) as pilot:
        screen = await drill(app, pilot, "what-heads-learn-find-induction")
        inst = current(screen)
        view = screen.query_one(QuestionCard).query_one("#prompt-heatmap", HeatmapView)
        assert inst.prompt_heatmap and view.display and view.heatmap is inst.heatmap
        assert view.heatmap.head_labels == ("panel 1", "panel 2", "panel 3", "panel 4")
        answer = ", ".join(str(p) for p in reversed(inst.expected))  # any order is right
        await pilot.press(*answer, "enter")
        await settled(pilot)
        assert "Correct" in text_of(app, "#verdict")

        await pilot.press("escape")
        await settled(pilot)
        await drill(app, pilot, "what-heads-learn-induction-target")
        assert not app.screen.query_one(QuestionCard).query_one("#prompt-heatmap", HeatmapView).display
