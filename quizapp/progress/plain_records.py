"""Provides the records of export's own layout checked field by field in plain code, straight into the
store's rows: building a record model per record (quizapp.progress.file_records) costs more than the rest
of an import of a million reviews.

A chunk is accepted only if every record in it is exactly as export writes it: the model's keys in the
model's order (`points` only last), each value of exactly the JSON type the strict model takes and within
its range, every time in export's own fixed format. Anything else, however valid, gives None and its chunk
is checked by the record models instead (which also word any error): what these checks accept, the models
accept too, with the same values.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from typing import Any, Literal, get_args, get_origin

import numpy as np

from quizapp.progress.file_records import CardEntry, ReviewEntry
from quizapp.progress.format import EARLIEST, LATEST
from quizapp.progress.record_checks import Row
from quizapp.store.reviews import MAX_POINTS, POINT_CODES
from quizapp.store.times import iso

_TOP = 2**63
"""Every whole number fits a signed 64-bit SQLite integer: below 2**63."""
_REVIEW_KEYS = tuple(name for name in ReviewEntry.model_fields if name != "points")
_REVIEW_KEYS_POINTS = (*_REVIEW_KEYS, "points")
_REVIEW_SHAPES = frozenset({_REVIEW_KEYS, _REVIEW_KEYS_POINTS})
"""A review's keys in export's order; `points` (since version 2) only on an explain answer's review."""
_CARD_KEYS = tuple(CardEntry.model_fields)


def _choices(name: str, model: type[ReviewEntry] | type[CardEntry]) -> frozenset[Any]:
    """The values a Literal field allows (and None if it is optional), read from the model."""
    annotation = model.model_fields[name].annotation
    options = get_args(annotation) if get_origin(annotation) is not Literal else (annotation,)
    values: set[Any] = set()
    for option in options:
        values.update(get_args(option) if get_origin(option) is Literal else {None})
    return frozenset(values)


_RATINGS = _choices("rating", ReviewEntry)
_MODES = _choices("mode", ReviewEntry)
_STATES = _choices("state", CardEntry)
_STATES_BEFORE = _choices("state_before", ReviewEntry)
_POINTS = re.compile(f"[{POINT_CODES}]{{1,{MAX_POINTS}}}").fullmatch
_TIME = r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{6}\+00:00"
"""export's times (quizapp.store.times.iso): UTC, always with microseconds; ASCII digits only."""
_TIMES = re.compile(f"{_TIME}(?:\n{_TIME})*").fullmatch
"""A column of times joined by newlines, matched in one call (with its length: one time each)."""
_FIRST, _END = iso(EARLIEST), iso(LATEST)
"""The range a time may take, as text: in this one fixed format, text order is time order."""
_TIME_LENGTH = len(_FIRST)
_NONE = type(None)
_INT, _STR, _BOOL, _DICT = frozenset({int}), frozenset({str}), frozenset({bool}), frozenset({dict})
_INT_OR_NONE, _STR_OR_NONE, _FLOAT_OR_NONE = (frozenset({t, _NONE}) for t in (int, str, float))


def _of(column: Sequence[Any], types: frozenset[type]) -> bool:
    """Whether every value is of exactly one of `types`: as the strict models, true is no whole number
    and 1.0 none either."""
    return set(map(type, column)) <= types


def _whole(column: Sequence[Any], low: int, types: frozenset[type] = _INT) -> bool:
    """Whether every value is a whole number from `low` up to 2**63 (or None, if `types` allows it)."""
    numbers = [n for n in column if n is not None] if _NONE in types else column
    return _of(column, types) and (not numbers or (low <= min(numbers) and max(numbers) < _TOP))


def _one_of(column: Sequence[Any], choices: frozenset[Any], types: frozenset[type]) -> bool:
    return _of(column, types) and set(column) <= choices  # types first: only hashable values reach set()


def _finite(column: Sequence[Any]) -> bool:
    """Whether every value is a finite float, or None."""
    return _of(column, _FLOAT_OR_NONE) and all(map(math.isfinite, [x for x in column if x is not None]))


