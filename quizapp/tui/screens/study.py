"""Provides StudyScreen: one card at a time from a StudySession, the input that fits it, and feedback.

The screen only lays widgets out and routes keys; the session (quizapp.study.session) picks, grades and
saves. Grading and the commit (which waits for the disk) run in one save worker, one write at a time; a
review is committed before its feedback is shown, so Escape at any moment loses nothing.
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, ClassVar

from rich.text import Text
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.reactive import var
from textual.widget import Widget
from textual.widgets import Header, Input, SelectionList, Static, TextArea

from quizapp.grading.rating import RATING_NAMES
from quizapp.study.records import Progress
from quizapp.tui.collector import READING_STARTS_S, collect_while_reading, refreeze, release, settle
from quizapp.tui.guard import on
from quizapp.tui.messages import AnswerSubmitted, RatingChosen
from quizapp.tui.screens.base import QuizScreen
from quizapp.tui.screens.study_code import CodeEditing
from quizapp.tui.widgets.answer import (
    ExplainArea,
    FlashcardBack,
    answer_hint,
)
from quizapp.tui.widgets.drawing import forget_drawing
from quizapp.tui.widgets.feedback import FeedbackPanel, KeyPointList, KeyPointsPanel
from quizapp.tui.widgets.footer import KeyFooter
from quizapp.tui.widgets.heatmap import HeatmapView
from quizapp.tui.widgets.question_card import SessionBar
from quizapp.tui.widgets.question_pane import QuestionPane
from quizapp.tui.widgets.scenario import ScenarioInput
from quizapp.tui.widgets.study_body import StudyBody

if TYPE_CHECKING:
    from textual.timer import Timer

    from quizapp.content.instance import Instance
    from quizapp.study.coming_back import ComingBack
    from quizapp.study.session import (
        Card,
        ExplainPending,
        Feedback,
        RatingChoice,
        StudySession,
        Unreadable,
    )

RATE_TIP = "After the answer or the reveal: save {} and go on to the next question (Ctrl+Z takes it back)"
"""The one rule for 1-4 on every kind of question, as in Anki."""
WAIT_TICK_S = 1.0
"""How often the wait for the cards that come back redraws its countdown and asks whether one is due."""
WHILE_SAVING = frozenset({"scroll_body", "values"})
"""The only actions that run while a write is in the save worker: they do not touch the session."""


@dataclass(frozen=True)
class NextCard:
    """What a worker read for the card to show next: the card (None: the session is over) and what its
    editor opens with, for a code question."""

    card: Card | None
    code: str = ""


REFREEZE_TRIES = 10
"""How many times, a second apart, a left study screen is looked for before the app's objects are frozen
again (it is normally freed at the first; after the last the app runs unfrozen until the next screen
settles)."""


def _refreeze_later(app: App[object], gone: weakref.ref[StudyScreen], tries: int) -> None:
    """Once the next screen is drawn (and then every second while `gone` lives), collects, and freezes
    again once `gone` is freed."""

    def attempt() -> None:
        if not refreeze(gone) and tries > 1:
            app.set_timer(1.0, lambda: _refreeze_later(app, gone, tries - 1))

    app.call_after_refresh(attempt)


class StudyScreen(CodeEditing, QuizScreen[None]):
    """Study, drill or cram: question card, answer input, feedback panel, session bar."""

    BINDINGS: ClassVar[list[BindingType]] = [
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
            tooltip="Take back the last answer, even after moving on (the card is restored), and ask it "
            "again",
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

    saving: var[bool] = var(False)
    """A write is in the save worker (check_action refuses the session's keys meanwhile). The key bar is
    not relabelled for it: a save lasts a frame or two, and showing, then hiding, the keys it disables
    relabelled the whole bar twice per card, whose strips and styles the collector then had to free."""
    revealed: var[bool] = var(False, bindings=True)
    """The flashcard's back is shown: 1-4 rate it."""
    pending_explain: var[bool] = var(False, bindings=True)
    """An explanation was submitted and waits for its key points to be ticked."""
    phase: var[str] = var("question", bindings=True)
    """"question" (waiting for the answer), "answered" (feedback shown) or "done" (session complete)."""
    answer_empty: var[bool] = var(True, bindings=True)
    """The answer box is empty: only then does "h" give a hint rather than type an h."""

    def __init__(self, session: StudySession, code: str = "", left: int | None = None) -> None:
        """`code` is what the first card's editor opens with (a code question), `left` the first count of
        cards left: both were read with the session, in the worker that started it."""
        super().__init__()
        self.session = session
        self._first_code = code
        self._leave_armed = False
        self._hint_lines: list[Text] = []
        self._done_shown = False
        self._left: int | None = left
        """What was left at the last count (the bar shows it until the next count arrives)."""
        self._feedback: Feedback | None = None
        """The feedback on screen: 1-4 with the rating it already saved just moves on."""
        self._locked: list[tuple[Widget, bool]] = []
        """Widgets that could take focus before the answer was saved, to restore for the next card."""
        self._settled = False
        """The screen's long-lived objects are frozen (collector.settle), to be released on unmount."""
        self._feedbacks = 0
        """Feedbacks shown: every tenth gets a full collection while it is read (collector)."""
        self._body: StudyBody | None = None
        self._bar: SessionBar | None = None
        self._kept: tuple[QuestionPane, Static, FeedbackPanel] | None = None
        self._coming: ComingBack | None = None
        """At the end of a study session: what comes back later today (read in a worker)."""
        self._waiting: Timer | None = None
        """The countdown's timer while `w` waits for those cards."""
        """The question pane, hint box and feedback panel, kept from their mount on: looking them up with
        query_one on every use added an entry to Textual's per-node query cache after each change of the
        body's children (about 1 KiB per review)."""

    def compose(self) -> ComposeResult:
        self._bar = SessionBar(id="session-bar")
        self._body = StudyBody(id="study-body")
        yield Header()
        yield self._bar
        yield self._body
        yield KeyFooter()

    async def on_mount(self) -> None:
        self.sub_title = self.session.title
        await self.show_next(NextCard(self.session.current, self._first_code))

    def _settle(self) -> None:
        if self.is_attached and not self._settled:  # not once Escape has taken the screen away
            self._settled = True
            settle()

    def on_unmount(self) -> None:
        if self._settled:  # this screen was frozen with what lived beside it: it can be freed now
            release()
            _refreeze_later(self.app, weakref.ref(self), REFREEZE_TRIES)

    # -- showing ----------------------------------------------------------------------------------------

    @property
    def body(self) -> StudyBody:
        assert self._body is not None, "composed"
        return self._body

    @property
    def bar(self) -> SessionBar:
        assert self._bar is not None, "composed"
        return self._bar

    @property
    def kept(self) -> tuple[QuestionPane, Static, FeedbackPanel]:
        """The question pane, hint box and feedback panel (mounted with the first card)."""
        assert self._kept is not None, "the first card is shown"
        return self._kept

    def update_bar(self) -> None:
        """Shows what is done at once; what is left is counted in a worker (in study mode that is SQL over
        every card) and drawn when it arrives, so the bar never holds up the card or the feedback."""
        session = self.session
        card = session.current
        if session.mode != "study":  # drill and cram count in memory
            try:
                progress = session.progress()
            except Exception as exc:
                self.router.report_error(exc)
                return
        else:
            progress = Progress(done=session.done, correct=session.correct, left=self._left)
            self._recount()
        self.bar.show(session.title, progress, card.number if card else None)

    def _recount(self) -> None:
        self.fetch(self.session.progress, self._counted, group="recount", exclusive=True)

    def _counted(self, progress: Progress) -> None:
        self._left = progress.left
        card = self.session.current
        self.bar.show(self.session.title, progress, card.number if card else None)

    def prepare(self, card: Card | None) -> NextCard:
        """In the worker that drew `card`: what its editor opens with, when it is a code question (the
        draft, else the code last submitted, which is a store read)."""
        backend = self.router.backend
        if card is None or card.instance.kind != "code" or backend is None:
            return NextCard(card)
        if card.answer:  # taken back by Ctrl+Z: the code submitted, exactly as it ran
            return NextCard(card, card.answer)
        return NextCard(card, backend.code_text(card.instance.question_id, card.instance.starter))

    async def show_next(self, next_card: NextCard) -> None:
        """Shows the card a worker prepared, or "session complete"."""
        if next_card.card is None:
            await self.show_done()
        else:
            await self.show_card(next_card.card, next_card.code)

    async def show_card(self, card: Card, code: str = "") -> None:
        """Shows the card in the widgets the last one used: the question pane and the feedback panel are
        kept and filled in again (remounting some 25 widgets per card took about 100 ms; updating them
        takes a fraction of that)."""
        self.revealed = False
        self.pending_explain = False
        self.phase = "question"
        self.answer_empty = True
        self._leave_armed = False
        self._feedback = None
        self._hint_lines = []
        inst = card.instance
        body = self.body
        with self.app.batch_update():
            await self._remove_transients()
            if self._kept is not None:
                await self._reuse(self._kept[0], inst)
            else:
                kept = (
                    QuestionPane(inst, id="question"),
                    Static("", id="hint-box"),
                    FeedbackPanel(inst, id="feedback"),
                )
                await body.mount_all(kept)  # feedback hidden
                self._kept = kept
            self.pane.hide_error()
            self.kept[1].display = False
            if inst.kind == "code":
                self.load_code(code or inst.starter)
            elif card.answer and self.pane.restore_answer(card.answer):
                self.answer_empty = False  # Ctrl+Z took it back: what was written is there to fix
            if inst.kind in ("code", "flashcard") or inst.prompt_heatmap:
                # The editor, no input, or heatmaps between what is asked and the input: the top first.
                body.scroll_home(animate=False, immediate=True)  # in the frame that draws the card
            else:  # what is asked (the prompt's last sentence, the step) and the input, in view
                body.show_end_of(self.pane)
            self.call_after_refresh(self._prepare_feedback, self.kept[2])
            self.router.set_blink(body)
            self._focus_answer()
            self.update_bar()
        for problem in self.session.problems:
            self.notify(problem, title="Question skipped", severity="warning", timeout=10, markup=False)
        self.session.problems.clear()
        for note in self.session.redrawn:
            self.notify(note, title="Other numbers", timeout=6, markup=False)
        self.session.redrawn.clear()

    @property
    def pane(self) -> QuestionPane:
        return self.kept[0]

    async def _reuse(self, pane: QuestionPane, inst: Instance) -> None:
        """Fills the kept widgets in with `inst`; only an input of another kind is swapped."""
        if self._done_shown:  # "session complete" hid them; Ctrl+Z brought a question back
            self._done_shown = False
            for widget in self.body.children:
                widget.display = True
        for widget, could in self._locked:
            widget.can_focus = could
        self._locked = []
        removing = self.kept[2].load(inst)
        if removing is not None:
            await removing
        await pane.show(inst)

    async def _remove_transients(self) -> None:
        """Removes what only one card had (a flashcard's back, the key points to tick, "session complete").

        Widgets that come and go (these, and an input of another kind) are looked up with `query`, never
        `query_one`: Textual keeps query_one's results per node, keyed by the node's children, and a
        result kept there would hold a removed widget alive, or be handed back after its removal."""
        transients = self.body.query_children("#flashcard, #key-points-panel, #session-done")
        if transients:
            forget_drawing(transients)
            await transients.remove()

    def _focus_answer(self) -> None:
        """Focuses the input without scrolling to it (show_card has placed the body already); a
        flashcard has none, and the body takes the keys."""
        if not self.pane.focus_answer():
            self.body.focus(scroll_visible=False)

    async def show_done(self) -> None:
        body = self.body
        await self._remove_transients()
        for widget in body.children:
            widget.display = False
        self._done_shown = True
        self._stop_waiting()
        self._coming = None
        await body.mount(Static(self._done_text(), id="session-done"))
        body.focus()
        self.phase = "done"
        self.update_bar()
        if self.session.mode == "study":  # what comes back later today is a store read: in a worker
            self.fetch(self.session.coming_back, self._show_coming_back)

    def _done_text(self) -> Text:
        """ "Session complete", what comes back later today (or when the next card is due), and the wait."""
        done, right, coming = self.session.done, self.session.correct, self._coming
        text = Text()
        text.append("Session complete. ", style="bold")
        if done:
            text.append(f"You answered {done} question(s), {right} right; every answer is saved.\n")
        else:
            text.append(self.session.empty_message + "\n")
        summary = coming.summary() if coming is not None else ""
        if summary:
            text.append(summary + "\n")
        if coming is not None and self._waiting is not None:
            text.append(f"Waiting: {coming.countdown(self.session.clock())}; ", style="bold")
            text.append("study goes on when the first is due.\n", style="bold")
            text.append("Press Enter or Escape to go home.", style="dim")
        elif coming is not None and coming.first is not None:
            them = "it" if coming.later_today == 1 else "them"
            text.append(f"Press w to wait for {them}, Enter or Escape to go home.", style="dim")
        else:
            text.append("Press Enter or Escape to go home.", style="dim")
        return text

    def _redraw_done(self) -> None:
        for shown in self.query("#session-done").results(Static):
            shown.update(self._done_text())

    async def _show_coming_back(self, coming: ComingBack | None) -> None:
        if self.phase != "done":  # Ctrl+Z brought a question back meanwhile
            return
        self._coming = coming
        self._redraw_done()
        self.refresh_bindings()

    def action_wait(self) -> None:
        """w at the end of a session: waits for the cards that come back later today with a countdown, and
        goes on with them as soon as the first is due (the timer only asks ComingBack.ready, with the
        app's clock)."""
        if self._coming is None or self._coming.first is None or self._waiting is not None:
            return
        self._waiting = self.set_interval(WAIT_TICK_S, self._tick_wait)
        self._redraw_done()
        self.refresh_bindings()

    def _tick_wait(self) -> None:
        coming = self._coming
        if coming is None or self.phase != "done":
            self._stop_waiting()
        elif not coming.ready(self.session.clock()):
            self._redraw_done()
        elif not self.saving:  # else at the next tick
            self._stop_waiting()
            self.write(lambda: self.prepare(self.session.resume()), self.show_next)

    def _stop_waiting(self) -> None:
        if self._waiting is not None:
            self._waiting.stop()
            self._waiting = None

    def on_resize(self) -> None:
        for panel in self.query(FeedbackPanel).results(FeedbackPanel):
            self.call_after_refresh(self._prepare_feedback, panel)  # for the new width

    def _prepare_feedback(self, panel: FeedbackPanel) -> None:
        """Renders the hidden feedback's derivation, heatmap and explanation while the user thinks."""
        if panel.is_attached and not panel.display and panel.instance.kind != "flashcard":
            region = self.body.scrollable_content_region
            panel.prepare(region.width - panel.styles.margin.width - panel.styles.gutter.width)

    def _lock_answer(self) -> None:
        """After saving: the answer stays visible but can no longer take focus, and Enter means "next".

        Nothing keeps focus: the screen's keys then go on, and scroll the body. (Taking focus away is much
        cheaper than `disabled`, which restyles every widget below the input, and than focusing the body,
        which restyles all of it.)
        """
        for widget in self.query("#answer, #answer *, KeyPointList").results(Widget):
            self._locked.append((widget, widget.can_focus))
            widget.can_focus = False
        self.set_focus(None)

    async def show_feedback(self, feedback: Feedback) -> None:
        self._feedback = feedback
        panel = self.kept[2]
        with self.app.batch_update():  # one frame for the lock, the panel, its scroll and the bar
            self._lock_answer()
            self.phase = "answered"
            self.pane.hide_error()
            if feedback.instance.kind == "flashcard":  # "press Space to reveal" no longer applies
                self.pane.hint_line(Text(""))
            mounting = panel.show(feedback)
            if mounting is not None:
                await mounting
            self.bar.say("")  # the verdict speaks now, not the note on the card before
            self.update_bar()
            self.body.scroll_to_top_now(panel)
            # Once laid out, again: a verdict that comes back within a frame of the submission (code run
            # by a warm standby) can find the layout before the "Running..." hint's refresh.
            self.call_after_refresh(self.body.bring_to_top, panel)
            self.refresh(layout=True, repaint=False)  # in the next frame, not after the queued messages
        # Once the feedback is drawn, off the key's path: the first time, what is alive now lives as
        # long as the screen and is frozen; afterwards only what the cards left is collected.
        self._feedbacks += 1
        collect = partial(collect_while_reading, self._feedbacks) if self._settled else self._settle
        self.call_after_refresh(self.set_timer, READING_STARTS_S, collect)
        if feedback.notice:
            self.notify(feedback.notice, title="Card repaired", severity="warning", timeout=10)
        if feedback.became_leech:
            self.notify(
                "You have forgotten this card 8 times: it is now flagged as a leech. "
                "Consider rewriting your notes on it.",
                title="Leech",
                severity="warning",
            )

    def show_error(self, message: str) -> None:
        line = self.pane.show_error(message)
        if self.session.current is not None and self.session.current.instance.kind == "code":
            self.body.scroll_to_widget(line, top=True, animate=False)  # the message, then the editor
        else:  # under the input and its reminder: at 80x24 below the bottom edge of a long question
            line.scroll_visible(animate=False)

    # -- events and actions -----------------------------------------------------------------------------

    @on(AnswerSubmitted)
    def _submitted(self, event: AnswerSubmitted) -> None:
        event.stop()
        if self.session.answered or self.pending_explain:
            return
        text = event.text
        self.write(lambda: self.session.submit(text), self._show_submitted)

    async def _show_submitted(self, result: Feedback | Unreadable | ExplainPending) -> None:
        from quizapp.study.session import ExplainPending, Unreadable

        if isinstance(result, Unreadable):
            self.show_error(result.message)
            card = self.session.current
            if card is not None:
                self.pane.hint_line(answer_hint(card.instance))
        elif isinstance(result, ExplainPending):
            self.pending_explain = True
            for widget in self.query("#answer, #answer *").results(Widget):
                widget.disabled = True
            panel = KeyPointsPanel(result, id="key-points-panel")
            await self.body.mount(panel, before=self.kept[2])
            self.query(KeyPointList).first().focus(scroll_visible=False)
            self.call_after_refresh(self.body.bring_to_top, panel)
        else:
            await self.show_feedback(result)

    @on(Input.Changed)
    @on(TextArea.Changed)
    def _typing(self, event: Input.Changed | TextArea.Changed) -> None:
        self._leave_armed = False  # typing more means the next Escape asks again
        if isinstance(event, Input.Changed):
            field: Widget = event.input
            typed = event.value
        else:
            field, typed = event.text_area, event.text_area.text
        self.answer_empty = not typed
        if not typed and isinstance(event, Input.Changed):
            self.pane.hide_error()  # "could not read" under an emptied box is about nothing any more
        if field.has_focus and typed:
            field.scroll_visible(animate=False)  # scrolled away from, or opened at the top: it shows
        if field.id == "code-text" and not self.session.answered:
            self.draft_changed()

    @on(SelectionList.SelectedChanged, "#key-points")
    def _ticked(self, event: SelectionList.SelectedChanged[int]) -> None:
        self.session.tick(event.selection_list.selected)

    @on(RatingChosen)
    async def _rated(self, event: RatingChosen) -> None:
        event.stop()
        await self.action_rate(event.rating)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if self.saving and action not in WHILE_SAVING:
            return False
        card = self.session.current
        answered = self.session.answered
        kind = card.instance.kind if card else None
        if action == "next":  # Enter or Space: accept the suggestion (a flashcard's is Good) and go on
            return answered or self.session.finished or (kind == "flashcard" and self.revealed)
        if action in ("hint", "hint_anywhere"):
            if (
                card is None
                or answered
                or card.instance.derivation is None
                or kind in ("flashcard", "explain")
            ):
                return False
            if action == "hint_anywhere":
                return True
            focused = self.focused
            if isinstance(focused, TextArea):
                return False
            return not (isinstance(focused, Input) and focused.value)
        if action == "wait":
            coming = self._coming
            waiting = self._waiting is not None
            return self.phase == "done" and coming is not None and coming.first is not None and not waiting
        if action == "reveal":
            return kind == "flashcard" and not self.revealed and not answered
        if action == "rate":  # 1-4: that rating, then the next question
            return answered or (kind == "flashcard" and self.revealed)
        if action == "dont_know":
            return card is not None and not answered and not self.pending_explain
        if action == "set_aside":
            return card is not None and not answered and not self.pending_explain
        if action == "undo":  # in a text area with edits of its own, Ctrl+Z undoes the typing first
            focused = self.focused
            typing = (
                isinstance(focused, TextArea)
                and bool(focused.text.strip())
                and bool(focused.history.undo_stack)
            )
            return self.session.can_undo and not typing
        if action == "submit_explain":  # an explanation, or the code (Ctrl+R only tries it)
            return kind in ("explain", "code") and not answered
        if action in ("run_code", "edit_code"):
            return kind == "code" and not answered
        if action == "values":
            shown = answered or (card is not None and card.instance.prompt_heatmap)
            return shown and card is not None and card.instance.heatmap is not None
        return True

    def _unsaved_text(self) -> str:
        """What the user typed for a question not yet answered ("" if nothing would be lost)."""
        if self.session.answered or self.pending_explain or self.session.current is None:
            return ""
        if self.session.current.instance.kind == "code":
            return ""  # its draft is kept as it is typed
        for area in self.query(TextArea).results(TextArea):
            if area.text.strip():
                return area.text
        for field in self.query("#answer").results(Input):
            if field.value.strip():
                return field.value
        for steps in self.query("#answer").results(ScenarioInput):  # a case study part-way through
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

    def action_hint_anywhere(self) -> None:
        """Ctrl+G: the hint even while the answer box has text in it."""
        self.action_hint()

    def action_hint(self) -> None:
        """Shows the next rung of the hint ladder under the ones already shown."""
        try:
            hint = self.session.hint()
        except Exception as exc:
            self.router.report_error(exc)
            return
        box = self.kept[1]
        if hint is None:
            if not self._hint_lines:
                box.update(Text("No worked derivation for this question, so no hint.", style="dim"))
        else:
            line = Text()
            line.append(f"Hint {hint.rung}/{hint.rungs} ", style="bold yellow")
            line.append(f"(best rating now {hint.cap}): ", style="dim")
            line.append(hint.text)
            self._hint_lines.append(line)
            box.update(Text("\n").join(self._hint_lines))
        box.display = True

    async def action_reveal(self) -> None:
        card = self.session.current
        if card is None or self.revealed:
            return
        self.write(self.session.reveal, self._show_revealed)  # in study mode it reads the card's intervals

    async def _show_revealed(self, choices: tuple[RatingChoice, ...]) -> None:
        card = self.session.current
        if card is None or self.revealed:
            return
        self.revealed = True
        self.pane.hint_line(Text(""))  # "press Space to reveal it" no longer applies
        back = FlashcardBack(card.instance, choices, id="flashcard")
        await self.body.mount(back)
        self.body.focus(scroll_visible=False)
        self.call_after_refresh(self.body.bring_to_top, back)

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

    async def action_submit_explain(self) -> None:
        if self.pending_explain:
            await self.action_finish_explain()
            return
        area = self.query(ExplainArea)
        if area:
            self.post_message(AnswerSubmitted(area.first().text))
        else:
            self.submit_code()

    async def action_finish_explain(self) -> None:
        if not self.pending_explain or self.session.answered:
            return
        ticked = self.query(KeyPointsPanel).first().ticked
        self.write(lambda: self.session.finish_explain(ticked), self._show_explained)

    async def _show_explained(self, feedback: Feedback) -> None:
        self.pending_explain = False
        await self.show_feedback(feedback)

    def action_scroll_body(self, how: str) -> None:
        """Arrows, page keys, home and end scroll the body when nothing else takes them."""
        self.body.scroll(how)

    def action_values(self) -> None:
        for view in self.query(HeatmapView):
            view.toggle_values()
