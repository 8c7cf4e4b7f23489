"""Provides HeatmapView: attention weights drawn as coloured cells, one block per head, side by side.

The numbers come from an `engine.Heatmap`; this module only decides how they look: a viridis-like colour
ramp, shortened token labels so the picture fits the width it is given, and a legend with the minimum and
maximum. Without colour (NO_COLOR) every cell shows a shading character and its value instead.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from rich.color import Color
from rich.style import Style
from rich.text import Text
from textual.geometry import Size
from textual.reactive import reactive
from textual.widget import Widget

from quizapp.tui.widgets.rendered import CachedRender

if TYPE_CHECKING:
    from engine import Heatmap

# Eleven samples of matplotlib's viridis: perceptually uniform and readable by colour-blind users.
VIRIDIS: tuple[tuple[int, int, int], ...] = (
    (68, 1, 84),
    (72, 36, 117),
    (65, 68, 135),
    (53, 95, 141),
    (42, 120, 142),
    (33, 145, 140),
    (34, 168, 132),
    (68, 191, 112),
    (122, 209, 81),
    (189, 223, 38),
    (253, 231, 37),
)
SHADES = " ░▒▓█"
SMALL_GRID = 36
"""Grids with at most this many cells per head print their values without being asked."""
GAP = 3
"""Spaces between two head blocks."""


def ramp_colour(t: float) -> tuple[int, int, int]:
    """The viridis colour at position t in [0, 1] (linear between the samples; display only)."""
    t = min(1.0, max(0.0, t))
    pos = t * (len(VIRIDIS) - 1)
    i = min(int(pos), len(VIRIDIS) - 2)
    frac = pos - i
    a, b = VIRIDIS[i], VIRIDIS[i + 1]
    r, g, bl = (round(x + (y - x) * frac) for x, y in zip(a, b, strict=True))
    return (r, g, bl)


def shade(t: float) -> str:
    """A shading character for position t in [0, 1], so the picture survives without colour."""
    t = min(1.0, max(0.0, t))
    return SHADES[min(len(SHADES) - 1, int(t * len(SHADES)))]


def cell_value(v: float) -> str:
    """Three characters for a weight: .42, 1.0, or · for an exactly-zero (masked) entry."""
    if v == 0.0:
        return " · "
    if 0.0 <= v < 0.995:
        return f"{v:.2f}"[1:]
    if 0.995 <= v < 9.95:
        return f"{v:.1f}"
    return f"{v:.0e}"[:3]


def shorten(label: str, width: int) -> str:
    """A label cut to `width` characters, with an ellipsis when there is room for one."""
    if len(label) <= width:
        return label
    if width >= 4:
        return label[: width - 1] + "…"
    return label[:width]


@dataclass(frozen=True)
class _Geometry:
    """How one layout attempt sizes things: cell and label widths and whether values are printed."""

    cell: int
    row_label: int
    values: bool

    def block_width(self, n_cols: int) -> int:
        return self.row_label + 1 + n_cols * self.cell


class HeatmapView(Widget):
    """Per-head attention weights with token labels on both axes and a min/max legend."""

    DEFAULT_CSS = """
    HeatmapView {
        height: auto;
        width: 1fr;
    }
    """

    show_values: reactive[bool] = reactive(False, layout=True)
    """Print every value in its cell (toggled by the screen's `v` key)."""

    def __init__(
        self,
        heatmap: Heatmap | None,
        *,
        title: str = "Attention weights (rows: queries, columns: keys)",
        monochrome: bool | None = None,
        side_by_side: int = 1,
        name: str | None = None,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self.heatmap = heatmap
        self.title = title
        self._monochrome = monochrome
        self.side_by_side = side_by_side
        """Heads drawn next to each other at least (cells shrink for it), so several fit on a screen."""
        self._cache: dict[tuple[int, bool, bool], list[Text]] = {}
        """Laid-out lines per (width, values shown, monochrome): sizing and painting share one layout."""
        self._drawn: dict[tuple[int, bool, bool], CachedRender] = {}
        """The same lines rendered: a grid of coloured cells took Textual some 10 ms to draw, so it is
        drawn once per layout, ahead of time by `prepare`."""

    @property
    def monochrome(self) -> bool:
        """True without colour (NO_COLOR, or forced by the caller): shading characters and values."""
        if self._monochrome is not None:
            return self._monochrome
        return bool(getattr(self.app, "no_color", False))

    def set_heatmap(self, heatmap: Heatmap | None) -> None:
        """Shows other weights (the explore screen's toggles; None: nothing, the study screen's view
        for a question without weights)."""
        self.heatmap = heatmap
        self._cache.clear()
        self._drawn.clear()
        self.refresh(layout=True)

    def toggle_values(self) -> None:
        self.show_values = not self.show_values

    def prepare(self, width: int) -> None:
        """Lays the grid out and draws it for a content width of `width` now, so its first paint only
        copies it."""
        if width > 0:
            self._drawing(width).lines(width)

    def is_prepared(self, width: int) -> bool:
        """True if the grid is already drawn for a content width of `width`."""
        found = self._drawn.get((width, self.show_values, self.monochrome))
        return found is not None and found.has_lines(width)

    # -- sizing -------------------------------------------------------------------------------------------

    def get_content_width(self, container: Size, viewport: Size) -> int:
        lines = self._lines(container.width)
        return max((line.cell_len for line in lines), default=1)

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return len(self._lines(width))

    def render(self) -> CachedRender:
        return self._drawing(self.content_size.width or 80)

    def _drawing(self, width: int) -> CachedRender:
        key = (width, self.show_values, self.monochrome)
        found = self._drawn.get(key)
        if found is None:
            found = self._drawn[key] = CachedRender(self, Text("\n").join(self._lines(width)))
        return found

    # -- layout ---------------------------------------------------------------------------------------------

    def _geometry(self, width: int, n_cols: int, labels: Sequence[str]) -> _Geometry:
        """The roomiest geometry whose block fits `width`: values, then full labels, then short ones."""
        want_values = self.show_values or self.monochrome or n_cols * len(labels) <= SMALL_GRID
        natural = max(1, min(8, max((len(x) for x in labels), default=1)))
        attempts: list[_Geometry] = []
        if want_values:
            attempts += [_Geometry(4, natural, True), _Geometry(4, min(natural, 4), True)]
        attempts += [_Geometry(3, natural, False), _Geometry(3, min(natural, 4), False)]
        attempts += [_Geometry(2, min(natural, 3), False), _Geometry(1, min(natural, 2), False)]
        for geo in attempts:
            if geo.block_width(n_cols) <= width:
                return geo
        return attempts[-1]

    def _lines(self, width: int) -> list[Text]:
        key = (width, self.show_values, self.monochrome)
        if key not in self._cache:
            self._cache[key] = self._layout(width)
        return self._cache[key]

    def _layout(self, width: int) -> list[Text]:
        heatmap = self.heatmap
        if heatmap is None:
            return []
        weights = heatmap.weights
        if weights.ndim == 2:  # one head given as (T, S)
            weights = weights[None]
        n_heads, n_rows, n_cols = (int(x) for x in weights.shape)
        rows = [str(x) for x in heatmap.row_labels] or [f"t{i}" for i in range(n_rows)]
        cols = [str(x) for x in heatmap.col_labels] or [f"t{j}" for j in range(n_cols)]
        heads = list(heatmap.head_labels) or [f"head {h + 1}" for h in range(n_heads)]
        beside = max(1, min(self.side_by_side, n_heads))
        geo = self._geometry(max((width - GAP * (beside - 1)) // beside, 8), n_cols, rows)
        block = geo.block_width(n_cols)
        per_row = max(1, (max(width, block) + GAP) // (block + GAP))
        lo, hi = float(weights.min()), float(weights.max())
        span = hi - lo if hi > lo else 1.0
        allowed = heatmap.allowed
        if allowed is not None and allowed.ndim == 2:
            allowed = allowed[None]
        asked_row, asked_col = heatmap.asked if heatmap.asked is not None else (None, None)

        lines: list[Text] = [Text(shorten(self.title, max(width, 8)), style="bold")]
        for first in range(0, n_heads, per_row):
            group = range(first, min(n_heads, first + per_row))
            gap = " " * GAP
            if n_heads > 1:
                titles = gap.join(shorten(heads[h], block).ljust(block) for h in group)
                lines.append(Text(titles, style="bold"))
            header = " " * (geo.row_label + 1) + "".join(
                shorten(c, geo.cell - 1 if geo.cell > 2 else geo.cell).rjust(geo.cell - 1).ljust(geo.cell)
                for c in cols
            )
            lines.append(Text(gap.join(header for _ in group), style="dim"))
            for i in range(n_rows):
                line = Text()
                for k, h in enumerate(group):
                    if k:
                        line.append(gap)
                    mark = "▸" if i == asked_row else " "
                    line.append(
                        shorten(rows[i], geo.row_label).ljust(geo.row_label),
                        style="bold yellow" if i == asked_row else "dim",
                    )
                    line.append(mark, style="bold yellow")
                    for j in range(n_cols):
                        v = float(weights[h, i, j])
                        if allowed is not None and not allowed[h % allowed.shape[0], i, j]:
                            self._masked(line, geo)
                        else:
                            asked = i == asked_row and j == asked_col
                            self._cell(line, v, (v - lo) / span, geo, asked=asked)
                lines.append(line)
        lines.append(self._legend(lo, hi, width))
        return lines

    def _cell(self, line: Text, v: float, t: float, geo: _Geometry, *, asked: bool = False) -> None:
        """One weight; the asked cell is underlined and bold, with a ▸ in place of its padding."""
        if self.monochrome:
            mark = shade(t)
            text = (mark + cell_value(v)) if geo.values else (mark * geo.cell)
            line.append(text[: geo.cell].ljust(geo.cell), style="bold underline" if asked else "")
            return
        r, g, b = ramp_colour(t)
        ink = Color.from_rgb(0, 0, 0) if t > 0.55 else Color.from_rgb(255, 255, 255)
        text = cell_value(v).rjust(geo.cell - 1) + " " if geo.values else " " * geo.cell
        style = Style(bgcolor=Color.from_rgb(r, g, b), color=ink, bold=asked, underline=asked)
        line.append(text, style=style)

    def _masked(self, line: Text, geo: _Geometry) -> None:
        """A key the mask removed: crossed out on a neutral ground, never mistaken for a weight of 0."""
        text = ("×".center(geo.cell - 1) + " ") if geo.cell > 1 else "×"
        line.append(
            text[: geo.cell], style="dim" if self.monochrome else Style(color="grey50", bgcolor="grey15")
        )

    def _legend(self, lo: float, hi: float, width: int) -> Text:
        legend = Text()
        legend.append(f"min {lo:.3g} ", style="dim")
        if self.monochrome:
            legend.append(SHADES[1:] + " ")
        else:
            for k in range(8):
                r, g, b = ramp_colour(k / 7)
                legend.append("  ", style=Style(bgcolor=Color.from_rgb(r, g, b)))
            legend.append(" ")
        legend.append(f"max {hi:.3g}", style="dim")
        if legend.cell_len + 30 <= width:
            heatmap = self.heatmap
            masked = heatmap is not None and heatmap.allowed is not None and not bool(heatmap.allowed.all())
            legend.append("   × = masked" if masked else "", style="dim")
            if heatmap is not None and heatmap.asked is not None:
                legend.append("   ▸ = asked", style="dim")
        return legend