def times_us(column: Sequence[Any]) -> list[int | None] | None:
    """UTC microseconds of a column of times (None stays None), each written exactly as export writes it,
    from 1970 to 2399; None if any is not (another format or offset, a date that does not exist)."""
    texts = [t for t in column if t is not None]
    if not texts:
        return list(column)
    if not _of(texts, _STR):
        return None
    joined = "\n".join(texts)  # one time a text only if no text holds a newline: the length says so
    if len(joined) != (_TIME_LENGTH + 1) * len(texts) - 1 or not _TIMES(joined):
        return None
    if not _FIRST <= min(texts) <= max(texts) < _END:
        return None
    try:  # NumPy reads the fixed format in C, and refuses a day, hour, minute or second out of range
        found: list[int] = np.array(texts, dtype="U26").astype("datetime64[us]").astype(np.int64).tolist()
    except ValueError:
        return None
    if len(texts) == len(column):
        return list(found)
    each = iter(found)
    return [None if t is None else next(each) for t in column]


def review_rows(items: Any) -> list[Row] | None:
    """The reviews table's rows of a chunk of review records, or None unless every one is export's own.
    Checked a column at a time: each check is one pass in C over the chunk's values."""
    if type(items) is not list or not items or not _of(items, _DICT):
        return None
    shapes = set(map(tuple, items))  # each record's keys, in its order
    if not shapes <= _REVIEW_SHAPES:
        return None
    (ids, questions, decks, times, seeds, answers, correct, ratings, durations, diagnoses, diagnosis_ids,
     modes, before, scheduled, *_) = zip(*map(dict.values, items), strict=False)  # fmt: skip
    points: list[Any] = [None] * len(items)
    if _REVIEW_KEYS_POINTS in shapes:  # explain answers' reviews (version 2): few
        points = [item.get("points") for item in items]
        given = [p for p in points if p is not None]
        if not _of(given, _STR) or not all(map(_POINTS, given)):
            return None
    if not (
        _whole(ids, 1) and _of(questions, _STR) and _of(decks, _STR) and _of(times, _STR)
        and _whole(seeds, -_TOP) and _of(answers, _STR) and _of(correct, _BOOL)
        and _one_of(ratings, _RATINGS, _INT) and _whole(durations, 0) and _of(diagnoses, _STR_OR_NONE)
        and _of(diagnosis_ids, _STR_OR_NONE) and _one_of(modes, _MODES, _STR)
        and _one_of(before, _STATES_BEFORE, _INT_OR_NONE) and _of(scheduled, _BOOL)
    ):  # fmt: skip
        return None
    reviewed = times_us(times)
    if reviewed is None:
        return None
    return list(
        zip(ids, questions, decks, reviewed, seeds, answers, map(int, correct), ratings, durations,
            diagnoses, diagnosis_ids, modes, before, map(int, scheduled), points, strict=True)
    )  # fmt: skip


def card_rows(items: Any) -> list[Row] | None:
    """The cards table's rows of a chunk of card records, or None unless every one is export's own."""
    if (
        type(items) is not list
        or not items
        or not _of(items, _DICT)
        or set(map(tuple, items)) != {_CARD_KEYS}
    ):
        return None
    (questions, card_ids, decks, states, steps, stabilities, difficulties, due, last, introduced, reps,
     lapses, suspended, flagged) = zip(*map(dict.values, items), strict=True)  # fmt: skip
    if not (
        _of(questions, _STR) and _whole(card_ids, 0) and _of(decks, _STR)
        and _one_of(states, _STATES, _INT) and _whole(steps, 0, _INT_OR_NONE) and _finite(stabilities)
        and _finite(difficulties) and _whole(reps, 0) and _whole(lapses, 0) and _of(suspended, _BOOL)
        and _of(flagged, _BOOL)
    ):  # fmt: skip
        return None
    due_us, last_us, introduced_us = (times_us(column) for column in (due, last, introduced))
    if due_us is None or last_us is None or introduced_us is None:
        return None
    return list(
        zip(questions, card_ids, decks, states, steps, stabilities, difficulties, due_us, last_us,
            introduced_us, reps, lapses, map(int, suspended), map(int, flagged), strict=True)
    )  # fmt: skip


PLAIN_ROWS: dict[str, Callable[[Any], list[Row] | None]] = {"cards": card_rows, "reviews": review_rows}
"""The sections whose records are checked in plain code, and how."""
