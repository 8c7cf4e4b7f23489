"""Provides the concept language in which explain questions say what a right answer must state.

Authors write concepts, not regular expressions. A pattern is made of words and these operators, from the
tightest to the loosest:

| form | matches |
| --- | --- |
| `variance` | the word, in any case, plural or singular (`heads` is `head`) |
| `satur*` | any word that starts with `satur` (saturate, saturates, saturation) |
| `one hot` | the words next to each other (`one-hot`, `One hot`; `the`, `a`, `an` are skipped) |
| `sum to? 1` | `?` after a word or group makes it optional in its phrase |
| `@sqrt` | a named concept from the shared vocabulary (`quizapp/content/vocabulary/*.yaml`) |
| `(a | b)` | either; parentheses group, and a group may stand inside a phrase: `(sum | add) to 1` |
| `a ~ b` | both in the same clause, in any order |
| `a ~> b` | both in the same clause, `a` first |
| `a & b` | both in the same sentence, in any order |
| `a .. b` | both in the same sentence, `a` first |
| `a | b` | either (the loosest) |

Text is read the same way on both sides: lower case, `d_k` and `d_{k}` as `dk`, `√` as `sqrt`, `one`..`ten`
as digits, `doesn't` as `does not`. A clause ends at `,` `;` `:` an arrow or a dash (outside brackets:
a shape such as `(B, h, T, d_k)` is one clause) and before `but`, `whereas`, `while`, `although`,
`because`, `so`, `instead` and their kin; a sentence ends at `.` `!` `?` before the next word (not a
product such as `q . k`), a blank line or a new bullet. The reader (quizapp.grading.explain) decides
negation: a pattern met after `not`, `no`, `never` or `n't` in its clause is stated the other way round,
unless the pattern names that negator itself (`@token ~ can not ~ attend*` states a prohibition), and
a pattern met before a dismissal in its clause ("subtracting the max is not needed", "is pointless") is
denied too.

The reader widens every accepted form (never a rejected one) with general steps that no form needs to spell
out (quizapp.grading.explain_lexicon): a concept lexicon of words and phrases that say one thing (`grows`
also matches "increases" and "gets bigger", `dk` "head dimension" and "key size", `memory` "VRAM"), light
lemmas (`scaled` matches "scaling"; `-ise` and `-ize` alike), symbols in answers (`↑` increases, `↓`
decreases, `≪`, `Σ`, `KV$`), one typo in a word of six letters or more, and `a ~ b` reaching up to four
words past a comma when the clause after it goes on with the one before (`..., on the queries`). Write a
form for what the point says; leave synonyms, inflections and typos to these steps.

`compile_pattern` checks a pattern once, with a ValueError that says what is wrong and where; the schema calls
it when a deck loads, so a deck with a broken pattern names its file, question and field.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import yaml

VOCABULARY = Path(__file__).with_name("vocabulary")
"""The shared concepts: each `*.yaml` file here maps names to patterns (`concepts: {name: pattern}`)."""
MAX_PATTERN = 600
"""Characters in one pattern: a concept takes a line or two, never a page."""
MAX_DEPTH = 12
"""Nesting of brackets and concepts in one pattern, so no pattern can recurse without end."""

ARTICLES = frozenset({"the", "a", "an"})
NUMBER_WORDS = {
    "zero": "0",
    "one": "1",
    "two": "2",
    "three": "3",
    "four": "4",
    "five": "5",
    "six": "6",
    "seven": "7",
    "eight": "8",
    "nine": "9",
    "ten": "10",
}
_SYMBOLS = {
    "−∞": " minus infinity ",
    "-∞": " minus infinity ",
    "∞": " infinity ",
    ">=": " at least ",
    "<=": " at most ",
    "⇒": " so ",
    "√": " sqrt ",
    "∝": " proportional ",
    "≈": " approx ",
    "~": " approx ",
    "→": " to ",
    "->": " to ",
    "=>": " so ",
    "×": " x ",
    "·": " ",
    "⋅": " ",
    "∗": " ",
    "≤": " at most ",
    "≥": " at least ",
    "≠": " not equal ",
    "%": " percent ",
}
_CONTRACTIONS = (
    (re.compile(r"\bcan[’']t\b"), "can not"),
    (re.compile(r"\bwon[’']t\b"), "will not"),
    (re.compile(r"\bcannot\b"), "can not"),
    (re.compile(r"n[’']t\b"), " not"),
    (re.compile(r"\bcant\b"), "can not"),
    (re.compile(r"\b(do|does|did|is|are|was|were|has|have|had|could|would|should|must|need)nt\b"), r"\1 not"),
)
"""Contractions spelled out, typed with or without the apostrophe ("doesnt", "cant", as typed in a hurry)."""
_SUBSCRIPT = re.compile(r"(?<=[a-z0-9])_\{?([a-z0-9]+)\}?")
"""A subscript joins its name: `d_k`, `W_O`, `d_{model}`, and `num_key_value_heads` is one word, as a
config field is one name (write such a field joined in a form: `numkeyvalueheads`)."""
_TIMES = re.compile(r"(?<![a-z0-9.])(\d+(?:\.\d+)?)x(?![a-z0-9])")
"""A factor typed as one word is a number and `x`: `8x` reads as `8 x`, as `8×` and `8 x` do."""
_TOKEN = re.compile(r"[a-z0-9\u03b1-\u03c9]+")
"""Letters, digits and Greek letters (σ, μ, θ, α and their kin are symbols people type)."""
_NOT_PLURAL = ("ss", "us", "is", "ics", "ous", "sis")


@dataclass(frozen=True)
class Token:
    """One word of a text as the patterns see it, with where it stands in the text as typed."""

    word: str
    start: int
    end: int
    raw: str = ""
    """The word before stemming, which a prefix form may match too (`die*` and `dies`)."""


def normalise(text: str) -> str:
    """The text lower-cased, with symbols and subscripts spelled the way patterns spell them."""
    text = unicodedata.normalize("NFKC", text.replace("²", "^2").replace("³", "^3")).lower()
    for symbol, spelled in _SYMBOLS.items():
        text = text.replace(symbol, spelled)
    for contraction, spelled in _CONTRACTIONS:
        text = contraction.sub(spelled, text)
    return _TIMES.sub(r"\1 x", _SUBSCRIPT.sub(r"\1", text))


def stem(word: str) -> str:
    """A light stem: plurals lose their s (heads, keys, queries), everything else stays as it is."""
    word = NUMBER_WORDS.get(word, word)
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 3 and word.endswith("s") and not word.endswith(_NOT_PLURAL):
        return word[:-1]
    return word


def tokens(text: str) -> list[Token]:
    """The words of `text`, stemmed, each with its span in `text` as typed.

    Spans are found on a copy normalised character by character where possible; where a replacement changes
    the length, the span falls back to the nearest word boundary, which is all evidence needs.
    """
    out: list[Token] = []
    for start, end, piece in _pieces(text):
        for match in _TOKEN.finditer(normalise(piece)):
            out.append(Token(stem(match.group()), start, end, match.group()))
    return out


def _pieces(text: str) -> list[tuple[int, int, str]]:
    """Runs of text without spaces, with their spans: the unit a token's span points back to."""
    return [(m.start(), m.end(), m.group()) for m in re.finditer(r"\S+", text)]


