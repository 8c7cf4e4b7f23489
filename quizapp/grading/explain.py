"""Provides read_explanation(): a typed explanation read point by point, as an interviewer reads it.

The text is cut into sentences and clauses (quizapp.content.patterns says where), each key point's accepted
forms and the question's rejected forms are looked for, and each key point comes out covered, missing or
contradicted, with the words that decided it. A form met in a clause that negates it (`not`, `never`, `n't`
before it, outside an `if`; or a dismissal after it: "is not needed", "is pointless") does not state the
point: an accepted form met only that way contradicts it, and a dismissal contradicts it even where another
sentence states it. Accepted forms are read through the general steps of quizapp.grading.explain_lexicon
(concept lexicon, lemmas, symbols, typos) and reach a little past a comma (CLAUSE_SLACK); rejected forms
are read as written, and only where the answer claims them: not in what a counterfactual supposes
("without the cache decoding would be compute-bound"), an `unlike` clause, a reported view ("people say"),
what "rather than" sets aside or "whether" asks, nor right after "almost" (explain_supposed).
"Not a number" is the name NaN, in an answer and a form alike. Deterministic, no model, and a few
milliseconds for a page of text.

The steps, each in its module: explain_words (the word lists), explain_text (the answer cut once;
explain_negation and explain_supposed say which of its words are denied or not claimed), explain_match
(where a form's pattern matches), explain_points (what a match states of a point), explain_reading (the
Reading, its rating and how it is shown).
"""

from __future__ import annotations

from collections.abc import Sequence

from quizapp.content.patterns import PointSpec, RejectSpec
from quizapp.grading.explain_points import find_misconceptions, read_point
from quizapp.grading.explain_reading import PointReading, Reading, rate_points
from quizapp.grading.explain_text import cut_answer
from quizapp.grading.rating import AGAIN

MAX_TEXT = 20_000
"""Characters read from an answer: an interview answer is a few hundred; a paste past this is cut."""


def read_explanation(text: str, points: Sequence[PointSpec], rejects: Sequence[RejectSpec] = ()) -> Reading:
    """Reads `text` against the key points and misconceptions of one question. Never raises for any text."""
    if not points or not all(p.accept for p in points):
        missing = tuple(PointReading(i, p.text, "missing", core=p.core) for i, p in enumerate(points))
        return Reading(missing, (), AGAIN, "Tick the key points you covered", readable=False)
    cut = cut_answer(text[:MAX_TEXT])
    found, broken = find_misconceptions(rejects, cut)
    core = _core(points)
    readings = [read_point(i, point, cut, broken.get(i), i in core) for i, point in enumerate(points)]
    rating, reason = rate_points(readings, found)
    return Reading(tuple(readings), tuple(found), rating, reason)


def _core(points: Sequence[PointSpec]) -> frozenset[int]:
    marked = frozenset(i for i, p in enumerate(points) if p.core)
    return marked or frozenset({0})
