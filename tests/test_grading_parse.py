"""What users type is read the way they mean it, bad input gets a message (never a traceback), and
hostile input is refused rather than computed. The values below are parser checks (unit arithmetic), not
engine answers. The parser's cost on hostile and long input is timed in benchmarks/grading.py.
"""

from __future__ import annotations

import ast
import contextlib
from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import quizapp.grading
from quizapp.grading import (
    MAX_INPUT_CHARS,
    AnswerParseError,
    accepted_forms,
    parse_choice,
    parse_number,
    parse_rating,
    parse_shape,
)

KiB, MiB, GiB, TiB = 1024, 1024**2, 1024**3, 1024**4


@dataclass(frozen=True)
class Err:
    """An answer that must be refused with a message containing `words`."""

    words: str


# (typed text, unit the question asks for, value in base units or Err)
NUMBERS: list[tuple[str, str, int | float | Err]] = [
    # plain numbers
    ("64", "", 64),
    ("1048576", "params", 1048576),
    ("1,048,576", "params", 1048576),
    ("1_048_576", "params", 1048576),
    ("1 048 576", "params", 1048576),
    ("1\u202f048\u202f576", "params", 1048576),
    ("8.59e10", "FLOPs", 85_900_000_000),
    ("8.59E+10", "FLOPs", 85_900_000_000),
    ("0.33", "", 0.33),
    (".5", "", 0.5),
    ("1e-3", "", 0.001),
    ("1/3", "", 1 / 3),
    ("87.5%", "", 0.875),
    ("-0.25", "", -0.25),
    ("−2", "", -2),
    ("2.", "", 2),
    ("1,048,576.5", "", 1048576.5),
    # scale suffixes and words
    ("1.5B", "params", 1_500_000_000),
    ("7b", "params", 7_000_000_000),
    ("124M", "params", 124_000_000),
    ("124m", "params", 124_000_000),
    ("2.4k", "", 2400),
    ("2.4K", "", 2400),
    ("1.5 billion", "params", 1_500_000_000),
    ("1.5 bn", "params", 1_500_000_000),
    ("3 million", "params", 3_000_000),
    ("12 thousand", "", 12_000),
    ("2 trillion", "FLOPs", 2 * 10**12),
    ("124M", "M params", 124_000_000),
    ("7B params", "B params", 7 * 10**9),
    ("124 M params", "params", 124_000_000),
    ("1.5 billion parameters", "B params", 1_500_000_000),
    ("85 K params", "params", 85_000),
    # a bare number is read in the unit asked for
    ("80", "GiB", 80 * GiB),
    ("85.9", "GB", 85_900_000_000),
    ("1.05", "M params", 1_050_000),
    ("7", "B params", 7 * 10**9),
    ("2.4", "GFLOPs", 2_400_000_000),
    ("8", "x", 8),
    # byte units, either spacing, any unambiguous case
    ("80GiB", "GiB", 80 * GiB),
    ("80 GiB", "GiB", 80 * GiB),
    ("80 gib", "GiB", 80 * GiB),
    ("80 GIB", "GB", 80 * GiB),
    ("85.9 GB", "GiB", 85_900_000_000),
    ("85.9 gb", "GiB", 85_900_000_000),
    ("512 MiB", "GiB", 512 * MiB),
    ("3 KB", "B", 3000),
    ("3 kB", "B", 3000),
    ("3 KiB", "B", 3 * KiB),
    ("2 TB", "GB", 2 * 10**12),
    ("1.25 TiB", "GiB", 1.25 * TiB),
    ("4096 bytes", "KiB", 4096),
    ("4096 B", "KiB", 4096),
    ("7b", "B", 7),
    ("2 gigabytes", "B", 2 * 10**9),
    ("1 gibibyte", "B", GiB),
    # FLOPs
    ("2.4 GFLOPs", "FLOPs", 2_400_000_000),
    ("2.4 gflops", "FLOPs", 2_400_000_000),
    ("1.2e9 FLOPs", "GFLOPs", 1_200_000_000),
    ("3 TFLOPs", "GFLOPs", 3 * 10**12),
    ("5 MFLOPs", "FLOPs", 5 * 10**6),
    # ratios
    ("8x", "x", 8),
    ("8X", "x", 8),
    ("8×", "x", 8),
    ("8 times", "x", 8),
    ("8x smaller", "x", 8),
    ("64/8", "x", 8),
    ("64 / 8 x", "x", 8),
    # arithmetic
    ("512/8", "", 64),
    ("2^20", "", 2**20),
    ("2**20", "", 2**20),
    ("4*512^2", "params", 4 * 512**2),
    ("4 × 512^2", "params", 4 * 512**2),
    ("4 x 512 x 512", "params", 4 * 512**2),
    ("4·512²".replace("²", "^2"), "params", 4 * 512**2),
    ("2*80*8*128*4096*8*2 B", "GiB", 2 * 80 * 8 * 128 * 4096 * 8 * 2),
    ("2*80*8*128*4096*8*2", "B", 2 * 80 * 8 * 128 * 4096 * 8 * 2),
    ("(80 GiB)/8", "GiB", 10 * GiB),
    ("80 GiB / 8", "GiB", 10 * GiB),
    ("80 GiB + 512 MiB", "GiB", 80 * GiB + 512 * MiB),
    ("(1 + 2) GiB", "GiB", 3 * GiB),
    ("2^30 B", "GiB", GiB),
    ("2 ^ 3 ^ 2", "", 2**9),
    ("-2^2", "", -4),
    ("2^-3", "", 0.125),
    ("(3 + 4) * 2", "", 14),
    ("10 - 2 - 3", "", 5),
    ("3*(768*64)", "params", 3 * 768 * 64),
    ("1.5B / 2", "params", 750_000_000),
    ("768 ÷ 12", "", 64),
    ("sqrt(64)", "", 8),
    ("1/sqrt(4)", "", 0.5),
    ("exp(0)", "", 1.0),
    ("e^0", "", 1.0),
    ("~80 GiB", "GiB", 80 * GiB),
    ("about 1.5 billion", "params", 1_500_000_000),
    ("80 GiB.", "GiB", 80 * GiB),
    # refused, with a message saying why
    ("", "", Err("empty")),
    ("   ", "GiB", Err("empty")),
    ("9**9**9**9", "", Err("too large")),
    ("2^100000", "", Err("too large")),
    ("10^300 * 10^300", "", Err("too large")),
    ("1e999999999", "", Err("too large")),
    ("1/0", "", Err("divides by zero")),
    ("0^-1", "", Err("divides by zero")),
    ("1" * (MAX_INPUT_CHARS + 1), "", Err("limited to")),
    ("(" * 60 + "1" + ")" * 60, "", Err("nests")),
    ("-" * 60 + "1", "", Err("nests")),
    ("80M", "GiB", Err("ambiguous")),
    ("4k", "B", Err("ambiguous")),
    ("1,5", "", Err("thousands")),
    ("2, 8, 128, 64", "", Err("thousands")),
    ("80 parsecs", "GiB", Err("'parsecs'")),
    ("eighty", "GiB", Err("'eighty'")),
    ("1 + 2 GiB", "GiB", Err("cannot add")),
    ("80 GiB * 2 GiB", "GiB", Err("cannot multiply")),
    ("2 / 80 GiB", "GiB", Err("cannot divide")),
    ("2^(3 GiB)", "", Err("plain numbers")),
    ("50 GiB%", "GiB", Err("percent sign")),
    ("(50 GiB)%", "GiB", Err("percentage")),
    ("80 GiB GB", "GiB", Err("two units")),
    ("(-8)^0.5", "", Err("fractional power")),
    ("sqrt(-1)", "", Err("negative")),
    ("exp(1000)", "", Err("too large")),
    ("3 +", "", Err("ends")),
    ("(3", "", Err("')'")),
    ("2 (3)", "", Err("expected")),
    ("[2, 8]", "", Err("brackets")),
    ("80 GiB @ 2", "GiB", Err("unexpected character")),
]