@dataclass(frozen=True)
class PointSpec:
    """A key point as an Instance carries it: its text, its accepted forms, and whether it is the core."""

    text: str
    accept: tuple[str, ...] = ()
    core: bool = False


@dataclass(frozen=True)
class RejectSpec:
    """A misconception a question knows: the forms that state it, what is wrong, and the point it breaks."""

    id: str
    forms: tuple[str, ...]
    text: str
    correction: str
    point: int | None = None
    """The key point it contradicts, from 0; None when it contradicts the answer as a whole."""


# --------------------------------------------------------------------------- the pattern tree


@dataclass(frozen=True)
class Word:
    """One word, or a prefix when `prefix` (written `satur*`)."""

    text: str
    prefix: bool = False

    def fits(self, word: str, raw: str = "") -> bool:
        """True when `word` (stemmed) is this word, or it or `raw` (as typed) starts with this prefix."""
        if self.prefix:
            return word.startswith(self.text) or raw.startswith(self.text)
        return word == self.text


@dataclass(frozen=True)
class Phrase:
    """Parts that must stand next to each other; each part is a Word or a nested Either."""

    parts: tuple[Node, ...]


@dataclass(frozen=True)
class Optional:
    """A part of a phrase that may be left out (written `word?` or `(a | b)?`)."""

    part: Node


