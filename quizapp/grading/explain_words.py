"""Provides the closed word lists the explanation reader works from: negators and dismissals, the words
that start a clause, the function words that hold a sentence together, and the opposites that state a
point the other way round.

They are data, not steps: quizapp.grading.explain_text cuts an answer with them, and
quizapp.grading.explain_points swaps OPPOSITES to find a point reversed. Each word is stemmed as
quizapp.content.patterns stems a typed word.
"""

from __future__ import annotations

from functools import cache

from quizapp.content.patterns import stem

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
FAR_FROM = ("far", "from")
"""`far from` denies what follows it in its clause, as `not` does ("far from unaffected"), before a word
that describes (ADJECTIVE_ENDS, ADJECTIVES): "far from the query" is a distance."""
SET_ASIDE = frozenset({("rather", "than"), ("instead", "of")})
"""What follows these in its clause is what the answer sets aside ("average them rather than keep one and
drop the rest"): a misconception met there is not claimed. An accepted form still reads it, since a bug
is often named by its fix ("repeat instead of repeat_interleave")."""
ASKING = frozenset(map(stem, {"whether"}))
ASKING_IF = frozenset(map(stem, {"check", "see", "test", "ask", "know", "tell", "verify", "find", "measure"}))
"""`whether`, and `if` after one of ASKING_IF ("see if it is irrelevant"), asks what follows in its clause:
a misconception met there is not claimed."""
ADJECTIVE_ENDS = ("ed", "less", "ful", "ible", "able", "al", "ive", "ent", "ant", "ous", "ic", "ial")
ADJECTIVES = frozenset(
    map(stem, {"free", "exact", "enough", "clear", "true", "same", "perfect", "small", "cheap"})
)
HEDGED = frozenset(map(stem, {"almost", "nearly"}))
"""A misconception right after one of these is not claimed in full ("it almost works as is")."""
NAMES: dict[tuple[str, ...], str] = {("not", "number"): "nan"}
"""Phrases that are a name, read as that one word in an answer and in a form alike (articles aside): "you
get not-a-number" names NaN, it negates nothing."""
NOT_A_NAME_AFTER = frozenset(map(stem, {"of", "you", "we", "i", "they", "but"}))
"""A spaced name followed by one of these is the plain words ("not a number of heads", "not a number you
tune"); hyphenated ("not-a-number") it is always the name."""
CLAIM_VERBS = frozenset(
    map(
        stem,
        {"is", "are", "was", "were", "stays", "stay", "remains", "remain", "becomes", "become", "gets", "get"}
        | {"does", "do", "did", "can", "could", "will", "would", "must", "should", "has", "have", "had"},
    )
)
"""An `and` followed in its clause by one of these starts a claim with its own verb ("exp never overflows
and the result is unchanged"): a negator before the `and` does not reach into it."""
HYPOTHETICAL = frozenset(map(stem, {"if", "unless", "without", "otherwise", "whether", "when", "else"}))
"""A negator after one of these in its clause is a supposition ("if we did not scale, ..."), not a claim."""
COUNTERFACTUAL = frozenset(map(stem, {"would", "could"}))
"""A clause with one of these supposes ("without the cache decoding would be compute-bound"); so does an
`if`, `unless`, `without` or `otherwise` clause of its sentence (SUPPOSING). Not after HEDGING: "I would
say", "we could use" are the candidate's own claim."""
SUPPOSING = frozenset(map(stem, {"if", "unless", "without", "otherwise"}))
NEGATIVE_SUPPOSING = frozenset(map(stem, {"unless", "without", "otherwise"}))
HEDGING = frozenset(map(stem, {"i", "we", "you"}))
RELATIVE = frozenset(map(stem, {"what", "which", "that", "who", "where", "whose", "how"}))
CONTRASTED = frozenset(map(stem, {"unlike"}))
"""A clause that starts with one of these describes what the answer sets its point against ("unlike data
parallel, whose communication is only in the backward"), with the clauses that go on describing it
(CONTINUING)."""
CONTINUING = frozenset(map(stem, {"whose", "which", "where", "who"}))
REPORTERS = frozenset(
    map(stem, {"people", "many", "some", "folks", "others", "everyone", "beginners", "candidates", "someone"})
)
REPORTING = frozenset(map(stem, {"say", "think", "believe", "claim", "assume", "argue", "suggest", "expect"}))
MISTAKES = frozenset(
    map(stem, {"mistake", "misconception", "myth", "misunderstanding", "pitfall", "trap", "error", "belief"})
)
FRAMING_ALONE = frozenset(map(stem, {"myth", "misconception"}))
FRAMING_ADJECTIVES = frozenset(map(stem, {"common", "classic", "frequent", "typical", "popular", "usual"}))
"""A reporting frame ("people often say", "a common mistake is", "you might think", "contrary to") puts
what follows it in its sentence in another's mouth, up to a clause that answers it (CONTRAST)."""
CONTRAST = frozenset(
    map(stem, {"but", "however", "yet", "actually", "instead", "rather", "though", "although", "whereas"})
)
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
            "vs",
            "versus",
            "against",
            "over",
            "under",
            "between",
            "via",
            "through",
            "after",
            "before",
            "until",
            "without",
            "within",
            "but",
            "whereas",
            "although",
            "though",
            "unless",
            "instead",
        ],
    )
)
"""The words that hold a sentence together, a relation such as `vs`, `over`, `before` or `but` among them
("compare TPOT vs floor" and "the window caps memory but loses long range" are claims). A run of terms
without them is a list of keywords, not a claim."""


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
OPPOSITE = {a: b for a, b in OPPOSITES} | {b: a for a, b in OPPOSITES if b not in {x for x, _ in OPPOSITES}}


@cache
def no_typo(word: str) -> bool:
    """Words never read as another's typo, nor another word as theirs: an opposite (`larger`, `smaller`) or
    a negator is one letter from nothing it could mean."""
    return word in NEGATORS or any(word.startswith(w) for w in OPPOSITE)
