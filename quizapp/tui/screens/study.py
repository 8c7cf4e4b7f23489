"""Provides StudyScreen: one card at a time from a StudySession, the input that fits it, and feedback.

The screen only lays widgets out and routes keys; the session (quizapp.study.session) picks, grades and
saves. Grading and the commit (which waits for the disk) run in one save worker, one write at a time; a
review is committed before its feedback is shown, so Escape at any moment loses nothing.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.reactive import var
from textual.widget import Widget
from textual.widgets import Header, Input, SelectionList, Static, TextArea

from quizapp.grading.explain_grade import warm_reader
from quizapp.study.session import ExplainPending, Unreadable
from quizapp.study.views import SessionCounts
from quizapp.tui.guard import on
from quizapp.tui.messages import AnswerSubmitted, RatingChosen
from quizapp.tui.screens.base import QuizScreen
from quizapp.tui.screens.study_code import CodeEditing
from quizapp.tui.screens.study_end import SessionEnd
from quizapp.tui.screens.study_keys import STUDY_BINDINGS, study_allows
from quizapp.tui.screens.study_pacing import (
    CollectorPacing,
    feedback_on_top,
    lock_answer,
    open_at_question,
    prepare_feedback,
)
from quizapp.tui.screens.study_rating import MovingOn
from quizapp.tui.widgets.answer import ExplainArea, FlashcardBack, answer_hint
from quizapp.tui.widgets.drawing import forget_drawing
from quizapp.tui.widgets.feedback import FeedbackPanel
from quizapp.tui.widgets.footer import KeyFooter
from quizapp.tui.widgets.heatmap import HeatmapView
from quizapp.tui.widgets.key_points import KeyPointList, KeyPointsPanel
from quizapp.tui.widgets.question_card import SessionBar
from quizapp.tui.widgets.question_pane import BUILD_AHEAD_S, QuestionPane
from quizapp.tui.widgets.study_body import StudyBody

if TYPE_CHECKING:
    from quizapp.content.instance import Instance
    from quizapp.study.session import Card, Feedback, RatingChoice, StudySession


@dataclass(frozen=True)
class NextCard:
    """What a worker read for the card to show next: the card (None: the session is over) and what its
    editor opens with, for a code question."""

    card: Card | None
    code: str = ""


class StudyScreen(SessionEnd, MovingOn, CodeEditing, QuizScreen[None]):
    """Study, drill or cram: question card, answer input, feedback panel, session bar."""

    BINDINGS: ClassVar[list[BindingType]] = STUDY_BINDINGS
    AUTO_FOCUS: ClassVar[str | None] = ""  # none (None means the app's: the first focusable)
    """Each card places focus itself (its input, or nothing: the screen's keys scroll the body); a body
    focused by Textual first, then left, restyled the whole card."""

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
        self._left: int | None = left
        """What was left at the last count (the bar shows it until the next count arrives)."""
        self._feedback: Feedback | None = None
        self._locked: list[tuple[Widget, bool]] = []
        """Widgets that could take focus before the answer was saved, to restore for the next card."""
        self._pacing = CollectorPacing()
        self._body: StudyBody | None = None
        self._bar: SessionBar | None = None
        self._kept: tuple[QuestionPane, Static, FeedbackPanel] | None = None
        """The question pane, hint box and feedback panel, kept from their mount on: looking them up with
        query_one on every use added an entry to Textual's per-node query cache after each change of the
        body's children (about 1 KiB per review)."""
        self._back: FlashcardBack | None = None
        self._points: KeyPointsPanel | None = None
        """A flashcard's back and an explanation's key points: built the first time, then shown again."""

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

    def on_unmount(self) -> None:
        self._pacing.screen_left(self)

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
            progress = SessionCounts(done=session.done, correct=session.correct, left=self._left)
            self._recount()
        self.bar.show(session.title, progress, card.number if card else None)

    def _recount(self) -> None:
        self.fetch(self.session.progress, self._counted, group="recount", exclusive=True)

    def _counted(self, progress: SessionCounts) -> None:
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
        """Shows the card in the widgets the last one used: the question pane (an input per kind of
        question), the hint box and the feedback panel are built with the first card and filled in
        again (remounting some 25 widgets per card took about 100 ms; updating them a fraction)."""
        self.revealed = self.pending_explain = self._leave_armed = False
        self.phase = "question"
        self.answer_empty = True
        self._feedback = None
        self._hint_lines = []
        inst = card.instance
        body = self.body
        with self.app.batch_update():
            if self._kept is not None:
                built = await self._reuse(self._kept[0], inst)
            else:
                built = True
                kept = (
                    QuestionPane(inst, id="question"),
                    Static("", id="hint-box"),
                    FeedbackPanel(inst, id="feedback"),
                )
                await body.mount_all(kept)  # feedback hidden
                self._kept = kept
                self.set_timer(BUILD_AHEAD_S, self.build_code_ahead, name="code editor built ahead")
            await self.hide_transients()
            self.pane.hide_error()
            self.kept[1].display = False
            if inst.kind == "code":
                self.load_code(code or inst.starter)
            elif card.answer and self.pane.restore_answer(card.answer):
                self.answer_empty = False  # Ctrl+Z took it back: what was written is there to fix
            open_at_question(body, self.pane, inst)
            self.call_after_refresh(prepare_feedback, body, self.kept[2])
            if inst.kind == "explain":  # after the card's frame: the forms compile while it is read
                self.call_after_refresh(self._warm_reader, inst)
            if built:  # the fields kept from earlier cards have it already
                self.router.set_blink(body)
            if not self.pane.focus_answer():  # without scrolling to it: the body is placed already
                self.set_focus(None)  # a flashcard has no input: the screen's keys scroll the body
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

    def _warm_reader(self, inst: Instance) -> None:
        self.fetch(partial(warm_reader, inst), lambda _: None, group="warm-reader", store=False)

    async def _reuse(self, pane: QuestionPane, inst: Instance) -> bool:
        """Fills the kept widgets in with `inst`; the input of its kind is shown, the others hidden. True
        if an input was built for it (the first card of its kind)."""
        if self._done_shown:  # "session complete" hid the question; Ctrl+Z or the wait brought one back
            self._done_shown = False
            pane.display = True
        for widget, could in self._locked:
            widget.can_focus = could
        self._locked = []
        self.kept[2].load(inst)
        return await pane.show(inst)

    async def hide_transients(self) -> None:
        """Hides what only some cards show (a flashcard's back, the key points to tick), and removes
        "session complete" (once a session). Looked up with `query`, never `query_one`: Textual keeps
        query_one's results per node, and one kept there would hold a removed widget alive."""
        for shown in (self._back, self._points):
            if shown is not None:
                shown.display = False
        done = self.body.query_children("#session-done")
        if done:
            forget_drawing(done)
            await done.remove()

    def on_resize(self) -> None:
        if self._kept is not None:
            self.call_after_refresh(prepare_feedback, self.body, self.kept[2])  # for the new width

    async def show_feedback(self, feedback: Feedback) -> None:
        self._feedback = feedback
        panel = self.kept[2]
        with self.app.batch_update():  # one frame for the lock, the panel, its scroll and the bar
            answer = self.pane.slot.query("#answer, #answer *").results(Widget)
            self._locked += lock_answer(self, [*answer, *self.query(KeyPointList).results(Widget)])
            self.phase = "answered"
            self.pane.hide_error()
            if feedback.instance.kind == "flashcard":  # "press Space to reveal" no longer applies
                self.pane.hint_line(Text(""))
            mounting = panel.show(feedback)
            if mounting is not None:
                await mounting
            self.bar.say("")  # the verdict speaks now, not the note on the card before
            self.update_bar()
            feedback_on_top(self, self.body, panel)
        self._pacing.feedback_shown(self)
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
        if isinstance(result, Unreadable):
            self.show_error(result.message)
            card = self.session.current
            if card is not None:
                self.pane.hint_line(answer_hint(card.instance))
        elif isinstance(result, ExplainPending):
            self.pending_explain = True
            for widget in self.pane.slot.query("#answer, #answer *").results(Widget):
                widget.disabled = True
            panel = self._points
            if panel is None:  # the first explanation: the panel is built, then kept
                self._points = panel = KeyPointsPanel(id="key-points-panel")
                await self.body.mount(panel, before=self.kept[2])
            panel.show(result)
            panel.display = True
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
        return study_allows(self, action)

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
        back = self._back
        if back is None:  # the first flashcard: its back is built, then kept
            self._back = back = FlashcardBack(id="flashcard")
            await self.body.mount(back)
        back.show(card.instance, choices)
        back.display = True
        self.set_focus(None)  # the screen's keys scroll the body (focusing it would restyle all of it)
        self.call_after_refresh(self.body.bring_to_top, back)

    async def action_submit_explain(self) -> None:
        if self.pending_explain:
            await self.action_finish_explain()
            return
        area = self.pane.slot.query_children(ExplainArea)  # not a hidden one, from an earlier question
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
