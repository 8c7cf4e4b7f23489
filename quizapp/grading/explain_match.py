"""Provides match_node(): every place a form's pattern node matches in a cut answer (explain_text).

A word is found as typed, as another inflection or with one typo (explain_lexicon), a prefix through each
word as stemmed and as typed, and in an accepted form `a ~ b` reaches a little across a comma
(CLAUSE_SLACK) or past a short label and its colon. Matches are memoised per text by node, since a
question's forms share the lexicon's compiled groups. The matcher knows nothing of points or negation:
quizapp.grading.explain_points decides what a match states.
"""

from __future__ import annotations

from quizapp.content.patterns import ARTICLES, Either, Node, Optional, Phrase, Together, Word, has_together
from quizapp.grading.explain_lexicon import TYPO_LENGTH, deletions, lemma, one_typo_apart
from quizapp.grading.explain_text import CLAUSE_MARK, AnswerText, Match
from quizapp.grading.explain_words import CLAUSE_WORDS, no_typo

MAX_MATCHES = 256
"""Matches kept per pattern node: enough for any answer, a bound for a pasted page of keywords."""


def _word_positions(node: Word, text: AnswerText) -> frozenset[int]:
    """Where a plain word of a form stands in `text`: as written, as another inflection of it (its
    lemma), or typed with one typo when it is long (see explain_lexicon)."""
    known = text.words.get(node.text)
    if known is not None:
        return known
    at = set(text.positions.get(node.text, ())) | set(text.lemmas.get(lemma(node.text), ()))
    word = node.text
    if len(word) >= TYPO_LENGTH and word.isalpha() and not no_typo(word):
        for variant in deletions(word):
            for i in text.near.get(variant, ()):
                typed = text.tokens[i].word
                if typed[0] == word[0] and one_typo_apart(typed, word):
                    at.add(i)
    found = text.words[node.text] = frozenset(at)
    return found


def match_node(node: Node, text: AnswerText, slack: bool = False) -> list[Match]:
    """Every place `node` matches in `text`, at most MAX_MATCHES; memoised per text by node, since the
    concepts of a question (and the same pattern in several forms) share their compiled nodes. With
    `slack`, `a ~ b` reaches a little across a comma (see CLAUSE_SLACK)."""
    key = (id(node), slack)
    known = text.memo.get(key)
    if known is None:
        known = text.memo[key] = _match_fresh(node, text, slack)
    return known


def _match_fresh(node: Node, text: AnswerText, slack: bool) -> list[Match]:
    if isinstance(node, Together):
        return _together(node, text, slack)
    if isinstance(node, Either) and _holds_together(node):
        out: list[Match] = []
        for option in node.options:
            out.extend(match_node(option, text, slack))
        return out[:MAX_MATCHES]
    found: list[Match] = []
    for start in sorted(_starts(node, text)):
        for end in _spans(node, start, text):
            found.append(Match(start, end, frozenset(_walk(start, end, text))))
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


def _starts(node: Node, text: AnswerText) -> frozenset[int]:
    """Where a phrase-like node can start: the positions of the words its first part may be."""
    if isinstance(node, Word):
        return _word_starts(node, text)
    known = text.starts.get(id(node))
    if known is None:
        known = text.starts[id(node)] = frozenset(_starts_fresh(node, text))
    return known


def _word_starts(node: Word, text: AnswerText) -> frozenset[int]:
    if not node.prefix:
        return _word_positions(node, text)
    known = text.prefixes.get(node.text)
    if known is None:
        known = text.prefixes[node.text] = frozenset(
            i for form, at in text.forms.items() if form.startswith(node.text) for i in at
        )
    return known


def _starts_fresh(node: Node, text: AnswerText) -> set[int]:
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


def _walk(start: int, end: int, text: AnswerText) -> list[int]:
    at, out = start, [start]
    while at != end and at >= 0:
        at = text.next_word[at]
        out.append(at)
    return out


_NOWHERE: frozenset[int] = frozenset()


def _spans(node: Node, start: int, text: AnswerText) -> frozenset[int]:
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


def _spans_fresh(node: Node, start: int, text: AnswerText) -> set[int]:
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


def _labelled(lo: Match, hi: Match, text: AnswerText) -> bool:
    """True when `lo` stands in a short label (a clause of at most LABEL_WORDS words) and one colon, nothing
    else that parts clauses, leads to the clause right after it, where `hi` stands."""
    c = text.clause[lo.last]
    between = text.source[text.tokens[lo.last].start : text.tokens[hi.first].start]  # a piece holds its `:`
    if ":" not in between or len(CLAUSE_MARK.findall(between)) != 1 or text.clause[hi.first] != c + 1:
        return False
    start = lo.first
    while start > 0 and text.clause[start - 1] == c:
        start -= 1
    end = lo.last
    while end + 1 < len(text.tokens) and text.clause[end + 1] == c:
        end += 1
    return end - start + 1 <= LABEL_WORDS


def _near(a: Match, b: Match, text: AnswerText) -> bool:
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
    if CLAUSE_MARK.sub(",", between).count(",") != between.count(",") or ";" in between:
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


def _together(node: Together, text: AnswerText, slack: bool) -> list[Match]:
    scope = text.clause if node.scope == "clause" else text.sentence
    left, right = match_node(node.left, text, slack), match_node(node.right, text, slack)
    out: list[Match] = []
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
            out.append(Match(min(a.first, b.first), max(a.last, b.last), a.used | b.used))
            if len(out) >= MAX_MATCHES:
                return out
    return out
