"""Provides the progress backup file: every card, review, interview and setting as one JSON document.

`export_progress` then `import_progress` reproduces the database exactly (times as fixed-format UTC ISO
strings, floats as JSON numbers, which round-trip exactly). Import checks the format marker, the version
and every field's type and range before it touches anything (as a stream: quizapp.reports.progress_reader),
and keeps a copy of the database it replaces.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Iterator
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal

from fsrs import State
from pydantic import AfterValidator, AwareDatetime, BaseModel, ConfigDict, Field

from quizapp import paths
from quizapp.errors import QuizappError
from quizapp.store import backup
from quizapp.store.cards import CardRecord
from quizapp.store.database import Store
from quizapp.store.interviews import InterviewAnswer
from quizapp.store.reviews import ReviewRecord
from quizapp.store.settings import raw_settings
from quizapp.store.times import iso, utc

if TYPE_CHECKING:
    from quizapp.reports.progress_reader import CheckedFile

FORMAT_MARKER = "quizapp-progress"
FORMAT_VERSION = 1
SECTIONS = frozenset({"format", "version", "exported_at", "cards", "reviews", "interviews", "settings"})
MAX_FILE_BYTES = 2 << 30
"""A progress file of a million reviews is about 300 MB; a larger one is not a backup of ours."""
EARLIEST = datetime(1970, 1, 1, tzinfo=UTC)
LATEST = datetime(2400, 1, 1, tzinfo=UTC)


def _in_range(when: datetime) -> datetime:
    if not EARLIEST <= when < LATEST:
        raise ValueError(f"{when.isoformat()} is not a date from 1970 to 2399")
    return when


When = Annotated[AwareDatetime, AfterValidator(_in_range)]
"""A time the store and the scheduler can hold (SQLite keeps microseconds in 64 bits)."""
Whole = Annotated[int, Field(ge=0, lt=2**63)]
Id = Annotated[int, Field(ge=1, lt=2**63)]
Seed = Annotated[int, Field(ge=-(2**63), lt=2**63)]
Seconds = Annotated[float, Field(ge=0, allow_inf_nan=False)]


class _Strict(BaseModel):
    model_config = ConfigDict(strict=True, extra="forbid", frozen=True)


class CardEntry(_Strict):
    question_id: str
    card_id: Whole
    deck_id: str
    state: Literal[1, 2, 3]
    step: Whole | None
    stability: Annotated[float, Field(allow_inf_nan=False)] | None
    difficulty: Annotated[float, Field(allow_inf_nan=False)] | None
    due: When | None
    last_review: When | None
    introduced: When | None
    reps: Whole
    lapses: Whole
    suspended: bool
    flagged: bool


class ReviewEntry(_Strict):
    id: Id
    question_id: str
    deck_id: str
    reviewed_at: When
    seed: Seed
    answer: str
    correct: bool
    rating: Literal[1, 2, 3, 4]
    duration_ms: Whole
    diagnosis: str | None
    diagnosis_id: str | None
    mode: Literal["study", "drill", "cram", "interview"]
    state_before: Literal[1, 2, 3] | None
    scheduled: bool


class AnswerEntry(_Strict):
    question_id: str
    deck_id: str
    seed: Seed
    prompt: str
    answer: str
    correct: bool
    expected: str
    diagnosis: str | None
    diagnosis_id: str | None
    seconds: Seconds
    skipped: bool
    flagged: bool


class InterviewEntry(_Strict):
    id: Id
    started_at: When
    finished_at: When | None
    config: dict[str, Any]
    answers: list[AnswerEntry]


@dataclass(frozen=True)
class ProgressCounts:
    """What a progress export or import moved; `backup` is the copy kept of the replaced database."""

    cards: int
    reviews: int
    interviews: int
    settings: int
    backup: Path | None = None


def _opt_iso(when: datetime | None) -> str | None:
    return None if when is None else iso(when)


def _card_json(c: CardRecord) -> dict[str, Any]:
    return {
        "question_id": c.question_id,
        "card_id": c.card_id,
        "deck_id": c.deck_id,
        "state": int(c.state),
        "step": c.step,
        "stability": c.stability,
        "difficulty": c.difficulty,
        "due": _opt_iso(c.due),
        "last_review": _opt_iso(c.last_review),
        "introduced": _opt_iso(c.introduced),
        "reps": c.reps,
        "lapses": c.lapses,
        "suspended": c.suspended,
        "flagged": c.flagged,
    }


def _review_json(r: ReviewRecord) -> dict[str, Any]:
    return {
        "id": r.id,
        "question_id": r.question_id,
        "deck_id": r.deck_id,
        "reviewed_at": iso(r.reviewed_at),
        "seed": r.seed,
        "answer": r.answer,
        "correct": r.correct,
        "rating": r.rating,
        "duration_ms": r.duration_ms,
        "diagnosis": r.diagnosis,
        "diagnosis_id": r.diagnosis_id,
        "mode": r.mode,
        "state_before": None if r.state_before is None else int(r.state_before),
        "scheduled": r.scheduled,
    }


def _interviews_json(store: Store) -> Iterator[dict[str, Any]]:
    for record, config in backup.interviews(store):
        yield {
            "id": record.id,
            "started_at": iso(record.started_at),
            "finished_at": _opt_iso(record.finished_at),
            "config": config,
            "answers": [asdict(a) for a in record.answers],
        }


def _sections(store: Store) -> dict[str, Iterable[Any]]:
    return {
        "cards": (_card_json(c) for c in backup.cards(store)),
        "reviews": (_review_json(r) for r in backup.reviews(store)),
        "interviews": _interviews_json(store),
    }


def _settings_json(store: Store) -> dict[str, Any]:
    return {key: json.loads(value) for key, value in raw_settings(store).items()}


def progress_document(store: Store, *, now: datetime) -> dict[str, Any]:
    """The whole progress as one JSON-ready dict (what export writes, for small stores and tests)."""
    with store.snapshot():
        sections = {name: list(items) for name, items in _sections(store).items()}
        settings = _settings_json(store)
    return {"format": FORMAT_MARKER, "version": FORMAT_VERSION, "exported_at": iso(now), **sections,
            "settings": settings}  # fmt: skip


def export_progress(store: Store, file: str | os.PathLike[str], *, now: datetime) -> ProgressCounts:
    """Streams the progress file (a million reviews never sit in memory at once), one record per line,
    then renames it into place: a half-written backup never replaces a good one."""
    target = Path(file)
    try:
        fd, tmp = paths.temp_beside(target)  # an unguessable new file: never a planted link's target
    except OSError as exc:
        raise QuizappError(f"Cannot write {target}: {exc.strerror or exc}") from exc
    counts: dict[str, int] = {}
    try:
        with store.snapshot(), os.fdopen(fd, "w", encoding="utf-8") as fh:
            head = {"format": FORMAT_MARKER, "version": FORMAT_VERSION, "exported_at": iso(now)}
            fh.write("{\n" + "".join(f" {json.dumps(k)}: {json.dumps(v)},\n" for k, v in head.items()))
            for name, items in _sections(store).items():
                fh.write(f" {json.dumps(name)}: [")
                n = 0
                for item in items:
                    fh.write(("," if n else "") + "\n  " + json.dumps(item, ensure_ascii=False))
                    n += 1
                fh.write("\n ],\n" if n else "],\n")
                counts[name] = n
            settings = _settings_json(store)
            fh.write(f' "settings": {json.dumps(settings, ensure_ascii=False)}\n}}\n')
        os.replace(tmp, target)
    except OSError as exc:
        raise QuizappError(f"Cannot write {target}: {exc.strerror or exc}") from exc
    finally:
        tmp.unlink(missing_ok=True)  # gone after the rename; removed after any failure
    return ProgressCounts(counts["cards"], counts["reviews"], counts["interviews"], len(settings))


def import_progress(store: Store, file: str | os.PathLike[str], *, now: datetime) -> ProgressCounts:
    """Replaces the store's progress with the file's, in one transaction, after keeping a copy of the
    current database beside it (`<db>.before-import-<UTC timestamp>`) if it held anything."""
    from quizapp.reports.progress_reader import read_progress_file

    return import_document(store, read_progress_file(file), now=now)


def import_document(store: Store, checked: CheckedFile, *, now: datetime) -> ProgressCounts:
    """import_progress for a file already checked by read_progress_file: its records stream from the
    file into the transaction (a file that changed since is refused there, and nothing is written)."""
    kept = _keep_aside(store, now) if backup.has_progress(store) else None
    try:
        backup.replace_all(
            store,
            card_rows=(card_record(card) for card in checked.records("cards")),
            review_rows=(_review(review) for review in checked.records("reviews")),
            interview_rows=(_interview(iv) for iv in checked.records("interviews")),
            settings=checked.settings,
        )
    except BaseException:
        if kept is not None:
            kept.unlink(missing_ok=True)  # nothing was replaced: the copy kept aside is not needed
        raise
    return ProgressCounts(checked.cards, checked.reviews, checked.interviews, len(checked.settings), kept)


def _keep_aside(store: Store, now: datetime) -> Path:
    """A copy of the database beside it, named for the moment of the import, never overwriting one."""
    base = f"{store.path.name}.before-import-{utc(now).strftime('%Y%m%dT%H%M%SZ')}"
    target = store.path.with_name(base)
    n = 1
    while target.exists():
        n += 1
        target = store.path.with_name(f"{base}-{n}")
    backup.copy_to(store, target)
    return target


def _dt(when: datetime | None) -> datetime | None:
    return None if when is None else utc(when)


def card_record(c: CardEntry) -> CardRecord:
    return CardRecord(
        question_id=c.question_id,
        card_id=c.card_id,
        deck_id=c.deck_id,
        state=State(c.state),
        step=c.step,
        stability=c.stability,
        difficulty=c.difficulty,
        due=_dt(c.due),
        last_review=_dt(c.last_review),
        introduced=_dt(c.introduced),
        reps=c.reps,
        lapses=c.lapses,
        suspended=c.suspended,
        flagged=c.flagged,
    )


def _review(r: ReviewEntry) -> ReviewRecord:
    return ReviewRecord(
        id=r.id,
        question_id=r.question_id,
        deck_id=r.deck_id,
        reviewed_at=utc(r.reviewed_at),
        seed=r.seed,
        answer=r.answer,
        correct=r.correct,
        rating=r.rating,
        duration_ms=r.duration_ms,
        diagnosis=r.diagnosis,
        diagnosis_id=r.diagnosis_id,
        mode=r.mode,
        state_before=None if r.state_before is None else State(r.state_before),
        scheduled=r.scheduled,
    )


def _interview(iv: InterviewEntry) -> backup.InterviewRows:
    return backup.InterviewRows(
        id=iv.id,
        started_at=iv.started_at,
        finished_at=iv.finished_at,
        config=iv.config,
        answers=tuple(InterviewAnswer(**a.model_dump()) for a in iv.answers),
    )


__all__ = [
    "FORMAT_MARKER",
    "FORMAT_VERSION",
    "ProgressCounts",
    "export_progress",
    "import_document",
    "import_progress",
    "progress_document",
]
