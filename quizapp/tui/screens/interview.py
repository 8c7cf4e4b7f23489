"""Provides InterviewScreen: a running mock interview (countdown in the header, no feedback, skip and
flag) and EndInterviewScreen, the "end it now?" question.

The session (quizapp.interview.session) grades and saves every answer; the screen shows the next question,
ticks
the countdown from the app's injected clock, and when time is up submits whatever is in the answer box.
"""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING, ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.reactive import var
from textual.screen import ModalScreen
from textual.widgets import Button, Header, SelectionList, Static

from quizapp.interview.report import InterviewReport
from quizapp.study.session import Unreadable
from quizapp.tui.guard import on
from quizapp.tui.messages import AnswerSubmitted, CodeTryAsked
from quizapp.tui.screens.base import QuizScreen
from quizapp.tui.screens.study_pacing import CollectorPacing
from quizapp.tui.widgets.code_editor import CodeArea
from quizapp.tui.widgets.footer import KeyFooter
from quizapp.tui.widgets.question_pane import BUILD_AHEAD_S, QuestionPane
from quizapp.tui.widgets.study_body import StudyBody

if TYPE_CHECKING:
    from quizapp.grading.code_try import CodeTry
    from quizapp.interview.session import Asked, InterviewSession

TICK_SECONDS = 0.25
"""How often the countdown is redrawn (it reads the app's clock, so tests can move time by hand)."""


