"""Mask arithmetic against masks actually built with the engine's causal mask: packed documents, padded
batches, a chunk decoded after a cache, and left-padded position ids."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine import calculate
from engine.attention import causal_mask

LENGTHS = st.lists(st.integers(1, 40), min_size=1, max_size=5)


def _text(lengths: list[int]) -> str:
    return ", ".join(str(n) for n in lengths)


@given(LENGTHS)
def test_packed_documents_count_the_entries_of_a_block_diagonal_causal_mask(lengths: list[int]) -> None:
    total = sum(lengths)
    doc = np.repeat(np.arange(len(lengths)), lengths)  # (T,) which document each token belongs to
    mask = causal_mask(total) & (doc[:, None] == doc[None, :])  # (T, T) causal and within a document
    d = calculate("packed_mask_entries", lengths=_text(lengths))
    assert d.value == int(mask.sum())
    if len(lengths) > 1:  # one causal mask over the packed row lets documents see earlier ones
        assert d.misconception("packed-as-one").value == int(causal_mask(total).sum())


@given(LENGTHS, st.integers(0, 10), st.booleans())
def test_a_padded_batch_counts_only_real_queries_and_keys(
    lengths: list[int], extra: int, causal: bool
) -> None:
    seq_len = max(lengths) + extra
    count = 0
    for n in lengths:
        real = np.arange(seq_len) < n  # (T,) real tokens of this row
        allowed = real[:, None] & real[None, :]  # (T, T) real query and real key
        if causal:
            allowed &= causal_mask(seq_len)
        count += int(allowed.sum())
    d = calculate("padded_mask_entries", lengths=_text(lengths), seq_len=seq_len, causal=causal)
    assert d.value == count


@given(st.integers(0, 300), st.integers(1, 20), st.data())
def test_a_chunk_after_a_cache_sees_the_cache_and_a_causal_triangle(
    past: int, chunk: int, data: st.DataObject
) -> None:
    full = causal_mask(past + chunk)[past:, :]  # (chunk, past + chunk): the new tokens' rows
    i = data.draw(st.integers(0, chunk - 1))
    assert calculate("cached_chunk_visible_keys", past_len=past, chunk_len=chunk, index=i).value == int(
        full[i].sum()
    )
    assert calculate("cached_chunk_visible_keys", past_len=past, chunk_len=chunk, which="chunk").value == int(
        full.sum()
    )


def test_left_padding_shifts_the_slots_but_not_the_position_ids() -> None:
    seq_len, real = 8, 5
    slots = np.arange(seq_len)  # (T,)
    pad = slots < seq_len - real  # (T,) pads on the left
    position_ids = np.cumsum(~pad) - 1  # (T,) what HF computes from the attention mask
    for slot in range(seq_len - real, seq_len):
        d = calculate("left_pad_position_id", seq_len=seq_len, real_len=real, slot=slot)
        assert d.value == position_ids[slot]
        assert d.misconception("pad-not-subtracted").value == slot


@pytest.mark.parametrize(
    ("name", "args", "words"),
    [
        ("packed_mask_entries", {"lengths": "3, x"}, ["lengths='3, x'"]),
        ("padded_mask_entries", {"lengths": "9, 4", "seq_len": 8}, ["exceeds seq_len=8"]),
        ("cached_chunk_visible_keys", {"past_len": 4, "chunk_len": 2, "index": 2}, ["index=2"]),
        ("left_pad_position_id", {"seq_len": 8, "real_len": 5, "slot": 1}, ["slot=1", "pad"]),
    ],
)
def test_bad_arguments_are_refused_by_name(name: str, args: dict[str, object], words: list[str]) -> None:
    with pytest.raises(ValueError) as err:
        calculate(name, **args)
    assert all(w in str(err.value) for w in words)
