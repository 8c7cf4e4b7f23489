"""Provides the checks across a progress file's records, made as they stream past, and the store's rows each
checked chunk becomes, handed to a Sink (a fresh database, or nowhere for a check only).

A record model checks one record; what no single record can tell (a repeated question, a review of a question
with no card, an id that looks like another) is checked here, holding only the keys those checks need.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from operator import itemgetter
from pathlib import Path
from typing import Any, NamedTuple, Protocol

from quizapp.errors import QuizappError
from quizapp.progress.file_records import CardEntry, InterviewEntry, ReviewEntry
from quizapp.store import backup
from quizapp.store.cards import card_id_for, unsound
from quizapp.store.interviews import InterviewAnswer
from quizapp.store.settings import SETTING_NAMES, check_setting
from quizapp.store.times import to_us
from quizapp.terminal_text import terminal_text

Row = tuple[Any, ...]
_ID, _QUESTION, _DECK, _DIAGNOSIS_ID = (itemgetter(i) for i in (0, 1, 2, 10))
"""What a review row holds where: the cross-record checks read these."""


class CardRow(NamedTuple):
    """A row of the cards table (its column order), named so unsound() can read it as a card."""

    question_id: str
    card_id: int
    deck_id: str
    state: int
    step: int | None
    stability: float | None
    difficulty: float | None
    due: int | None
    last_review: int | None
    introduced: int | None
    reps: int
    lapses: int
    suspended: int
    flagged: int


@dataclass(frozen=True)
class CheckedFile:
    """A progress file that passed every check, and what it holds."""

    path: Path
    cards: int
    reviews: int
    interviews: int
    settings: dict[str, Any]


class Sink(Protocol):
    """Where checked rows go: a fresh database, or nowhere (a check only)."""

    def add_cards(self, rows: Sequence[Sequence[Any]]) -> None: ...
    def add_reviews(self, rows: Sequence[Sequence[Any]]) -> None: ...
    def add_interview(self, interview: backup.InterviewRows) -> None: ...
    def add_settings(self, settings: dict[str, Any]) -> None: ...
    def clear(self) -> None: ...


class RecordChecks:
    """The checks no single record can make, as records stream past; each hands back the store's rows.

    The file may be someone else's, and its text is shown: an id holding anything terminal_text removes
    (an escape sequence, a zero-width space that makes two ids look alike) is refused, and answers,
    diagnoses and the rest of the text pass terminal_text."""

    def __init__(self, path: Path) -> None:
        self.bad = f"{path} has inconsistent progress data"
        self.questions: set[str] = set()
        self.review_ids: set[int] = set()
        self.interview_ids: set[int] = set()
        self.clean_ids: set[str] = set()
        """Ids (deck and diagnosis ids) already found clean: most repeat on every review."""

    def _id(self, value: str | None, where: str) -> str | None:
        if value is None or value in self.clean_ids:
            return value
        if terminal_text(value) is not value:
            raise QuizappError(
                f"{self.bad}: {where} holds control, escape, bidi or zero-width characters; no id does."
            )
        self.clean_ids.add(value)
        return value

    def cards(self, offset: int, chunk: list[CardEntry]) -> list[CardRow]:
        """The rows of a chunk of card models, checked across records (card_rows)."""
        return self.card_rows(
            offset,
            [
                CardRow(c.question_id, c.card_id, c.deck_id, c.state, c.step, c.stability, c.difficulty,
                        _us(c.due), _us(c.last_review), _us(c.introduced), c.reps, c.lapses,
                        int(c.suspended), int(c.flagged))
                for c in chunk
            ],
        )  # fmt: skip

    def card_rows(self, offset: int, rows: list[CardRow]) -> list[CardRow]:
        """Card rows (each already checked on its own) checked across records and for FSRS."""
        for i, card in enumerate(rows, offset):
            self._id(card.question_id, f"cards[{i}].question_id")
            self._id(card.deck_id, f"cards[{i}].deck_id")
            problem = unsound(card)
            if problem:
                raise QuizappError(f"{self.bad}: cards[{i}] ({card.question_id!r}): {problem}.")
            if card.card_id != card_id_for(card.question_id):
                raise QuizappError(
                    f"{self.bad}: cards[{i}].card_id does not belong to question {card.question_id!r}."
                )
            if card.question_id in self.questions:
                raise QuizappError(f"{self.bad}: cards[{i}] repeats question {card.question_id!r}.")
            self.questions.add(card.question_id)
        return rows

    def reviews(self, offset: int, chunk: list[ReviewEntry]) -> list[Row]:
        """The rows of a chunk of review models, checked across records (review_rows)."""
        return self.review_rows(
            offset,
            [
                (r.id, r.question_id, r.deck_id, to_us(r.reviewed_at), r.seed, r.answer, int(r.correct),
                 r.rating, r.duration_ms, r.diagnosis, r.diagnosis_id, r.mode, r.state_before,
                 int(r.scheduled), r.points)
                for r in chunk
            ],
        )  # fmt: skip

    def review_rows(self, offset: int, rows: list[Row]) -> list[Row]:
        """Review rows (each already checked on its own) checked across records, their text made safe to
        show. Deck and diagnosis ids repeat on nearly every review: each distinct one is checked once.

        The whole chunk is checked at once with set operations; only a chunk that holds a problem (or an
        id not seen yet) is gone through row by row, which finds the first problem and words it."""
        questions, ids, clean = self.questions, self.review_ids, self.clean_ids
        ids_here = set(map(_ID, rows))
        diagnosis_ids = set(map(_DIAGNOSIS_ID, rows))
        diagnosis_ids.discard(None)
        if (
            len(ids_here) == len(rows)
            and ids.isdisjoint(ids_here)
            and questions.issuperset(map(_QUESTION, rows))
            and clean.issuperset(map(_DECK, rows))
            and clean.issuperset(diagnosis_ids)
        ):
            ids |= ids_here
            return _shown_rows(rows)
        for i, row in enumerate(rows, offset):
            rid, question, deck, diagnosis_id = _ID(row), _QUESTION(row), _DECK(row), _DIAGNOSIS_ID(row)
            if question not in questions:
                raise QuizappError(f"{self.bad}: reviews[{i}] is for {question!r}, which has no card.")
            if rid in ids:
                raise QuizappError(f"{self.bad}: reviews[{i}].id {rid} is repeated.")
            ids.add(rid)
            if deck not in clean:
                self._id(deck, f"reviews[{i}].deck_id")
            if diagnosis_id is not None and diagnosis_id not in clean:
                self._id(diagnosis_id, f"reviews[{i}].diagnosis_id")
        return _shown_rows(rows)

    def interviews(self, chunk: list[InterviewEntry]) -> list[backup.InterviewRows]:
        out = []
        for iv in chunk:
            if iv.id in self.interview_ids:
                raise QuizappError(f"{self.bad}: two interviews share the id {iv.id}.")
            self.interview_ids.add(iv.id)
            answers = tuple(_shown(InterviewAnswer(**a.model_dump())) for a in iv.answers)
            out.append(backup.InterviewRows(iv.id, iv.started_at, iv.finished_at, iv.config, answers))
        return out

    def settings(self, found: Any, not_ours: str) -> dict[str, Any]:
        if not isinstance(found, dict):
            raise QuizappError(f"{not_ours}: settings: Input should be a valid dictionary.")
        for key, value in found.items():
            if key not in SETTING_NAMES:  # refused, never stored unread
                shown = str(key)[:40].encode("unicode_escape").decode("ascii")
                raise QuizappError(
                    f"{self.bad}: settings: unknown setting {shown!r} (known: {', '.join(SETTING_NAMES)})."
                )
            try:
                check_setting(key, value)
            except QuizappError as exc:
                raise QuizappError(f"{self.bad}: settings.{key}: {exc}") from exc
        return dict(found)


def hand_over(section: str, offset: int, records: list[Any], sink: Sink, checks: RecordChecks) -> None:
    """A validated chunk of `section`'s records (the first at `offset`) checked, its rows given to `sink`."""
    if section == "cards":
        sink.add_cards(checks.cards(offset, records))
    elif section == "reviews":
        sink.add_reviews(checks.reviews(offset, records))
    else:
        for interview in checks.interviews(records):
            sink.add_interview(interview)


