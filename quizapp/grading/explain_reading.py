"""Provides Reading: an explanation read point by point (each key point covered, missing or contradicted,
with the words that decided it, and the misconceptions met), and what is made of one: the rating an
interviewer would suggest, the rating after the learner's ticks, the code a review keeps, and the marks and
plain lines that show it.

The reader (quizapp.grading.explain) makes a Reading; the screens, the interview report and `quizapp check`
only use one, so they import this module and not the reader.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from quizapp.grading.rating import AGAIN, GOOD, HARD

Status = Literal["covered", "missing", "contradicted"]


@dataclass(frozen=True)
class Evidence:
    """The words that decided a status: the text as typed and its span in the answer."""

    text: str
    start: int
    end: int


@dataclass(frozen=True)
class MisconceptionFound:
    """A rejected form met in the answer, with its correction and the words that stated it."""

    id: str
    text: str
    correction: str
    evidence: Evidence
    point: int | None


@dataclass(frozen=True)
class PointReading:
    """One key point of one answer: its status and the evidence for it."""

    index: int
    text: str
    status: Status
    evidence: Evidence | None = None
    core: bool = False


@dataclass(frozen=True)
class Reading:
    """An answer read point by point, with the rating an interviewer would suggest and why."""

    points: tuple[PointReading, ...]
    misconceptions: tuple[MisconceptionFound, ...]
    rating: int
    reason: str
    readable: bool = True
    """False when the question carries no accepted forms (an old deck): the learner ticks, as before."""

    def covered(self) -> frozenset[int]:
        """The indexes of the points covered, from 0: the ticks the learner starts from."""
        return frozenset(p.index for p in self.points if p.status == "covered")

    def contradicted(self) -> frozenset[int]:
        """The indexes of the points contradicted, from 0."""
        return frozenset(p.index for p in self.points if p.status == "contradicted")


def rate_points(
    points: Sequence[PointReading], misconceptions: Sequence[MisconceptionFound] = ()
) -> tuple[int, str]:
    """The rating an interviewer would give, from the points' statuses, and why in a few words.

    Good: every point covered and nothing contradicted. Again: nothing relevant, a core point missing or
    contradicted, or two or more things said wrong. Hard: anything between (the core right, something missing,
    or one side point wrong).
    """
    n = len(points)
    covered = sum(p.status == "covered" for p in points)
    wrong = {p.index for p in points if p.status == "contradicted"}
    wrong |= {m.point if m.point is not None else -1 - k for k, m in enumerate(misconceptions)}
    core = [p for p in points if p.core] or list(points[:1])
    tally = f"{covered} of {n} key points"
    if covered == 0 and not wrong:
        return AGAIN, "Again: no key point stated"
    if any(p.status == "contradicted" for p in core):
        return AGAIN, "Again: the core point is stated wrongly"
    if any(p.status == "missing" for p in core):
        return AGAIN, f"Again: the core point is missing ({tally})"
    if len(wrong) >= 2:
        return AGAIN, f"Again: {len(wrong)} things stated wrongly"
    if wrong:
        return HARD, f"Hard: {tally}, one stated wrongly"
    if covered == n:
        return GOOD, "Good: every key point"
    return HARD, f"Hard: {tally}"


def rating_from_ticks(
    points: Sequence[PointReading], ticked: frozenset[int], misconceptions: Sequence[MisconceptionFound] = ()
) -> tuple[int, str]:
    """The rating after the learner's own ticks: a tick covers a point, an untick leaves it missing or, when
    the reader found it contradicted and the learner did not tick it, contradicted."""
    kept = []
    for p in points:
        if p.index in ticked:
            kept.append(PointReading(p.index, p.text, "covered", p.evidence, p.core))
        elif p.status == "contradicted":
            kept.append(p)
        else:
            kept.append(PointReading(p.index, p.text, "missing", p.evidence, p.core))
    still = [m for m in misconceptions if m.point is None or m.point not in ticked]
    return rate_points(kept, still)


@dataclass(frozen=True)
class CoreUnfound:
    """The reader found no statement of the core point, and that alone makes the rating Again."""

    number: int
    """The core point's number, from 1, as the list shows it."""
    rating: int
    """The rating a tick of it would give."""


def core_unfound(
    points: Sequence[PointReading], ticked: frozenset[int], misconceptions: Sequence[MisconceptionFound] = ()
) -> CoreUnfound | None:
    """When Again comes only from a core point the reader did not find, while the answer covers another
    point, what a tick of it would give: a pattern misses some paraphrases, and the learner who said it in
    other words should see the one key press that says so. None otherwise (nothing relevant said, or
    something stated wrongly, is Again whatever the ticks)."""
    if rating_from_ticks(points, ticked, misconceptions)[0] != AGAIN or not ticked:
        return None
    unfound = [p for p in points if p.core and p.index not in ticked]
    if len(unfound) != 1 or unfound[0].status != "missing":
        return None
    rating = rating_from_ticks(points, ticked | {unfound[0].index}, misconceptions)[0]
    return None if rating == AGAIN else CoreUnfound(unfound[0].index + 1, rating)


_CODES = {"covered": "c", "missing": "m", "contradicted": "x"}


def points_code(reading: Reading | None, ticked: frozenset[int] | None = None) -> str | None:
    """What a review keeps of a reading: a letter per key point (c covered, m missing, x contradicted, as the
    reader found it), upper-case when the learner's tick says covered. None when nothing was read."""
    if reading is None or not reading.readable:
        return None
    ticks = reading.covered() if ticked is None else ticked
    return "".join(_CODES[p.status].upper() if p.index in ticks else _CODES[p.status] for p in reading.points)


MARKS = {"covered": "✓", "missing": "·", "contradicted": "✗"}
"""How each status is marked, in the terminal and in the TUI alike."""


def statuses(reading: Reading, ticked: frozenset[int] | set[int] | None = None) -> tuple[Status, ...]:
    """Each point's status after the learner's ticks: a tick covers, an untick leaves the reader's
    contradiction or else missing."""
    if ticked is None:
        return tuple(p.status for p in reading.points)
    return tuple(
        "covered" if p.index in ticked else "contradicted" if p.status == "contradicted" else "missing"
        for p in reading.points
    )


def reading_text(reading: Reading, ticked: frozenset[int] | set[int] | None = None) -> str:
    """The reading as plain lines: each point with its mark and evidence, then each misconception."""
    lines = ["Key points:"]
    for p, status in zip(reading.points, statuses(reading, ticked), strict=True):
        lines.append(f"  {MARKS[status]} {p.index + 1}. {p.text} ({status})")
        if p.evidence is not None and status != "missing":
            lines.append(f'      "{p.evidence.text}"')
    for m in reading.misconceptions:
        lines.append(f"Misconception: {m.text}")
        lines.append(f'      "{m.evidence.text}"')
        lines.append(f"  Correction: {m.correction}")
    return "\n".join(lines)
