"""Provides the code question's editor (CodeArea): Python highlighting while the text is small enough,
Enter keeping the indentation, pastes and loads capped at EDITOR_MAX_CHARS, and Try/Submit buttons posting
CodeTryAsked or AnswerSubmitted. It is kept between code questions and `reset` with each one's starter.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual import events, on
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.widgets import Button, Static, TextArea

from quizapp.tui.messages import AnswerSubmitted, CodeTryAsked
from quizapp.tui.widgets.text_boxes import TextEditor

if TYPE_CHECKING:
    from quizapp.content.instance import Instance


def indent_after(line: str, indent_width: int = 4) -> str:
    """The indentation a new line opened after `line` starts with: the same as `line`'s, one level more
    after a line ending in ':' (a def, an if, a for), as a Python editor does."""
    indent = line[: len(line) - len(line.lstrip(" \t"))]
    code = line.split("#", 1)[0].rstrip()
    if code.endswith(":"):
        indent += "\t" if indent.startswith("\t") else " " * indent_width
    return indent


EDITOR_MAX_CHARS = 100_000
"""What the code editor loads or takes in one paste: an answer is a few hundred lines; a megabyte of text
would freeze the screen (issue 28). Longer text is cut, and the learner told."""
HIGHLIGHT_MAX_CHARS = 30_000
"""Above this the editor stops highlighting (each edit would re-parse the whole text)."""


class CodeText(TextEditor):
    """The code editor's text area: Enter keeps the line's indentation (one level more after a ':'), and
    a paste longer than EDITOR_MAX_CHARS is refused with a message."""

    def on_key(self, event: events.Key) -> None:
        if event.key != "enter" or self.read_only:
            return
        event.stop()
        event.prevent_default()  # instead of TextArea's plain newline
        start, end = self.selection
        top = min(start, end)
        before = self.document.get_line(top[0])[: top[1]]
        self.replace("\n" + indent_after(before, self.indent_width), start, end)

    def on_resize(self, event: events.Resize) -> None:
        """A message above the editor (a try, an error) or a horizontal scrollbar takes rows from it at
        80x24: the line being typed stays in view instead of sliding under the bottom edge."""
        self.scroll_cursor_visible()

    def on_paste(self, event: events.Paste) -> None:
        if len(event.text) + len(self.text) > EDITOR_MAX_CHARS:
            event.prevent_default()  # TextArea's own handler (the base class's) does not insert it
            event.stop()
            self.notify(
                f"Not pasted: the code would be over {EDITOR_MAX_CHARS:,} characters.", severity="warning"
            )


def capped(text: str) -> str:
    """`text`, cut to EDITOR_MAX_CHARS with a comment saying so."""
    if len(text) <= EDITOR_MAX_CHARS:
        return text
    return (
        text[:EDITOR_MAX_CHARS]
        + f"\n# ... cut here: the editor holds at most {EDITOR_MAX_CHARS:,} characters\n"
    )


class CodeArea(Vertical):
    """The editor of a code question: Python highlighting and line numbers; Ctrl+R (or Try) tries it on
    practice cases, Ctrl+S (or Submit) submits it to be graded."""

    DEFAULT_CSS = """
    CodeArea { height: auto; }
    CodeArea TextArea { height: 18; max-height: 50vh; }
    CodeArea.with-error TextArea { max-height: 40vh; }
    CodeArea #code-error { height: auto; max-height: 4; display: none; color: $error; }
    CodeArea #code-error.-tried { max-height: 10; color: $warning; }
    CodeArea #code-error.-passed { color: $success; }
    CodeArea Button { margin: 0 0 0 1; }
    """

    def __init__(self, inst: Instance, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._starter = inst.starter

    def compose(self) -> ComposeResult:
        # Above the editor, and the editor a little shorter meanwhile: at 80x24 a message under an editor
        # of half the screen was below the bottom edge.
        yield Static("", id="code-error", markup=False)
        editor = CodeText.code_editor(self._starter, id="code-text", soft_wrap=False)
        # Set after: given to the constructor, the language is set twice (the constructor's document, then
        # the watcher's), and tree-sitter's highlight query compiled twice, some 25 ms each.
        editor.language = "python"
        yield editor
        with Horizontal(classes="buttons"):
            yield Button("Try (Ctrl+R)", id="code-run", compact=True)
            yield Button("Submit (Ctrl+S)", id="code-submit", variant="primary", compact=True)

    @property
    def text(self) -> str:
        return self.query_one(TextArea).text

    def load(self, text: str) -> None:
        """Puts `text` in the editor (a saved draft, the last answer, or the starter code), with a fresh
        undo history. The text is replaced in the document the editor has: `load_text`, like setting
        `language`, compiles tree-sitter's highlight query again (up to 185 ms on the event loop), so
        the language is only set when highlighting starts or stops (HIGHLIGHT_MAX_CHARS)."""
        area = self.query_one(TextArea)
        text = capped(text)
        if area.text == text:
            return
        wanted = "python" if len(text) <= HIGHLIGHT_MAX_CHARS else None
        if wanted is None and area.language is not None:
            area.language = None  # before the long text goes in: it is never parsed
        area.replace(text, area.document.start, area.document.end, maintain_selection_offset=False)
        if area.language != wanted:
            area.language = wanted
        area.history.clear()  # Ctrl+Z in the editor must not bring back the last question's code
        area.move_cursor((0, 0))

    @on(TextArea.Changed)
    def _highlight_while_small(self, event: TextArea.Changed) -> None:
        """Highlighting stops above HIGHLIGHT_MAX_CHARS and comes back below it."""
        area = event.text_area
        wanted = "python" if len(area.text) <= HIGHLIGHT_MAX_CHARS else None
        if area.language != wanted:
            area.language = wanted

    def reset(self, inst: Instance) -> None:
        """The starter code of the next code question (the screen then loads a draft if there is one)."""
        self.load(inst.starter)
        self.show_error("")

    def show_error(self, message: str) -> Static:
        """Shows why the code was not run (it does not parse), above the editor; "" hides it."""
        box = self.query_one("#code-error", Static)
        box.update(message)
        box.display = bool(message)
        box.remove_class("-tried", "-passed")
        self.set_class(bool(message), "with-error")
        return box

    def show_tried(self, message: str, passed: bool) -> Static:
        """Shows what a try found (quizapp.grading.code_try) where an error shows, a little taller."""
        box = self.show_error(message)
        box.add_class("-tried")
        box.set_class(passed, "-passed")
        return box

    @on(Button.Pressed, "#code-run")
    def _pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.post_message(CodeTryAsked(self.text))

    @on(Button.Pressed, "#code-submit")
    def _submit_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.post_message(AnswerSubmitted(self.text))
