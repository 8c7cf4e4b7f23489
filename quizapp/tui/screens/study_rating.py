"""Provides MovingOn, the study screen's part for the keys that save a rating and go on: Enter or Space
(accept the suggested rating), 1-4 (another rating, or a revealed flashcard's), Ctrl+O (don't know),
Ctrl+B and Ctrl+T (bury, suspend) and Ctrl+Z (undo). Each saves in the save worker, which also reads the
next card; the rating saved is said in the session bar, not in a toast over the next card. And Escape,
home, which asks first when a typed answer would be lost.

Kept apart from StudyScreen, which mixes it in, so each file holds one idea; it uses only the screen's
public surface (session, bar, pane, revealed, write, prepare, show_next, show_feedback) and Textual's.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.widgets import Input, TextArea

from quizapp.grading.rating import RATING_NAMES
from quizapp.tui.widgets.scenario import ScenarioInput

if TYPE_CHECKING:
    from quizapp.study.session import Card, Feedback, StudySession
    from quizapp.tui.screens.study import NextCard
    from quizapp.tui.screens.study_code import CodeEditing
    from quizapp.tui.widgets.question_card import SessionBar
    from quizapp.tui.widgets.question_pane import QuestionPane

    _Screen = CodeEditing  # for keep_draft_now
else:
    _Screen = object  # a mixin at run time; typed as the screen it is mixed into


class MovingOn(_Screen):
    """Enter, 1-4, Ctrl+O, Ctrl+B, Ctrl+T, Ctrl+Z and Escape on a study screen."""

    session: StudySession
    revealed: bool
    pending_explain: bool
    _leave_armed = False
    """Escape asked once about a typed answer: the next Escape leaves without it."""
    _feedback: Feedback | None = None
    """The feedback on screen: 1-4 with the rating it already saved just moves on."""

    @property
    def bar(self) -> SessionBar:
        raise NotImplementedError  # the study screen's

    @property
    def pane(self) -> QuestionPane:
        raise NotImplementedError  # the study screen's

    def prepare(self, card: Card | None) -> NextCard:
        raise NotImplementedError  # the study screen's: in the worker

    async def show_next(self, next_card: NextCard) -> None: ...  # the study screen's

    async def show_feedback(self, feedback: Feedback) -> None: ...  # the study screen's

    async def action_next(self) -> None:
        """Enter or Space: after the answer, the suggested rating stays saved and the next question
        follows; after a flashcard's reveal, it is rated Good (Anki's default) and the next follows."""
        if self.session.finished:
            self.app.pop_screen()  # Enter on "session complete" goes home too
            return
        if not self.session.answered:
            card = self.session.current
            if card is not None and card.instance.kind == "flashcard" and self.revealed:
                await self.action_rate(3)
            return
        self.write(lambda: self.prepare(self.session.advance()), self.show_next)

    async def action_rate(self, rating: int) -> None:
        """1-4, the one rule on every kind of question: after the answer, that rating replaces the
        suggested one (saved at once) and the next question follows; after a flashcard's reveal, the card
        is rated with it and the next follows. Ctrl+Z takes either back."""
        if self.session.answered:
            saved = self._feedback
            if self.session.can_override and (saved is None or saved.rating != rating):
                self.write(lambda: self.session.override(rating), self._show_rated)
            else:  # the rating saved already, or a drill (nothing scheduled to re-rate)
                await self.action_next()
            return
        if not self.revealed:
            return
        self.write(lambda: self._rate_and_advance(rating), self._show_rated_and_next)

    def _rate_and_advance(self, rating: int) -> tuple[Feedback, NextCard]:
        """In the save worker: a revealed flashcard's rating, then the next card, in one trip (one trip
        for each made the next flashcard come twice as late as the next card after Enter)."""
        feedback = self.session.rate(rating)
        return feedback, self.prepare(self.session.advance())

    async def _show_rated_and_next(self, rated: tuple[Feedback, NextCard]) -> None:
        feedback, following = rated
        self._saved_notice(feedback)
        self._feedback = None
        await self.show_next(following)

    async def _show_rated(self, feedback: Feedback) -> None:
        self._saved_notice(feedback)
        self._feedback = None
        await self.action_next()

    def _saved_notice(self, feedback: Feedback) -> None:
        """The rating saved, in the session bar (a toast covered the next card's text at 80x24)."""
        when = f", due in {feedback.next_interval}" if feedback.next_interval else ""
        self.bar.say(f"saved {RATING_NAMES.get(feedback.rating, '?')}{when}")

    async def action_dont_know(self) -> None:
        """Ctrl+O: shows the answer (the worked steps, a flashcard's back, a model answer and its key
        points); the card is saved as Again, and the feedback waits for the learner like any other."""
        card = self.session.current
        if self.session.answered or card is None:
            return
        self.write(self.session.dont_know, self.show_feedback)

    async def action_set_aside(self, how: str) -> None:
        """Ctrl+B buries the question until tomorrow, Ctrl+T suspends it; the next question follows."""
        if how not in ("bury", "suspend"):
            return
        card = self.session.current
        what = "buried until tomorrow" if how == "bury" else "suspended"

        async def show(following: NextCard) -> None:
            if card is not None:
                self.bar.say(f"last card {what}")  # in the bar, not a toast over the next card
            await self.show_next(following)

        self.write(lambda: self.prepare(self.session.set_aside("bury" if how == "bury" else "suspend")), show)

    async def action_undo(self) -> None:
        """Ctrl+Z: the last answer is taken back (the card exactly as before) and asked again."""
        self.write(lambda: self.prepare(self.session.undo()), self._show_undone)

    async def _show_undone(self, card: NextCard) -> None:
        self.bar.say("undone: asked again")
        await self.show_next(card)

    def _unsaved_text(self) -> str:
        """What the user typed for a question not yet answered ("" if nothing would be lost)."""
        if self.session.answered or self.pending_explain or self.session.current is None:
            return ""
        if self.session.current.instance.kind == "code":
            return ""  # its draft is kept as it is typed
        shown = self.pane.slot  # the inputs of the other kinds are hidden, and hold older answers
        for area in shown.query(TextArea).results(TextArea):
            if area.text.strip():
                return area.text
        for field in shown.query_children("#answer").results(Input):
            if field.value.strip():
                return field.value
        for steps in shown.query_children("#answer").results(ScenarioInput):  # a case study part-way
            typed = [*steps.answers, steps.query_one(Input).value.strip()]
            if any(typed):
                return "; ".join(t for t in typed if t)
        return ""

    def action_home(self) -> None:
        """Escape: leaves the screen, but asks first (a second Escape) when a typed answer would be lost."""
        if self._unsaved_text() and not self._leave_armed:
            self._leave_armed = True
            self.notify(
                "Your answer is not submitted yet. Press Escape again to leave without it, or submit it "
                "first (Enter, or Ctrl+S for an explanation).",
                title="Leave this question?",
                severity="warning",
                timeout=6,
            )
            return
        self.keep_draft_now()
        self.write(self._close_session, self._show_closed)

    def _close_session(self) -> Feedback | Exception | None:
        """In the save worker: a pending explanation is saved; what fails is reported once home."""
        try:
            return self.session.close()
        except Exception as exc:
            return exc

    async def _show_closed(self, saved: Feedback | Exception | None) -> None:
        if isinstance(saved, Exception):
            self.router.report_error(saved)
        elif saved is not None:
            self.notify("Your explanation was saved with the key points ticked so far.", timeout=4)
        self.app.pop_screen()
