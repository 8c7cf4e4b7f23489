"""Provides TickList: a selection list whose boxes read `[x]` ticked and `[ ]` not, shared by the explain
questions' key points and the select-all choice questions.

Textual's SelectionList draws every box as the same ▐X▌ glyph and tells ticked from unticked by colour
alone: two colours the default theme makes alike, and one under NO_COLOR. Here the glyph says it, and the
colour (bold success colour against muted) repeats it at a glance.
"""

from __future__ import annotations

from rich.cells import cell_len
from rich.segment import Segment
from rich.style import Style
from textual.strip import Strip
from textual.widgets import SelectionList
from textual.widgets.option_list import OptionDoesNotExist
from textual.widgets.selection_list import SelectionType

TICK_BOXES = {True: "[x]", False: "[ ]"}
"""An option's box, ticked and not: as wide as Textual's own ▐X▌."""
BOX_WIDTH = cell_len(TICK_BOXES[False]) + 1
"""The cells before each option's prompt: its box and the space after it."""


class TickList(SelectionList[SelectionType]):
    """A SelectionList (same keys, messages and selection) that draws each box as `[x]` or `[ ]`."""

    # On the line's own background, so the cursor row keeps its colour.
    DEFAULT_CSS = """
    TickList {
        & > .selection-list--button, & > .selection-list--button-highlighted {
            color: $text-muted;
            text-style: none;
        }
        & > .selection-list--button-selected, & > .selection-list--button-selected-highlighted {
            color: $text-success;
            text-style: bold;
        }
    }
    """

    def render_line(self, y: int) -> Strip:
        """Each option behind `[x]` or `[ ]` in place of Textual's box (options are one line each:
        SelectionList cuts a long prompt with an ellipsis, so line y is option y)."""
        line = super().render_line(y)
        index = self.scroll_offset.y + y
        try:
            value = self.get_option_at_index(index).value
        except OptionDoesNotExist:
            return line
        ticked = value in self.selected
        prompt = line.crop(BOX_WIDTH)  # Textual's box and the space after it
        first = next(iter(prompt), None)
        under = (first.style if first else None) or self.rich_style
        part = "selection-list--button" + ("-selected" if ticked else "")
        if self.highlighted == index:
            part += "-highlighted"
        colour = self.get_component_rich_style(part)
        style = under + Style(color=colour.color, bold=colour.bold, meta={"option": index})
        return Strip([Segment(TICK_BOXES[ticked], style), Segment(" ", under), *prompt])
