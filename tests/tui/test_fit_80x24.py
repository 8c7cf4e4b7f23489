"""At 80x24 the study screen opens a card with what is asked and the answer box in view: a tensor
question's sentence comes after its matrices, and a case study's current step under the earlier ones, so
both used to be below the bottom edge. A question that fits still opens at its top."""

from __future__ import annotations

from collections.abc import Callable

from textual.geometry import Region
from textual.pilot import Pilot
from textual.widget import Widget
from textual.widgets import Input

from quizapp.content.catalog import Catalog
from quizapp.store import reviews_for
from quizapp.tui.app import QuizApp
from quizapp.tui.screens.study import StudyScreen
from quizapp.tui.widgets.question_card import PromptView
from quizapp.tui.widgets.rendered import CompactMarkdown
from quizapp.tui.widgets.scenario import ScenarioInput
from tests.tui.helpers import SEED, current, drill, press, question_ids, settled

SMALL = (80, 24)


def visible(screen: StudyScreen) -> Region:
    """The part of the screen the body shows (its content, without the scrollbar)."""
    return screen.body.scrollable_content_region


def inside(outer: Region, inner: Region) -> bool:
    return outer.y <= inner.y and inner.bottom <= outer.bottom and inner.height > 0


def asking_sentence(app: QuizApp, prompt: PromptView, markdown: str) -> Region:
    """Where the prompt's last paragraph (the sentence that asks) is on the screen: the prompt rendered
    at the width the card gives it, and the rows from that paragraph's first words to its last line."""
    last = markdown.strip().split("\n\n")[-1]
    assert "```" not in last, "the prompt ends with a sentence, not a matrix"
    width = prompt.content_region.width
    lines = app.console.render_lines(
        CompactMarkdown(markdown), app.console.options.update_width(width), pad=False
    )
    rows = ["".join(segment.text for segment in line) for line in lines]
    start = " ".join(last.split()[:3])
    first = max(k for k, text in enumerate(rows) if start in text)
    end = max(k for k, text in enumerate(rows) if text.strip())
    top = prompt.content_region.y
    return Region(prompt.content_region.x, top + first, width, end - first + 1)


async def type_text(pilot: Pilot[None], text: str) -> None:
    """Types `text` key by key, as the learner does."""
    await pilot.press(*("space" if c == " " else c for c in text))
    await settled(pilot)


async def test_a_tensor_question_opens_with_its_sentence_and_box_in_view_at_80x24(
    new_app: Callable[..., QuizApp], catalog: Catalog
) -> None:
    tensors = question_ids(catalog, "tensor", lambda i: "```" in i.prompt and not i.prompt_heatmap)
    tallest = max(tensors, key=lambda q: (catalog.instance(q, SEED).prompt.count("\n"), q))
    app = new_app()
    async with app.run_test(size=SMALL) as pilot:
        screen = await drill(app, pilot, tallest)
        inst = current(screen)
        body, field = screen.body, screen.query_one("#answer", Input)
        assert body.max_scroll_y > 0, "the question is taller than 80x24"
        sentence = asking_sentence(app, screen.query_one("#prompt", PromptView), inst.prompt)
        assert inside(visible(screen), sentence), (sentence, visible(screen))
        assert inside(visible(screen), field.region), (field.region, visible(screen))
        assert field.has_focus

        top = body.scroll_y
        await press(pilot, "up")  # the arrow and page keys still scroll the body to what is above
        assert body.scroll_y == top - 1 and field.has_focus
        await press(pilot, "pageup")
        assert body.scroll_y == 0
        await type_text(pilot, "x")  # typing brings the box back, as before
        assert inside(visible(screen), field.region)
        await press(pilot, "enter")  # why it could not be read: under the reminder, and in view
        error = screen.query_one("#answer-error")
        assert error.display and inside(visible(screen), error.region)
        await press(pilot, "backspace")
        await type_text(pilot, inst.expected_text())
        assert field.value == inst.expected_text() and inside(visible(screen), field.region)
        await press(pilot, "enter")
        saved = reviews_for(app.backend.store, tallest)  # type: ignore[union-attr]
        assert len(saved) == 1 and saved[0].correct
        assert screen.phase == "answered"


async def test_a_case_study_keeps_the_current_step_and_its_box_in_view_at_80x24(
    new_app: Callable[..., QuizApp], catalog: Catalog
) -> None:
    def opening(qid: str) -> tuple[int, str]:
        inst = catalog.instance(qid, SEED)
        return len(inst.prompt) + len(inst.steps[0].prompt), qid

    longest = max(question_ids(catalog, "scenario"), key=opening)
    app = new_app()
    async with app.run_test(size=SMALL) as pilot:
        screen = await drill(app, pilot, longest)
        inst = current(screen)
        steps = screen.query_one("#answer", ScenarioInput)
        box = steps.query_one("#scenario-input", Input)
        asked: Widget = steps.query_one("#scenario-step")
        said = [" ".join(str(inst.follow_up.expected).split())] if inst.follow_up is not None else []
        answers = [f"{step.expected} {step.base_unit}".strip() for step in inst.steps] + said
        for k, text in enumerate(answers):  # the steps, then the part in words
            assert steps.step == k and f"Step {k + 1} of" in str(asked.render())
            assert inside(visible(screen), asked.region), (k, asked.region, visible(screen))
            assert inside(visible(screen), box.region), (k, box.region, visible(screen))
            assert box.has_focus
            await type_text(pilot, text)
            await press(pilot, "enter")
        assert screen.phase == "answered"  # the last part's Enter submitted the case study
        assert len(reviews_for(app.backend.store, longest)) == 1  # type: ignore[union-attr]


async def test_a_question_that_fits_80x24_still_opens_at_its_top(
    new_app: Callable[..., QuizApp], catalog: Catalog
) -> None:
    tensors = question_ids(catalog, "tensor", lambda i: not i.prompt_heatmap)
    shortest = min(tensors, key=lambda q: (catalog.instance(q, SEED).prompt.count("\n"), q))
    app = new_app()
    async with app.run_test(size=SMALL) as pilot:
        screen = await drill(app, pilot, shortest)
        assert screen.body.scroll_y == 0
        header = screen.query_one("#card-header").region
        assert inside(visible(screen), header)
        assert inside(visible(screen), screen.query_one("#answer").region)
