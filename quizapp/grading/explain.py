"""Provides read_explanation(): a typed explanation read point by point, as an interviewer reads it.

The text is cut into sentences and clauses (quizapp.content.patterns says where), each key point's accepted
forms and the question's rejected forms are looked for, and each key point comes out covered, missing or
contradicted, with the words that decided it. A form met in a clause that negates it (`not`, `never`, `n't`
before it, outside an `if`; or a dismissal after it: "is not needed", "is pointless") does not state the
point: an accepted form met only that way contradicts it, and a dismissal contradicts it even where another
sentence states it. Accepted forms are read through the general steps of quizapp.grading.explain_lexicon
(concept lexicon, lemmas, symbols, typos) and reach a little past a comma (CLAUSE_SLACK); rejected forms
are read as written. Deterministic, no model, and a few milliseconds for a page of text.
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
from quizapp.grading.explain_lexicon import (
    SYMBOLS,
    TYPO_LENGTH,
    deletions,
    expand,
    lemma,
    one_typo_apart,
    spell_symbols,
)
from quizapp.grading.rating import AGAIN, GOOD, HARD

Status = Literal["covered", "missing", "contradicted"]

NEGATORS = frozenset(
    map(stem, {"not", "no", "never", "none", "nothing", "neither", "nor", "nobody", "nowhere"})
)
"""Words that state what follows them in their clause the other way round."""
DISMISSED = frozenset(
    map(
        stem, {"needed", "necessary", "required", "help", "helps", "matter", "matters", "useful", "important"}
    )
)
DISMISSIVE = frozenset(
    map(stem, {"unnecessary", "useless", "pointless", "irrelevant", "needless", "unneeded"})
)
"""A clause that dismisses what it names ("subtracting the max is not needed", "does not help", "is
useless") denies what stands before the dismissal as well as after it."""
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
    memo: dict[tuple[int, bool], list[_Match]]
    """Matches found so far in this text, by pattern node (see _match)."""
    forms: dict[str, tuple[int, ...]]
    """Each word as stemmed and as typed, and where it stands: what a prefix form looks through."""
    prefixes: dict[str, frozenset[int]]
    """Where each prefix looked up so far matched (many forms share `satur*` and its kin)."""
    lemmas: dict[str, tuple[int, ...]]
    """Each word's lemma (explain_lexicon.lemma) and where it stands: `scaled` finds `scaling`."""
    near: dict[str, tuple[int, ...]]
    """Each long word and each of its one-letter deletions, and where the word stands: what a typo looks
    through (explain_lexicon.one_typo_apart decides)."""
    words: dict[str, frozenset[int]]
    """Where each plain word looked up so far matched, lemmas and typos included."""
    starts: dict[int, frozenset[int]]
    """Where each group or phrase node can start, by node (the lexicon's groups recur in many forms)."""
    ends: dict[tuple[int, int], frozenset[int]]
    """Where each group or phrase node that starts at a position can end, by node and position."""


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
    toks = _tokens(text) if _HAS_SYMBOL.search(text) else tokens(text)
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
    lemmas: dict[str, list[int]] = {}
    near: dict[str, list[int]] = {}
    for i, tok in enumerate(toks):
        if tok.word not in ARTICLES:
            positions.setdefault(tok.word, []).append(i)
            lemmas.setdefault(lemma(tok.word), []).append(i)
            for form in {tok.word, tok.raw}:
                forms.setdefault(form, []).append(i)
            if len(tok.word) >= TYPO_LENGTH and tok.word.isalpha() and not _no_typo(tok.word):
                for variant in deletions(tok.word):
                    near.setdefault(variant, []).append(i)
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
        {word: tuple(at) for word, at in lemmas.items()},
        {word: tuple(at) for word, at in near.items()},
        {},
        {},
        {},
    )


_HAS_SYMBOL = re.compile("|".join(map(re.escape, SYMBOLS)))


def _tokens(text: str) -> list[Token]:
    """The words of `text` as quizapp.content.patterns reads them, with symbols spelled out first (`↑` is
    "increases", see explain_lexicon.SYMBOLS); each word keeps the span of its run of text as typed."""
    out: list[Token] = []
    for piece in re.finditer(r"\S+", text):
        for tok in tokens(spell_symbols(piece.group())):
            out.append(Token(tok.word, piece.start(), piece.end(), tok.raw))
    return out


