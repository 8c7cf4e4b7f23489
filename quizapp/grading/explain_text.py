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
from quizapp.grading.explain_lexicon import SYMBOLS, TYPO_LENGTH, deletions, lemma, spell_symbols
from quizapp.grading.explain_words import (
    ADJECTIVE_ENDS,
    ADJECTIVES,
    ASKING,
    ASKING_IF,
    CLAIM_VERBS,
    CLAUSE_WORDS,
    CONTINUING,
    CONTRAST,
    CONTRASTED,
    COUNTERFACTUAL,
    DISMISSED,
    DISMISSIVE,
    FAR_FROM,
    FRAMING_ADJECTIVES,
    FRAMING_ALONE,
    FUNCTION_WORDS,
    HEDGING,
    HYPOTHETICAL,
    MISTAKES,
    NAMES,
    NEGATIVE_SUPPOSING,
    NEGATORS,
    NOT_A_CLAUSE_AFTER,
    NOT_A_NAME_AFTER,
    NOT_NEGATING_AFTER,
    RELATIVE,
    REPORTERS,
    REPORTING,
    SET_ASIDE,
    SUPPOSING,
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
SCOPE_ENDS = frozenset({"and", "or", "then", "plus"})
NEGATION_REACH = 2
"""A negator reaches past `and` only when the `and` comes within this many words of it ("no key and no
value", "not T and d_k"); further on, `and` starts a claim of its own."""
LIST_CLAUSES = 5
"""A sentence cut into at least this many clauses, three in four of them a word or two, is a list of
keywords ("variance, softmax, sqrt, gradients, saturation"), formula or not; unless arrows part them (ARROW):
"large logits ⇒ softmax → one-hot ⇒ vanishing grads" is a chain of claims, terse as it is."""
ARROW = re.compile(r"[→⇒]|->|=>")
SYMBOLS_OF_A_CLAIM = frozenset("=()[]{}+*/^<>←→≤≥⇒∝≈√·×²")
"""A sentence with any of these is a formula or code, whatever its words: never keyword soup."""
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
    clauses = [m.start() for m in CLAUSE_MARK.finditer(text) if depth[m.start()] == 0]
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
    toks = _names(text, _tokens(text) if _HAS_SYMBOL.search(text) else tokens(text))
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
    negated = _inside_brackets(
        text, toks, _ruled_out(toks, clause, _with_none(toks, _negation(toks, clause)))
    )
    soup = _soup(text, toks, sentence, clause)
    supposed = _supposed(text, toks, sentence, clause)
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
        tuple(supposed),
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
    clause_spans: dict[int, tuple[int, int]] = {}
    for tok, s_id, c_id in zip(toks, sentence, clause, strict=True):
        sizes.setdefault(s_id, {})[c_id] = sizes.setdefault(s_id, {}).get(c_id, 0) + 1
        start, _ = clause_spans.get(c_id, (tok.start, tok.end))
        clause_spans[c_id] = (start, tok.end)
    glossed = {c_id for c_id, (a, b) in clause_spans.items() if _GLOSS.search(source[a:b])}
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


def _supposed(
    source: str, toks: Sequence[Token], sentence: Sequence[int], clause: Sequence[int]
) -> list[int]:
    """For each token, whether it stands in no claim of the answer's own (see AnswerText.supposed): what a
    counterfactual supposes (_counterfactual); an `unlike` clause and the clauses that go on describing it;
    what a reporting frame ("people often say") introduces, up to a clause that answers it (`but`,
    `actually`) or a semicolon; what the rest of a clause sets aside ("rather than", "instead of") or asks
    ("whether", "see if")."""
    out = [0] * len(toks)
    words: dict[int, list[int]] = {}
    clauses: dict[int, list[int]] = {}
    for i, (s_id, c_id) in enumerate(zip(sentence, clause, strict=True)):
        words.setdefault(c_id, []).append(i)
        if c_id not in clauses.setdefault(s_id, []):
            clauses[s_id].append(c_id)
    for order in clauses.values():
        marked: set[int] = set()
        supposed, triggers = _counterfactual(source, toks, words, order)
        for i in supposed:
            out[i] = 1
        for i in triggers:
            _mark(out, i)
        for k, c in enumerate(order):
            first = words[c][0]
            frame = _frame(toks, words[c])
            if toks[first].word in CONTRASTED:
                marked.add(c)
                _mark(out, first)
                ends = CONTINUING
            elif frame:
                marked.add(c)
                for i in frame:
                    _mark(out, i)
                ends = CONTRAST
            else:
                continue
            for before, later in zip(order[k:], order[k + 1 :], strict=False):
                starts = toks[words[later][0]].word
                parted = ";" in source[toks[words[before][-1]].start : toks[words[later][0]].start]
                if parted or ((starts not in CONTINUING) if ends is CONTINUING else (starts in CONTRAST)):
                    break  # a semicolon, or a clause that does not go on, ends what the frame describes
                marked.add(later)
        for c in order:
            at = words[c]
            for n, i in enumerate(at):
                pair = (toks[i].word, toks[at[n + 1]].word if n + 1 < len(at) else "")
                asked = n > 0 and pair[0] == "if" and toks[at[n - 1]].word in ASKING_IF
                asks = toks[i].word in ASKING or asked
                if pair in SET_ASIDE or asks:
                    _mark(out, i)
                    for j in at[n + 1 :]:
                        out[j] = out[j] or 1
                    break
        for c in marked:
            for i in words[c]:
                out[i] = out[i] or 1
    return out


def _mark(out: list[int], at: int) -> None:
    out[at] = 2


def _counterfactual(
    source: str, toks: Sequence[Token], words: dict[int, list[int]], order: Sequence[int]
) -> tuple[set[int], set[int]]:
    """What the counterfactuals of one sentence (its clauses `order`) suppose, and the words that make
    them so. After a negative supposition (`without`, `unless`, `otherwise`, an `if` with a negator) the
    whole `would` clause is what does not happen: "without the cache decoding would be compute-bound".
    Otherwise only what stands before the `would` in its clause (back to a `what`, `which`...) and the
    `if` clauses before it: "applying the mask after the softmax would leak the future" rejects the way it
    names; "sharing Q would save as much" claims what comes after the `would`."""
    supposed: set[int] = set()
    triggers: set[int] = set()
    for k, c in enumerate(order):
        for w in words[c]:
            if not _would(source, toks, w):
                continue
            triggers.add(w)
            sides = [b for b in order[:k] if any(toks[i].word in SUPPOSING for i in words[b][:2])]
            negative = [
                i
                for b in [*sides, c]
                for i in words[b]
                if toks[i].word in NEGATIVE_SUPPOSING
                or (toks[i].word in SUPPOSING and any(toks[j].word in NEGATORS for j in words[b] if j > i))
            ]
            for b in sides:
                supposed.update(words[b])
                triggers.update(i for i in words[b][:2] if toks[i].word in SUPPOSING)
            if negative:
                supposed.update(words[c])
                triggers.update(negative)
                continue
            subject = [i for i in words[c] if i < w]
            cut = max((n for n, i in enumerate(subject) if toks[i].word in RELATIVE), default=-1)
            supposed.update(subject[cut + 1 :])
    return supposed - triggers, triggers


def _would(source: str, toks: Sequence[Token], at: int) -> bool:
    """True when the token at `at` is a counterfactual `would` or `could` ("it'd" too), not a hedge ("I
    would say", "we could use")."""
    word = toks[at].word
    before = toks[at - 1].word if at else ""
    if word == "d":
        piece = source[toks[at].start : toks[at].end]
        return ("'d" in piece or "’d" in piece) and before in {"it", "that", "this", "they", "there"}
    return word in COUNTERFACTUAL and before not in HEDGING


def _frame(toks: Sequence[Token], at: Sequence[int]) -> list[int]:
    """The words of a reporting frame in the clause of token indexes `at` (explain_words.REPORTERS,
    MISTAKES), or none."""
    w = [toks[i].word for i in at]
    for j, word in enumerate(w):
        if word in REPORTERS and any(x in REPORTING for x in w[j + 1 : j + 4]):
            return [at[j]]
        if word in MISTAKES and (word in FRAMING_ALONE or (j and w[j - 1] in FRAMING_ADJECTIVES)):
            return [at[j]]
        if (
            word in {"you", "one"}
            and w[j + 1 : j + 2] in (["might"], ["may"])
            and set(w[j + 2 : j + 3]) & REPORTING
        ):
            return [at[j]]
        if word == "tempting" or (word == "contrary" and w[j + 1 : j + 2] == ["to"]):
            return [at[j]]
    return []


def _claim_after(toks: Sequence[Token], clause: Sequence[int], at: int) -> bool:
    """True when the rest of the clause after the `and` at `at` has a verb of its own (CLAIM_VERBS): "exp
    never overflows and the result is unchanged" makes two claims, "not T and d_k" one."""
    return any(toks[j].word in CLAIM_VERBS for j in range(at + 1, len(toks)) if clause[j] == clause[at])


def _with_none(toks: Sequence[Token], negated: list[int]) -> list[int]:
    """`negated` with a negator after `with` kept to its noun phrase: in "rows with nothing allowed and give
    them zero weight" the `nothing` describes the rows, and the claim after `and` stands."""
    out = list(negated)
    ended: set[int] = set()
    for i, j in enumerate(negated):
        if j < 0 or j >= i or j == 0 or toks[j - 1].word != "with":
            continue
        if j in ended:
            out[i] = -1
        elif toks[i].word in SCOPE_ENDS:
            ended.add(j)
    return out


RULING_OUT = frozenset({"rule", "rules", "ruled", "ruling"})


def _ruled_out(toks: Sequence[Token], clause: Sequence[int], negated: list[int]) -> list[int]:
    """`negated` with what follows "rules out" in its clause denied, as after `not`: "near the floor, that
    rules out more bytes per step" denies the extra bytes (a form that names "rule out" states it)."""
    out = list(negated)
    for i in range(len(toks) - 1):
        if toks[i].word in RULING_OUT and toks[i + 1].word == "out" and clause[i + 1] == clause[i]:
            for j in range(i + 2, len(toks)):
                if clause[j] != clause[i]:
                    break
                if out[j] < 0:
                    out[j] = i
    return out


def _inside_brackets(source: str, toks: Sequence[Token], negated: list[int]) -> list[int]:
    """`negated` with each negator or dismissal kept inside its brackets: in "mem (80 GB = 79.6 GiB, not 80)
    minus the weights" the `not` denies the 80, not the subtraction that goes on after the bracket."""
    if "(" not in source:
        return negated
    depth, level = [0] * (len(source) + 1), 0
    for i, ch in enumerate(source):
        depth[i] = level = level + (ch == "(") - (ch == ")" and level > 0)
    return [j if j < 0 or depth[toks[j].start] <= depth[toks[i].start] else -1 for i, j in enumerate(negated)]


def _denying(toks: Sequence[Token], clause: Sequence[int], at: int) -> bool:
    """True when the token at `at` starts a `far from` that denies what follows (explain_words.FAR_FROM)."""
    if at + 2 >= len(toks) or clause[at + 2] != clause[at] or (toks[at].word, toks[at + 1].word) != FAR_FROM:
        return False
    after = toks[at + 2].word
    return after.startswith("un") or after.endswith(ADJECTIVE_ENDS) or after in ADJECTIVES


def _negation(toks: Sequence[Token], clause: Sequence[int]) -> list[int]:
    """For each token, the negator earlier in its clause that states it the other way round (its index), or
    the dismissal later in it (DISMISSED, DISMISSIVE), or -1. A form that names the negator itself ("can not
    attend to future tokens") states a prohibition, so explain_points counts a negator as negating a match
    only when the match does not include it."""
    negated: list[int] = []
    dismissal: dict[int, int] = {}  # clause -> its first dismissal ("is not needed", "is useless")
    active = -1
    hypothetical = False
    for i, tok in enumerate(toks):
        if i == 0 or clause[i] != clause[i - 1]:
            active, hypothetical = -1, False
        negated.append(active)
        if (
            tok.word in SCOPE_ENDS
            and active >= 0
            and (i - active > NEGATION_REACH or _claim_after(toks, clause, i))
        ):
            active = -1  # "S and P never go to HBM and memory becomes linear": the second claim stands
        if tok.word in HYPOTHETICAL:
            hypothetical = True
        following = toks[i + 1].word if i + 1 < len(toks) and clause[i + 1] == clause[i] else ""
        if hypothetical:
            continue
        if (tok.word in NEGATORS and following not in NOT_NEGATING_AFTER) or _denying(toks, clause, i):
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
