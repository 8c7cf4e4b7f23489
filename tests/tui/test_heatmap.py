"""The heatmap widget: fits 80 columns, labels both axes, prints values when small, survives NO_COLOR."""

from __future__ import annotations

import numpy as np
import pytest
from rich.style import Style
from textual.app import App, ComposeResult

from engine import Heatmap, init_attention, multi_head_attention
from quizapp.tui.widgets.heatmap import SHADES, HeatmapView, ramp_colour, shorten

SENTENCE = ("the", "transformer", "attends", "to", "every", "previous", "token", "carefully")


def _weights(n_tokens: int, n_heads: int = 4, causal: bool = True) -> Heatmap:
    """Real attention weights from the engine for a random input (the input, not an answer, is random)."""
    x = np.random.default_rng(0).standard_normal((n_tokens, 16))  # (T, d)
    result = multi_head_attention(x, init_attention(16, n_heads, seed=1), mask="causal" if causal else None)
    tokens = SENTENCE[:n_tokens]
    return Heatmap(result.weights, tokens, tokens)  # (H, T, T)


class _One(App[None]):
    def __init__(self, heatmap: Heatmap) -> None:
        super().__init__()
        self.heatmap = heatmap

    def compose(self) -> ComposeResult:
        yield HeatmapView(self.heatmap)


def test_colour_ramp_runs_dark_to_bright() -> None:
    dark, bright = ramp_colour(0.0), ramp_colour(1.0)
    assert sum(dark) < sum(ramp_colour(0.5)) < sum(bright)


def test_long_labels_are_shortened_with_an_ellipsis() -> None:
    assert shorten("transformer", 4) == "tra…"
    assert shorten("to", 4) == "to"


@pytest.mark.parametrize("width", [80, 60, 40])
def test_eight_tokens_four_heads_fit_the_width(width: int) -> None:
    view = HeatmapView(_weights(8), monochrome=False)
    lines = view._lines(width)
    assert max(line.cell_len for line in lines) <= width
    text = "\n".join(line.plain for line in lines)
    assert "head 1" in text and "head 4" in text
    assert "transformer" not in text  # too long for a column: shortened


def test_small_grid_prints_values_and_big_grid_waits_for_the_toggle() -> None:
    small = HeatmapView(_weights(3, n_heads=1), monochrome=False)
    heat = small.heatmap.weights
    assert f"{float(heat[0, 1, 0]):.2f}"[1:] in "\n".join(line.plain for line in small._lines(80))

    big = HeatmapView(_weights(8, n_heads=1), monochrome=False)
    value = f"{float(big.heatmap.weights[0, 7, 0]):.2f}"[1:]
    row = [line.plain for line in big._lines(80) if line.plain.startswith("careful")]
    assert value not in row[0]
    big.show_values = True
    row = [line.plain for line in big._lines(80) if line.plain.startswith("car")]
    assert value in row[0]


def test_without_colour_every_cell_has_a_shade_and_a_value() -> None:
    view = HeatmapView(_weights(4, n_heads=2), monochrome=True)
    text = "\n".join(line.plain for line in view._lines(80))
    assert any(ch in text for ch in SHADES[1:])
    lo, hi = float(view.heatmap.weights.min()), float(view.heatmap.weights.max())
    assert f"min {lo:.3g}" in text and f"max {hi:.3g}" in text
    assert "·" in text  # masked (causal) cells are marked, not shown as a value


async def test_no_color_environment_switches_the_widget_to_shading(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NO_COLOR", "1")
    app = _One(_weights(4, n_heads=2))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        view = app.query_one(HeatmapView)
        assert view.monochrome
        assert view.size.height == len(view._lines(view.content_size.width))


@pytest.mark.parametrize("monochrome", [False, True])
def test_masked_keys_are_crossed_out_and_the_asked_cell_is_marked(monochrome: bool) -> None:
    from engine import calculate

    q = [[1, 0], [0, 1], [1, 1]]
    d = calculate("attention_entry", q=q, k=q, v=q, row=1, col=0, which="weight", causal=True)
    assert d.heatmap is not None
    view = HeatmapView(d.heatmap, monochrome=monochrome)
    rows = [line for line in view._lines(80) if line.plain.startswith(("t0", "t1", "t2"))]
    assert [r.plain.count("×") for r in rows] == [2, 1, 0]  # the causal mask removes keys after the query
    asked = [r for r in rows if "▸" in r.plain]
    assert len(asked) == 1 and asked[0].plain.startswith("t1")
    underlined = [span for span in asked[0].spans if _underlined(span.style)]
    assert len(underlined) == 1, "exactly the asked cell is underlined"
    legend = view._lines(80)[-1].plain
    assert "× = masked" in legend and "▸ = asked" in legend


def _underlined(style: object) -> bool:
    return bool(style.underline) if isinstance(style, Style) else "underline" in str(style).split()


async def test_prepare_draws_the_grid_before_its_first_frame_and_the_frame_shows_it() -> None:
    """The feedback panel prepares its heatmap while the question is answered: a grid of coloured cells
    took Textual some 10 ms to draw in the frame that shows the verdict."""
    app = _One(_weights(4, n_heads=2))
    async with app.run_test(size=(80, 30)) as pilot:
        view = app.query_one(HeatmapView)
        await pilot.pause()
        width = view.content_size.width
        view.set_heatmap(_weights(5, n_heads=2))  # new weights: nothing drawn for them yet
        assert not view.is_prepared(width)
        view.prepare(width)
        assert view.is_prepared(width)
        await pilot.pause()
        drawn = [strip.text.rstrip() for strip in view.render_lines(view.content_region.reset_offset)]
        laid_out = [line.plain.rstrip() for line in view._lines(width)]
        assert drawn[: len(laid_out)] == laid_out
        assert view.is_prepared(width)  # the frame used what was prepared
