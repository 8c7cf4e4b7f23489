"""Provides what keeps the study screen quick without changing what it shows: when the garbage collector
runs around a feedback (CollectorPacing, over quizapp.collector), where the body scrolls as a card
opens and as its feedback is revealed, the feedback rendered while the question is answered, and the
answer locked without restyling it.

StudyScreen calls these; they only take the screen's widgets as arguments.
"""

from __future__ import annotations

import weakref
from functools import partial
from typing import TYPE_CHECKING

from textual.widget import Widget

from quizapp.collector import READING_STARTS_S, collect_while_reading, refreeze_later, release, settle

if TYPE_CHECKING:
    from textual.screen import Screen

    from quizapp.content.instance import Instance
    from quizapp.tui.widgets.feedback import FeedbackPanel
    from quizapp.tui.widgets.question_pane import QuestionPane
    from quizapp.tui.widgets.study_body import StudyBody


class CollectorPacing:
    """A study screen's collections (and a mock interview's, a question standing for a feedback): its first
    feedback drawn, what lives as long as the screen is frozen (settle); after each later feedback, what
    the cards left is collected while it is read; leaving gives everything back (release) and freezes
    again once the screen is freed (refreeze)."""

    def __init__(self) -> None:
        self.settled = False
        """The screen's long-lived objects are frozen (collector.settle), to be released on unmount."""
        self.feedbacks = 0
        """Feedbacks shown: every tenth gets a full collection while it is read (collector)."""

    def feedback_shown(self, screen: Screen[None]) -> None:
        """Once the feedback is drawn, off the key's path: the first time, what is alive now lives as
        long as the screen and is frozen; afterwards only what the cards left is collected."""
        self.feedbacks += 1
        collect = (
            partial(collect_while_reading, self.feedbacks) if self.settled else partial(self._settle, screen)
        )
        screen.call_after_refresh(screen.set_timer, READING_STARTS_S, collect)

    def _settle(self, screen: Screen[None]) -> None:
        if screen.is_attached and not self.settled:  # not once Escape has taken the screen away
            self.settled = True
            settle()

    def screen_left(self, screen: Screen[None]) -> None:
        if self.settled:  # this screen was frozen with what lived beside it: it can be freed now
            release()
            # once the next screen is drawn, and then every second while this one lives
            screen.app.call_after_refresh(refreeze_later, weakref.ref(screen), screen.app.set_timer)


def open_at_question(body: StudyBody, pane: QuestionPane, inst: Instance) -> None:
    """Where a card opens, in the frame that draws it: at the top for the editor, a flashcard (no input)
    or heatmaps between what is asked and the input; else with what is asked (the prompt's last
    sentence, the step) and the input in view."""
    if inst.kind in ("code", "flashcard") or inst.prompt_heatmap:
        body.scroll_home(animate=False, immediate=True)
    else:
        body.show_end_of(pane)


def feedback_on_top(screen: Screen[None], body: StudyBody, panel: Widget) -> None:
    """Scrolls `panel`, just revealed, to the top of the body in the frame that first draws it."""
    body.scroll_to_top_now(panel)
    # Once laid out, again: a verdict that comes back within a frame of the submission (code run by a
    # warm standby) can find the layout before the "Running..." hint's refresh.
    screen.call_after_refresh(body.bring_to_top, panel)
    screen.refresh(layout=True, repaint=False)  # in the next frame, not after the queued messages


def prepare_feedback(body: StudyBody, panel: FeedbackPanel) -> None:
    """Renders the hidden feedback's derivation, heatmap and explanation while the user thinks."""
    if panel.is_attached and not panel.display and panel.instance.kind != "flashcard":
        region = body.scrollable_content_region
        panel.prepare(region.width - panel.styles.margin.width - panel.styles.gutter.width)


def lock_answer(screen: Screen[None], widgets: list[Widget]) -> list[tuple[Widget, bool]]:
    """After saving: the answer stays visible but can no longer take focus, and Enter means "next";
    returns each widget with whether it could take focus, to restore for the next card.

    Nothing keeps focus: the screen's keys then go on, and scroll the body. (Taking focus away is much
    cheaper than `disabled`, which restyles every widget below the input, and than focusing the body,
    which restyles all of it.)
    """
    locked = [(widget, widget.can_focus) for widget in widgets]
    for widget in widgets:
        widget.can_focus = False
    screen.set_focus(None)
    return locked
