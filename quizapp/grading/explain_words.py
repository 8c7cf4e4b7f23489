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