def _word_positions(node: Word, text: _Text) -> frozenset[int]:
    """Where a plain word of a form stands in `text`: as written, as another inflection of it (its
    lemma), or typed with one typo when it is long (see explain_lexicon)."""
    known = text.words.get(node.text)
    if known is not None:
        return known
    at = set(text.positions.get(node.text, ())) | set(text.lemmas.get(lemma(node.text), ()))
    word = node.text
    if len(word) >= TYPO_LENGTH and word.isalpha() and not _no_typo(word):
        for variant in deletions(word):
            for i in text.near.get(variant, ()):
                typed = text.tokens[i].word
                if typed[0] == word[0] and one_typo_apart(typed, word):
                    at.add(i)
    found = text.words[node.text] = frozenset(at)
    return found


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
    the dismissal later in it (DISMISSED, DISMISSIVE), or -1. A form that names the negator itself ("can not
    attend to future tokens") states a prohibition, so _find counts a negator as negating a match only when
    the match does not include it."""
    negated: list[int] = []
    dismissal: dict[int, int] = {}  # clause -> its first dismissal ("is not needed", "is useless")
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
        following = toks[i + 1].word if i + 1 < len(toks) and clause[i + 1] == clause[i] else ""
        if hypothetical:
            continue
        if tok.word in NEGATORS and following not in NOT_NEGATING_AFTER:
            if active < 0:
                active = i  # the first negator of the clause: a form may include a later one, not this
            near = toks[i + 1 : i + 3]
            if any(
                t.word in DISMISSED
                for t, c in zip(near, clause[i + 1 : i + 3], strict=False)
                if c == clause[i]
            ):
                dismissal.setdefault(clause[i], i)
        elif tok.word in DISMISSIVE:
            dismissal.setdefault(clause[i], i)
    for j in dismissal.values():
        i = j - 1  # "subtracting the max is not needed": what stands before the dismissal is denied too,
        while i >= 0 and clause[i] == clause[j] and toks[i].word not in SCOPE_ENDS:  # back to an `and`
            if negated[i] < 0:
                negated[i] = j
            i -= 1
    return negated


# --------------------------------------------------------------------------- matching a pattern


@dataclass(frozen=True)
class _Match:
    """Tokens a pattern matched, first and last in reading order."""

    first: int
    last: int
    used: frozenset[int]


def _match(node: Node, text: _Text, slack: bool = False) -> list[_Match]:
    """Every place `node` matches in `text`, at most MAX_MATCHES; memoised per text by node, since the
    concepts of a question (and the same pattern in several forms) share their compiled nodes. With
    `slack`, `a ~ b` reaches a little across a comma (see CLAUSE_SLACK)."""
    key = (id(node), slack)
    known = text.memo.get(key)
    if known is None:
        known = text.memo[key] = _match_fresh(node, text, slack)
    return known


def _match_fresh(node: Node, text: _Text, slack: bool) -> list[_Match]:
    if isinstance(node, Together):
        return _together(node, text, slack)
    if isinstance(node, Either) and _holds_together(node):
        out: list[_Match] = []
        for option in node.options:
            out.extend(_match(option, text, slack))
        return out[:MAX_MATCHES]
    found: list[_Match] = []
    for start in sorted(_starts(node, text)):
        for end in _spans(node, start, text):
            found.append(_Match(start, end, frozenset(_walk(start, end, text))))
            if len(found) >= MAX_MATCHES:
                return found
    return found


_TOGETHER: dict[int, tuple[Node, bool]] = {}


def _holds_together(node: Either) -> bool:
    """has_together for an option of `node`, remembered by node (kept, so its id stays its own)."""
    known = _TOGETHER.get(id(node))
    if known is None:
        known = _TOGETHER[id(node)] = (node, any(has_together(o) for o in node.options))
    return known[1]


def _starts(node: Node, text: _Text) -> frozenset[int]:
    """Where a phrase-like node can start: the positions of the words its first part may be."""
    if isinstance(node, Word):
        return _word_starts(node, text)
    known = text.starts.get(id(node))
    if known is None:
        known = text.starts[id(node)] = frozenset(_starts_fresh(node, text))
    return known


def _word_starts(node: Word, text: _Text) -> frozenset[int]:
    if not node.prefix:
        return _word_positions(node, text)
    known = text.prefixes.get(node.text)
    if known is None:
        known = text.prefixes[node.text] = frozenset(
            i for form, at in text.forms.items() if form.startswith(node.text) for i in at
        )
    return known


def _starts_fresh(node: Node, text: _Text) -> set[int]:
    if isinstance(node, Optional):
        return set(_starts(node.part, text))
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


_NOWHERE: frozenset[int] = frozenset()


def _spans(node: Node, start: int, text: _Text) -> frozenset[int]:
    """The positions where a phrase-like node that starts at `start` can end (only words it may start
    with are tried: the lexicon's groups hold many phrases, most of which start elsewhere)."""
    if start < 0:
        return _NOWHERE
    if isinstance(node, Word):
        return frozenset((start,)) if start in _word_starts(node, text) else _NOWHERE
    key = (id(node), start)
    known = text.ends.get(key)
    if known is None:
        known = text.ends[key] = (
            frozenset(_spans_fresh(node, start, text)) if start in _starts(node, text) else _NOWHERE
        )
    return known


def _spans_fresh(node: Node, start: int, text: _Text) -> set[int]:
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


CLAUSE_SLACK = 4
"""In an accepted form, `a ~ b` holds across a comma too when at most this many words stand between its
sides in one sentence, none of them starts a clause (`but`, `because`...) and each clause crossed into goes
on with the one before (ATTACHING): "an rmsnorm, with learnable gains, on the queries" states the norm on
the queries; "keys per token, values per channel" never states keys per channel."""


ATTACHING = frozenset(
    {"on", "with", "to", "by", "in", "for", "of", "from", "at", "into", "onto", "over", "across", "along"}
    | {"via", "through", "using", "per", "like", "within", "inside", "under", "without"}
)
"""Words that carry a clause on from the one before it, so `a ~ b` may reach into it (CLAUSE_SLACK)."""


LABEL_WORDS = 3
"""A clause of at most this many words before a colon is a label for what follows ("small batch: decode is
bandwidth-bound" states the bound at small batch)."""


def _labelled(lo: _Match, hi: _Match, text: _Text) -> bool:
    """True when `lo` stands in a short label (a clause of at most LABEL_WORDS words) and one colon, nothing
    else that parts clauses, leads to the clause right after it, where `hi` stands."""
    c = text.clause[lo.last]
    between = text.source[text.tokens[lo.last].start : text.tokens[hi.first].start]  # a piece holds its `:`
    if ":" not in between or len(_CLAUSE_MARK.findall(between)) != 1 or text.clause[hi.first] != c + 1:
        return False
    start = lo.first
    while start > 0 and text.clause[start - 1] == c:
        start -= 1
    end = lo.last
    while end + 1 < len(text.tokens) and text.clause[end + 1] == c:
        end += 1
    return end - start + 1 <= LABEL_WORDS


def _near(a: _Match, b: _Match, text: _Text) -> bool:
    """True when two matches in neighbouring clauses of one sentence are within CLAUSE_SLACK words."""
    lo, hi = (a, b) if a.last < b.first else (b, a)
    if lo.last >= hi.first or hi.first - lo.last - 1 > 2 * CLAUSE_SLACK:
        return False
    if sum(text.tokens[i].word not in ARTICLES for i in range(lo.last + 1, hi.first)) > CLAUSE_SLACK:
        return False
    if text.sentence[lo.last] != text.sentence[hi.first]:
        return False
    between = text.source[text.tokens[lo.last].end : text.tokens[hi.first].start]
    if _labelled(lo, hi, text):
        return True
    if _CLAUSE_MARK.sub(",", between).count(",") != between.count(",") or ";" in between:
        return False  # only commas: a semicolon, colon, arrow or dash parts two claims
    if any(text.tokens[i].word in CLAUSE_WORDS for i in range(lo.last + 1, hi.first + 1)):
        return False
    # each clause crossed into must go on with what came before ("..., on the queries"), never start a
    # claim of its own ("keys per token, values per channel")
    return all(
        text.tokens[i].word in ATTACHING
        for i in range(lo.last + 1, hi.first + 1)
        if text.clause[i] != text.clause[i - 1]
    )


def _together(node: Together, text: _Text, slack: bool) -> list[_Match]:
    scope = text.clause if node.scope == "clause" else text.sentence
    left, right = _match(node.left, text, slack), _match(node.right, text, slack)
    out: list[_Match] = []
    for a in left:
        group = scope[a.first]
        if scope[a.last] != group:
            continue
        for b in right:
            if scope[b.first] != scope[b.last] or a.used & b.used:
                continue
            if scope[b.first] != group and not (slack and node.scope == "clause" and _near(a, b, text)):
                continue
            if node.ordered and a.last >= b.first:
                continue
            out.append(_Match(min(a.first, b.first), max(a.last, b.last), a.used | b.used))
            if len(out) >= MAX_MATCHES:
                return out
    return out


@cache
def _compiled(pattern: str, widen: bool = True) -> Node:
    """A form's tree, with the concept lexicon applied when `widen` (explain_lexicon.expand): accepted
    forms are widened, rejected ones are not (a misconception is a precise claim; widened, it would find
    right answers wrong)."""
    root = compile_pattern(pattern).root
    return expand(root) if widen else root


def _find(patterns: Sequence[str], text: _Text, widen: bool = True) -> tuple[_Match | None, _Match | None]:
    """The shortest match stated plainly, and the shortest stated the other way round (negated)."""
    plain: _Match | None = None
    negated: _Match | None = None
    for pattern in patterns:
        for m in _match(_compiled(pattern, widen), text, slack=widen):
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


@cache
def _no_typo(word: str) -> bool:
    """Words never read as another's typo, nor another word as theirs: an opposite (`larger`, `smaller`) or
    a negator is one letter from nothing it could mean."""
    return word in NEGATORS or any(word.startswith(w) for w in _OPPOSITE)


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
    node = _reverse(compile_pattern(pattern).root)  # the opposites swapped first, then the lexicon applied
    return None if node is None else expand(node)


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


def _dismissed(m: _Match, text: _Text) -> bool:
    """True when the match is denied by a dismissal after it ("subtracting the max is pointless"): that
    contradicts the point even where another sentence states it, as an interviewer hears it."""
    return any(text.negated[i] > m.last for i in m.used)


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
        plain, _ = _find(reject.forms, cut, widen=False)
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
        elif negated is not None and _dismissed(negated, cut):
            readings.append(PointReading(i, point.text, "contradicted", _evidence(negated, cut), i in core))
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
