"""Provides the mock-interview report: the score, the score per topic, the time per question, and each
question with the user's answer, the expected answer, the diagnosis and the worked derivation.

A report is always rebuilt from what the store saved (`build_report(load_interview(...), catalog)`), so
the report shown at the end and the one reopened a month later are the same. The derivation is not
stored: the question is instantiated again from its saved seed, which gives the same numbers. A question
that has since left the catalog keeps its saved prompt, answer and expected answer, without derivation.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

from engine import Derivation
from quizapp.content.instance import Instance
from quizapp.grading.explain_grade import read_answer
from quizapp.grading.explain_reading import Reading
from quizapp.grading.rating import GOOD
from quizapp.store import InterviewAnswer, InterviewRecord, InterviewSummary

if TYPE_CHECKING:
    from quizapp.content.catalog import Catalog

SCORED_KINDS: frozenset[str] = frozenset({"numeric", "tensor", "shape", "choice", "code", "explain"})
"""Kinds graded automatically. Explain answers are read point by point; interviews saved before that
list them in their config's `unscored`, and their reports still leave them to compare."""


def expected_for(inst: Instance) -> str:
    """The expected answer as the report shows it: choice letters with their text, numbers in the asked
    unit, the model answer for explain questions."""
    if inst.kind == "choice":
        return "; ".join(f"{o.key}) {o.text}" for o in inst.options if o.correct)
    return inst.expected_text()


@dataclass(frozen=True)
class ReportItem:
    """One question of the interview as asked, answered and graded."""

    number: int
    question_id: str
    deck_id: str
    deck_title: str
    topic: str
    kind: str
    prompt: str
    answer: str
    expected: str
    correct: bool
    scored: bool
    """False for explain answers (compare them with the model answer) and questions no longer known;
    a question left unanswered is always scored, as wrong."""
    skipped: bool
    flagged: bool
    seconds: float
    target_seconds: float | None
    diagnosis: str | None
    derivation: Derivation | None
    astray_step: str | None
    """The derivation step where the diagnosed mistake goes astray, to mark it."""
    key_points: tuple[str, ...] = ()
    reading: Reading | None = None
    """An explain answer read point by point (None for other kinds, or a question no longer known)."""

    @property
    def outcome(self) -> str:
        """One word for the table: right, partly (an explanation with a point missing), wrong, skipped,
        compare (an explanation of an interview saved before they were read), or time up."""
        if self.skipped:
            return "no answer" if self.diagnosis else "skipped"
        if not self.scored:
            return "compare"
        if self.correct and self.reading is not None and self.reading.rating < GOOD:
            return "partly"
        return "right" if self.correct else "wrong"

    @property
    def time_text(self) -> str:
        """The time taken with the question's target time, such as 1m 05s / 1m 30s."""
        shown = format_duration(self.seconds)
        if self.target_seconds:
            shown += f" / {format_duration(self.target_seconds)}"
        return shown

    @property
    def over_time(self) -> bool:
        return bool(self.target_seconds) and self.seconds > (self.target_seconds or 0.0)

    @property
    def derivation_text(self) -> str:
        return self.derivation.to_text() if self.derivation is not None else ""


@dataclass(frozen=True)
class TopicScore:
    """Right answers out of the scored questions of one topic (explain answers listed apart)."""

    topic: str
    correct: int
    scored: int
    asked: int

    @property
    def text(self) -> str:
        if not self.scored:
            return f"{self.asked} to compare"
        return f"{self.correct}/{self.scored} ({percent(self.correct, self.scored)})"


@dataclass(frozen=True)
class InterviewReport:
    """The whole report, in the order the questions were asked."""

    id: int
    started_at: datetime
    finished_at: datetime | None
    minutes: int
    planned: int
    update_schedule: bool
    items: tuple[ReportItem, ...]
    topics: tuple[TopicScore, ...]
    misses_to_review: bool = False
    """Questions missed (wrong or skipped) were made due for review at once, whatever update_schedule."""

    @property
    def correct(self) -> int:
        return sum(i.correct for i in self.items if i.scored)

    @property
    def scored(self) -> int:
        """Scored questions, counting those never reached (they were planned, and count as wrong)."""
        return sum(i.scored for i in self.items) + self.not_reached

    @property
    def answered(self) -> int:
        """Questions answered: a skip is not an answer."""
        return sum(not i.skipped for i in self.items)

    @property
    def skipped(self) -> int:
        return sum(i.skipped for i in self.items)

    @property
    def not_reached(self) -> int:
        return max(0, self.planned - len(self.items))

    @property
    def to_compare(self) -> int:
        return sum(not i.scored and not i.skipped for i in self.items)

    @property
    def seconds_used(self) -> float:
        return sum(i.seconds for i in self.items)

    @property
    def headline(self) -> str:
        """The score alone, such as 7/9 right (78%)."""
        return f"{self.correct}/{self.scored} right ({percent(self.correct, self.scored)})"

    @property
    def score_text(self) -> str:
        """The headline, then the explain answers to compare and the questions not reached."""
        text = self.headline + f" · {self.answered} answered"
        if self.skipped:
            text += f" · {self.skipped} skipped"
        if self.to_compare:
            text += f" · {self.to_compare} explain answer(s) to compare with the model answer"
        if self.not_reached:
            text += f" · {self.not_reached} not reached"
        return text

    @property
    def time_text(self) -> str:
        return f"{format_duration(self.seconds_used)} of {self.minutes} min"

    @property
    def title(self) -> str:
        state = "" if self.finished_at is not None else " (cut short)"
        return f"Mock interview {self.id}, {self.started_at.astimezone():%Y-%m-%d %H:%M}{state}"


