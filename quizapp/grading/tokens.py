"""Provides the tokenizer for typed answers, the parse error type, and the input-size bound.

The tokenizer reads numbers exactly (as Fractions) in the forms people type: `1,048,576`, `1_048_576`,
`1 048 576`, `8.59e10`, `.5`. Everything it returns is bounded: the input length is capped before any work
is done, and decimal exponents are capped before a power of ten is built.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from fractions import Fraction
from typing import Literal

from quizapp.errors import QuizappError

MAX_INPUT_CHARS = 400
"""Longer answers are refused at once: nobody types 400 characters of arithmetic in an interview."""
MAX_DECIMAL_EXPONENT = 400
"""`1e400` is read (then refused as too large); `1e999999999` is refused before 10**999999999 is built."""

TokenKind = Literal["num", "word", "op"]


class AnswerParseError(QuizappError):
    """An answer that cannot be read; the message names the problem and lists the accepted forms."""

    def __init__(self, problem: str, accepted: str = "") -> None:
        self.problem = problem
        self.accepted = accepted
        super().__init__(f"{problem}. {accepted}".strip() if accepted else problem)

    def with_accepted(self, accepted: str) -> AnswerParseError:
        """The same problem with the accepted forms of the question being answered."""
        return AnswerParseError(self.problem, accepted)


@dataclass(frozen=True)
class Token:
    """One piece of an answer: a number (exact), a word (unit, scale, function), or an operator."""

    kind: TokenKind
    text: str
    pos: int
    value: Fraction = Fraction(0)


_TRANSLATE = str.maketrans(
    {
        "\u2212": "-",  # minus sign
        "\u2013": "-",  # en dash
        "\u00b0": " deg",  # degree sign: 200° is 200 deg
        "\u00b7": "*",  # middle dot
        "\u22c5": "*",  # dot operator
        "\u2219": "*",  # bullet operator
        "\u00f7": "/",
        "\u00a0": " ",
        "\u202f": " ",
        "\u2009": " ",
        "\uff0c": ",",
    }
)

_INT_PART = r"""
    (?P<int>
        \d{1,3}(?:,\d{3})+(?!\d)         # 1,048,576
      | \d{1,3}(?:\ \d{3})+(?![\d,_])    # 1 048 576 (groups of exactly three)
      | \d+(?:_\d+)+                     # 1_048_576
      | \d+
    )"""
_PLAIN_INT_PART = r"(?P<int>\d+)"
_REST = r"""
    (?:\.(?P<frac>\d*))?
    (?:[eE](?P<exp>[+-]?\d+))?
  | \.(?P<frac2>\d+)(?:[eE](?P<exp2>[+-]?\d+))?
"""
_NUM_GROUPED = re.compile(r"(?:" + _INT_PART + _REST + r")", re.VERBOSE)
_NUM_PLAIN = re.compile(r"(?:" + _PLAIN_INT_PART + _REST + r")", re.VERBOSE)
_WORD = re.compile(r"[^\W\d_]+(?:_[^\W\d_]+)*")
_OP = re.compile(r"\*\*|[-+*/^()\[\],%×=~≈]")
_SPACE = re.compile(r"\s+")


def normalize(text: str) -> str:
    """Maps look-alike characters to ASCII operators; refuses oversized input before anything else."""
    if len(text) > MAX_INPUT_CHARS:
        raise AnswerParseError(
            f"the answer is {len(text):,} characters long; answers are limited to {MAX_INPUT_CHARS}"
        )
    text = text.translate(_TRANSLATE).strip()
    if len(text) > 1 and text.endswith(".") and not text[-2].isdigit():
        text = text[:-1].rstrip()  # a sentence's full stop: "80 GiB."
    return text


def _number(m: re.Match[str]) -> Fraction:
    """The exact value of a matched number literal, with its decimal exponent bounded."""
    int_text = (m.group("int") or "0").replace(",", "").replace("_", "").replace(" ", "")
    frac = m.group("frac") or m.group("frac2") or ""
    exp_text = m.group("exp") or m.group("exp2") or "0"
    exponent = int(exp_text)
    if abs(exponent) > MAX_DECIMAL_EXPONENT:
        raise AnswerParseError(f"the exponent in {m.group(0)!r} is too large to be an answer")
    value = Fraction(int(int_text + frac), 10 ** len(frac))
    return value * Fraction(10) ** exponent


def tokenize(text: str, *, grouping: bool = True) -> list[Token]:
    """Splits normalized text into tokens; `grouping=False` reads `1,2` as two numbers (shapes)."""
    num_re = _NUM_GROUPED if grouping else _NUM_PLAIN
    tokens: list[Token] = []
    pos, end = 0, len(text)
    while pos < end:
        space = _SPACE.match(text, pos)
        if space:
            pos = space.end()
            continue
        m = num_re.match(text, pos)
        if m and m.group(0) not in ("", "."):
            tokens.append(Token("num", m.group(0), pos, _number(m)))
            pos = m.end()
            continue
        m = _WORD.match(text, pos)
        if m:
            tokens.append(Token("word", m.group(0), pos))
            pos = m.end()
            continue
        m = _OP.match(text, pos)
        if m:
            tokens.append(Token("op", m.group(0), pos))
            pos = m.end()
            continue
        raise AnswerParseError(f"unexpected character {text[pos]!r} at position {pos + 1}")
    return tokens
