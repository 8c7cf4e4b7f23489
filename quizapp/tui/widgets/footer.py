"""Provides KeyFooter: Textual's Footer, whose keys are updated in place instead of rebuilt.

Textual's Footer rebuilds its key widgets after every change of focus or of the enabled bindings, and
moving to the next card makes several (the answer locked, a new input focused, the bindings
refreshed): each rebuild mounts and styles a dozen widgets and lays the screen out again, some 40 ms.
This footer compares what it would show with what it shows, and when that differs it relabels the key
widgets it has (hiding the spare ones) rather than mounting new ones. It relies on FooterKey's
attributes (key, key_display, description, action), as of the Textual version pinned in pyproject.toml;
with grouped bindings, or more keys than it has widgets, it rebuilds as Textual's does.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.widgets import Footer
from textual.widgets._footer import FooterKey

if TYPE_CHECKING:
    from textual.binding import Binding
    from textual.screen import Screen

Shown = tuple[tuple[str, str, bool, str, bool], ...]
Wanted = list[tuple["Binding", bool, str]]


class KeyFooter(Footer):
    """The key bar at the bottom of every screen."""

    def __init__(self, *, show_command_palette: bool = True) -> None:
        super().__init__(compact=True, show_command_palette=show_command_palette)
        self._shown: Shown | None = None
        self._pending = False

    def bindings_changed(self, screen: Screen[object]) -> None:
        """Relabels the keys at once, in the frame the change is drawn in; only a rebuild waits for the
        next refresh (several changes in one turn of the loop make one rebuild)."""
        self._bindings_ready = True
        if not screen.app.app_focus or not self.is_attached or screen is not self.screen:
            return
        if not self._pending:
            self._pending = True
            self.call_after_refresh(self._refresh_keys)

    async def _refresh_keys(self) -> None:
        self._pending = False
        if self.is_attached and not self._update_keys():
            await self.recompose()

    def _update_keys(self) -> bool:
        """Brings the keys up to date in place; False if a rebuild is needed for that."""
        active = self.screen.active_bindings.values()
        shown = tuple(
            (binding.key, binding.description, enabled, tooltip or binding.tooltip, binding.show)
            for _node, binding, enabled, tooltip in active
        )
        if shown == self._shown:
            return True
        self._shown = shown
        wanted: dict[str, tuple[Binding, bool, str]] = {}
        for _node, binding, enabled, tooltip in active:
            if binding.show:
                wanted.setdefault(binding.action, (binding, enabled, tooltip))
        return self._relabel(list(wanted.values()))

    def _relabel(self, wanted: Wanted) -> bool:
        """Shows `wanted` in the key widgets already mounted; False if they cannot (a rebuild is due)."""
        pool = [
            key
            for key in self.query_children(FooterKey).results(FooterKey)
            if not key.has_class("-command-palette")
        ]
        if not pool or len(wanted) > len(pool) or any(b.group is not None for b, _, _ in wanted):
            return False
        for widget, (binding, enabled, tooltip) in zip(pool, wanted, strict=False):
            widget.key = binding.key
            widget.key_display = self.app.get_key_display(binding)
            widget.description = binding.description
            widget.action = binding.action
            widget._disabled = not enabled
            widget.set_class(not enabled, "-disabled")
            widget.tooltip = tooltip or None
            widget.display = True
            widget.refresh(layout=True)
        for widget in pool[len(wanted) :]:
            widget.display = False
        return True
