"""A case study on the study screen: one step at a time, each step's verdict above the next, a wrong
earlier number carried forward, and one review saved at the end, rated no better than Hard."""

from __future__ import annotations

from collections.abc import Callable

from textual.pilot import Pilot
from textual.widgets import Input, Static

from quizapp.content.instance import Instance
from quizapp.grading import HARD
from quizapp.store import reviews_for
from quizapp.tui.app import QuizApp
from quizapp.tui.widgets.scenario import ScenarioInput
from tests.tui.helpers import SIZE, current, drill, press

SERVING = "case-studies-70b-tp8-serving"


def _right(step: Instance) -> str:
    return f"{step.expected} {step.base_unit}".strip()


async def _case_study(app: QuizApp, pilot: Pilot[None]) -> tuple[Instance, ScenarioInput, Input]:
    """A drill of the serving case study: its instance, its steps widget and their answer box."""
    screen = await drill(app, pilot, SERVING)
    steps = screen.query_one("#answer", ScenarioInput)
    return current(screen), steps, steps.query_one("#scenario-input", Input)


async def test_a_case_study_is_asked_step_by_step_and_carries_a_wrong_number_forward(
    new_app: Callable[..., QuizApp],
) -> None:
    app = new_app()
    async with app.run_test(size=SIZE) as pilot:
        inst, steps, box = await _case_study(app, pilot)
        assert "Step 1 of" in str(steps.query_one("#scenario-step", Static).render())

        assert inst.steps[0].derivation is not None and inst.rework is not None
        wrong = inst.steps[0].derivation.misconception("forgot-tp").value  # the whole model on each GPU
        assert isinstance(wrong, (int, float))
        answers = [f"{wrong} B", _right(inst.steps[1]), _right(inst.rework(2, {"weights": wrong}))]
        answers += [_right(s) for s in inst.steps[3:]]
        for k, text in enumerate(answers[:-1]):
            box.value = text
            await press(pilot, "enter")
            assert f"Step {k + 2} of" in str(steps.query_one("#scenario-step", Static).render())
            done = str(steps.query_one("#scenario-done", Static).render())
            assert f"Step {k + 1} of" in done
        done = str(steps.query_one("#scenario-done", Static).render())
        assert "carried forward" in done and "Right method on your step-1 number" in done
        assert not reviews_for(app.backend.store, SERVING)  # type: ignore[union-attr]

        box.value = answers[-1]
        await press(pilot, "enter")
        # the numbers are done; the case study asks its choice, in words, before it is saved
        assert inst.follow_up is not None
        asked = str(steps.query_one("#scenario-step", Static).render())
        assert f"Step {len(inst.steps) + 1} of {len(inst.steps) + 1}" in asked
        assert inst.follow_up.prompt.strip()[:40] in " ".join(asked.split())
        assert not reviews_for(app.backend.store, SERVING)  # type: ignore[union-attr]
        said = " ".join(str(inst.follow_up.expected).split())  # its own model answer, typed on one line
        box.value = said
        await press(pilot, "enter")
        done = str(steps.query_one("#scenario-done", Static).render())
        assert all(f"✓ {n}. {p}" in done for n, p in enumerate(inst.follow_up.key_points, start=1))
        saved = reviews_for(app.backend.store, SERVING)  # type: ignore[union-attr]
        assert len(saved) == 1
        assert saved[0].answer == "; ".join([*answers, said]) and saved[0].rating <= HARD
        assert not saved[0].correct and app.screen.query("#derivation")


async def test_the_part_in_words_names_a_misconception_and_rates_the_case_study_again(
    new_app: Callable[..., QuizApp],
) -> None:
    app = new_app()
    async with app.run_test(size=SIZE) as pilot:
        inst, steps, box = await _case_study(app, pilot)
        for step in inst.steps:
            box.value = _right(step)
            await press(pilot, "enter")
        box.value = "Ship it: FP8 halves the decode step time, and an FP8 cache is lossless in quality."
        await press(pilot, "enter")
        done = str(steps.query_one("#scenario-done", Static).render())
        assert "✗" in done
        (saved,) = reviews_for(app.backend.store, SERVING)  # type: ignore[union-attr]
        assert saved.rating == 1 and not saved.correct


async def test_escape_part_way_through_a_case_study_asks_before_dropping_the_steps(
    new_app: Callable[..., QuizApp],
) -> None:
    app = new_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await drill(app, pilot, SERVING)
        steps = screen.query_one("#answer", ScenarioInput)
        steps.query_one("#scenario-input", Input).value = _right(current(screen).steps[0])
        await press(pilot, "enter")
        assert steps.answers
        await press(pilot, "escape")
        assert app.screen is screen  # the first Escape only warns
        await press(pilot, "escape")
        assert app.screen is not screen