class EndInterviewScreen(ModalScreen[bool]):
    """Asks before ending early: y/Enter ends (the open answer is saved as it stands), n/Escape goes on."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y", "answer(True)", "End now", id="interview_end.yes"),
        Binding("n,escape", "answer(False)", "Keep going", id="interview_end.no"),
    ]

    def compose(self) -> ComposeResult:
        with Vertical(id="end-dialog"):
            yield Static(
                "End the interview now? The open answer is saved as it stands and the questions after it "
                "count as not reached.",
                id="end-question",
            )
            with Horizontal(classes="end-buttons"):
                yield Button("End now (y)", id="end-yes", variant="error", compact=True)
                yield Button("Keep going (n)", id="end-no", variant="primary", compact=True)

    def on_mount(self) -> None:
        self.query_one("#end-no", Button).focus()

    def action_answer(self, end: bool) -> None:
        self.dismiss(end)

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "end-yes")


class InterviewScreen(QuizScreen[None]):
    """One question at a time against the clock; answers are saved silently, the report comes at the end."""

    AUTO_FOCUS: ClassVar[str | None] = ""  # none (None means the app's: the first focusable)
    """The answer takes focus when its question is shown (the body focused first, then left, restyled all
    of the question twice)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(
            "ctrl+n",
            "skip",
            "Skip",
            priority=True,
            tooltip="Pass on this question (it counts as wrong)",
            id="interview.skip",
        ),
        Binding(
            "ctrl+f",
            "flag",
            "Flag",
            priority=True,
            tooltip="Mark this question to look at again in the report",
            id="interview.flag",
        ),
        Binding(
            "ctrl+s",
            "submit_explain",
            "Submit",
            priority=True,
            tooltip="Submit the explanation or the code",
            id="interview.submit",
        ),
        Binding(
            "ctrl+r",
            "try_code",
            "Try",
            priority=True,
            tooltip="Try the code on practice cases: what fails is shown, nothing is graded (Ctrl+S submits)",
            id="interview.run",
        ),
        Binding(
            "escape",
            "end",
            "End",
            priority=True,
            tooltip="End the interview now and see the report",
            id="interview.end",
        ),
    ]

    question_kind: var[str] = var("", bindings=True)
    """The kind of the question asked (Ctrl+S submits only explanations and code; Ctrl+R tries code)."""

    def __init__(self, session: InterviewSession) -> None:
        super().__init__()
        self.session = session
        self._stopping = False
        self._note: tuple[int, str] | None = None
        """What the last skip or flag did, and the question number whose bar says it (a toast covered the
        question's text at 80x24)."""
        self._pacing = CollectorPacing()
        """As in study: once the first question is drawn the screen is frozen, and what each question
        leaves is collected while the next is read (a full collection over the unfrozen screen at 100k
        cards took 56 ms, on a key)."""

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static("", id="interview-bar")
        yield StudyBody(id="interview-body")
        yield KeyFooter()

    async def on_mount(self) -> None:
        self.title = "Mock interview"
        self.tick()
        self.set_interval(TICK_SECONDS, self.tick, name="interview countdown")
        asked = self.session.current
        if asked is not None:
            await self.show_question(asked)
            self.set_timer(BUILD_AHEAD_S, self._build_ahead, name="inputs built ahead")

    async def _build_ahead(self) -> None:
        """Builds, hidden, the input of the next kind of question the interview asks later that has none
        yet (see QuestionPane.build_ahead), then waits for the next one."""
        panes = self.body.query_children(QuestionPane)
        if self._stopping or not panes:
            return
        pane = panes.first(QuestionPane)
        try:
            for _, inst in self.session.plan:
                if await self.build_ahead(pane, inst):
                    self.set_timer(BUILD_AHEAD_S, self._build_ahead, name="inputs built ahead")
                    return
        except Exception as exc:  # the question itself builds its input as before
            self.router.report_error(exc)

    # -- showing ----------------------------------------------------------------------------------------

    @property
    def body(self) -> StudyBody:
        return self.query_one("#interview-body", StudyBody)

    async def show_question(self, asked: Asked) -> None:
        """Shows the next question in the pane the last one used (nothing about the last stays), opening
        as study does: with what is asked and the input in view (at 80x24 a tensor question's sentence
        comes after its matrices), or at its top for code and heatmaps."""
        body = self.body
        inst = asked.instance
        with self.app.batch_update():
            panes = body.query_children(QuestionPane)
            if panes:
                await panes.first(QuestionPane).show(inst)
            else:
                await body.mount(QuestionPane(inst, reveal=False, id="question"))
            if inst.kind == "code" or inst.prompt_heatmap:
                # The editor, or heatmaps between what is asked and the input: the top first.
                body.scroll_home(animate=False, immediate=True)
            else:
                body.show_end_of(self.pane)
        self.router.set_blink(body)
        if not self.pane.focus_answer():
            body.focus(scroll_visible=False)  # nothing to type in: the keys scroll the question
        self.question_kind = asked.instance.kind
        self.update_bar()
        self._pacing.feedback_shown(self)

    def on_unmount(self) -> None:
        self._pacing.screen_left(self)

    @property
    def pane(self) -> QuestionPane:
        return self.query_one("#question", QuestionPane)

    def update_bar(self) -> None:
        asked = self.session.current
        text = Text()
        note = ""
        if asked is None:
            text.append(" Interview over ", style="bold reverse")
        else:
            text.append(f" Question {asked.number} of {asked.total} ", style="bold reverse")
            text.append(f"  ·  {self.session.answered} answered")
            if self.session.skipped:
                text.append(f"  ·  {self.session.skipped} skipped")
            if asked.flagged:
                text.append("  ·  ⚑ flagged for the report", style="bold yellow")
            if self._note is not None and self._note[0] == asked.number:
                note = self._note[1]
        if note:  # what the last skip or flag did, in place of the reminder (80 columns hold one)
            text.append(f"  ·  {note}", style="italic")
        else:
            text.append("  ·  no feedback until the end", style="dim")
        self.query_one("#interview-bar", Static).update(text)

    def tick(self) -> None:
        """Redraws the countdown; at zero, submits the open answer and shows the report."""
        if self._stopping:
            return
        try:
            now = self.router.config.now()
            if self.session.time_up(now):
                top = self.app.screen
                if isinstance(top, EndInterviewScreen):
                    top.dismiss(False)  # close the question first; the next tick ends the interview
                elif top is self:
                    self.stop()
                return
            asked = self.session.current
            where = f" · question {asked.number} of {asked.total}" if asked else ""
            self.sub_title = f"⏱ {self.session.countdown(now)} left{where}"
        except Exception as exc:
            self.router.report_error(exc)

    def open_text(self) -> str:
        """What the answer box holds right now (a highlighted option is not an answer until chosen)."""
        panes = self.body.query_children(QuestionPane)
        return panes.first(QuestionPane).answer_text() if panes else ""

    def stop(self) -> None:
        """Time is up or the user ended it: the open answer is saved as it stands, then the report."""
        if self._stopping:
            return
        if self.saving:  # the answer in the save worker belongs in the report: stop once it is saved
            self.set_timer(0.01, self.stop)
            return
        self._stopping = True
        now, text = self.router.config.now(), self.open_text()

        def end() -> InterviewReport | Exception:
            try:
                self.session.end(text, now=now)
                return self.session.finish(now=now)
            except Exception as exc:  # reported, and the interview goes on: the next tick tries again
                return exc

        self.write(end, self.show_report)

    async def show_report(self, report: InterviewReport | Exception) -> None:
        if isinstance(report, Exception):
            self._stopping = False
            self.router.report_error(report)
            return
        self.router.open_screen("report", report, replace=True)

    def _then_report(self, saved: object) -> object:
        """In the save worker, after an answer or a skip: the report, if that was the last question."""
        if self.session.current is None:
            return self.session.finish(now=self.router.config.now())
        return saved

    # -- events and actions -------------------------------------------------------------------------------

    @on(AnswerSubmitted)
    def _submitted(self, event: AnswerSubmitted) -> None:
        event.stop()
        if self._stopping or self.session.current is None:
            return
        now = self.router.config.now()
        if self.session.time_up(now):
            self.stop()
            return
        text = event.text
        self.write(lambda: self._then_report(self.session.submit(text, now=now)), self._show_submitted)

    async def _show_submitted(self, result: object) -> None:
        if isinstance(result, Unreadable):
            self.pane.show_error(result.message)
            return
        if isinstance(result, InterviewReport):
            self._stopping = True
            await self.show_report(result)
            return
        asked = self.session.current
        if asked is not None:
            await self.show_question(asked)

    @on(SelectionList.SelectedChanged)
    def _ticked(self, event: SelectionList.SelectedChanged[str]) -> None:
        event.stop()  # ticking an option is not an answer until Enter

    async def action_skip(self) -> None:
        if self._stopping or self.session.current is None:
            return
        now = self.router.config.now()
        skipped = self.session.current.number
        self.write(
            lambda: self._then_report(self.session.skip(now=now)), partial(self._show_skipped, skipped)
        )

    async def _show_skipped(self, skipped: int, result: object) -> None:
        await self._show_submitted(result)
        if (asked := self.session.current) is not None:
            self._say(asked.number, f"Q{skipped} counts as not answered")

    def action_flag(self) -> None:
        if self._stopping or self.session.current is None:
            return
        flagged = self.session.toggle_flag()
        self._say(self.session.current.number, "" if flagged else "flag removed")

    def _say(self, number: int, note: str) -> None:
        """Shows `note` in the bar while question `number` is on screen."""
        self._note = (number, note)
        self.update_bar()

    def action_submit_explain(self) -> None:
        """Ctrl+S: the explanation or the code is the answer."""
        if self.question_kind in ("explain", "code"):
            self.post_message(AnswerSubmitted(self.pane.answer_text()))

    def action_try_code(self) -> None:
        """Ctrl+R: the code is tried on practice cases (quizapp.grading.code_try); nothing is graded."""
        if self.question_kind == "code":
            self.post_message(CodeTryAsked(self.pane.answer_text()))

    @on(CodeTryAsked)
    def _try_asked(self, event: CodeTryAsked) -> None:
        event.stop()
        if self._stopping or self.session.current is None:
            return
        text = event.text
        self.write(lambda: self.session.try_code(text), self._show_tried)

    async def _show_tried(self, tried: CodeTry) -> None:
        self.refresh_bindings()  # the keys refused while the try ran are back
        for area in self.query(CodeArea).results(CodeArea):
            line = area.show_tried(tried.message, tried.passed)
            self.body.scroll_to_widget(line, top=True, animate=False)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if self.saving and action in ("skip", "flag", "submit_explain", "try_code"):
            return False  # they act on the question being saved
        if action == "submit_explain":
            asked = self.session.current
            return asked is not None and asked.instance.kind in ("explain", "code")
        if action == "try_code":
            asked = self.session.current
            return asked is not None and asked.instance.kind == "code"
        return True

    def action_end(self) -> None:
        def ended(end: bool | None) -> None:
            if end:
                self.stop()

        self.router.open_screen("interview-end", callback=ended)
