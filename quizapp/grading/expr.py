"""Provides a small recursive-descent evaluator for answers: arithmetic on exact numbers that carry units.

Grammar (lowest to highest precedence):

    answer   := lead* sum END
    sum      := product (('+' | '-') product)*
    product  := signed (('*' | '×' | 'x' | 'times' | '/' | 'per') (time-unit | signed))*
    signed   := ('-' | '+') signed | quantity
    quantity := power ['%'] scale* [unit | ratio] (filler | noun | 'per' noun)*
    power    := primary [('^' | '**') exponent]          (right-associative)
    exponent := ('-' | '+') exponent | power
    primary  := NUMBER | '(' sum ')' | const | func '(' sum ')'

Values are exact Fractions until a float function (sqrt of a non-square, exp) or constant enters. Cost is
bounded three ways: the input length (tokens.MAX_INPUT_CHARS), the nesting depth (MAX_DEPTH), and the size of
every intermediate value (MAX_BITS), which a power is checked against *before* it is computed, so
`9**9**9**9` is refused in microseconds. Nothing here calls eval, exec or compile.

Units keep their dimension through the arithmetic: an amount over a time (`TFLOP/s`, `GB/s`, `tokens per
second`) is a rate, kept per second, and a rate is never an amount; an amount over a rate is a time. Where a
count is asked, any plain noun after the number (`22 sequences`, `4.7M tokens`) names what is counted.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from fractions import Fraction

from quizapp.grading.tokens import AnswerParseError, Token
from quizapp.grading.words import PER_WORDS, RATE_SUFFIX, Word, is_rate, lookup

Num = Fraction | float
MAX_DEPTH = 40
"""Parentheses, unary signs and exponents nested deeper than this are refused (no RecursionError)."""
MAX_BITS = 2048
"""No intermediate numerator or denominator may exceed this many bits (about 10^616)."""
MAX_EXP_ARG = 700.0
_LEAD_OPS = frozenset({"~", "≈", "="})
_MUL_OPS = frozenset({"*", "×"})
_MUL_WORDS = frozenset({"x", "X", "times"})
_LETTER_SCALES_AMBIGUOUS_FOR_BYTES = frozenset({"k", "K", "m", "M", "G", "T"})
NOUN_DIMENSIONS = frozenset({"number", "params", "flops"})
"""Where a count is asked, a plain noun after it names what is counted: `22 sequences`, `4.7M tokens`."""
MS_PER_SECOND = 1000
"""Times are kept in ms (the engine's base unit for a time); rates per second."""


@dataclass(frozen=True)
class Quantity:
    """A value on its way through the evaluator: exact or float, with its dimension if a unit was given."""

    value: Num
    dim: str | None = None
    unit: str = ""
    scaled: bool = False


def _bounded(value: Num) -> Num:
    """Refuses values too large (or too finely divided) to be an answer, before they grow further."""
    if isinstance(value, Fraction):
        if value.numerator.bit_length() > MAX_BITS or value.denominator.bit_length() > MAX_BITS:
            raise AnswerParseError("a number in the answer is too large (or too precise) to be an answer")
        return value
    if not math.isfinite(value):
        raise AnswerParseError("a number in the answer is too large to be an answer")
    return value


def _dim_name(q: Quantity) -> str:
    return q.unit or q.dim or "a plain number"


class Evaluator:
    """Evaluates one token list for a question that asks for `asked_dimension`."""

    def __init__(self, tokens: list[Token], asked_dimension: str) -> None:
        self.tokens = tokens
        self.asked = asked_dimension
        self.i = 0
        self.depth = 0

    # -- token helpers -------------------------------------------------------------------------
    def _peek(self, ahead: int = 0) -> Token | None:
        j = self.i + ahead
        return self.tokens[j] if j < len(self.tokens) else None

    def _is_op(self, tok: Token | None, *ops: str) -> bool:
        return tok is not None and tok.kind == "op" and tok.text in ops

    def _word(self, tok: Token | None) -> Word | None:
        if tok is None:
            return None
        if tok.kind == "word" or (tok.kind == "op" and tok.text == "×"):
            return lookup(tok.text, self.asked)
        return None

    def _is_per(self, tok: Token | None) -> bool:
        return tok is not None and tok.kind == "word" and tok.text.lower() in PER_WORDS

    def _is_noun(self, tok: Token | None) -> bool:
        """A plain word that means nothing here, after a count: what the count counts."""
        return (
            tok is not None
            and tok.kind == "word"
            and self.asked in NOUN_DIMENSIONS
            and self._word(tok) is None
            and not self._is_per(tok)
        )

    def _time_unit(self, tok: Token | None) -> Word | None:
        word = self._word(tok)
        return word if word is not None and word.kind == "unit" and word.dimension == "time" else None

    def _starts_operand(self, tok: Token | None) -> bool:
        if tok is None:
            return False
        if tok.kind == "num" or self._is_op(tok, "("):
            return True
        word = self._word(tok)
        return word is not None and word.kind in ("func", "const")

    def _enter(self) -> None:
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise AnswerParseError(f"the answer nests more than {MAX_DEPTH} levels deep")

    def _unexpected(self, tok: Token | None, wanted: str) -> AnswerParseError:
        if tok is None:
            return AnswerParseError(f"the answer ends where {wanted} was expected")
        if tok.kind == "word" and self._word(tok) is None:
            return AnswerParseError(f"{tok.text!r} is not a unit or word this question understands")
        return AnswerParseError(f"expected {wanted} but found {tok.text!r} at position {tok.pos + 1}")

    # -- grammar -------------------------------------------------------------------------------
    def parse(self) -> Quantity:
        """Reads the whole token list as one quantity, or raises AnswerParseError saying where it failed."""
        while (tok := self._peek()) is not None and (
            self._is_op(tok, *_LEAD_OPS) or ((w := self._word(tok)) is not None and w.kind == "filler")
        ):
            self.i += 1
        if self._peek() is None:
            raise AnswerParseError("the answer is empty")
        q = self._sum()
        tok = self._peek()
        if tok is not None:
            if self._is_op(tok, "%"):
                raise AnswerParseError("a percent sign goes right after a plain number, as in 87.5%")
            if self._is_op(tok, ","):
                raise AnswerParseError(
                    "a comma here must separate thousands (1,048,576); use a point for decimals (0.5)"
                )
            raise self._unexpected(tok, "an operator or the end of the answer")
        return q

    def _sum(self) -> Quantity:
        self._enter()
        q = self._product()
        while self._is_op(tok := self._peek(), "+", "-"):
            self.i += 1
            right = self._product()
            q = _add(q, right, negate=tok is not None and tok.text == "-")
        self.depth -= 1
        return q

    def _product(self) -> Quantity:
        q = self._signed()
        while True:
            tok = self._peek()
            if self._is_per(tok) or (self._is_op(tok, "/") and self._time_unit(self._peek(1)) is not None):
                per = self._time_unit(self._peek(1))
                if per is None:
                    raise self._unexpected(self._peek(1), "a unit of time after 'per'")
                self.i += 2  # `/ s`, `per second`: one of that unit
                q = _divide(q, Quantity(Fraction(1) * per.factor, "time", per.name))
            elif self._is_op(tok, *_MUL_OPS, "/") or (
                tok is not None and tok.kind == "word" and tok.text in _MUL_WORDS
            ):
                if (
                    tok is not None
                    and tok.text in ("×", *_MUL_WORDS)
                    and not self._starts_operand(self._peek(1))
                ):
                    raise self._unexpected(tok, "an operator")
                self.i += 1
                right = self._signed()
                q = _divide(q, right) if tok is not None and tok.text == "/" else _multiply(q, right)
            else:
                return q

    def _signed(self) -> Quantity:
        tok = self._peek()
        if self._is_op(tok, "-", "+"):
            self._enter()
            self.i += 1
            inner = self._signed()
            self.depth -= 1
            return replace(inner, value=-inner.value) if tok is not None and tok.text == "-" else inner
        return self._quantity()

    def _quantity(self) -> Quantity:
        q = self._power()
        if self._is_op(self._peek(), "%"):
            self.i += 1
            if q.dim is not None:
                raise AnswerParseError("a percentage cannot carry a unit")
            q = replace(q, value=_bounded(q.value / 100))
        letter_scale = ""
        while (word := self._word(tok := self._peek())) is not None and word.kind == "scale":
            self.i += 1
            if tok is not None and tok.text in _LETTER_SCALES_AMBIGUOUS_FOR_BYTES:
                letter_scale = tok.text
            q = replace(q, value=_bounded(q.value * word.factor), scaled=True)
        word = self._word(tok := self._peek())
        if word is not None and word.kind == "ratio" and self._starts_operand(self._peek(1)):
            word = None  # `8 x 4` multiplies; `8x` at the end is a ratio
        if word is not None and word.kind in ("unit", "ratio"):
            self.i += 1
            if q.dim is not None:
                raise AnswerParseError(f"two units in a row: {q.unit} and {word.name}")
            q = Quantity(_bounded(q.value * word.factor), word.dimension, word.name, q.scaled)
            nxt = self._peek()
            after = self._word(nxt)
            if nxt is not None and after is not None and after.kind in ("unit", "scale"):
                raise AnswerParseError(f"two units in a row: {word.name} and {nxt.text}")
        if letter_scale and self.asked == "bytes" and q.dim != "bytes":
            raise AnswerParseError(
                f"{letter_scale!r} is ambiguous for a size in bytes: write a unit such as "
                f"{letter_scale.upper()}B (powers of 1000) or {letter_scale.upper()}iB (powers of 1024)"
            )
        while True:
            tok = self._peek()
            word = self._word(tok)
            if (word is not None and word.kind == "filler") or (q.dim is None and self._is_noun(tok)):
                self.i += 1
            elif (
                self._is_per(tok)
                and (nxt := self._peek(1)) is not None
                and nxt.kind == "word"
                and (self._word(nxt) is None and not self._is_per(nxt))
            ):
                self.i += 2  # `21.7 ms per token`, `3 heads per group`: the rate is what was asked
            else:
                return q

    def _power(self) -> Quantity:
        base = self._primary()
        if self._is_op(self._peek(), "^", "**"):
            self.i += 1
            exponent = self._exponent()
            return _raise(base, exponent)
        return base

    def _exponent(self) -> Quantity:
        tok = self._peek()
        self._enter()
        if self._is_op(tok, "-", "+"):
            self.i += 1
            inner = self._exponent()
            q = replace(inner, value=-inner.value) if tok is not None and tok.text == "-" else inner
        else:
            q = self._power()
        self.depth -= 1
        return q

    def _primary(self) -> Quantity:
        tok = self._peek()
        if tok is None:
            raise self._unexpected(tok, "a number")
        if tok.kind == "num":
            self.i += 1
            return Quantity(_bounded(tok.value))
        if self._is_op(tok, "("):
            self.i += 1
            q = self._sum()
            if not self._is_op(self._peek(), ")"):
                raise self._unexpected(self._peek(), "')'")
            self.i += 1
            return q
        word = self._word(tok)
        if word is not None and word.kind == "const":
            self.i += 1
            return Quantity(math.e if word.name == "e" else math.pi)
        if word is not None and word.kind == "func":
            self.i += 1
            if not self._is_op(self._peek(), "("):
                raise self._unexpected(self._peek(), f"'(' after {word.name}")
            arg = self._primary()
            return _apply(word.name, arg)
        if self._is_op(tok, "["):
            raise AnswerParseError("brackets are for shapes; this question asks for a single number")
        raise self._unexpected(tok, "a number")


def _plain_ratio(a: Quantity, b: Quantity) -> tuple[Quantity, Quantity]:
    """A ratio is a plain number with a mark: `64 / 8x` and `8x + 1` mean what they say."""
    if {a.dim, b.dim} == {None, "ratio"}:
        return replace(a, dim="ratio", unit="x"), replace(b, dim="ratio", unit="x")
    return a, b


def _add(a: Quantity, b: Quantity, *, negate: bool) -> Quantity:
    a, b = _plain_ratio(a, b)
    if a.dim != b.dim:
        raise AnswerParseError(
            f"cannot add {_dim_name(b)} to {_dim_name(a)}: give every term the same unit, "
            "or put one unit after the whole sum, as in (1 + 2) GiB"
        )
    value = a.value - b.value if negate else a.value + b.value
    return Quantity(_bounded(value), a.dim, a.unit or b.unit, a.scaled or b.scaled)


def _multiply(a: Quantity, b: Quantity) -> Quantity:
    for rate, time in ((a, b), (b, a)):
        if rate.dim is not None and is_rate(rate.dim) and time.dim == "time":  # 989 TFLOP/s x 2 s
            amount = rate.dim[: -len(RATE_SUFFIX)]
            value = _bounded(rate.value * time.value / MS_PER_SECOND)
            return Quantity(value, None if amount == "number" else amount, "", a.scaled or b.scaled)
    if a.dim == b.dim == "ratio":
        return Quantity(_bounded(a.value * b.value), "ratio", "x", a.scaled or b.scaled)
    if a.dim is not None and b.dim is not None:
        raise AnswerParseError(f"cannot multiply {_dim_name(a)} by {_dim_name(b)}")
    return Quantity(_bounded(a.value * b.value), a.dim or b.dim, a.unit or b.unit, a.scaled or b.scaled)


def _divide(a: Quantity, b: Quantity) -> Quantity:
    if b.value == 0:
        raise AnswerParseError("the answer divides by zero")
    scaled = a.scaled or b.scaled
    if b.dim == "time" and a.dim not in ("time", "ratio") and not (a.dim and is_rate(a.dim)):
        per_second = _bounded(a.value / b.value * MS_PER_SECOND)  # 2294 TFLOP / s, 300 tokens / s
        return Quantity(per_second, (a.dim or "number") + RATE_SUFFIX, "", scaled)
    if b.dim is not None and is_rate(b.dim) and a.dim == b.dim[: -len(RATE_SUFFIX)]:
        return Quantity(_bounded(a.value / b.value * MS_PER_SECOND), "time", "ms", scaled)  # FLOPs / FLOP/s
    if a.dim is None and b.dim == "ratio":
        return Quantity(_bounded(a.value / b.value), "ratio", "x", a.scaled or b.scaled)
    if b.dim is not None and a.dim != b.dim:
        raise AnswerParseError(f"cannot divide {_dim_name(a)} by {_dim_name(b)}")
    value = _bounded(a.value / b.value)
    if b.dim is not None:  # same unit on both sides: a plain ratio
        return Quantity(value, None, "", a.scaled or b.scaled)
    return Quantity(value, a.dim, a.unit, a.scaled or b.scaled)


def _raise(base: Quantity, exponent: Quantity) -> Quantity:
    """base ** exponent, refusing results too large to be an answer before computing them."""
    if base.dim is not None or exponent.dim is not None:
        raise AnswerParseError("only plain numbers can be raised to a power; put the unit after it: 2^30 B")
    b, e = base.value, exponent.value
    if isinstance(b, Fraction) and isinstance(e, Fraction) and e.denominator == 1:
        n = e.numerator
        if b == 0 and n < 0:
            raise AnswerParseError("the answer divides by zero")
        if abs(b) not in (0, 1):
            bits = max(b.numerator.bit_length(), b.denominator.bit_length())
            if (bits - 1) * abs(n) > MAX_BITS:
                raise AnswerParseError("a power in the answer is too large to be an answer")
        return Quantity(_bounded(b**n))
    fb, fe = float(b), float(e)
    if fb < 0 and not fe.is_integer():
        raise AnswerParseError("a negative number cannot be raised to a fractional power")
    if fb == 0 and fe < 0:
        raise AnswerParseError("the answer divides by zero")
    try:
        return Quantity(_bounded(math.pow(fb, fe)))
    except OverflowError:
        raise AnswerParseError("a power in the answer is too large to be an answer") from None


def _apply(func: str, arg: Quantity) -> Quantity:
    if arg.dim is not None:
        raise AnswerParseError(f"{func}() takes a plain number")
    v = arg.value
    if func == "sqrt":
        if v < 0:
            raise AnswerParseError("sqrt() of a negative number")
        if isinstance(v, Fraction):
            rn, rd = math.isqrt(v.numerator), math.isqrt(v.denominator)
            if rn * rn == v.numerator and rd * rd == v.denominator:
                return Quantity(Fraction(rn, rd))
        return Quantity(math.sqrt(v))
    if float(v) > MAX_EXP_ARG:
        raise AnswerParseError("exp() of a number that large is too large to be an answer")
    return Quantity(math.exp(v))
