"""Provides the warm-up: what the first card, the stats and the interview need, imported while home is idle.

The first `s` imported Markdown, Pygments, the text editor, the grader and the study screens on the event
loop (a few hundred milliseconds of frozen screen at the first card). Importing them in a worker shortly
after home shows its decks moves that wait to a moment when nobody is waiting; a key pressed meanwhile
waits only for the module being imported. (Nothing is frozen here: a study screen freezes what is alive
once its first feedback is drawn, these modules with it.)
"""

from __future__ import annotations

import importlib

import textual.widgets

MODULES = (
    "quizapp.study.session",
    "quizapp.grading.grade",
    "quizapp.tui.screens.study",
    "quizapp.tui.screens.stats",
    "quizapp.tui.screens.interview_setup",
    "quizapp.tui.screens.interview",
    "rich.markdown",
    "rich.syntax",
)
"""The modules a first card, stats or interview imports (seen in sys.modules before and after them)."""

WIDGETS = ("Markdown", "TextArea", "SelectionList", "DataTable", "Checkbox")
"""Textual widgets those screens use; textual.widgets imports each on first access."""

LEXERS = ("python",)
"""Languages of the bank's code blocks: Pygments compiles a lexer's rules the first time one is made
(about 26 ms for Python, measured here), which froze the first prompt or report with a code block."""


def import_ahead() -> None:
    """Imports MODULES and WIDGETS, and makes each of LEXERS once (call from a worker thread)."""
    for name in MODULES:
        importlib.import_module(name)
    for widget in WIDGETS:
        getattr(textual.widgets, widget)
    lexers = importlib.import_module("pygments.lexers")
    for language in LEXERS:
        lexers.get_lexer_by_name(language)
