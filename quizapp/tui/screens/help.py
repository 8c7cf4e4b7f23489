"""Provides HelpScreen: every key of every registered screen, read from the screens' own bindings so it never
drifts."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import ModalScreen, Screen
from textual.widgets import Static

from quizapp.tui.keys import bindings
from quizapp.tui.routing import SCREENS

INTRO = (
    "Every answer is saved the moment you submit it, so Escape is always safe. Ctrl+P opens the command "
    "palette with the keys of the screen you are on; Ctrl+Q quits from anywhere."
)
ONE_RULE = (
    "One rule on every question (numbers, shapes, choices, flashcards, explanations, code, case studies): "
    "after the answer or the flashcard's back, 1-4 saves that rating and moves on, as in Anki; Enter (or "
    "Space) accepts the suggested rating and moves on; Ctrl+Z takes it back. Ctrl+O (I don't know) shows "
    "the answer, saves Again, and waits for you like any other feedback. A choice question takes Enter "
    "as an answer only once you picked an option (the arrows, or its letter or number)."
)
TYPING_NOTE = (
    "While typing an answer, h is a letter: press h in an empty box, or Ctrl+G, for the hint. In the code "
    "editor every key types (? too): F1 opens this help, Tab indents. Ctrl+R tries the code on practice "
    "cases and shows what fails (the case, expected and yours, or the error and its line): a try is never "
    "rated or saved and never shows the solution. Ctrl+S submits it: graded on the review's own inputs, "
    "rated, then the model solution (in an interview, graded at the end). Code that does not parse or "
    "stops on a NameError is not counted as a submission; after a submission, Ctrl+Z takes it back so "
    "you can fix the code and submit it again."
)


NAMES = {"question_mark": "?", "comma": ",", "full_stop": ".", "slash": "/"}


def key_names(keys: str) -> str:
    """A binding's keys as the help shows them: "escape,q,question_mark" -> "escape q ?"."""
    return " ".join(NAMES.get(key, key) for key in keys.split(","))


def listed(binding: Binding) -> bool:
    """True for a key the help and the command palette list: one the key bar shows, or one left out of
    it for room (show=False with a tooltip); an alias or a scroll key (no tooltip) is not listed."""
    return binding.show or bool(binding.tooltip)


def _keys(title: str, screen: type[Screen[Any]]) -> Text:
    text = Text()
    text.append(f"\n{title}\n", style="bold")
    shown = [
        (item.key_display or key_names(item.key), item.tooltip or item.description)
        for item in screen.BINDINGS
        if isinstance(item, Binding) and item.description and listed(item)
    ]
    width = max([8, *(len(key) + 2 for key, _ in shown)])
    for key, what in shown:
        text.append(f"  {key:<{width}}", style="bold")
        text.append(f"{what}\n")
    return text


def help_text(keymap: Mapping[str, str] | None = None) -> Text:
    """The help: one block of keys per registered screen (quizapp.tui.routing), from its own bindings, then
    every binding id with its key (after config.toml's `keymap`), for remapping."""
    out = Text()
    out.append("quizapp keys\n", style="bold underline")
    out.append(INTRO + "\n")
    out.append("\n" + ONE_RULE + "\n", style="bold")
    for entry in SCREENS:
        block = _keys(entry.title, entry.screen_class())
        if block.plain.strip() != entry.title:  # a screen with no key of its own gets no block
            out.append_text(block)
        if entry.name == "study":
            out.append(TYPING_NOTE + "\n", style="dim")
    out.append_text(_ids(keymap or {}))
    return out


def _ids(keymap: Mapping[str, str]) -> Text:
    text = Text()
    text.append("\nBinding ids, for [keymap] in config.toml (see the README)\n", style="bold")
    for binding_id, binding in bindings().items():
        key = keymap.get(binding_id, binding.key)
        text.append(f"  {binding_id:<26}", style="bold")
        text.append(f"{key:<22} {binding.description}\n")
    return text


class HelpScreen(ModalScreen[None]):
    """A scrollable key reference over the current screen; Escape or q closes it."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q,question_mark", "app.pop_screen", "Close", id="help.close"),
    ]

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="help-body"):
            user = getattr(getattr(self.app, "config", None), "user", None)
            yield Static(help_text(dict(user.keymap) if user is not None else None), id="help-text")

    def on_mount(self) -> None:
        self.query_one("#help-body").focus()