@dataclass(frozen=True)
class Either:
    """Any one of its options."""

    options: tuple[Node, ...]


@dataclass(frozen=True)
class Together:
    """Both sides in one clause (`scope` "clause") or one sentence ("sentence"), `ordered` left first."""

    left: Node
    right: Node
    scope: str
    ordered: bool


Node = Word | Phrase | Optional | Either | Together


@dataclass(frozen=True)
class Pattern:
    """A compiled pattern and the text it was written as (which names it in evidence and errors)."""

    source: str
    root: Node


_LEX = re.compile(r"\s*(~>|\.\.|[()|&~?]|@[a-z0-9_]+|[^\s()|&~@?]+)")
_BINARY = {"~": ("clause", False), "~>": ("clause", True), "&": ("sentence", False), "..": ("sentence", True)}


def vocabulary() -> dict[str, str]:
    """The shared concepts, name -> pattern, as the bundled vocabulary file defines them."""
    return dict(_vocabulary())


@cache
def _vocabulary() -> tuple[tuple[str, str], ...]:
    """Every file's concepts; a name defined twice is a mistake in the bundle, named with both files."""
    seen: dict[str, tuple[str, str]] = {}
    for file in sorted(VOCABULARY.glob("*.yaml")):
        data = yaml.safe_load(file.read_text(encoding="utf-8")) or {}
        for name, pattern in (data.get("concepts") or {}).items():
            if name in seen:
                raise ValueError(f"concept @{name} is defined in {seen[name][0]} and in {file.name}")
            seen[str(name)] = (file.name, str(pattern))
    return tuple((name, pattern) for name, (_, pattern) in seen.items())


def compile_pattern(source: str) -> Pattern:
    """Checks and compiles one pattern; raises ValueError naming the problem and the pattern."""
    return Pattern(source, _compile(source, ()))


@cache
def _compile(source: str, seen: tuple[str, ...]) -> Node:
    """A pattern's tree, with concepts expanded (cached: every question compiles the same concepts)."""
    if len(source) > MAX_PATTERN:
        raise ValueError(f"the pattern is {len(source)} characters long; at most {MAX_PATTERN}")
    if len(seen) > MAX_DEPTH:
        raise ValueError(f"concepts nest more than {MAX_DEPTH} deep: {' -> '.join(seen)}")
    lexed = _lex(source)
    parser = _Parser(lexed, source, seen)
    node = parser.either()
    if parser.at < len(lexed):
        raise ValueError(f"unexpected {lexed[parser.at]!r} in pattern {source!r}")
    return node


def _lex(source: str) -> list[str]:
    out: list[str] = []
    at = 0
    source = source.rstrip()
    while at < len(source):
        match = _LEX.match(source, at)
        if match is None:  # pragma: no cover - the last alternative takes any non-space run
            raise ValueError(f"cannot read {source[at:]!r} in pattern {source!r}")
        out.append(match.group(1))
        at = match.end()
    return out


