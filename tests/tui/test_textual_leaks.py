"""Ways round Textual's leaks (quizapp.tui.widgets.text_boxes and quizapp.tui.widgets.drawing): a
removed answer box is freed, and a removed widget leaves none of the lines it drew behind."""

from __future__ import annotations

import gc
import weakref

from textual.app import App, ComposeResult
from textual.containers import Vertical
from textual.pilot import Pilot
from textual.strip import Strip
from textual.widgets import Input, Static

from quizapp.tui.widgets.drawing import forget_drawing
from quizapp.tui.widgets.text_boxes import TextBox
from tests.tui.helpers import SIZE


class _Cards(App[None]):
    def compose(self) -> ComposeResult:
        yield Vertical(id="card")


async def _mount_and_remove(
    pilot: Pilot[None], rounds: int, *kinds: type[Input]
) -> list[list[weakref.ref[Input]]]:
    """Mounts one input of each kind, then removes them, `rounds` times (as cards come and go); a weak
    reference to each, by kind."""
    card = pilot.app.query("#card").first()
    made: list[list[weakref.ref[Input]]] = [[] for _ in kinds]
    for _ in range(rounds):
        boxes = [kind() for kind in kinds]
        for refs, box in zip(made, boxes, strict=True):
            refs.append(weakref.ref(box))
        await card.mount_all(boxes)
        await pilot.pause()
        del boxes
        await card.remove_children()
        await pilot.pause()
    gc.collect()
    return made


def _alive(refs: list[weakref.ref[Input]]) -> int:
    return sum(ref() is not None for ref in refs)


async def test_removed_text_boxes_are_freed_where_textuals_inputs_pile_up() -> None:
    async with _Cards().run_test(size=SIZE) as pilot:
        ours, textuals = await _mount_and_remove(pilot, 12, TextBox, Input)
        # Textual's layout caches keep the last few for a while; ours do not pile up beyond them
        assert _alive(ours) < 4
        # Textual's own Input stays with its screen's signal: if this fails, Textual has fixed the leak
        # and TextBox can go
        assert _alive(textuals) == 12


def _strips() -> int:
    """Lines drawn and still alive, anywhere (removed widgets' ones included)."""
    return sum(type(obj) is Strip for obj in gc.get_objects())


async def _strips_after(pilot: Pilot[None], rounds: int, *, forget: bool) -> list[int]:
    """Mounts four lines of text, lets them be drawn, then removes them (forgetting what they drew first,
    or not), `rounds` times; the lines alive after each round."""
    card = pilot.app.query("#card").first()
    alive = []
    for n in range(rounds):
        statics = [Static(f"card {n}, line {k}: " + "text " * (n + k)) for k in range(4)]
        await card.mount_all(statics)
        await pilot.pause()
        if forget:
            forget_drawing(statics)
        del statics
        await card.remove_children()
        await pilot.pause()
        gc.collect()
        alive.append(_strips())
    return alive


async def test_widgets_forgotten_before_removal_leave_no_drawn_lines_behind() -> None:
    async with _Cards().run_test(size=SIZE) as pilot:
        alive = await _strips_after(pilot, 30, forget=True)
    assert alive[-1] <= alive[9]  # after the first few rounds (caches filling up), no growth


async def test_without_forgetting_removed_widgets_leave_their_lines_behind() -> None:
    """The leak itself (Textual 8.2): if this fails, forget_drawing is no longer needed."""
    async with _Cards().run_test(size=SIZE) as pilot:
        alive = await _strips_after(pilot, 30, forget=False)
    assert alive[-1] > alive[9] + 20 * 4  # each round leaves at least its four lines
