"""Provides RenderedBlock: a Static showing one Rich renderable that is rendered once per width.

Textual renders a Rich renderable (a table, Markdown) once to measure its height and again to paint
it, and again after any refresh. The feedback panel's derivation table and explanation are the slowest
things on the study screen, so they go through `CachedRender`: the lines for a width and base style are
kept, the layout and every paint reuse them, and `prepare(width)` renders them ahead of time, while the
question is still being answered.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar, cast

from rich.markdown import CodeBlock, Markdown, MarkdownElement
from rich.protocol import is_renderable
from rich.segment import Segment
from rich.style import Style as RichStyle
from rich.syntax import Syntax
from rich.text import Text
from textual.render import measure
from textual.strip import Strip
from textual.visual import Visual, VisualType
from textual.widgets import Static

if TYPE_CHECKING:
    from rich.console import Console, ConsoleOptions, RenderableType, RenderResult
    from textual.css.styles import RulesMap
    from textual.style import Style
    from textual.visual import RenderOptions
    from textual.widget import Widget


class _CompactCode(CodeBlock):
    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        code = str(self.text).rstrip()
        yield Syntax(code, self.lexer_name, theme=self.theme, word_wrap=True, padding=(0, 1))


class CompactMarkdown(Markdown):
    """Rich Markdown whose code blocks are padded by a column, not a blank line above and below: a
    question with two matrices must still fit 80x24 with its answer box."""

    elements: ClassVar[dict[str, type[MarkdownElement]]] = {
        **Markdown.elements,
        "fence": _CompactCode,
        "code_block": _CompactCode,
    }


class Flowing:
    """Markdown whose lines end where their words do, as Textual's Markdown widget draws them (Rich pads
    a paragraph's lines to the width in the text's style): one widget for text that used to be a
    Markdown widget of a block each (a flashcard's back, a model answer), and drawn the same."""

    def __init__(self, markdown: str) -> None:
        self.markdown = CompactMarkdown(markdown)

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        for line in console.render_lines(self.markdown, options, pad=False):
            while line and not line[-1].control:
                text, style, _ = line[-1]
                if style is not None and style.bgcolor is not None:
                    break  # a code block's background is drawn to its edge
                kept = text.rstrip(" ")
                if kept:
                    line[-1] = Segment(kept, style)
                    break
                line.pop()
            yield from line
            yield Segment.line()


def flowing(markdown: str) -> Flowing:
    """`markdown` drawn as Textual's Markdown widget draws it (see Flowing)."""
    return Flowing(markdown)


CACHED_WIDTHS = 4
"""Renders kept per renderable (a resize brings a new width; the old ones are rarely needed again)."""


class CachedRender(Visual):
    """A Rich renderable as a Textual Visual whose rendered lines are kept per (width, base style)."""

    def __init__(self, widget: Widget, renderable: RenderableType) -> None:
        self.widget = widget
        self.renderable = renderable
        self._lines: dict[tuple[int, RichStyle], list[Strip]] = {}

    def lines(self, width: int, style: RichStyle | None = None) -> list[Strip]:
        """The renderable's lines at `width` on `style` (the widget's own style when None)."""
        if style is None:
            style = self.widget.visual_style.rich_style
        key = (width, style)
        found = self._lines.get(key)
        if found is None:
            if len(self._lines) >= CACHED_WIDTHS:
                self._lines.clear()
            app = self.widget.app
            options = app.console_options.update(highlight=False, width=width)
            segments = app.console.render(self.widget.post_render(self.renderable, style), options)
            found = [
                Strip(line)
                for line in Segment.split_and_crop_lines(segments, width, include_new_lines=False, pad=False)
            ]
            self._lines[key] = found
        return found

    def __str__(self) -> str:
        """What it reads as: the plain text of text, else the lines drawn at the widget's width."""
        if isinstance(self.renderable, Text):
            return self.renderable.plain
        return "\n".join(strip.text for strip in self.lines(self.widget.content_size.width or 80))

    def has_lines(self, width: int) -> bool:
        """True if the renderable is already rendered at `width` (on any base style)."""
        return any(w == width for w, _ in self._lines)

    def get_optimal_width(self, rules: RulesMap, container_width: int) -> int:
        console = self.widget.app.console
        return measure(console, self.renderable, container_width, container_width=container_width)

    def get_height(self, rules: RulesMap, width: int) -> int:
        return len(self.lines(width))

    def render_strips(
        self, width: int, height: int | None, style: Style, options: RenderOptions
    ) -> list[Strip]:
        found = self.lines(width, style.rich_style)
        return found if height is None else found[:height]


class RenderedBlock(Static):
    """A Static for one slow Rich renderable: rendered once per width, or ahead of time by `prepare`."""

    def __init__(
        self,
        renderable: RenderableType,
        *,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        self._cached: CachedRender | None = CachedRender(self, renderable)
        super().__init__(self._cached, id=id, classes=classes)

    def update(self, content: VisualType = "", *, layout: bool = True) -> None:
        """Shows another renderable (the explore screen's derivations change with its inputs)."""
        self._cached = None
        if not isinstance(content, (Visual, str)) and is_renderable(content):
            self._cached = content = CachedRender(self, cast("RenderableType", content))
        super().update(content, layout=layout)

    def prepare(self, width: int) -> None:
        """Renders the content for a content width of `width` now, so its first paint costs nothing."""
        if self._cached is not None and width > 0:
            self._cached.lines(width)

    def is_prepared(self, width: int) -> bool:
        """True if the content is already rendered for a content width of `width`."""
        return self._cached is not None and self._cached.has_lines(width)
