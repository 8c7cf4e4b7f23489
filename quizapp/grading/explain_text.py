"""Provides cut_answer(): an answer cut once into tokens, each with its sentence, its clause, the negator
or dismissal that states it the other way round, and whether its sentence is keyword soup.

Sentences end at `.`, `!` or `?`, a bullet or a blank line; clauses at a comma, semicolon, colon, arrow or
dash outside brackets, and at a word that starts a clause (explain_words.CLAUSE_WORDS). Symbols are spelled
out first (explain_lexicon.SYMBOLS). Every form of every point reads the same cut, so the lookups the
pattern matcher (quizapp.grading.explain_match) needs are indexed here once: words, lemmas, typos.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from quizapp.content.patterns import ARTICLES, Token, tokens
from quizapp.grading.explain_lexicon import IRREGULAR, SYMBOLS, TYPO_LENGTH, deletions, lemma, spell_symbols
from quizapp.grading.explain_negation import negations
from quizapp.grading.explain_supposed import supposed
from quizapp.grading.explain_words import (
    CLAUSE_WORDS,
    FUNCTION_WORDS,
    NAMES,
    NEGATORS,
    NOT_A_CLAUSE_AFTER,
    NOT_A_NAME_AFTER,
    no_typo,
)


@dataclass(frozen=True)
class Match:
    """Tokens a pattern matched, first and last in reading order (here, since each text keeps its own)."""

    first: int
    last: int
    used: frozenset[int]


SOUP_SHARE = 0.1
SOUP_LENGTH = 5
"""A sentence of at least SOUP_LENGTH words with no function word at all (one per ten words past ten) is
keyword soup: nothing in it states a point. Terse answers and formulas keep a `by`, `to` or `is`."""
LIST_CLAUSES = 5
"""A sentence cut into at least this many clauses, three in four of them a word or two, is a list of
keywords ("variance, softmax, sqrt, gradients, saturation"), formula or not; unless arrows part them (ARROW):
"large logits ⇒ softmax → one-hot ⇒ vanishing grads" is a chain of claims, terse as it is."""
ARROW = re.compile(r"[→⇒]|->|=>")
SYMBOLS_OF_A_CLAIM = frozenset("=()[]{}+*/^<>←→≤≥⇒∝≈√·×²")
"""A sentence with any of these is a formula or code, whatever its words: never keyword soup."""
NOTATION_VALUES = 2
"""A sentence with a label's colon or a semicolon and at least this many numbers or one-letter names ("KV
heads: MHA h, GQA G, MQA 1") is notation, terse as it is: never keyword soup for want of a `by` or an `is`
(a bag of keywords has neither its labels nor its values)."""
_LABELLED = re.compile(r"\w\s*[:;]\s")
_GLOSS = re.compile(r"\w\s+\(\S|[=≈∝≤≥<>/·×+*]")
"""A term followed by a bracketed aside ("hidden_size (d)", not a call: "sqrt(d_k)") or an equation ("E=0",
"h = 32"): a list of such items says what each term is, it is no list of keywords."""


@dataclass(frozen=True)
class AnswerText:
    """An answer cut into tokens, each with its sentence, its clause and whether it is negated."""

    source: str
    tokens: tuple[Token, ...]
    sentence: tuple[int, ...]
    clause: tuple[int, ...]
    negated: tuple[int, ...]
    """For each token, the negator that states it the other way round (its index), or -1."""
    soup: tuple[bool, ...]
    """For each token, whether its sentence is a list of keywords rather than a claim."""
    supposed: tuple[int, ...]
    """For each token, 0 in a clause the answer claims; 1 in one it supposes, contrasts or reports
    (explain_words.COUNTERFACTUAL, CONTRASTED, REPORTERS): a rejected form met there is not the candidate's
    claim; 2 for the word that makes it so (a form that names it is about the supposition itself)."""
    next_word: tuple[int, ...]
    """For each token, the next one that is not an article (-1 at a sentence's end)."""
    positions: dict[str, tuple[int, ...]]
    """Each word (articles aside) and where it stands, so a pattern looks up its words, not every token."""
    memo: dict[tuple[int, bool], list[Match]]
    """Matches found so far in this text, by pattern node (see match_node)."""
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
CLAUSE_MARK = re.compile(r"[,;:→⇒]|->|=>|\s[-–—]+\s|--")
_ABBREVIATION = re.compile(r"(?:\be\.g|\bi\.e|\betc|\bvs|\bcf|\bet al)$")
_ASIDE_WORDS = (
    r"i (?:think|believe|guess|suppose|suspect|recall|mean)|i(?: would|['’]d) say"
    r"|if (?:i (?:recall|remember)|memory serves)(?: (?:right|rightly|correctly))?"
    r"|as far as i (?:know|remember|recall)|afaik|iirc|you (?:know|see)|mind you|so to speak"
    r"|though|however|by contrast|in contrast|of course|basically|essentially|actually|really|again"
    r"|in turn|in fact|in effect|in short|in practice|in other words|to be (?:fair|clear|honest)"
    r"|crucially|importantly|notably|honestly|frankly|obviously|clearly|typically|usually|generally"
    r"|in general|anyway|then|too|also|well|say|for instance|for example|um+|uh+|erm?|hmm+|like|sorry|okay|ok"
)
_ASIDE = re.compile(
    rf",\s*(?:{_ASIDE_WORDS})\s*,|\(\s*(?:{_ASIDE_WORDS})\s*\)|\s[-–—]+\s*(?:{_ASIDE_WORDS})\s*[-–—]+\s",
    re.IGNORECASE,
)
"""A hedge or a discourse word set off mid-sentence ("dividing, I think, keeps the variance at one"): it
parts no clause and its words are not read, so the claim around it reads whole."""


def _asides(text: str) -> list[tuple[int, int]]:
    """The spans of the asides in `text` (see _ASIDE), the marks around them included."""
    return [m.span() for m in _ASIDE.finditer(text)]


def _breaks(text: str, asides: Sequence[tuple[int, int]]) -> tuple[list[int], list[int]]:
    """Where sentences and clauses end, as character offsets (marks inside brackets or around an aside do
    not count)."""
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
        if not _ABBREVIATION.search(text[max(0, m.start() - 6) : m.start()])
        and not _is_product_dot(text, m.start())
        and not (
            m.group() == "." and m.start() > 0 and text[m.start() - 1].isdigit() and _digit_after(text, m)
        )
    ]
    sentences += [m.start() for m in _BULLET.finditer(text)] + [m.start() for m in _PARAGRAPH.finditer(text)]
    clauses = [
        m.start()
        for m in CLAUSE_MARK.finditer(text)
        if depth[m.start()] == 0 and not any(a <= m.start() < b for a, b in asides)
    ]
    return sorted(set(sentences)), sorted(set(clauses))


