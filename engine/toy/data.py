"""Provides the toy's data: repeated random sequences to train on, and words mapped onto its vocabulary.

A repeated random sequence is the one thing the toy can predict: the first copy is noise, the second
copy is predictable only by looking back at the first, which is the job an induction head does.
"""

from __future__ import annotations

import re
import string
import zlib
from typing import Any

import numpy as np
import numpy.typing as npt

IntArray = npt.NDArray[np.integer[Any]]


def repeated_tokens(
    rng: np.random.Generator, length: int, *, prefix: int = 0, vocab_size: int = 48
) -> IntArray:
    """`prefix` random tokens, then a random sequence of `length` tokens twice: (prefix + 2*length,)."""
    if length < 1 or prefix < 0 or vocab_size < 1:
        raise ValueError(
            f"repeated_tokens needs length={length} >= 1, prefix={prefix} >= 0 and "
            f"vocab_size={vocab_size} >= 1"
        )
    head = rng.integers(0, vocab_size, size=prefix)  # (prefix,)
    block = rng.integers(0, vocab_size, size=length)  # (length,)
    out: IntArray = np.concatenate([head, block, block]).astype(np.int64)  # (prefix + 2*length,)
    return out


def training_batch(
    rng: np.random.Generator, batch: int, seq_len: int, vocab_size: int, *, min_repeat: int = 4
) -> IntArray:
    """(batch, seq_len) rows of random tokens, each with one repeated block of random length at a random
    offset. Both vary row to row: with a fixed repeat length a layer-1 head could find the earlier copy
    by position alone, and never learn to look for the matching token."""
    max_repeat = seq_len // 2
    if not 1 <= min_repeat <= max_repeat:
        raise ValueError(f"training_batch needs 1 <= min_repeat={min_repeat} <= seq_len // 2 = {max_repeat}")
    tokens = rng.integers(0, vocab_size, size=(batch, seq_len))  # (B, T)
    length = rng.integers(min_repeat, max_repeat + 1, size=(batch, 1))  # (B, 1)
    start = (rng.random((batch, 1)) * (seq_len - 2 * length + 1)).astype(np.int64)  # (B, 1)
    pos = np.arange(seq_len)[None, :]  # (1, T)
    second = (pos >= start + length) & (pos < start + 2 * length)  # (B, T): the second copy
    source = np.where(second, pos - length, pos)  # (B, T): where each token is read from
    out: IntArray = np.take_along_axis(tokens, source, axis=1)  # (B, T)
    return out


_WORD = re.compile(r"\w+|[^\w\s]", re.UNICODE)


def encode_text(text: str, vocab_size: int = 48) -> IntArray:
    """Each word (lower-cased) or punctuation mark -> crc32(word) % vocab_size, so a word always gets
    the same id, in every run and on every machine; repeated words make repeated tokens."""
    if vocab_size < 1:
        raise ValueError(f"encode_text needs vocab_size={vocab_size} >= 1")
    words = _WORD.findall(text.lower())
    ids = [zlib.crc32(w.encode("utf-8")) % vocab_size for w in words]
    return np.array(ids, dtype=np.int64)  # (T,)


SYMBOLS = string.ascii_uppercase + string.ascii_lowercase
"""One character per token id for display: a heatmap's columns are two or three characters wide, and a
repeat reads at a glance ("K d Q z K d Q z")."""


def token_label(token: int) -> str:
    """A one-character display name for a token id below 52 ('A'..'Z', 'a'..'z'), else 't<id>'."""
    if token < 0:
        raise ValueError(f"token_label needs a token id >= 0, got {token}")
    return SYMBOLS[token] if token < len(SYMBOLS) else f"t{token}"


def token_of(label: str) -> int:
    """The token id a label names (the inverse of token_label)."""
    if len(label) == 1 and label in SYMBOLS:
        return SYMBOLS.index(label)
    if label.startswith("t") and label[1:].isdigit():
        return int(label[1:])
    raise ValueError(f"{label!r} is not a token label (one of {SYMBOLS[0]}..{SYMBOLS[-1]}, or t<id>)")