def _assert_value(got: int | float, want: int | float) -> None:
    if isinstance(want, int):
        assert got == want and isinstance(got, int), (got, want)
    else:
        assert got == pytest.approx(want, rel=1e-12), (got, want)


def test_the_table_has_at_least_80_inputs() -> None:
    assert len(NUMBERS) >= 80


@pytest.mark.parametrize(("text", "asked", "want"), NUMBERS, ids=[f"{t[:30]!r}-{u}" for t, u, _ in NUMBERS])
def test_numbers_are_read_as_the_user_means_them(text: str, asked: str, want: int | float | Err) -> None:
    if isinstance(want, Err):
        with pytest.raises(AnswerParseError) as err:
            parse_number(text, asked)
        assert want.words in str(err.value)
    else:
        _assert_value(parse_number(text, asked).value, want)


def test_a_bare_number_is_read_in_the_asked_unit_and_the_reading_says_so() -> None:
    p = parse_number("80", "GiB")
    assert p.bare and p.unit == "GiB" and p.number == 80
    assert "read as 80 GiB" in p.reading and "85,899,345,920 B" in p.reading
    q = parse_number("85.9 GB", "GiB")
    assert not q.bare and q.unit == "GB" and q.number == pytest.approx(85.9)
    assert q.reading == "85.9 GB = 85,900,000,000 B"


