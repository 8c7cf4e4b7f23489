"""Provides the grammatical-fit gate: a choice stem whose grammar admits only the right option.

A stem that ends "... is an" or asks "Which two ...?" is a free hint when only the right option starts
with a vowel sound, or only the right option names several things: a reader who knows nothing but English
wins. The rules here are few and deliberately narrow, so that a failure is always a real cue:

- article: the stem ends on "a" or "an" (a blank may follow); an option fits when its first word starts
  with the matching sound. Acronyms read letter by letter ("an MLA", "an H100"), numbers by how they are
  said ("an 8", "an 11", "an 18,000"). A first word whose sound is not certain fits either article.
- number: the stem asks for several things ("Which two/three/four ...", or it ends on "are", "these",
  "those"); an option fits when it names several things: a count of two or more, "both", or a list
  joined by "and", "&", or a semicolon.

Per question, the gate refuses a single-answer question whose right option fits and whose wrong options
all do not. Bank-wide, like the other style cues, the share of right and of wrong options that fit their
stem's cue may differ by at most `CUE_GAP`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Literal

from quizapp.content.checks.gate_types import GateFailure, GateInput
from quizapp.content.checks.text_gates import CUE_GAP
from quizapp.content.questions import ChoiceQuestion

Cue = Literal["a", "an", "plural"]

_BLANK = r"[\s_.…:?\-–—]*"
_ARTICLE_END = re.compile(rf"\b(an|a){_BLANK}$", re.IGNORECASE)
_PLURAL_ASK = re.compile(r"\b(?:which|what)\s+(?:two|three|four|five|several)\b", re.IGNORECASE)
_PLURAL_END = re.compile(rf"\b(?:are|these|those){_BLANK}$", re.IGNORECASE)

_LETTER_VOWEL = set("aefhilmnorsx")
"""Letters whose spoken name starts with a vowel sound: "an F", "an H100", "an MLA", "an SM"."""
_READ_AS_WORDS = {"ram": False, "flop": False, "flops": False, "simd": False, "ascii": True, "onnx": True}
"""Capitalised words said as words, not letter by letter: whether they start with a vowel sound."""
_UNSURE = {"moe", "sql", "url", "faq"}
"""Words both articles are used with ("a/an MoE"): they fit either, so they are never a cue."""
_CONSONANT_U = re.compile(r"^(?:uni|use|usu|uti|ura|ure|uro|eu|ewe|one\b|once\b|ubiq|u-)", re.IGNORECASE)
_SILENT_H = re.compile(r"^(?:hour|honest|honou?r|heir)", re.IGNORECASE)
_FIRST = re.compile(r"[\w√∞./,+-]+")

_COUNT = re.compile(
    r"^(?:both|two|three|four|five|six|seven|eight|several|all|[2-9]|[1-9]\d+)\b",
    re.IGNORECASE,
)
_LIST = re.compile(r"\b(?:and|both)\b|&|;", re.IGNORECASE)


def stem_cue(prompt: str) -> Cue | None:
    """The grammatical cue of a stem's last sentence: the article it ends on, "plural" when it asks for
    several things, or None when its grammar admits any option."""
    text = " ".join(prompt.split())
    last = re.split(r"(?<=[.!?])\s+(?=[A-Z])", text)[-1]
    article = _ARTICLE_END.search(last)
    if article:
        return "an" if article.group(1).lower() == "an" else "a"
    if _PLURAL_ASK.search(last) or _PLURAL_END.search(last):
        return "plural"
    return None


def vowel_sound(option: str) -> bool | None:
    """Whether the option's first word is said with a vowel sound first; None when unsure."""
    match = _FIRST.search(option.replace("`", "").replace("*", ""))
    if not match:
        return None
    word = match.group(0).rstrip(".,/+-")
    if not word or not word[0].isalnum():
        return None  # "-inf", "+1", "√d": said in ways too varied to judge
    lower = word.lower()
    if lower in _UNSURE:
        return None
    if lower in _READ_AS_WORDS:
        return _READ_AS_WORDS[lower]
    if word[0].isdigit():
        return _number_vowel(word)
    if not word[0].isalpha():
        return None
    if len(word) == 1 or _is_acronym(word):
        return lower[0] in _LETTER_VOWEL
    if _SILENT_H.match(word):
        return True
    if _CONSONANT_U.match(word):
        return False
    return lower[0] in "aeiou"


