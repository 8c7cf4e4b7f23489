"""Provides the gates on where the right option sits and what it looks like across the whole bank.

A learner who has seen a few dozen questions learns the bank's habits: if at one seed most right answers
are "b", or the right option is usually the second-longest or the most punctuated one, position or shape
answers the question without knowledge. The position gate runs the real shuffle over a range of seeds
and refuses a bank where one letter holds too many right answers; the shape gates compare how often the
right option is the second-longest / most punctuated with what chance gives, and name the questions that
feed the excess: a warning above Z_LIMIT standard deviations, a refusal above SHAPE_Z (the position gate's
margin), so the bank cannot drift back into a shape cue while one small deck's luck stays a warning.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from quizapp.content.checks.gate_types import GateFailure, GateInput, Instantiate
from quizapp.content.questions import ChoiceQuestion

POSITION_SHARE = 0.40
"""At no seed may one option letter hold more than this share of single-answer questions' right answers."""
POSITION_SEEDS: tuple[int, ...] = tuple(range(50))
"""The seeds the position gate runs the shuffle at (the seeds the seed checks instantiate)."""
POSITION_Z = 4.0
"""...and only when that many standard deviations above what an honest shuffle gives by chance, so a small
deck's luck at one of the seeds checked is not an error (a shared shuffle is far beyond it)."""
MIN_QUESTIONS = 10
"""Below this many single-answer questions a share says nothing: the bank-wide gates stay quiet."""
Z_LIMIT = 2.0
"""A shape cue is "more often than chance" when its count is this many standard deviations above chance."""
SHAPE_Z = POSITION_Z
"""A shape cue this many standard deviations above chance is refused, not warned about: the position gate's
margin, which a deck of a dozen honest questions does not reach by luck (a few times in 100,000 per cue)."""
PUNCTUATION_MARK = re.compile(r"[^\w\s]")


@dataclass(frozen=True)
class ShapeCue:
    """One bank-wide shape cue: how often the right option has it, and how often chance would give it."""

    name: str
    hits: tuple[GateInput, ...]
    """The questions whose right option is the unique option of this shape."""
    expected: float
    """The count chance gives: per question with a unique such option, 1 / its number of options."""
    sd: float
    questions: int

    @property
    def excess_z(self) -> float:
        """How far above chance the count is, in standard deviations (0 when nothing varies)."""
        return (len(self.hits) - self.expected) / self.sd if self.sd > 0 else 0.0


def _single(items: Sequence[GateInput]) -> list[GateInput]:
    return [it for it in items if isinstance(it.question, ChoiceQuestion) and not it.question.multiple]


def position_failures(
    items: Sequence[GateInput], instantiate: Instantiate, *, seeds: Sequence[int] = POSITION_SEEDS
) -> list[GateFailure]:
    """The first seed at which one letter holds more than POSITION_SHARE of the right answers (and more than
    chance explains), named on the first question answered by that letter: a shuffle shared by every
    question puts them all in one place."""
    single = _single(items)
    if len(single) < MIN_QUESTIONS:
        return []
    for seed in seeds:
        letters: dict[str, list[GateInput]] = {}
        for it in single:
            expected = instantiate(it.question.id, seed).expected
            if isinstance(expected, frozenset) and len(expected) == 1:
                letters.setdefault(next(iter(expected)), []).append(it)
        letter, at = max(letters.items(), key=lambda kv: len(kv[1]))
        share = len(at) / len(single)
        if share > POSITION_SHARE and _beyond_chance(single, letter, len(at)):
            first = at[0]
            return [
                GateFailure(
                    first.deck_id,
                    first.question.id,
                    ("questions", first.index, "options"),
                    f"{len(at)} of {len(single)} single-answer questions ({share:.0%}) put the right answer "
                    f"at '{letter}' (at most {POSITION_SHARE:.0%} may share a letter): options must be "
                    "shuffled per question, not by the seed alone",
                    seed,
                )
            ]
    return []


def _beyond_chance(single: Sequence[GateInput], letter: str, count: int) -> bool:
    """Whether `count` right answers at `letter` is more than POSITION_Z sd above a uniform shuffle's mean."""
    index = ord(letter) - ord("a")
    chances = [
        1 / len(q.options) if index < len(q.options) else 0.0
        for q in (it.question for it in single)
        if isinstance(q, ChoiceQuestion)
    ]
    mean = sum(chances)
    sd = math.sqrt(sum(p * (1 - p) for p in chances))
    return count - mean > POSITION_Z * sd


def _unique_at(values: list[int], rank: int) -> int | None:
    """The index of the option whose value is the `rank`-th largest (0 = largest), when exactly one has it."""
    distinct = sorted(set(values), reverse=True)
    if len(distinct) <= rank or values.count(distinct[rank]) != 1:
        return None
    return values.index(distinct[rank])


def shape_cue(items: Sequence[GateInput], name: str, measure: Callable[[str], int], rank: int) -> ShapeCue:
    """How often the right option is the unique option at `rank` by `measure`, against chance."""
    hits: list[GateInput] = []
    expected = variance = 0.0
    single = _single(items)
    for it in single:
        q = it.question
        assert isinstance(q, ChoiceQuestion)
        at = _unique_at([measure(o.text) for o in q.options], rank)
        if at is None:
            continue
        p = 1 / len(q.options)
        expected += p
        variance += p * (1 - p)
        if q.options[at].correct:
            hits.append(it)
    return ShapeCue(name, tuple(hits), expected, math.sqrt(variance), len(single))


def shape_cues(items: Sequence[GateInput]) -> list[ShapeCue]:
    """The shape cues measured: second-longest option, and the option with the most punctuation marks."""
    return [
        shape_cue(items, "the second-longest option", lambda t: len(t.strip()), 1),
        shape_cue(
            items, "the option with the most punctuation", lambda t: len(PUNCTUATION_MARK.findall(t)), 0
        ),
    ]


def shape_failures(items: Sequence[GateInput]) -> list[GateFailure]:
    """Each question feeding a shape cue the bank shows far beyond chance (z > SHAPE_Z): refused, since a
    test-wise reader scores on it without knowing the answer."""
    return _feeding(items, lambda z: z > SHAPE_Z, "reshape options until it is within chance")


def shape_warnings(items: Sequence[GateInput]) -> list[GateFailure]:
    """Each question feeding a shape cue the bank shows more often than chance but not yet refused
    (Z_LIMIT < z <= SHAPE_Z): an author's hint, and a small deck's luck stays only that."""
    return _feeding(items, lambda z: Z_LIMIT < z <= SHAPE_Z, "reshape an option")


def _feeding(items: Sequence[GateInput], flagged: Callable[[float], bool], advice: str) -> list[GateFailure]:
    """The questions whose right option has a shape cue whose excess `flagged` selects."""
    out = []
    for cue in shape_cues(items):
        if cue.questions < MIN_QUESTIONS or not flagged(cue.excess_z):
            continue
        out += [
            GateFailure(
                it.deck_id,
                it.question.id,
                ("questions", it.index, "options"),
                f"the right option is {cue.name}, as in {len(cue.hits)} of {cue.questions} single-answer "
                f"questions where chance gives {cue.expected:.0f} ({cue.excess_z:.1f} sd above): {advice}",
            )
            for it in cue.hits
        ]
    return out
