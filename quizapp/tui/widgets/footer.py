"""Provides KeyFooter: the key bar at the bottom of every screen, built from public Textual parts, whose
keys are relabelled in place instead of rebuilt.

Textual's Footer rebuilds its key widgets after every change of focus or of the enabled bindings, and
moving to the next card makes several (the answer locked, a new input focused, the bindings
refreshed): each rebuild mounts and styles a dozen widgets and lays the screen out again, some 40 ms,
and leaves their strips and styles to the garbage collector. This footer compares what it would show
with what it shows; only when that differs does it relabel the key widgets it has (hiding the spare
ones, mounting one more only when a screen shows more keys than ever before). It looks like Textual's
compact Footer: the same component classes and theme variables.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from rich.text import Text
from textual.containers import ScrollableContainer
from textual.widget import Widget

if TYPE_CHECKING:
    from textual.binding import ActiveBinding, Binding
    from textual.screen import Screen

Shown = tuple[tuple[str, str, bool, str, bool], ...]


class FooterKey(Widget):
    """One key and what it does; a click presses the key."""

    ALLOW_SELECT = False
    COMPONENT_CLASSES: ClassVar[set[str]] = {"footer-key--key", "footer-key--description"}
    DEFAULT_CSS = """
    FooterKey {
        width: auto;
        height: 1;
        text-wrap: nowrap;
        background: $footer-item-background;
        margin-right: 1;
        .footer-key--key {
            color: $footer-key-foreground;
            background: $footer-key-background;
            text-style: bold;
            padding: 0;
        }
        .footer-key--description {
            padding: 0 0 0 1;
            color: $footer-description-foreground;
            background: $footer-description-background;
        }
        &:hover {
            pointer: pointer;
            color: $footer-key-foreground;
            background: $block-hover-background;
        }
        &.-disabled {
            text-style: dim;
        }
        &.-command-palette {
            dock: right;
            padding-right: 0;
            margin-right: 0;  /* flush right: a margin let the last cell of a key beneath show through */
            border-left: vkey $foreground 20%;
        }
    }
    """

    def __init__(self, *, classes: str = "") -> None:
        super().__init__(classes=classes)
        self.key = ""
        self.key_display = ""
        self.description = ""
        self.enabled = True
        self._text: Text | None = None
        """What render drew last: kept until the label or the styles change (a refresh alone, as a move
        of the bar or a neighbour's relabel makes, would otherwise look up four component styles again)."""

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._text = None

    def show(self, binding: Binding, key_display: str, enabled: bool, tooltip: str) -> None:
        """Shows `binding` (redrawn only if it differs from what is shown)."""
        if (self.key, self.key_display, self.description, self.enabled) == (
            binding.key,
            key_display,
            binding.description,
            enabled,
        ) and self.tooltip == (tooltip or None):
            return
        self.key, self.key_display, self.description = binding.key, key_display, binding.description
        self.enabled = enabled
        self.set_class(not enabled, "-disabled")
        self.tooltip = tooltip or None
        self._text = None
        self.refresh(layout=True)

    def render(self) -> Text:
        if self._text is None:
            self._text = self._label()
        return self._text.copy()

    def _label(self) -> Text:
        key_style = self.get_component_rich_style("footer-key--key")
        description_style = self.get_component_rich_style("footer-key--description")
        key_padding = self.get_component_styles("footer-key--key").padding
        description_padding = self.get_component_styles("footer-key--description").padding
        key = " " * key_padding.left + self.key_display + " " * key_padding.right
        if not self.description:
            text = Text.assemble((self.key_display, key_style))
        else:
            described = " " * description_padding.left + self.description + " " * description_padding.right
            text = Text.assemble((key, key_style), (described, description_style))
        text.stylize_before(self.rich_style)
        return text

    def on_mouse_down(self) -> None:
        if self.enabled:
            self.app.simulate_key(self.key)
        else:
            self.app.bell()


class KeyFooter(ScrollableContainer, can_focus=False, can_focus_children=False):
    """The key bar at the bottom of every screen."""

    ALLOW_SELECT = False
    DEFAULT_CSS = """
    KeyFooter {
        layout: horizontal;
        color: $footer-foreground;
        background: $footer-background;
        dock: bottom;
        height: 1;
        scrollbar-size: 0 0;
    }
    """

    def __init__(self, *, show_command_palette: bool = True) -> None:
        super().__init__()
        self.show_command_palette = show_command_palette
        self._shown: Shown | None = None
        self._pending = False

    def on_mount(self) -> None:
        self.screen.bindings_updated_signal.subscribe(self, self.bindings_changed)

    def on_unmount(self) -> None:
        self.screen.bindings_updated_signal.unsubscribe(self)

    def bindings_changed(self, screen: Screen[object]) -> None:
        """Relabels the keys in the frame after the change (several changes in one turn make one)."""
        if not screen.app.app_focus or not self.is_attached or screen is not self.screen:
            return
        if not self._pending:
            self._pending = True
            self.call_after_refresh(self._refresh_keys)

    async def _refresh_keys(self) -> None:
        self._pending = False
        if self.is_attached:
            await self.update_keys()

    async def update_keys(self) -> None:
        """Brings the keys up to date: nothing happens unless what they would show has changed."""
        active = self.screen.active_bindings
        shown = tuple(
            (binding.key, binding.description, enabled, tooltip or binding.tooltip, binding.show)
            for _node, binding, enabled, tooltip in active.values()
        )
        if shown == self._shown:
            return
        self._shown = shown
        wanted: dict[str, tuple[Binding, bool, str]] = {}
        for _node, binding, enabled, tooltip in active.values():
            if binding.show:
                wanted.setdefault(binding.action, (binding, enabled, tooltip))
        palette = None
        if self.show_command_palette and self.app.ENABLE_COMMAND_PALETTE:
            palette = active.get(self.app.COMMAND_PALETTE_BINDING)
        await self._relabel(list(wanted.values()), palette)

    async def _relabel(self, wanted: list[tuple[Binding, bool, str]], palette: ActiveBinding | None) -> None:
        pool = [key for key in self.query_children(FooterKey) if not key.has_class("-command-palette")]
        if len(wanted) > len(pool):
            more = [FooterKey() for _ in range(len(wanted) - len(pool))]
            await self.mount_all(more)
            pool += more
        for widget, (binding, enabled, tooltip) in zip(pool, wanted, strict=False):
            widget.show(binding, self.app.get_key_display(binding), enabled, tooltip)
            widget.display = True
        for widget in pool[len(wanted) :]:
            widget.display = False
        if palette is None:
            return
        binding, enabled = palette.binding, palette.enabled
        keys = self.query_children(".-command-palette")
        if keys:
            key = keys.first(FooterKey)
        else:
            key = FooterKey(classes="-command-palette")
            await self.mount(key)
        key.show(binding, self.app.get_key_display(binding), enabled, binding.tooltip or binding.description)
