"""Provides read_point() and find_misconceptions(): whether a cut answer states a key point (plainly,
negated, dismissed, or with an opposite swapped) and which rejected forms it states, with the words that
decided each.

This is where matches become statuses: every rule for "does this clause state this point" lives here, on
top of the pattern matcher (quizapp.grading.explain_match). Accepted forms are widened by the concept
lexicon (explain_lexicon.expand); rejected forms are read as written.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache

from quizapp.content.patterns import (
    Either,
    Node,
    Optional,
    Phrase,
    PointSpec,
    RejectSpec,
    Together,
    Word,
    compile_pattern,
)
from quizapp.grading.explain_lexicon import expand, read_names
from quizapp.grading.explain_match import match_node
from quizapp.grading.explain_reading import Evidence, MisconceptionFound, PointReading
from quizapp.grading.explain_text import AnswerText, Match
from quizapp.grading.explain_words import HEDGED, NEGATORS, OPPOSITE

EVIDENCE_CHARS = 120


@cache
def _compiled(pattern: str, widen: bool = True) -> Node:
    """A form's tree, with the concept lexicon applied when `widen` (explain_lexicon.expand): accepted
    forms are widened, rejected ones are not (a misconception is a precise claim; widened, it would find
    right answers wrong)."""
    root = read_names(compile_pattern(pattern).root)
    return expand(root) if widen else root


def _find(
    patterns: Sequence[str], text: AnswerText, widen: bool = True, claimed: bool = False
) -> tuple[Match | None, Match | None]:
    """The shortest match stated plainly, and the shortest stated the other way round (negated); with
    `claimed`, only matches the answer claims as its own (_supposed)."""
    plain: Match | None = None
    negated: Match | None = None
    for pattern in patterns:
        for m in match_node(_compiled(pattern, widen), text, slack=widen):
            if any(text.soup[i] for i in m.used) or (claimed and _supposed(m, text)):
                continue
            if _negated(m, text):
                if negated is None or _shorter(m, negated):
                    negated = m
            elif plain is None or _shorter(m, plain):
                plain = m
    return plain, negated


def _reverse(node: Node) -> Node | None:
    """`node` with every word of OPPOSITES swapped for its opposite, or None when it has none to swap."""
    if isinstance(node, Word):
        for word, opposite in OPPOSITE.items():
            if node.text == word or (node.prefix and node.text.startswith(word)):
                return Word(opposite, prefix=True)
        return None
    if isinstance(node, Optional):
        inner = _reverse(node.part)
        return None if inner is None else Optional(inner)
    if isinstance(node, Either):
        options = [_reverse(o) for o in node.options]
        if all(o is None for o in options):
            return None
        return Either(tuple(o if o is not None else n for o, n in zip(options, node.options, strict=True)))
    if isinstance(node, Phrase):
        parts = [_reverse(p) for p in node.parts]
        if all(p is None for p in parts):
            return None
        return Phrase(tuple(p if p is not None else n for p, n in zip(parts, node.parts, strict=True)))
    left, right = _reverse(node.left), _reverse(node.right)
    if left is None and right is None:
        return None
    return Together(left or node.left, right or node.right, node.scope, node.ordered)


@cache
def _reversed(pattern: str) -> Node | None:
    node = _reverse(read_names(compile_pattern(pattern).root))  # opposites swapped, then the lexicon
    return None if node is None else expand(node)


def _find_reversed(patterns: Sequence[str], text: AnswerText) -> Match | None:
    """The shortest plain match of a form with its opposites swapped (see OPPOSITES)."""
    best: Match | None = None
    for pattern in patterns:
        node = _reversed(pattern)
        if node is None:
            continue
        for m in match_node(node, text):
            if any(text.soup[i] for i in m.used) or _negated(m, text):
                continue
            if best is None or _shorter(m, best):
                best = m
    return best


def _negated(m: Match, text: AnswerText) -> bool:
    """A negator the match does not include stands before one of its words in its clause, or right before
    an `only` it includes: "communication is not only in the backward" denies the `only` claim (a bare
    `not only` negates nothing else, see explain_words.NOT_NEGATING_AFTER)."""
    return any(text.negated[i] >= 0 and text.negated[i] not in m.used for i in m.used) or any(
        text.tokens[i].word == "only"
        and i > 0
        and i - 1 not in m.used
        and text.tokens[i - 1].word in NEGATORS
        and text.clause[i - 1] == text.clause[i]
        for i in m.used
    )


def _supposed(m: Match, text: AnswerText) -> bool:
    """True when the match stands wholly in clauses the answer supposes, contrasts or reports
    (AnswerText.supposed) and names no word that makes them so: "without the cache decoding would be
    compute-bound" and "people say it is approximate" state no misconception; "without W_O the layer is the
    same" does (its form is about the supposition). Nor does one hedged right before it ("it almost works
    as is", explain_words.HEDGED)."""
    before = m.first - 1
    hedged = (
        before >= 0 and text.tokens[before].word in HEDGED and text.clause[before] == text.clause[m.first]
    )
    return hedged or all(text.supposed[i] == 1 for i in m.used)


def _dismissed(m: Match, text: AnswerText) -> bool:
    """True when the match is denied by a dismissal after it ("subtracting the max is pointless"): that
    contradicts the point even where another sentence states it, as an interviewer hears it."""
    return any(text.negated[i] > m.last for i in m.used)


def _shorter(a: Match, b: Match) -> bool:
    return (a.last - a.first, a.first) < (b.last - b.first, b.first)


def _evidence(m: Match, text: AnswerText) -> Evidence:
    start = text.tokens[m.first].start
    end = text.tokens[m.last].end
    while end > start and text.source[end - 1] in ".,;:!?":
        end -= 1
    shown = " ".join(text.source[start:end].split())
    if len(shown) > EVIDENCE_CHARS:
        shown = shown[: EVIDENCE_CHARS - 1] + "…"
    return Evidence(shown, start, end)


def find_misconceptions(
    rejects: Sequence[RejectSpec], text: AnswerText
) -> tuple[list[MisconceptionFound], dict[int, Evidence]]:
    """The rejected forms `text` states plainly, and for each key point a misconception contradicts, the
    evidence of the first one that does."""
    found: list[MisconceptionFound] = []
    broken: dict[int, Evidence] = {}
    for reject in rejects:
        plain, _ = _find(reject.forms, text, widen=False, claimed=True)
        if plain is None:
            continue
        evidence = _evidence(plain, text)
        found.append(MisconceptionFound(reject.id, reject.text, reject.correction, evidence, reject.point))
        if reject.point is not None and reject.point not in broken:
            broken[reject.point] = evidence
    return found, broken


def read_point(
    index: int, point: PointSpec, text: AnswerText, broken: Evidence | None, core: bool
) -> PointReading:
    """One key point's status in `text`: contradicted by a misconception (`broken`) or by a dismissal, else
    covered by a plain match, else contradicted by a negated match or one with an opposite swapped, else
    missing."""
    plain, negated = _find(point.accept, text)
    if broken is not None:
        return PointReading(index, point.text, "contradicted", broken, core)
    if negated is not None and _dismissed(negated, text):
        return PointReading(index, point.text, "contradicted", _evidence(negated, text), core)
    if plain is not None:
        return PointReading(index, point.text, "covered", _evidence(plain, text), core)
    if negated is not None:
        return PointReading(index, point.text, "contradicted", _evidence(negated, text), core)
    if (reverse := _find_reversed(point.accept, text)) is not None:
        return PointReading(index, point.text, "contradicted", _evidence(reverse, text), core)
    return PointReading(index, point.text, "missing", None, core)