class _Parser:
    """A recursive-descent reader of the grammar in the module docstring."""

    def __init__(self, lexed: list[str], source: str, seen: tuple[str, ...]) -> None:
        self.lexed = lexed
        self.source = source
        self.seen = seen
        self.at = 0
        self.depth = 0

    def _peek(self) -> str | None:
        return self.lexed[self.at] if self.at < len(self.lexed) else None

    def either(self) -> Node:
        options = [self.sentence()]
        while self._peek() == "|":
            self.at += 1
            options.append(self.sentence())
        return options[0] if len(options) == 1 else Either(tuple(options))

    def sentence(self) -> Node:
        return self._binary(self.clause, ("&", ".."))

    def clause(self) -> Node:
        return self._binary(self.phrase, ("~", "~>"))

    def _binary(self, operand: object, operators: tuple[str, ...]) -> Node:
        read = operand  # a bound method of this parser
        assert callable(read)
        node: Node = read()
        while (op := self._peek()) in operators:
            self.at += 1
            scope, ordered = _BINARY[op]
            node = Together(node, read(), scope, ordered)
        return node

    def phrase(self) -> Node:
        parts: list[Node] = []
        while (token := self._peek()) is not None and token not in ("|", "&", "..", "~", "~>", ")", "?"):
            part = self.atom()
            if self._peek() == "?":
                self.at += 1
                part = Optional(part)
            parts.append(part)
        if not parts:
            where = f"after {self.lexed[self.at - 1]!r}" if self.at else "at the start"
            raise ValueError(f"a word is missing {where} in pattern {self.source!r}")
        if all(isinstance(p, Optional) for p in parts):
            raise ValueError(f"a phrase of optional parts only matches nothing in pattern {self.source!r}")
        for part in parts:
            if len(parts) > 1 and has_together(part):
                raise ValueError(
                    f"a group with ~, ~>, & or .. cannot stand inside a phrase in pattern {self.source!r}"
                )
        return parts[0] if len(parts) == 1 else Phrase(tuple(parts))

    def atom(self) -> Node:
        token = self.lexed[self.at]
        self.at += 1
        if token == "(":
            self.depth += 1
            if self.depth > MAX_DEPTH:
                raise ValueError(f"brackets nest more than {MAX_DEPTH} deep in pattern {self.source!r}")
            node = self.either()
            if self._peek() != ")":
                raise ValueError(f"a ')' is missing in pattern {self.source!r}")
            self.at += 1
            self.depth -= 1
            return node
        if token.startswith("@"):
            return self._concept(token[1:])
        if token in ARTICLES and self._peek() not in (None, "|", "&", "..", "~", "~>", ")", "?"):
            return self.atom()  # `to the right`: an article is skipped in the text, so in the pattern too
        return _words(token, self.source)

    def _concept(self, name: str) -> Node:
        concepts = dict(_vocabulary())
        if name not in concepts:
            close = sorted(n for n in concepts if n[:2] == name[:2])[:5]
            hint = f" (known ones that start alike: {', '.join('@' + n for n in close)})" if close else ""
            raise ValueError(f"unknown concept @{name} in pattern {self.source!r}{hint}")
        if name in self.seen:
            raise ValueError(f"concept @{name} refers to itself: {' -> '.join((*self.seen, name))}")
        try:
            return _compile(concepts[name], (*self.seen, name))
        except ValueError as exc:
            raise ValueError(f"in concept @{name}: {exc}") from None


def _words(token: str, source: str) -> Node:
    """A bare token as words: `d_k` is `dk`, `one-hot` is the phrase `1 hot`, `satur*` a prefix."""
    prefix = token.endswith("*") and len(token) > 1
    core = token[:-1] if prefix else token
    raw = [w for w in _TOKEN.findall(normalise(core)) if w not in ARTICLES]
    if not raw:
        raise ValueError(f"{token!r} has no letters or digits in pattern {source!r}")
    nodes: list[Node] = [Word(stem(w)) for w in raw]
    if prefix:  # the last word is a prefix as written, not stemmed: `queri*` must still match `queries`
        nodes[-1] = Word(raw[-1], prefix=True)
    return nodes[0] if len(nodes) == 1 else Phrase(tuple(nodes))


def has_together(node: Node) -> bool:
    """True when `node` holds a `~`, `~>`, `&` or `..` anywhere (it cannot stand inside a phrase)."""
    if isinstance(node, Together):
        return True
    if isinstance(node, Either):
        return any(has_together(o) for o in node.options)
    if isinstance(node, Phrase):
        return any(has_together(p) for p in node.parts)
    if isinstance(node, Optional):
        return has_together(node.part)
    return False
