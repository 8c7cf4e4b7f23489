"""Provides the study screen's keys (STUDY_BINDINGS) and the rule for when each applies (study_allows).

Kept apart from StudyScreen so the screen holds what it shows; the rule only reads the screen's state
(its session, phase and focus) and never changes it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.binding import Binding, BindingType
from textual.widgets import Input, TextArea

if TYPE_CHECKING:
    from quizapp.tui.screens.study import StudyScreen

RATE_TIP = "After the answer or the reveal: save {} and go on to the next question (Ctrl+Z takes it back)"
"""The one rule for 1-4 on every kind of question, as in Anki."""
WHILE_SAVING = frozenset({"scroll_body", "values"})
"""The only actions that run while a write is in the save worker: they do not touch the session."""

STUDY_BINDINGS: list[BindingType] = [
    Binding(
        "escape",
        "home",
        "Home",
        priority=True,
        tooltip="Back to the decks (answers are saved)",
        id="study.home",
    ),
    Binding(
        "enter",
        "next",
        "Accept & next",
        tooltip="After the answer: save the suggested rating and go on to the next question",
        id="study.next",
    ),
    Binding("space", "next", "Accept & next", show=False, id="study.next_space"),
    Binding(
        "h",
        "hint",
        "Hint",
        priority=True,
        tooltip="Next rung of the hint ladder (each lowers the best rating by one)",
        id="study.hint",
    ),
    Binding("ctrl+g", "hint_anywhere", "Hint", show=False, id="study.hint_anywhere"),
    Binding(
        "ctrl+o",
        "dont_know",
        "Don't know",
        priority=True,
        tooltip="Show the answer (worked steps, a flashcard's back, a model answer); saved as Again, "
        "and the feedback waits for you",
        id="study.dont_know",
    ),
    Binding(
        "ctrl+z",
        "undo",
        "Undo",
        priority=True,
        tooltip="Take back the last answer, even after moving on (the card is restored), and ask it again",
        id="study.undo",
    ),
    Binding(
        "ctrl+b",
        "set_aside('bury')",
        "Bury",
        priority=True,
        tooltip="Set this question aside until tomorrow (its schedule is untouched)",
        id="study.bury",
    ),
    Binding(
        "ctrl+t",
        "set_aside('suspend')",
        "Suspend",
        priority=True,
        tooltip="Take this question out of every queue (quizapp suspended lists them; Ctrl+Z undoes)",
        id="study.suspend",
    ),
    Binding("space", "reveal", "Reveal", tooltip="Show the back of the flashcard", id="study.reveal"),
    Binding("enter", "reveal", "Reveal", show=False, id="study.reveal_enter"),
    Binding("1", "rate(1)", "Again", tooltip=RATE_TIP.format("Again"), id="study.rate_again"),
    Binding("2", "rate(2)", "Hard", tooltip=RATE_TIP.format("Hard"), id="study.rate_hard"),
    Binding("3", "rate(3)", "Good", tooltip=RATE_TIP.format("Good"), id="study.rate_good"),
    Binding("4", "rate(4)", "Easy", tooltip=RATE_TIP.format("Easy"), id="study.rate_easy"),
    Binding(
        "ctrl+s",
        "submit_explain",
        "Submit",
        tooltip="Submit the explanation / save key points / submit the code (graded on this review's "
        "inputs, rated, then the model solution)",
        id="study.submit",
    ),
    Binding(
        "ctrl+r",
        "run_code",
        "Try",
        priority=True,
        tooltip="Try your code on practice cases: what fails is shown; never rated, never the solution",
        id="study.run",
    ),
    Binding(
        "ctrl+e",
        "edit_code",
        "$EDITOR",
        priority=True,
        tooltip="Edit the code in your $EDITOR (the draft file)",
        id="study.edit_code",
    ),
    Binding(
        "w",
        "wait",
        "Wait",
        tooltip="At the end of a session: wait for the cards that come back later today, and go on with "
        "them when the first is due",
        id="study.wait",
    ),
    Binding("v", "values", "Values", tooltip="Print the values in the heatmap cells", id="study.values"),
    # After an answer nothing has focus (focusing the body would restyle all of it): these scroll it.
    Binding("up", "scroll_body('up')", "Scroll up", show=False, id="study.scroll_up"),
    Binding("down", "scroll_body('down')", "Scroll down", show=False, id="study.scroll_down"),
    Binding("pageup", "scroll_body('page_up')", "Page up", show=False, id="study.page_up"),
    Binding("pagedown", "scroll_body('page_down')", "Page down", show=False, id="study.page_down"),
    Binding("home", "scroll_body('home')", "Scroll to the top", show=False, id="study.scroll_home"),
    Binding("end", "scroll_body('end')", "Scroll to the end", show=False, id="study.scroll_end"),
]


def study_allows(screen: StudyScreen, action: str) -> bool:
    """Whether `action` (a key of STUDY_BINDINGS) applies now: StudyScreen.check_action."""
    if screen.saving and action not in WHILE_SAVING:
        return False
    card = screen.session.current
    answered = screen.session.answered
    kind = card.instance.kind if card else None
    if action == "next":  # Enter or Space: accept the suggestion (a flashcard's is Good) and go on
        return answered or screen.session.finished or (kind == "flashcard" and screen.revealed)
    if action in ("hint", "hint_anywhere"):
        if card is None or answered or card.instance.derivation is None or kind in ("flashcard", "explain"):
            return False
        if action == "hint_anywhere":
            return True
        focused = screen.focused
        if isinstance(focused, TextArea):
            return False
        return not (isinstance(focused, Input) and focused.value)
    if action == "wait":
        return screen.can_wait()
    if action == "reveal":
        return kind == "flashcard" and not screen.revealed and not answered
    if action == "rate":  # 1-4: that rating, then the next question
        return answered or (kind == "flashcard" and screen.revealed)
    if action == "dont_know":
        return card is not None and not answered and not screen.pending_explain
    if action == "set_aside":
        return card is not None and not answered and not screen.pending_explain
    if action == "undo":  # in a text area with edits of its own, Ctrl+Z undoes the typing first
        focused = screen.focused
        typing = (
            isinstance(focused, TextArea) and bool(focused.text.strip()) and bool(focused.history.undo_stack)
        )
        return screen.session.can_undo and not typing
    if action == "submit_explain":  # an explanation, or the code (Ctrl+R only tries it)
        return kind in ("explain", "code") and not answered
    if action in ("run_code", "edit_code"):
        return kind == "code" and not answered
    if action == "values":
        shown = answered or (card is not None and card.instance.prompt_heatmap)
        return shown and card is not None and card.instance.heatmap is not None
    return True