def build_report(record: InterviewRecord, catalog: Catalog) -> InterviewReport:
    """The report of a saved interview; derivations come from re-instantiating each saved seed."""
    unscored = frozenset(record.config.unscored)
    items = tuple(_item(n, a, catalog, n in unscored) for n, a in enumerate(record.answers, start=1))
    topics: dict[str, list[ReportItem]] = {}
    for item in items:
        topics.setdefault(item.topic, []).append(item)
    return InterviewReport(
        id=record.id,
        started_at=record.started_at,
        finished_at=record.finished_at,
        minutes=record.config.minutes,
        planned=record.config.questions,
        update_schedule=record.config.update_schedule,
        misses_to_review=bool(record.config.misses_to_review),
        items=items,
        topics=tuple(
            TopicScore(
                topic=topic,
                correct=sum(i.correct for i in group if i.scored),
                scored=sum(i.scored for i in group),
                asked=len(group),
            )
            for topic, group in topics.items()
        ),
    )


def _item(number: int, a: InterviewAnswer, catalog: Catalog, unscored: bool = False) -> ReportItem:
    inst: Instance | None = None
    deck_title, topic = a.deck_id, a.deck_id
    try:
        inst = catalog.instance(a.question_id, a.seed)
        deck = catalog.deck_fields(a.question_id)
        deck_title, topic = deck.title, deck.topic
    except Exception:  # the question left the catalog or its template broke: keep what was saved
        inst = None
    derivation = inst.derivation if inst is not None and inst.kind in ("numeric", "tensor", "shape") else None
    astray = None
    if derivation is not None and a.diagnosis_id:
        try:
            astray = derivation.misconception(a.diagnosis_id).step or None
        except KeyError:
            astray = None
    kind = inst.kind if inst is not None else "unknown"
    answer = a.answer
    if inst is not None and inst.kind == "choice" and a.answer:
        by_key = {o.key: o.text for o in inst.options}
        keys = [k.strip().lower() for k in a.answer.replace(",", " ").split()]
        answer = "; ".join(f"{k}) {by_key[k]}" if k in by_key else k for k in keys)
    return ReportItem(
        number=number,
        question_id=a.question_id,
        deck_id=a.deck_id,
        deck_title=deck_title,
        topic=topic,
        kind=kind,
        prompt=a.prompt,
        answer=answer,
        expected=a.expected,
        correct=a.correct,
        scored=(kind in SCORED_KINDS and not unscored) or a.skipped,
        skipped=a.skipped,
        flagged=a.flagged,
        seconds=a.seconds,
        target_seconds=inst.target_seconds if inst is not None else None,
        diagnosis=a.diagnosis,
        derivation=derivation,
        astray_step=astray,
        key_points=inst.key_points if inst is not None else (),
        reading=read_answer(inst, a.answer) if inst is not None and kind == "explain" and a.answer else None,
    )


def summary_line(s: InterviewSummary) -> tuple[str, str, str, str]:
    """One row of the past-interviews list: when, questions answered (and skipped), right, and whether it
    finished. Right is out of the same scored questions as the report's headline, so the two agree."""
    state = "finished" if s.finished_at is not None else "cut short"
    answered = f"{s.answered}/{s.questions}" + (f", {s.skipped} skipped" if s.skipped else "")
    scored = s.scored or s.questions
    return (
        f"{s.started_at.astimezone():%Y-%m-%d %H:%M}",
        answered,
        f"{s.correct}/{scored} ({percent(s.correct, scored)})",
        state,
    )


def percent(part: int, whole: int) -> str:
    return f"{round(100 * part / whole)}%" if whole else "–"


def format_duration(seconds: float) -> str:
    """42s, 1m 05s, 1h 02m: short enough for a table cell."""
    s = round(max(0.0, seconds))
    if s < 60:
        return f"{s}s"
    if s < 3600:
        return f"{s // 60}m {s % 60:02d}s"
    return f"{s // 3600}h {s % 3600 // 60:02d}m"
