"""Provides checking ahead: templates of a big deck file proved while the whole file is being parsed.

yaml_rs parses without holding the GIL for most of the time it takes, so a second thread can run Python
meanwhile. `Ahead` parses the head of the file on its own (cut before an item of the `questions` list)
and runs the static and seed checks of each parametrisation it meets there, as
quizapp.content.checks.static would
after the parse; one that passes is recorded as proven, so the checks after the parse skip it.

That is sound whatever the cut gives: a signature stands for everything the checks depend on, so "it
passed" holds for every question with that signature, and nothing that failed is recorded (the checks
after the parse find and word it as always). When the parse is done the thread is stopped after the
template it is on and joined before any other check runs, so the memos it fills are never used by two
threads at once. If the parser ever held the GIL throughout, the thread would only start once the
parse is over and be stopped at once: nothing is lost but the start of a thread.
"""

from __future__ import annotations

import threading
from typing import Any

import yaml_rs
from pydantic import ValidationError

from quizapp.content.checks import static as static_checks
from quizapp.content.deck import question_adapter

MIN_TEXT = 1_000_000
"""Files smaller than this (some 20 ms of parsing) are not worth a thread."""
HEAD = 400_000
"""How much of the text the thread parses for itself: a few hundred questions, more templates than it
can check during the parse of the rest."""


class Ahead:
    """A thread proving the templates at the head of a deck's text until `stop()`."""

    def __init__(self, text: str) -> None:
        self._stop = threading.Event()
        self._thread = threading.Thread(
            target=prove_head, args=(text, self._stop), name="quizapp-check-ahead", daemon=True
        )
        self._thread.start()

    def stop(self) -> None:
        """Stops after the template being checked and waits for the thread."""
        self._stop.set()
        self._thread.join()


def prove_head(text: str, stop: threading.Event) -> None:
    """Checks the parametrisations of the questions at the head of `text`, one by one until `stop` is
    set, and records those that pass (static_checks.prove). Never raises: it is only a head start."""
    try:
        tried: set[str] = set()
        for item in _head_questions(text):
            if stop.is_set():
                return
            try:
                question = question_adapter().validate_python(item)
            except ValidationError:
                continue
            key = static_checks.signature(question, item)
            if key is not None and key not in tried:
                tried.add(key)
                static_checks.prove(key, question)
    except Exception:  # whatever went wrong, the checks after the parse decide
        return


def _head_questions(text: str) -> list[Any]:
    """The questions in the first HEAD characters of a deck's text, parsed on their own; [] when the
    text has no block list under `questions:` to cut, or the cut does not parse."""
    start = text.find("\nquestions:")
    line_end = text.find("\n", start + 1) if start >= 0 else -1
    dash = text.find("- ", line_end) if line_end >= 0 else -1
    if dash < 0 or text[line_end + 1 : dash].strip(" "):
        return []
    cut = text.find("\n" + text[line_end + 1 : dash] + "- ", start + HEAD)  # an item at the list's indent
    if cut < 0:
        return []
    data = yaml_rs.loads(text[: cut + 1], parse_datetime=False)
    questions = data.get("questions") if isinstance(data, dict) else None
    return questions if isinstance(questions, list) else []
