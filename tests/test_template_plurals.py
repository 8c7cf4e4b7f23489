"""A count meets its noun in agreement in every prompt: a draw of 1 reads "1 byte per value", not "1 bytes",
and a template's "head(s)" reads "head" or "heads" by the count before it."""

from __future__ import annotations

import pytest

from quizapp.content.catalog import load_catalog
from quizapp.content.template import render


@pytest.mark.parametrize(
    ("template", "n", "shown"),
    [
        ("fp8 ({n} bytes per value)", 1, "fp8 (1 byte per value)"),
        ("fp16 ({n} bytes per value)", 2, "fp16 (2 bytes per value)"),
        ("{n} concurrent sequences of 1,024 tokens", 1, "1 concurrent sequence of 1,024 tokens"),
        ("and {n} key/value head(s) of size 128", 1, "and 1 key/value head of size 128"),
        ("and {n} key/value head(s) of size 128", 4, "and 4 key/value heads of size 128"),
        ("a batch of\n{n} sequences, each", 1, "a batch of\n1 sequence, each"),
        ("{n} entries", 1, "1 entry"),
        ("{n} batches", 1, "1 batch"),
        ("a ratio below {n} means MLA's is larger", 1, "a ratio below 1 means MLA's is larger"),
        ("{n} ms per step", 1, "1 ms per step"),
        ("row {n} of its output", 1, "row 1 of its output"),
        ("{n}.5 bytes", 1, "1.5 bytes"),
        ("{x} x {n} tokens", 4096, "1 x 4096 tokens"),  # a batch of 1: the tokens are 4096's
    ],
)
def test_a_count_agrees_with_its_noun(template: str, n: int, shown: str) -> None:
    assert render(template, {"n": n, "x": 1}) == shown


def test_a_fixed_text_is_left_as_its_author_wrote_it() -> None:
    assert render("1 heads (s)", {}) == "1 heads (s)"


def test_the_kv_cache_anchor_in_fp8_says_one_byte_per_value() -> None:
    """The prompt a new user met: "with the cache in fp8 (1 bytes per value)"."""
    prompt = " ".join(load_catalog(use_cache=False).instance("kv-cache-anchor-gqa", 7).prompt.split())
    assert "(1 byte per value)" in prompt and "1 bytes" not in prompt


def test_a_drawn_number_that_starts_a_line_never_makes_a_markdown_list() -> None:
    """A batch of 1 after the template's line break read "1. What is..." at a line's start: Markdown drew
    it as a numbered list item. The break before such a value becomes a space; the author's own lists stay."""
    from rich.console import Console
    from rich.markdown import Markdown

    assert render("for a batch of\n{n}. What is it?", {"n": 1}) == "for a batch of 1. What is it?"
    assert render("for a batch of\n{n}. What is it?", {"n": 3}) == "for a batch of 3. What is it?"
    assert render("Steps:\n1. take {n} heads\n2. stop", {"n": 2}) == "Steps:\n1. take 2 heads\n2. stop"
    prompt = load_catalog(use_cache=False).instance("cross-attention-output-shape", 23).prompt
    console = Console(width=80, record=True)
    console.print(Markdown(prompt))
    shown = " ".join(console.export_text().split())
    assert "for a batch of 1. What is the shape" in shown
