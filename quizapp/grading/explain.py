"""Provides read_explanation(): a typed explanation read point by point, as an interviewer reads it.

The text is cut into sentences and clauses (quizapp.content.patterns says where), each key point's accepted
forms and the question's rejected forms are looked for, and each key point comes out covered, missing or
contradicted, with the words that decided it. A form met in a clause that negates it (`not`, `never`, `n't`
before it, outside an `if`) does not state the point: an accepted form met only that way contradicts it.
Deterministic, no model, and a few milliseconds for a page of text.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache, lru_cache
from typing import Literal

from quizapp.content.patterns import (
    ARTICLES,
    Either,
    Node,
    Optional,
    Phrase,
    PointSpec,
    RejectSpec,
    Together,
    Token,
    Word,
    compile_pattern,
    has_together,
    stem,
    tokens,
)
from quizapp.grading.rating import AGAIN, GOOD, HARD

Status = Literal["covered", "missing", "contradicted"]

NEGATORS = frozenset(
    map(stem, {"not", "no", "never", "none", "nothing", "neither", "nor", "nobody", "nowhere"})
)
"""Words that state what follows them in their clause the other way round."""
NOT_NEGATING_AFTER = frozenset(map(stem, {"only", "matter", "doubt"}))
"""`not only`, `no matter`, `no doubt`: a negator followed by one of these negates nothing."""
HYPOTHETICAL = frozenset(map(stem, {"if", "unless", "without", "otherwise", "whether", "when", "else"}))
"""A negator after one of these in its clause is a supposition ("if we did not scale, ..."), not a claim."""
CLAUSE_WORDS = frozenset(
    map(
        stem,
        {
            "but",
            "whereas",
            "while",
            "whilst",
            "although",
            "though",
            "however",
            "yet",
            "so",
            "because",
            "since",
            "therefore",
            "thus",
            "hence",
            "instead",
            "unlike",
            "rather",
            "otherwise",
            "which",
        },
    )
)
"""Words that start a new clause: negation never reaches across them."""
NOT_A_CLAUSE_AFTER = frozenset({"far", "much", "many", "long", "as"})
"""`so far`, `so much`, `while as`...: the clause word is an adverb here and starts nothing."""
FUNCTION_WORDS = frozenset(
    map(
        stem,
        [
            "the",
            "a",
            "an",
            "is",
            "are",
            "was",
            "were",
            "be",
            "been",
            "being",
            "of",
            "to",
            "by",
            "for",
            "with",
            "in",
            "on",
            "at",
            "from",
            "so",
            "that",
            "this",
            "it",
            "its",
            "they",
            "their",
            "we",
            "you",
            "because",
            "which",
            "as",
            "and",
            "or",
            "not",
            "has",
            "have",
            "does",
            "do",
            "did",
            "can",
            "will",
            "would",
            "makes",
            "make",
            "gives",
            "give",
            "keeps",
            "keep",
            "each",
            "every",
            "than",
            "then",
            "into",
            "per",
            "when",
            "if",
            "also",
            "only",
            "more",
            "less",
            "while",
            "since",
        ],
    )
)
"""The words that hold a sentence together. A run of terms without them is a list of keywords, not a claim."""
SOUP_SHARE = 0.1
SOUP_LENGTH = 5
"""A sentence of at least SOUP_LENGTH words with no function word at all (one per ten words past ten) is
keyword soup: nothing in it states a point. Terse answers and formulas keep a `by`, `to` or `is`."""
SCOPE_ENDS = frozenset({"and", "or", "then", "plus"})
NEGATION_REACH = 2
"""A negator reaches past `and` only when the `and` comes within this many words of it ("no key and no
value", "not T and d_k"); further on, `and` starts a claim of its own."""
LIST_CLAUSES = 5
"""A sentence cut into at least this many clauses, three in four of them a word or two, is a list of
keywords ("variance, softmax, sqrt, gradients, saturation"), formula or not."""
SYMBOLS_OF_A_CLAIM = frozenset("=()[]{}+*/^<>←→≤≥⇒∝≈√")
"""A sentence with any of these is a formula or code, whatever its words: never keyword soup."""
MAX_MATCHES = 256
"""Matches kept per pattern node: enough for any answer, a bound for a pasted page of keywords."""
MAX_TEXT = 20_000
"""Characters read from an answer: an interview answer is a few hundred; a paste past this is cut."""
EVIDENCE_CHARS = 120


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


# --------------------------------------------------------------------------- reading a text


@dataclass(frozen=True)
class _Text:
    """An answer cut into tokens, each with its sentence, its clause and whether it is negated."""

    source: str
    tokens: tuple[Token, ...]
    sentence: tuple[int, ...]
    clause: tuple[int, ...]
    negated: tuple[int, ...]
    """For each token, the negator that states it the other way round (its index), or -1."""
    soup: tuple[bool, ...]
    """For each token, whether its sentence is a list of keywords rather than a claim."""
    next_word: tuple[int, ...]
    """For each token, the next one that is not an article (-1 at a sentence's end)."""
    positions: dict[str, tuple[int, ...]]
    """Each word (articles aside) and where it stands, so a pattern looks up its words, not every token."""
    memo: dict[int, list[_Match]]
    """Matches found so far in this text, by pattern node (see _match)."""
    forms: dict[str, tuple[int, ...]]
    """Each word as stemmed and as typed, and where it stands: what a prefix form looks through."""
    prefixes: dict[str, frozenset[int]]
    """Where each prefix looked up so far matched (many forms share `satur*` and its kin)."""


_SENTENCE_END = re.compile(r"(?<![.!?])[.!?](?=\s|$)")
_BULLET = re.compile(r"\n\s*(?:[-*•]|\d+[.)])\s")
_PARAGRAPH = re.compile(r"\n\s*\n")
_CLAUSE_MARK = re.compile(r"[,;:→⇒]|->|=>|\s[-–—]+\s|--")
_ABBREVIATION = re.compile(r"(?:\be\.g|\bi\.e|\betc|\bvs|\bcf)$")


def _breaks(text: str) -> tuple[list[int], list[int]]:
    """Where sentences and clauses end, as character offsets (marks inside brackets do not count)."""
    depth = [0] * (len(text) + 1)
    level = 0
    for i, ch in enumerate(text):
        if ch in "([{":
            level += 1
        elif ch in ")]}":
            level = max(0, level - 1)
        depth[i] = level
    sentences = [
        m.start()
        for m in _SENTENCE_END.finditer(text)
        if not _ABBREVIATION.search(text[max(0, m.start() - 4) : m.start()])
        and not _is_product_dot(text, m.start())
        and not (
            m.group() == "." and m.start() > 0 and text[m.start() - 1].isdigit() and _digit_after(text, m)
        )
    ]
    sentences += [m.start() for m in _BULLET.finditer(text)] + [m.start() for m in _PARAGRAPH.finditer(text)]
    clauses = [m.start() for m in _CLAUSE_MARK.finditer(text) if depth[m.start()] == 0]
    return sorted(set(sentences)), sorted(set(clauses))


def _is_product_dot(text: str, at: int) -> bool:
    """A dot with a space on each side between two short symbols is a product (`p . g`, `q_i . k_j`)."""
    before, after = text[max(0, at - 8) : at], text[at + 1 : at + 9]
    return bool(re.search(r"\b\w{1,4}\s$", before) and re.match(r"\s\w{1,4}\b", after))


def _digit_after(text: str, match: re.Match[str]) -> bool:
    rest = text[match.end() :].lstrip()
    return bool(rest[:1].isdigit())


@lru_cache(maxsize=64)
def _read(text: str) -> _Text:
    """The answer cut up once; every form of every point reads the same cut (the last few kept: the gates
    and a re-rating read the same text again)."""
    toks = tokens(text)
    sentence_breaks, clause_breaks = _breaks(text)
    sentence: list[int] = []
    clause: list[int] = []
    s_at = c_at = 0
    s_id = c_id = 0
    for i, tok in enumerate(toks):
        while s_at < len(sentence_breaks) and sentence_breaks[s_at] < tok.start:
            s_at, s_id, c_id = s_at + 1, s_id + 1, c_id + 1
        while c_at < len(clause_breaks) and clause_breaks[c_at] < tok.start:
            c_at, c_id = c_at + 1, c_id + 1
        after = toks[i + 1].word if i + 1 < len(toks) else ""
        if tok.word in CLAUSE_WORDS and i and sentence[-1] == s_id and after not in NOT_A_CLAUSE_AFTER:
            c_id += 1
        sentence.append(s_id)
        clause.append(c_id)
    negated = _negation(toks, clause)
    soup = _soup(text, toks, sentence, clause)
    next_word = [-1] * len(toks)
    following = -1
    for i in range(len(toks) - 1, -1, -1):
        next_word[i] = following if following >= 0 and sentence[following] == sentence[i] else -1
        if toks[i].word not in ARTICLES:
            following = i
    positions: dict[str, list[int]] = {}
    forms: dict[str, list[int]] = {}
    for i, tok in enumerate(toks):
        if tok.word not in ARTICLES:
            positions.setdefault(tok.word, []).append(i)
            for form in {tok.word, tok.raw}:
                forms.setdefault(form, []).append(i)
    return _Text(
        text,
        tuple(toks),
        tuple(sentence),
        tuple(clause),
        tuple(negated),
        tuple(soup),
        tuple(next_word),
        {word: tuple(at) for word, at in positions.items()},
        {},
        {form: tuple(at) for form, at in forms.items()},
        {},
    )


def _soup(source: str, toks: Sequence[Token], sentence: Sequence[int], clause: Sequence[int]) -> list[bool]:
    """For each token, whether its sentence is keyword soup (see SOUP_SHARE)."""
    words: dict[int, int] = {}
    glue: dict[int, int] = {}
    for tok, s_id in zip(toks, sentence, strict=True):
        words[s_id] = words.get(s_id, 0) + 1
        glue[s_id] = glue.get(s_id, 0) + (tok.word in FUNCTION_WORDS or tok.word in NEGATORS)
    spans: dict[int, tuple[int, int]] = {}
    for tok, s_id in zip(toks, sentence, strict=True):
        start, _ = spans.get(s_id, (tok.start, tok.end))
        spans[s_id] = (start, tok.end)
    formula = {s_id for s_id, (a, b) in spans.items() if SYMBOLS_OF_A_CLAIM & set(source[a:b])}
    sizes: dict[int, dict[int, int]] = {}
    for s_id, c_id in zip(sentence, clause, strict=True):
        sizes.setdefault(s_id, {})[c_id] = sizes.setdefault(s_id, {}).get(c_id, 0) + 1
    listed = {
        s_id
        for s_id, counts in sizes.items()
        if len(counts) >= LIST_CLAUSES and sum(n <= 2 for n in counts.values()) * 4 >= len(counts) * 3
    }
    return [
        words[s] >= SOUP_LENGTH
        and (s in listed or (glue[s] <= int(SOUP_SHARE * (words[s] - 10)) and s not in formula))
        for s in sentence
    ]


def _negation(toks: Sequence[Token], clause: Sequence[int]) -> list[int]:
    """For each token, the negator earlier in its clause that states it the other way round (its index), or
    -1. A form that names the negator itself ("can not attend to future tokens") states a prohibition, so
    _find counts a negator as negating a match only when the match does not include it."""
    negated: list[int] = []
    active = -1
    hypothetical = False
    for i, tok in enumerate(toks):
        if i == 0 or clause[i] != clause[i - 1]:
            active, hypothetical = -1, False
        negated.append(active)
        if tok.word in SCOPE_ENDS and active >= 0 and i - active > NEGATION_REACH:
            active = -1  # "S and P never go to HBM and memory becomes linear": the second claim stands
        if tok.word in HYPOTHETICAL:
            hypothetical = True
        if tok.word in NEGATORS and not hypothetical:
            following = toks[i + 1].word if i + 1 < len(toks) and clause[i + 1] == clause[i] else ""
            if following not in NOT_NEGATING_AFTER and active < 0:
                active = i  # the first negator of the clause: a form may include a later one, not this
    return negated


# --------------------------------------------------------------------------- matching a pattern


@dataclass(frozen=True)
class _Match:
    """Tokens a pattern matched, first and last in reading order."""

    first: int
    last: int
    used: frozenset[int]


def _match(node: Node, text: _Text) -> list[_Match]:
    """Every place `node` matches in `text`, at most MAX_MATCHES; memoised per text by node, since the
    concepts of a question (and the same pattern in several forms) share their compiled nodes."""
    key = id(node)
    known = text.memo.get(key)
    if known is None:
        known = text.memo[key] = _match_fresh(node, text)
    return known


def _match_fresh(node: Node, text: _Text) -> list[_Match]:
    if isinstance(node, Together):
        return _together(node, text)
    if isinstance(node, Either) and any(has_together(o) for o in node.options):
        out: list[_Match] = []
        for option in node.options:
            out.extend(_match(option, text))
        return out[:MAX_MATCHES]
    found: list[_Match] = []
    for start in sorted(_starts(node, text)):
        for end in _spans(node, start, text):
            found.append(_Match(start, end, frozenset(_walk(start, end, text))))
            if len(found) >= MAX_MATCHES:
                return found
    return found


def _starts(node: Node, text: _Text) -> set[int]:
    """Where a phrase-like node can start: the positions of the words its first part may be."""
    if isinstance(node, Word):
        if not node.prefix:
            return set(text.positions.get(node.text, ()))
        known = text.prefixes.get(node.text)
        if known is None:
            known = text.prefixes[node.text] = frozenset(
                i for form, at in text.forms.items() if form.startswith(node.text) for i in at
            )
        return set(known)
    if isinstance(node, Optional):
        return _starts(node.part, text)
    if isinstance(node, Either):
        return set().union(*(_starts(o, text) for o in node.options))
    if isinstance(node, Phrase):
        out: set[int] = set()
        for part in node.parts:  # leading optional parts may be left out: the next part may start it
            out |= _starts(part, text)
            if not isinstance(part, Optional):
                break
        return out
    return set()


def _walk(start: int, end: int, text: _Text) -> list[int]:
    at, out = start, [start]
    while at != end and at >= 0:
        at = text.next_word[at]
        out.append(at)
    return out


def _spans(node: Node, start: int, text: _Text) -> set[int]:
    """The positions where a phrase-like node that starts at `start` can end."""
    if start < 0:
        return set()
    if isinstance(node, Word):
        tok = text.tokens[start]
        return {start} if node.fits(tok.word, tok.raw) else set()
    if isinstance(node, Either):
        ends: set[int] = set()
        for option in node.options:
            ends |= _spans(option, start, text)
        return ends
    if isinstance(node, Phrase):
        states: set[tuple[int, int]] = {(start, -1)}  # (where the next part starts, where the last ended)
        for part in node.parts:
            skip = isinstance(part, Optional)
            inner = part.part if isinstance(part, Optional) else part
            after: set[tuple[int, int]] = set(states) if skip else set()
            for at, _ in states:
                for end in _spans(inner, at, text) if at >= 0 else ():
                    after.add((text.next_word[end], end))
            states = after
        return {end for _, end in states if end >= 0}
    return set()  # a Together never stands in a phrase (the parser refuses it)


def _together(node: Together, text: _Text) -> list[_Match]:
    scope = text.clause if node.scope == "clause" else text.sentence
    left, right = _match(node.left, text), _match(node.right, text)
    out: list[_Match] = []
    for a in left:
        group = scope[a.first]
        if scope[a.last] != group:
            continue
        for b in right:
            if scope[b.first] != group or scope[b.last] != group or a.used & b.used:
                continue
            if node.ordered and a.last >= b.first:
                continue
            out.append(_Match(min(a.first, b.first), max(a.last, b.last), a.used | b.used))
            if len(out) >= MAX_MATCHES:
                return out
    return out


@cache
def _compiled(pattern: str) -> Node:
    return compile_pattern(pattern).root


def _find(patterns: Sequence[str], text: _Text) -> tuple[_Match | None, _Match | None]:
    """The shortest match stated plainly, and the shortest stated the other way round (negated)."""
    plain: _Match | None = None
    negated: _Match | None = None
    for pattern in patterns:
        for m in _match(_compiled(pattern), text):
            if any(text.soup[i] for i in m.used):
                continue
            if _negated(m, text):
                if negated is None or _shorter(m, negated):
                    negated = m
            elif plain is None or _shorter(m, plain):
                plain = m
    return plain, negated


OPPOSITES: tuple[tuple[str, str], ...] = (
    ("increas", "decreas"),
    ("grow", "shrink"),
    ("larger", "smaller"),
    ("bigger", "smaller"),
    ("higher", "lower"),
    ("faster", "slower"),
    ("more", "fewer"),
    ("before", "after"),
    ("above", "below"),
    ("row", "column"),
    ("earlier", "later"),
    ("past", "future"),
    ("first", "last"),
    ("maximum", "minimum"),
    ("max", "min"),
)
"""Words that state a point the other way round when swapped: a form that matches only with one of them
swapped ("the variance shrinks with d_k", "the mask is added after the softmax") reverses the point."""
_OPPOSITE = {a: b for a, b in OPPOSITES} | {b: a for a, b in OPPOSITES if b not in {x for x, _ in OPPOSITES}}


def _reverse(node: Node) -> Node | None:
    """`node` with every word of OPPOSITES swapped for its opposite, or None when it has none to swap."""
    if isinstance(node, Word):
        for word, opposite in _OPPOSITE.items():
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
    return _reverse(_compiled(pattern))


def _find_reversed(patterns: Sequence[str], text: _Text) -> _Match | None:
    """The shortest plain match of a form with its opposites swapped (see OPPOSITES)."""
    best: _Match | None = None
    for pattern in patterns:
        node = _reversed(pattern)
        if node is None:
            continue
        for m in _match(node, text):
            if any(text.soup[i] for i in m.used) or _negated(m, text):
                continue
            if best is None or _shorter(m, best):
                best = m
    return best


def _negated(m: _Match, text: _Text) -> bool:
    """A negator the match does not include stands before one of its words in its clause."""
    return any(text.negated[i] >= 0 and text.negated[i] not in m.used for i in m.used)


def _shorter(a: _Match, b: _Match) -> bool:
    return (a.last - a.first, a.first) < (b.last - b.first, b.first)


def _evidence(m: _Match, text: _Text) -> Evidence:
    start = text.tokens[m.first].start
    end = text.tokens[m.last].end
    while end > start and text.source[end - 1] in ".,;:!?":
        end -= 1
    shown = " ".join(text.source[start:end].split())
    if len(shown) > EVIDENCE_CHARS:
        shown = shown[: EVIDENCE_CHARS - 1] + "…"
    return Evidence(shown, start, end)


# --------------------------------------------------------------------------- the reading


def read_explanation(text: str, points: Sequence[PointSpec], rejects: Sequence[RejectSpec] = ()) -> Reading:
    """Reads `text` against the key points and misconceptions of one question. Never raises for any text."""
    if not points or not all(p.accept for p in points):
        missing = tuple(PointReading(i, p.text, "missing", core=p.core) for i, p in enumerate(points))
        return Reading(missing, (), AGAIN, "Tick the key points you covered", readable=False)
    cut = _read(text[:MAX_TEXT])
    found: list[MisconceptionFound] = []
    broken: dict[int, Evidence] = {}
    for reject in rejects:
        plain, _ = _find(reject.forms, cut)
        if plain is None:
            continue
        evidence = _evidence(plain, cut)
        found.append(MisconceptionFound(reject.id, reject.text, reject.correction, evidence, reject.point))
        if reject.point is not None and reject.point not in broken:
            broken[reject.point] = evidence
    core = _core(points)
    readings: list[PointReading] = []
    for i, point in enumerate(points):
        plain, negated = _find(point.accept, cut)
        if i in broken:
            readings.append(PointReading(i, point.text, "contradicted", broken[i], i in core))
        elif plain is not None:
            readings.append(PointReading(i, point.text, "covered", _evidence(plain, cut), i in core))
        elif negated is not None:
            readings.append(PointReading(i, point.text, "contradicted", _evidence(negated, cut), i in core))
        elif (reverse := _find_reversed(point.accept, cut)) is not None:
            readings.append(PointReading(i, point.text, "contradicted", _evidence(reverse, cut), i in core))
        else:
            readings.append(PointReading(i, point.text, "missing", None, i in core))
    rating, reason = rate_points(readings, found)
    return Reading(tuple(readings), tuple(found), rating, reason)


def _core(points: Sequence[PointSpec]) -> frozenset[int]:
    marked = frozenset(i for i, p in enumerate(points) if p.core)
    return marked or frozenset({0})


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