def _is_acronym(word: str) -> bool:
    """Said letter by letter: capitals (and digits) only after a capital, like MLA, GQA-1, H100, MI300X."""
    letters = [c for c in word if c.isalpha()]
    return word[0].isupper() and len(word) > 1 and all(c.isupper() for c in letters) and len(letters) <= 5


def _number_vowel(word: str) -> bool | None:
    """An 8..., an 11, an 18, an 11,000 or an 18,000: the spoken number starts with "eight" or
    "eleven"/"eighteen". Decimals and other digits start with a consonant ("a 0.5", "a 64")."""
    head = re.match(r"\d+(?:,\d{3})*", word)
    if not head:
        return None
    groups = head.group(0).split(",")
    lead = groups[0] if len(groups) > 1 else _leading_group(groups[0])
    return lead.startswith("8") or lead in ("11", "18")


def _leading_group(digits: str) -> str:
    """The digits said first: 11000 is "eleven thousand", 110 is "one hundred ten"."""
    if len(digits) >= 4:
        cut = len(digits) % 3 or 3
        return digits[:cut]
    return digits


def names_several(option: str) -> bool:
    """Whether an option names several things: a count of two or more, "both", or a list."""
    text = option.strip().lstrip("`*\"'(")
    return bool(_COUNT.match(text) or _LIST.search(text))


def fits(cue: Cue, option: str) -> bool:
    """Whether the option reads on from a stem with this cue. An unsure sound fits either article."""
    if cue == "plural":
        return names_several(option)
    sound = vowel_sound(option)
    return sound is None or sound == (cue == "an")


def _cued(items: Sequence[GateInput]) -> list[tuple[GateInput, ChoiceQuestion, Cue]]:
    out = []
    for it in items:
        q = it.question
        if not isinstance(q, ChoiceQuestion) or q.multiple:
            continue
        cue = stem_cue(q.prompt)
        if cue is not None:
            out.append((it, q, cue))
    return out


_CUE_WORDS = {"a": 'ends on "a"', "an": 'ends on "an"', "plural": "asks for several things"}
_FIT_WORDS = {
    "a": "starts with a consonant sound",
    "an": "starts with a vowel sound",
    "plural": "names several things",
}


def grammar_failures(items: Sequence[GateInput]) -> list[GateFailure]:
    """Single-answer questions whose stem's grammar admits only the right option."""
    out = []
    for it, q, cue in _cued(items):
        right = [fits(cue, o.text) for o in q.options if o.correct]
        wrong = [fits(cue, o.text) for o in q.options if not o.correct]
        if all(right) and not any(wrong):
            out.append(
                GateFailure(
                    it.deck_id,
                    q.id,
                    ("questions", it.index, "options"),
                    f"grammatical fit: the stem {_CUE_WORDS[cue]} and only the right option "
                    f"{_FIT_WORDS[cue]}: end the stem before the cue or make every option fit it",
                )
            )
    return out


def grammar_shares(items: Sequence[GateInput]) -> tuple[float, float]:
    """The share of right and of wrong options that fit their stem's a/an or plural cue, over the
    single-answer questions whose stem has one (1.0 each when none has)."""
    right: list[bool] = []
    wrong: list[bool] = []
    for _it, q, cue in _cued(items):
        right += [fits(cue, o.text) for o in q.options if o.correct]
        wrong += [fits(cue, o.text) for o in q.options if not o.correct]
    return (sum(right) / len(right) if right else 1.0, sum(wrong) / len(wrong) if wrong else 1.0)


def grammar_cue_failures(items: Sequence[GateInput]) -> list[GateFailure]:
    """Bank-wide: when right options fit their stem's grammar far more often than wrong ones (or the
    reverse), each question where one side alone fits is named."""
    right_share, wrong_share = grammar_shares(items)
    if abs(right_share - wrong_share) <= CUE_GAP:
        return []
    out = []
    for it, q, cue in _cued(items):
        right = [fits(cue, o.text) for o in q.options if o.correct]
        wrong = [fits(cue, o.text) for o in q.options if not o.correct]
        tipped = (
            (all(right) and not all(wrong)) if right_share > wrong_share else (not all(right) and any(wrong))
        )
        if tipped:
            out.append(
                GateFailure(
                    it.deck_id,
                    q.id,
                    ("questions", it.index, "options"),
                    f"grammatical fit: {right_share:.0%} of right options and {wrong_share:.0%} of wrong "
                    f"ones fit their stem's a/an or plural cue (at most {CUE_GAP:.0%} apart); here the stem "
                    f"{_CUE_WORDS[cue]}: balance it",
                )
            )
    return out