def test_b_means_bytes_only_where_bytes_are_asked() -> None:
    assert parse_number("7B", "B params").value == 7 * 10**9
    assert parse_number("7B", "B").value == 7
    assert parse_number("7B", "B").dimension == "bytes"


def test_a_unit_of_another_dimension_is_read_but_keeps_its_dimension() -> None:
    p = parse_number("80 GB", "M params")
    assert p.dimension == "bytes" and p.value == 80 * 10**9


SHAPES: list[tuple[str, tuple[int, ...] | Err]] = [
    ("(2, 8, 128, 64)", (2, 8, 128, 64)),
    ("[2, 8, 128, 64]", (2, 8, 128, 64)),
    ("(2,8,128,64)", (2, 8, 128, 64)),
    ("2, 8, 128, 64", (2, 8, 128, 64)),
    ("2 x 8 x 128 x 64", (2, 8, 128, 64)),
    ("2×8×128×64", (2, 8, 128, 64)),
    ("2 8 128 64", (2, 8, 128, 64)),
    ("torch.Size([2, 8, 128, 64])", (2, 8, 128, 64)),
    ("(64,)", (64,)),
    ("(2, 8, 1024/8)", (2, 8, 128)),
    ("(1024, 3*1024)", (1024, 3072)),
    ("()", Err("empty")),
    ("(B, h, T, d_k)", Err("dimension 1")),
    ("(2, , 3)", Err("dimension 2 of the shape is empty")),
    ("(2, 8.5)", Err("whole number")),
    ("(2, -8)", Err("whole number")),
    ("(2, 8 GiB)", Err("whole number")),
]


@pytest.mark.parametrize(("text", "want"), SHAPES)
def test_shapes_are_read_with_either_bracket(text: str, want: tuple[int, ...] | Err) -> None:
    if isinstance(want, Err):
        with pytest.raises(AnswerParseError) as err:
            parse_shape(text)
        assert want.words in str(err.value)
    else:
        assert parse_shape(text) == want


CHOICES: list[tuple[str, bool, frozenset[str] | Err]] = [
    ("b", False, frozenset("b")),
    ("B", False, frozenset("b")),
    ("2", False, frozenset("b")),
    ("(b)", False, frozenset("b")),
    ("b.", False, frozenset("b")),
    ("a, c", True, frozenset("ac")),
    ("a,c", True, frozenset("ac")),
    ("a c", True, frozenset("ac")),
    ("a and c", True, frozenset("ac")),
    ("ac", True, frozenset("ac")),
    ("1, 3", True, frozenset("ac")),
    ("c, a, c", True, frozenset("ac")),
    ("e", False, Err("no option 'e'")),
    ("5", False, Err("no option '5'")),
    ("a, c", False, Err("one answer")),
    ("", True, Err("no option was given")),
]


@pytest.mark.parametrize(("text", "multiple", "want"), CHOICES)
def test_choices_are_letters_or_numbers(text: str, multiple: bool, want: frozenset[str] | Err) -> None:
    keys = ["a", "b", "c", "d"]
    if isinstance(want, Err):
        with pytest.raises(AnswerParseError) as err:
            parse_choice(text, keys, multiple=multiple)
        assert want.words in str(err.value)
    else:
        assert parse_choice(text, keys, multiple=multiple) == want


@pytest.mark.parametrize(("text", "want"), [("again", 1), ("Hard", 2), ("good", 3), ("EASY", 4), ("3", 3)])
def test_flashcard_self_ratings_are_words_or_digits(text: str, want: int) -> None:
    assert parse_rating(text) == want


