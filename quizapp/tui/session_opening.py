"""Provides open_session(): a study, drill or cram session built and its first card drawn, as the message
the app's session worker (QuizApp._open_session) posts back.

Off the event loop: the session's queue reads the store (at 100k cards a cram queue takes most of a
second), and the study screen's module is imported here, not at the first `s`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from quizapp.tui.backend import Backend
from quizapp.tui.messages import SessionOpened, SessionRefused
from quizapp.tui.routing import REGISTRY

if TYPE_CHECKING:
    from quizapp.study.session import SessionMode


def open_session(
    backend: Backend,
    mode: SessionMode,
    deck_id: str | None,
    question_ids: tuple[str, ...] | None,
    title: str,
    until_solved: bool = False,
) -> SessionOpened | SessionRefused:
    """The session with its first card (and the code its editor opens with), or why there is none: an
    empty queue's message, or the error that stopped it. Never raises; call in a worker thread."""
    from quizapp.study.session import StudySession

    try:
        with backend.store.one_at_a_time():
            session = StudySession.start(
                backend.catalog,
                backend.store,
                backend.questions,
                mode=mode,
                clock=backend.now,
                rng=backend.rng,
                deck_id=deck_id,
                question_ids=question_ids,
                fuzzing=backend.config.fuzzing,
                title=title,
                plan_questions=backend.workspace.plan_questions,  # a daily budget sets the new-card limit
                plan=backend.plan(backend.now()) if mode == "study" else None,  # home's, cached
                until_solved=until_solved,
            )
            if session.finished:
                return SessionRefused(session.empty_message, None)
            card = session.current
            code = ""
            if card is not None and card.instance.kind == "code":
                code = backend.code_text(card.instance.question_id, card.instance.starter)
            left = session.progress().left
        # here, not on the event loop: a first `s` soon after start-up would wait there for the
        # warm-up's import of the same module (0.05 s of frozen screen)
        REGISTRY["study"].screen_class()
    except Exception as exc:
        return SessionRefused("", exc)
    return SessionOpened(session, code, left)