def hand_over_rows(section: str, offset: int, rows: list[Row], sink: Sink, checks: RecordChecks) -> None:
    """Rows of `section` ("cards" or "reviews") already checked record by record
    (quizapp.progress.plain_records), checked across records and given to `sink`."""
    if section == "cards":
        sink.add_cards(checks.card_rows(offset, [CardRow._make(row) for row in rows]))
    else:
        sink.add_reviews(checks.review_rows(offset, rows))


_ANSWER, _DIAGNOSIS = 5, 9
"""Where a review row holds its free text."""


def _shown_rows(rows: list[tuple[Any, ...]]) -> list[tuple[Any, ...]]:
    """The review rows with their answers and diagnoses passed through terminal_text: the whole chunk's
    text is searched at once (one call instead of two a review: nearly every file holds nothing to
    remove), and only a chunk that holds something is cleaned row by row."""
    texts = "".join([row[_ANSWER] for row in rows] + [row[_DIAGNOSIS] or "" for row in rows])
    if terminal_text(texts) is texts:
        return rows
    return [
        (*row[:_ANSWER], terminal_text(row[_ANSWER]), *row[_ANSWER + 1 : _DIAGNOSIS],
         None if row[_DIAGNOSIS] is None else terminal_text(row[_DIAGNOSIS]), *row[_DIAGNOSIS + 1 :])
        for row in rows
    ]  # fmt: skip


def _shown(a: InterviewAnswer) -> InterviewAnswer:
    """The answer with its text passed through terminal_text."""
    return replace(
        a,
        question_id=terminal_text(a.question_id),
        deck_id=terminal_text(a.deck_id),
        prompt=terminal_text(a.prompt),
        answer=terminal_text(a.answer),
        expected=terminal_text(a.expected),
        diagnosis=None if a.diagnosis is None else terminal_text(a.diagnosis),
        diagnosis_id=None if a.diagnosis_id is None else terminal_text(a.diagnosis_id),
    )


def _us(when: datetime | None) -> int | None:
    return None if when is None else to_us(when)