def _is_product_dot(text: str, at: int) -> bool:
    """A dot with a space on each side between two short symbols is a product (`p . g`, `q_i . k_j`)."""
    before, after = text[max(0, at - 8) : at], text[at + 1 : at + 9]
    return bool(re.search(r"\b\w{1,4}\s$", before) and re.match(r"\s\w{1,4}\b", after))


def _digit_after(text: str, match: re.Match[str]) -> bool:
    rest = text[match.end() :].lstrip()
    return bool(rest[:1].isdigit())


@lru_cache(maxsize=64)
def cut_answer(text: str) -> AnswerText:
    """The answer cut up once; every form of every point reads the same cut (the last few kept: the gates
    and a re-rating read the same text again)."""
    asides = _asides(text)
    toks = _names(text, _tokens(text) if _HAS_SYMBOL.search(text) else tokens(text))
    if asides:
        toks = [tok for tok in toks if not any(a <= tok.start < b for a, b in asides)]
    sentence_breaks, clause_breaks = _breaks(text, asides)
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
    negated = negations(text, toks, clause)
    soup = _soup(text, toks, sentence, clause)
    supposed_at = supposed(text, toks, sentence, clause)
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
            for form in {tok.word, tok.raw, IRREGULAR.get(tok.word, tok.word)}:  # `build*` finds "built"
                forms.setdefault(form, []).append(i)
            if len(tok.word) >= TYPO_LENGTH and tok.word.isalpha() and not no_typo(tok.word):
                for variant in deletions(tok.word):
                    near.setdefault(variant, []).append(i)
    return AnswerText(
        text,
        tuple(toks),
        tuple(sentence),
        tuple(clause),
        tuple(negated),
        tuple(soup),
        tuple(supposed_at),
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


def _names(source: str, toks: list[Token]) -> list[Token]:
    """`toks` with each phrase that is a name (explain_words.NAMES) read as its one word: "you get
    not-a-number, which spreads" names NaN and negates nothing (forms read it the same way, see
    explain_lexicon.read_names)."""
    out: list[Token] = []
    i = 0
    while i < len(toks):
        end = _name_end(source, toks, i)
        if end is None:
            out.append(toks[i])
            i += 1
            continue
        word = NAMES[tuple(t.word for t in toks[i : end + 1] if t.word not in ARTICLES)]
        out.append(Token(word, toks[i].start, toks[end].end, word))
        i = end + 1
    return out


_MARK_INSIDE = re.compile(r"\w[^\w\s-]+\W*\w")
"""A mark other than a space or hyphen between two words of a run of text ("not, a number")."""


def _name_end(source: str, toks: Sequence[Token], at: int) -> int | None:
    """Where the name that starts at `at` ends (its last token), or None when none starts there."""
    for name in NAMES:
        if toks[at].word != name[0]:
            continue
        i, found = at, 1
        while found < len(name) and i + 1 < len(toks):
            i += 1
            if toks[i].word in ARTICLES:
                continue
            if toks[i].word != name[found]:
                break
            found += 1
        if found < len(name) or _MARK_INSIDE.search(source[toks[at].start : toks[i].end]):
            continue  # a mark between the words ("not, a number") parts them
        hyphenated = toks[at].start == toks[i].start
        after = i + 1 < len(toks) and source[toks[i].end - 1].isalnum()  # "not a number of heads"
        if hyphenated or not (after and toks[i + 1].word in NOT_A_NAME_AFTER):
            return i
    return None


def _name_and_value(source: str, item: Sequence[Token]) -> bool:
    """True for an item that is a name and its value, a space apart ("MQA 1", "GQA G"): a row of a table,
    no keyword. Not a call ("diag(p)") nor a product ("p p")."""
    if len(item) != 2:
        return False
    name, value = item
    apart = source[name.end : value.start]
    return len(name.word) > 1 and (value.word.isdigit() or len(value.word) == 1) and apart.isspace()


def _soup(source: str, toks: Sequence[Token], sentence: Sequence[int], clause: Sequence[int]) -> list[bool]:
    """For each token, whether its sentence is keyword soup (see SOUP_SHARE)."""
    words: dict[int, int] = {}
    glue: dict[int, int] = {}
    values: dict[int, int] = {}
    spans: dict[int, tuple[int, int]] = {}
    for tok, s_id in zip(toks, sentence, strict=True):
        words[s_id] = words.get(s_id, 0) + 1
        glue[s_id] = glue.get(s_id, 0) + (tok.word in FUNCTION_WORDS or tok.word in NEGATORS)
        values[s_id] = values.get(s_id, 0) + (tok.word.isdigit() or len(tok.word) == 1)
        start, _ = spans.get(s_id, (tok.start, tok.end))
        spans[s_id] = (start, tok.end)
    formula = {s_id for s_id, (a, b) in spans.items() if SYMBOLS_OF_A_CLAIM & set(source[a:b])}
    formula |= {
        s_id
        for s_id, n in values.items()
        if n >= NOTATION_VALUES and _LABELLED.search(source[spans[s_id][0] : spans[s_id][1]])
    }
    sizes: dict[int, dict[int, int]] = {}
    items: dict[int, list[Token]] = {}
    for tok, s_id, c_id in zip(toks, sentence, clause, strict=True):
        sizes.setdefault(s_id, {})[c_id] = sizes.setdefault(s_id, {}).get(c_id, 0) + 1
        items.setdefault(c_id, []).append(tok)
    glossed = {
        c_id
        for c_id, item in items.items()
        if _GLOSS.search(source[item[0].start : item[-1].end]) or _name_and_value(source, item)
    }
    listed = {  # an item glossed or equated (_GLOSS) says what a term is: it is no bare keyword
        s_id
        for s_id, counts in sizes.items()
        if len(counts) >= LIST_CLAUSES
        and not ARROW.search(source[spans[s_id][0] : spans[s_id][1]])
        and sum(n <= 2 and c_id not in glossed for c_id, n in counts.items()) * 4 >= len(counts) * 3
    }
    return [
        words[s] >= SOUP_LENGTH
        and (s in listed or (glue[s] <= int(SOUP_SHARE * (words[s] - 10)) and s not in formula))
        for s in sentence
    ]