def test_the_accepted_forms_fit_the_question() -> None:
    assert "GiB" in accepted_forms("numeric", "GiB")
    assert "8x" in accepted_forms("numeric", "x")
    assert "1.5 billion" in accepted_forms("numeric", "params")
    assert "(2, 8, 128, 64)" in accepted_forms("shape")
    assert "a, c" in accepted_forms("choice", multiple=True, n_options=4)
    assert "a-d" in accepted_forms("choice", n_options=4)


def test_a_parse_error_lists_the_forms_its_question_kind_accepts() -> None:
    with pytest.raises(AnswerParseError) as number:
        parse_number("eighty", "GiB")
    assert "'eighty'" in number.value.problem and "GiB" in number.value.accepted
    with pytest.raises(AnswerParseError) as shape:
        parse_shape("(B, T)")
    assert "(2, 8, 128, 64)" in str(shape.value)
    with pytest.raises(AnswerParseError) as choice:
        parse_choice("z", ["a", "b", "c"], multiple=False)
    assert "a-c" in str(choice.value)
    with pytest.raises(AnswerParseError) as rating:
        parse_rating("meh")
    assert "again, hard, good or easy" in str(rating.value)


# ---------------------------------------------------------------------------- robustness and cost

ANSWERISH = st.text(alphabet="0123456789 .,_+-*/^()[]%eExkKMBGTiBb×~", max_size=MAX_INPUT_CHARS)
PIECES = st.lists(
    st.sampled_from(
        ["9", "**", "^", "(", ")", "1e300", "*", "/", "-", "GiB", "2", "x", ".5", "0", "%", "sqrt"]
    ),
    max_size=120,
).map("".join)


def _parse_all_ways(text: str, asked: str) -> None:
    with contextlib.suppress(AnswerParseError):
        parse_number(text, asked)
    with contextlib.suppress(AnswerParseError):
        parse_shape(text)
    with contextlib.suppress(AnswerParseError):
        parse_choice(text, ["a", "b", "c", "d"], multiple=True)


@settings(max_examples=150)
@given(text=st.text(max_size=10_000), asked=st.sampled_from(["", "GiB", "params", "x", "GFLOPs"]))
def test_arbitrary_text_is_refused_or_read(text: str, asked: str) -> None:
    _parse_all_ways(text, asked)  # any exception other than AnswerParseError fails the test


@settings(max_examples=200)
@given(text=st.one_of(ANSWERISH, PIECES), asked=st.sampled_from(["", "GiB", "B", "M params", "x"]))
def test_answer_like_text_is_refused_or_read(text: str, asked: str) -> None:
    _parse_all_ways(text, asked)


@pytest.mark.parametrize(
    "text",
    ["9**9**9**9", "9^9^9^9^9^9", "x" * 10_000, "1" * 10_000, "(" * 5000, "2^2^2^2^2^2", "10**10**10"],
)
def test_hostile_inputs_are_refused_not_computed(text: str) -> None:
    """Were these computed (a tower of powers, a 10,000-digit number), the test would hang, not fail."""
    with pytest.raises(AnswerParseError):
        parse_number(text, "")


BANNED_CALLS = frozenset({"eval", "exec", "compile", "__import__"})


def test_the_grading_code_never_evals_execs_or_compiles_python() -> None:
    """User text must never reach Python's own evaluator; `re.compile` (regular expressions) is the one
    `compile` allowed, and only as an attribute of `re`."""
    root = Path(quizapp.grading.__file__).parent
    files = sorted(root.rglob("*.py"))
    assert len(files) >= 5
    for path in files:
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for node in ast.walk(tree):
            if isinstance(node, ast.Name):
                assert node.id not in BANNED_CALLS, f"{path.name}:{node.lineno} uses {node.id}"
            if isinstance(node, ast.Attribute) and node.attr in BANNED_CALLS:
                owner = node.value.id if isinstance(node.value, ast.Name) else None
                assert node.attr == "compile" and owner == "re", (
                    f"{path.name}:{node.lineno} uses .{node.attr}"
                )
            if isinstance(node, ast.ImportFrom):
                names = {a.name for a in node.names}
                assert not names & BANNED_CALLS, f"{path.name}:{node.lineno} imports {names & BANNED_CALLS}"
