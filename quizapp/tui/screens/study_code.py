"""Provides CodeEditing, the study screen's part for code questions: the editor opens with the draft (else
the last code submitted, else the starter), the draft is written shortly after each change, Ctrl+R tries
the code on practice cases (never rated: quizapp.grading.code_try), Ctrl+S submits it to be graded, and
Ctrl+E hands the draft file to $EDITOR.

Kept apart from StudyScreen, which mixes it in, so each file holds one idea; it uses only the screen's
public surface (session, router, write, show_error) and Textual's.
"""

from __future__ import annotations

import os
import shlex
import subprocess
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from rich.text import Text
from textual.app import SuspendNotSupported
from textual.widgets import Static

from quizapp.runner.standby import warm_soon
from quizapp.study.drafts import save_draft
from quizapp.tui.messages import AnswerSubmitted, CodeTryAsked
from quizapp.tui.widgets.code_editor import CodeArea
from quizapp.tui.widgets.question_pane import QuestionPane

if TYPE_CHECKING:
    from textual.timer import Timer

    from quizapp.content.instance import Instance
    from quizapp.grading.code_try import CodeTry
    from quizapp.study.session import StudySession
    from quizapp.tui.screens.base import QuizScreen

    _Screen = QuizScreen[None]
else:
    _Screen = object  # a mixin at run time; typed as the screen it is mixed into

DRAFT_DELAY_S = 0.4
"""A code draft is written this long after the last keystroke."""
TRY_HINT = "Tried: nothing is rated or saved. Ctrl+R tries again; Ctrl+S submits (graded, then the solution)."


class CodeEditing(_Screen):
    """Drafts, Ctrl+R (try), Ctrl+S (submit) and Ctrl+E for a study screen showing code questions."""

    session: StudySession
    _draft_timer: Timer | None = None

    def show_error(self, message: str) -> None: ...  # the study screen's: under the input

    def load_code(self, text: str) -> None:
        """The editor opens with `text` (the draft, else the code last submitted, else the starter code,
        read in the worker that drew the card); a standby child starts importing NumPy, so Ctrl+R does
        not wait for a new interpreter."""
        self.query(CodeArea).first().load(text)

        warm_soon()  # a plain thread starts the child: off the event loop, and no worker to wait for

    def build_code_ahead(self) -> None:
        """While the first card is read, a worker makes a code question of the session's pool concrete
        and the editor is built with it, hidden: the first code card then only fills it in (building
        one compiles tree-sitter's highlight query, see QuestionPane.build_ahead)."""
        backend = self.router.backend
        if backend is None:
            return
        find = partial(backend.code_question_in, self.session.questions)
        self.fetch(find, self._code_built_ahead, group="code-ahead", store=False)

    async def _code_built_ahead(self, inst: Instance | None) -> None:
        panes = self.query(QuestionPane)
        if inst is not None and panes:
            await self.build_ahead(panes.first(QuestionPane), inst)

    def draft_changed(self) -> None:
        """Writes the draft a moment after the last change (a burst of typing is one write)."""
        if self._draft_timer is not None:
            self._draft_timer.stop()
        self._draft_timer = self.set_timer(DRAFT_DELAY_S, self._keep_draft)

    def _draft(self) -> tuple[str, str] | None:
        """(question id, text) of the code on screen; None when the card is not a code question."""
        card = self.session.current
        if card is None or card.instance.kind != "code" or not self.query(CodeArea):
            return None
        return card.instance.question_id, self.query(CodeArea).first().text

    def _keep_draft(self) -> None:
        if self._draft_timer is not None:  # a write now stands for the one pending
            self._draft_timer.stop()
            self._draft_timer = None
        draft = self._draft()
        if draft is not None:
            self._write_draft(*draft)

    def keep_draft_now(self) -> None:
        """Writes a draft still waiting for its timer, here and now: leaving right after a keystroke
        (Escape) must not lose it, and a worker started now would not outlive the screen."""
        if self._draft_timer is None:
            return
        self._draft_timer.stop()
        self._draft_timer = None
        draft = self._draft()
        if draft is not None:
            try:
                save_draft(*draft)
            except OSError as exc:
                self._draft_not_kept(exc)

    def _write_draft(self, question_id: str, text: str) -> None:
        self.fetch(
            partial(save_draft, question_id, text),
            _kept,
            group="draft",
            store=False,  # a file beside the database, not the database
            failed=self._draft_not_kept,
        )

    def _draft_not_kept(self, error: Exception) -> None:
        """A draft the disk refused is said in a warning (the code stays in the editor); a bug is reported."""
        if not isinstance(error, OSError):
            self.router.report_error(error)
            return
        self.notify(f"Could not keep the draft: {error.strerror or error}", severity="warning")

    def action_run_code(self) -> None:
        """Ctrl+R: tries the code on the practice cases (in the save worker: it runs in a child process);
        nothing is rated or saved but the draft."""
        if self.query(CodeArea):
            self.post_message(CodeTryAsked(self.query(CodeArea).first().text))

    def on_code_try_asked(self, event: CodeTryAsked) -> None:
        """Ctrl+R or the Try button (a mixin's handler goes by its name: @on needs a screen class)."""
        event.stop()
        if self.session.answered:
            return
        self._keep_draft()
        self._hint("Trying your code on practice cases…")
        text = event.text
        self.write(lambda: self.session.try_code(text), self._show_tried)

    async def _show_tried(self, tried: CodeTry) -> None:
        self.refresh_bindings()  # the keys the try's worker disabled are back (`saving` does not relabel)
        self._hint(TRY_HINT)
        for area in self.query(CodeArea).results(CodeArea):
            area.show_tried(tried.message, tried.passed).scroll_visible(top=True, animate=False)

    def submit_code(self) -> None:
        """Ctrl+S: submits the code, graded on this review's own inputs (in the save worker); the draft
        is kept."""
        if not self.query(CodeArea):
            return
        text = self.query(CodeArea).first().text
        self._keep_draft()
        self._hint("Running your code on this review's inputs…")
        self.post_message(AnswerSubmitted(text))

    def _hint(self, text: str) -> None:
        for line in self.query("#answer-hint").results(Static):
            line.update(Text(text))

    def action_edit_code(self) -> None:
        """Ctrl+E: the draft file opens in $EDITOR (the app steps aside); what it saves comes back."""
        card = self.session.current
        if card is None or not self.query(CodeArea):
            return

        path = save_draft(card.instance.question_id, self.query(CodeArea).first().text)
        editor = os.environ.get("VISUAL") or os.environ.get("EDITOR") or "vi"
        try:
            with self.app.suspend():
                ran = subprocess.run([*shlex.split(editor), str(path)], check=False)
        except SuspendNotSupported:  # no terminal to hand over (a headless run): the editor runs as it is
            ran = subprocess.run([*shlex.split(editor), str(path)], check=False, capture_output=True)
        except OSError as exc:
            self.show_error(f"Could not start the editor {editor!r}: {exc.strerror or exc}. Set $EDITOR.")
            return
        if ran.returncode != 0:
            self.notify(f"{editor} exited with status {ran.returncode}; the draft is as it saved it.")
        self.query(CodeArea).first().load(path.read_text(encoding="utf-8"))


def _kept(_path: Path) -> None:
    """A draft was written: nothing to show."""
