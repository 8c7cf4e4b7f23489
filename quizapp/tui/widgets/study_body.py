"""Provides StudyBody: the study screen's scrolling column, which can put a widget being shown at its top
in the very frame that first draws it.

After an answer the feedback panel is revealed and scrolled to the top of the body. Waiting for a layout
to learn where the panel landed, then scrolling, costs a second layout and paint; instead the body works
out its next arrangement at once (the same one the layout then uses) and scrolls before the frame.

When a card opens (and when a case study asks its next step) the end of the question, where the
sentence that asks and the input are, must be in view: at 80x24 a question with three matrices, or a
case study three steps in, put them below the bottom edge. The card's new text is only measured by the
coming layout, so the body is asked to scroll there in that layout (`show_end_of`), before its frame.
"""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING

from textual.actions import SkipAction
from textual.containers import VerticalScroll
from textual.geometry import Size
from textual.widget import Widget

if TYPE_CHECKING:
    from textual.layout import DockArrangeResult


class StudyBody(VerticalScroll):
    """The study screen's body: question card, answer, and the feedback panel below them."""

    _end_of: Widget | None = None
    """The child whose end the next layout brings into view (see `show_end_of`)."""

    def show_end_of(self, widget: Widget) -> None:
        """In the frame that next draws the body: the top of the body when the child holding `widget`
        (the question pane) fits above the bottom edge, else scrolled just far enough for that child's
        last line to be the bottom line (a long question keeps as much of its top as the view allows)."""
        child = widget
        while child.parent is not self:
            parent = child.parent
            if not isinstance(parent, Widget):
                return  # not in the body
            child = parent
        self._end_of = child
        self.refresh(layout=True)

    def arrange(self, size: Size, optimal: bool = False) -> DockArrangeResult:
        """The children's arrangement; when `show_end_of` asked, scrolls for it now, as the layout that
        measured the new content places it (the frame it draws uses this scroll)."""
        arrangement = super().arrange(size, optimal)
        widget = self._end_of
        if widget is None or optimal or size.height <= 0:
            return arrangement
        self._end_of = None
        placed = next((p for p in arrangement.placements if p.widget is widget), None)
        if placed is None:  # removed or hidden since
            return arrangement
        height = max(size.height, arrangement.total_region.bottom)
        self.set_reactive(Widget.virtual_size, Size(self.virtual_size.width, height))  # or it clamps
        if height > size.height:
            self.show_vertical_scrollbar = True
        end = placed.region.bottom + placed.margin.bottom
        top = max(0, min(end, height) - size.height)
        self.scroll_to(y=top, animate=False, immediate=True, force=True)
        return arrangement

    def scroll_to_top_now(self, widget: Widget) -> bool:
        """Scrolls so that `widget`, just shown and not yet laid out, is at the top (or as near as the
        content allows) in the frame that first draws it. False if `widget` is not one of the children.

        (The body's scrollbar gutter is always reserved, so the scrollbar appearing changes no width.)
        """
        viewport = self.scrollable_content_region.size
        arrangement = self.arrange(viewport)  # cached: the coming layout reuses it
        placed = next((p for p in arrangement.placements if p.widget is widget), None)
        if placed is None:
            return False
        height = max(viewport.height, arrangement.total_region.bottom)
        self.set_reactive(Widget.virtual_size, Size(self.virtual_size.width, height))  # or it clamps
        if height > viewport.height:
            self.show_vertical_scrollbar = True  # the content overflows: no frame without the bar
        top = min(placed.region.y - placed.margin.top, self.max_scroll_y)
        self.scroll_to(y=top, animate=False, immediate=True, force=True)
        return True

    def bring_to_top(self, widget: Widget) -> None:
        """Brings `widget` to the top once it has been laid out (the verdict goes first)."""
        self.scroll_to_widget(widget, animate=False, top=True, immediate=True)

    def scroll(self, how: str) -> None:
        """Up, down, page_up, page_down, home or end, as the body's own keys do when it has focus."""
        actions = {
            "up": self.action_scroll_up,
            "down": self.action_scroll_down,
            "page_up": self.action_page_up,
            "page_down": self.action_page_down,
            "home": self.action_scroll_home,
            "end": self.action_scroll_end,
        }
        if how in actions:
            with contextlib.suppress(SkipAction):  # nothing to scroll (the card fits): the key does nothing
                actions[how]()
