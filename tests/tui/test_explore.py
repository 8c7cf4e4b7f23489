"""Explore screen flows a user notices: each toggle changes the heatmaps at once (by key and by mouse),
a bad combination gets a message while the last picture stays, and a preset fills the cost panel."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from textual.widgets import Checkbox, Input, Select

import engine
from quizapp.tui.app import QuizApp
from quizapp.tui.messages import WorkerDone
from quizapp.tui.screens.explore import ExploreScreen
from quizapp.tui.widgets.heatmap import HeatmapView
from tests.tui.helpers import settled

SIZE = (80, 24)


async def test_toggles_change_the_weights_shown(new_app: Callable[..., QuizApp]) -> None:
    app = new_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("e")
        await settled(pilot)
        screen = app.screen
        assert isinstance(screen, ExploreScreen)
        view = screen.query_one(HeatmapView)
        plain = view.heatmap.weights.copy()
        n_heads, t, _ = plain.shape
        above = np.triu(np.ones((t, t), dtype=bool), k=1)
        assert (plain[:, above] > 0).all()
        assert "·" not in str(view.render())

        await pilot.press("c")  # causal: every weight above the diagonal drops to zero, drawn as ·
        await settled(pilot)
        causal = view.heatmap.weights
        assert (causal[:, above] == 0).all()
        assert "·" in str(view.render())
        assert screen.query_one("#ex-causal", Checkbox).value

        await pilot.press("s")  # same weights for all heads: one pattern repeated
        await settled(pilot)
        tied = view.heatmap.weights
        assert n_heads > 1 and all(np.array_equal(tied[0], tied[h]) for h in range(n_heads))

        await pilot.click("#ex-causal")  # the mouse works too: causal off again
        await settled(pilot)
        assert not screen.query_one("#ex-causal", Checkbox).value
        assert (view.heatmap.weights[:, above] > 0).all()

        shown = view.heatmap.weights.copy()
        await pilot.press("o")  # remove W_O: the weights stay, the output summary changes
        await settled(pilot)
        np.testing.assert_array_equal(view.heatmap.weights, shown)
        assert "W_O removed" in str(screen.query_one("#ex-wo").render())


async def test_a_bad_combination_explains_itself_and_keeps_the_last_picture(
    new_app: Callable[..., QuizApp],
) -> None:
    app = new_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("e")
        await settled(pilot)
        screen = app.screen
        assert isinstance(screen, ExploreScreen)
        before = screen.query_one(HeatmapView).heatmap
        screen.query_one("#ex-n_kv_heads", Input).value = "3"
        await settled(pilot)
        error = screen.query_one("#ex-error")
        assert error.display and "cannot share 3 KV heads" in str(error.render())
        assert screen.query_one(HeatmapView).heatmap is before
        screen.query_one("#ex-n_kv_heads", Input).value = "2"  # a valid grouping: the picture follows
        await settled(pilot)
        assert not error.display
        assert screen.query_one(HeatmapView).heatmap.head_labels[-1].endswith("kv 2")


async def test_a_preset_fills_the_cost_panel_and_scales_the_heatmaps(new_app: Callable[..., QuizApp]) -> None:
    app = new_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("e")
        await settled(pilot)
        screen = app.screen
        assert isinstance(screen, ExploreScreen)
        screen.query_one("#ex-preset", Select).value = "llama-2-70b"
        await settled(pilot)
        llama = engine.MODELS["llama-2-70b"]
        assert (
            screen.result.cost.kv_cache.value
            == engine.calculate(
                "kv_cache_bytes",
                n_layers=llama.n_layers,
                n_kv_heads=llama.n_kv_heads,
                d_head=llama.d_head,
                seq_len=llama.context_length,
                batch=1,
                bytes_per_element=2,
            ).value
        )
        assert screen.query_one("#ex-n_heads", Input).value == "8"  # the drawable copy
        assert screen.query_one("#ex-n_layers", Input).value == str(llama.n_layers)
        assert screen.query_one(HeatmapView).heatmap.weights.shape[0] == 8
        assert "Llama-2 70B" in str(screen.query_one("#ex-note").render())
        assert screen.result.inputs.preset == "llama-2-70b"  # redrawing the fields kept the preset


async def test_tab_reaches_every_control_in_reading_order_and_shows_it(
    new_app: Callable[..., QuizApp],
) -> None:
    app = new_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("e")
        await settled(pilot)
        screen = app.screen
        assert isinstance(screen, ExploreScreen)
        controls = [w for w in screen.query("Input, Select, Checkbox") if w.focusable]
        body = screen.query_one("#explore-body")
        seen = []
        for _ in range(len(controls) + 1):
            await pilot.press("tab")
            await settled(pilot)
            focused = screen.focused
            assert focused is not None
            if focused is body:
                continue
            seen.append(focused)
            # the focused control is on screen: scrolled to, never hidden below the fold
            assert focused.region.height > 0 and screen.region.contains_region(focused.region), focused.id
            if len(seen) == len(controls):
                break
        assert [w.id for w in seen] == [w.id for w in controls]
        await pilot.press("tab")  # round to the picture, where the one-letter keys work again
        assert screen.focused is body
        await pilot.press("shift+tab", "shift+tab")  # and back the other way
        assert screen.focused is controls[-2]


async def test_a_late_forward_pass_for_older_inputs_is_not_drawn(new_app: Callable[..., QuizApp]) -> None:
    app = new_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("e")
        await settled(pilot)
        screen = app.screen
        assert isinstance(screen, ExploreScreen)
        plain = screen.result
        await pilot.press("c")
        await settled(pilot)
        assert screen.result.inputs.causal
        screen.post_message(WorkerDone(plain, screen._computed))  # the earlier inputs' pass, finishing last
        await settled(pilot)
        assert screen.result.inputs.causal and screen.query_one("#ex-causal", Checkbox).value
        assert (np.triu(screen.query_one(HeatmapView).heatmap.weights[0], k=1) == 0).all()
