"""Provides export_progress: the store streamed to a progress file, one record per line, and
progress_document, the same records as one dict (for small stores and tests).

Rows come straight from the store and are written through fixed templates, the strings escaped by the json
module's own C encoder: the text is what `json.dumps(record, ensure_ascii=False)` writes, at about the
cost of a plain JSON-lines dump of the same rows.
"""

from __future__ import annotations

import io
import itertools
import json
import os
from collections.abc import Iterator
from dataclasses import asdict
from datetime import date, datetime, timedelta
from functools import lru_cache
from pathlib import Path
from typing import IO, Any

from quizapp import paths
from quizapp.errors import QuizappError
from quizapp.progress.format import FORMAT_MARKER, FORMAT_VERSION, ProgressCounts
from quizapp.store import backup
from quizapp.store.database import Store
from quizapp.store.settings import raw_settings
from quizapp.store.times import US_PER_DAY, iso

_quote = json.encoder.encode_basestring  # the C escaper json.dumps(..., ensure_ascii=False) uses
_EPOCH_DAY = date(1970, 1, 1)
BATCH = 1000
"""Records joined into one write."""
_CARD = (
    '{"question_id": %s, "card_id": %d, "deck_id": %s, "state": %d, "step": %s, "stability": %s,'
    ' "difficulty": %s, "due": %s, "last_review": %s, "introduced": %s, "reps": %d, "lapses": %d,'
    ' "suspended": %s, "flagged": %s}'
)
_REVIEW = (
    '{"id": %d, "question_id": %s, "deck_id": %s, "reviewed_at": %s, "seed": %d, "answer": %s,'
    ' "correct": %s, "rating": %d, "duration_ms": %d, "diagnosis": %s, "diagnosis_id": %s, "mode": %s,'
    ' "state_before": %s, "scheduled": %s%s}'
)
"""The last %s is `, "points": "..."` for a review that has key points (format version 2), else empty."""


@lru_cache(maxsize=4096)
def _day(index: int) -> str:
    return (_EPOCH_DAY + timedelta(days=index)).isoformat()


@lru_cache(maxsize=1)
def _clock_times() -> tuple[str, ...]:
    """ "HH:MM:SS" of every second of a day, built once per export (86,400 short strings)."""
    return tuple(f"{h:02d}:{m:02d}:{s:02d}" for h in range(24) for m in range(60) for s in range(60))


def _time(us: int | None) -> str:
    """A stored time as the file writes it: quoted fixed-format UTC ISO with microseconds (as times.iso)."""
    if us is None:
        return "null"
    day, rest = divmod(us, US_PER_DAY)
    second, micro = divmod(rest, 1_000_000)
    return f'"{_day(day)}T{_clock_times()[second]}.{micro:06d}+00:00"'


def _number(value: float | None) -> str:
    return "null" if value is None else float.__repr__(float(value))


def _whole(value: int | None) -> str:
    return "null" if value is None else str(int(value))


def _card_lines(store: Store) -> Iterator[str]:
    for (
        qid,
        cid,
        deck,
        state,
        step,
        stab,
        diff,
        due,
        last,
        intro,
        reps,
        lapses,
        susp,
        flag,
    ) in backup.card_rows(store):
        yield _CARD % (
            _quote(qid), cid, _quote(deck), state, _whole(step), _number(stab), _number(diff), _time(due),
            _time(last), _time(intro), reps, lapses, "true" if susp else "false", "true" if flag else "false",
        )  # fmt: skip


def _review_lines(store: Store) -> Iterator[str]:
    """The hot loop of a large export (a million rows): everything inlined, names bound locally."""
    quote, day_text, clock, template = _quote, _day, _clock_times(), _REVIEW
    for (
        rid,
        qid,
        deck,
        at,
        seed,
        answer,
        correct,
        rating,
        ms,
        diag,
        diag_id,
        mode,
        before,
        sched,
        points,
    ) in backup.review_rows(store):
        day, rest = divmod(at, US_PER_DAY)
        second, micro = divmod(rest, 1_000_000)
        yield template % (
            rid, quote(qid), quote(deck), f'"{day_text(day)}T{clock[second]}.{micro:06d}+00:00"', seed,
            quote(answer), "true" if correct else "false", rating, ms,
            "null" if diag is None else quote(diag), "null" if diag_id is None else quote(diag_id),
            quote(mode), "null" if before is None else str(int(before)), "true" if sched else "false",
            "" if points is None else ', "points": ' + quote(points),
        )  # fmt: skip


def _interview_lines(store: Store) -> Iterator[str]:
    for record, config in backup.interviews(store):
        item = {
            "id": record.id,
            "started_at": iso(record.started_at),
            "finished_at": None if record.finished_at is None else iso(record.finished_at),
            "config": config,
            "answers": [asdict(a) for a in record.answers],
        }
        yield json.dumps(item, ensure_ascii=False)


def _write(store: Store, fh: IO[str], now: datetime) -> ProgressCounts:
    """The whole file, inside one read transaction (a review is never split from its card)."""
    counts: dict[str, int] = {}
    with store.snapshot():
        head = {"format": FORMAT_MARKER, "version": FORMAT_VERSION, "exported_at": iso(now)}
        fh.write("{\n" + "".join(f" {json.dumps(k)}: {json.dumps(v)},\n" for k, v in head.items()))
        sections = {
            "cards": _card_lines(store),
            "reviews": _review_lines(store),
            "interviews": _interview_lines(store),
        }
        for name, lines in sections.items():
            fh.write(f" {json.dumps(name)}: [")
            n = 0
            while batch := list(itertools.islice(lines, BATCH)):  # one write per thousand records
                fh.write(("," if n else "") + "\n  " + ",\n  ".join(batch))
                n += len(batch)
            fh.write("\n ],\n" if n else "],\n")
            counts[name] = n
        settings = {key: json.loads(value) for key, value in raw_settings(store).items()}
        fh.write(f' "settings": {json.dumps(settings, ensure_ascii=False)}\n}}\n')
    return ProgressCounts(counts["cards"], counts["reviews"], counts["interviews"], len(settings))


def progress_document(store: Store, *, now: datetime) -> dict[str, Any]:
    """The whole progress as one JSON-ready dict: what export writes, read back (for small stores)."""
    buffer = io.StringIO()
    _write(store, buffer, now)
    document: dict[str, Any] = json.loads(buffer.getvalue())
    return document


def export_progress(store: Store, file: str | os.PathLike[str], *, now: datetime) -> ProgressCounts:
    """Streams the progress file (a million reviews never sit in memory at once), one record per line,
    then renames it into place: a half-written backup never replaces a good one."""
    target = Path(file)
    try:
        fd, tmp = paths.temp_beside(target)  # an unguessable new file: never a planted link's target
    except OSError as exc:
        raise QuizappError(f"Cannot write {target}: {exc.strerror or exc}") from exc
    try:
        with os.fdopen(fd, "w", encoding="utf-8", buffering=1 << 20) as fh:
            counts = _write(store, fh, now)
        os.replace(tmp, target)
    except OSError as exc:
        raise QuizappError(f"Cannot write {target}: {exc.strerror or exc}") from exc
    finally:
        tmp.unlink(missing_ok=True)  # gone after the rename; removed after any failure
    return counts
