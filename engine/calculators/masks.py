"""Provides mask arithmetic as it comes up in practice: padded batches, packed documents, a chunk of new
tokens decoded after a cache, and position ids under left padding.

Counts are of allowed (query, key) pairs, the entries a mask keeps: the cells whose scores survive into
the softmax. Every count is checked in the tests against a mask built from engine.attention.causal_mask.
"""

from __future__ import annotations

from typing import Annotated, Literal

from engine.calculator import Param, register, result
from engine.derivation import Derivation, Mistake, Step


def parse_lengths(lengths: str) -> tuple[int, ...]:
    """ "300, 200, 524" -> (300, 200, 524), refusing anything but positive whole numbers."""
    try:
        values = tuple(int(part) for part in lengths.replace(" ", "").split(",") if part)
    except ValueError:
        raise ValueError(f"lengths={lengths!r} must be whole numbers separated by commas") from None
    if not values or any(v < 1 for v in values):
        raise ValueError(f"lengths={lengths!r} must be positive whole numbers")
    return values


def _triangle(n: int) -> int:
    """Causal pairs of an n-token sequence: query i sees keys 0..i, so 1 + 2 + ... + n."""
    return n * (n + 1) // 2


PACKED_AS_ONE = Mistake("packed-as-one", "You used one causal mask over the whole packed row")
FORGOT_DIAGONAL = Mistake(
    "forgot-diagonal",
    "You left out the diagonal (a token attending to itself)",
    "Query i may attend to keys 0..i inclusive: i + 1 keys, so each document gives L (L + 1) / 2.",
)
NOT_CAUSAL = Mistake(
    "not-causal",
    "You counted full (bidirectional) blocks",
    "Within a document the mask is still causal: a token never sees the tokens after it.",
)


@register(
    summary="Allowed (query, key) pairs when documents are packed into one row with a block-diagonal "
    "causal mask: the sum of L_i (L_i + 1) / 2.",
    unit="",
    misconceptions=(PACKED_AS_ONE, FORGOT_DIAGONAL, NOT_CAUSAL),
)
def packed_mask_entries(
    lengths: Annotated[str, Param("the packed documents' lengths, e.g. '300, 200, 524'")],
    *,
    worked: bool = True,
) -> Derivation:
    """Each document attends causally within itself and never across a boundary."""
    docs = parse_lengths(lengths)
    per_doc = [_triangle(n) for n in docs]
    value = sum(per_doc)
    if not worked:
        return result(value)
    total = sum(docs)
    label = "Block-diagonal causal mask"
    steps = (
        Step(
            "Causal pairs per document",
            "L_i (L_i + 1) / 2",
            "; ".join(f"{n} x {n + 1} / 2 = {p:,}" for n, p in zip(docs, per_doc, strict=True)),
            per_doc[-1],
            picks=f"the last document's {per_doc[-1]:,}",
        ),
        Step(label, "sum over documents", " + ".join(f"{p:,}" for p in per_doc), value),
    )
    wrong = [
        PACKED_AS_ONE.gives(
            _triangle(total),
            label,
            explanation=f"A plain causal mask over all {total:,} tokens lets a document attend to the "
            "documents packed before it; packing needs a block-diagonal mask (or per-document attention).",
        ),
        FORGOT_DIAGONAL.gives(sum(n * (n - 1) // 2 for n in docs), "Causal pairs per document"),
        NOT_CAUSAL.gives(sum(n * n for n in docs), "Causal pairs per document"),
    ]
    return result(value, steps, wrong)


COUNTED_PADDING = Mistake("counted-padding", "You counted the padded positions as real")
PADDED_QUERIES = Mistake(
    "padded-queries",
    "You kept the padded queries (their keys masked, but their rows counted)",
    "A padded query still sees the real keys if only keys are masked; its output is discarded, "
    "so its row does not count.",
)
FORGOT_CAUSAL = Mistake(
    "forgot-causal",
    "You left out the causal mask",
    "A decoder's query i sees keys 0..i only: L (L + 1) / 2 pairs per sequence, not L^2.",
)


@register(
    summary="Allowed (query, key) pairs in a right-padded batch: padded keys are masked and padded "
    "queries are not counted; causal or bidirectional.",
    unit="",
    misconceptions=(COUNTED_PADDING, FORGOT_CAUSAL, PADDED_QUERIES),
)
def padded_mask_entries(
    lengths: Annotated[str, Param("each sequence's real length, e.g. '7, 4, 9'")],
    seq_len: Annotated[int, Param("the padded length T of the batch", gt=0)],
    causal: Annotated[bool, Param("decoder (causal) or encoder (bidirectional) attention")] = True,
    *,
    worked: bool = True,
) -> Derivation:
    """Per sequence: L (L + 1) / 2 causal pairs or L^2 bidirectional ones, among real tokens only."""
    real = parse_lengths(lengths)
    if max(real) > seq_len:
        raise ValueError(f"a length in lengths={lengths!r} exceeds seq_len={seq_len}")
    per_row = [_triangle(n) if causal else n * n for n in real]
    value = sum(per_row)
    if not worked:
        return result(value)
    formula = "L (L + 1) / 2" if causal else "L x L"
    label = "Whole batch"
    steps = (
        Step(
            "Real pairs per sequence",
            formula + " (padded keys masked, padded queries ignored)",
            "; ".join(f"{n} -> {p:,}" for n, p in zip(real, per_row, strict=True)),
            per_row[-1],
            picks=f"the last sequence's {per_row[-1]:,}",
        ),
        Step(label, "sum over the batch", " + ".join(f"{p:,}" for p in per_row), value),
    )
    whole = _triangle(seq_len) if causal else seq_len * seq_len
    wrong = [
        COUNTED_PADDING.gives(
            whole * len(real),
            "Real pairs per sequence",
            explanation=f"Every row is padded to {seq_len}, but padding keys are masked out and padding "
            "queries' outputs are thrown away: only the real tokens count.",
        ),
        PADDED_QUERIES.gives(
            sum((_triangle(n) + (seq_len - n) * n) if causal else seq_len * n for n in real),
            "Real pairs per sequence",
        ),
    ]
    if causal:
        wrong.append(FORGOT_CAUSAL.gives(sum(n * n for n in real), "Real pairs per sequence"))
    return result(value, steps, wrong)


FORGOT_OFFSET = Mistake(
    "forgot-offset",
    "You forgot the cached keys (a mask aligned to the chunk alone)",
    "The new tokens attend to the cache too; the mask is chunk_len x (past_len + chunk_len), with "
    "the causal triangle in its last chunk_len columns.",
)
SQUARE_MASK = Mistake(
    "square-mask",
    "You counted the full chunk_len x (past_len + chunk_len) rectangle",
    "New token i cannot see the new tokens after it: the last block is a triangle, not a square.",
)
WHOLE_CHUNK = Mistake(
    "whole-chunk",
    "You let the query see the whole chunk",
    "Within the chunk the mask is still causal: new token i cannot see new tokens after it.",
)


@register(
    summary="Keys visible to query i of a chunk of new tokens decoded after past_len cached ones "
    "(past_len + i + 1), or the chunk's whole mask (chunk x past_len + chunk (chunk + 1) / 2).",
    unit="",
    misconceptions=(FORGOT_OFFSET, FORGOT_DIAGONAL, WHOLE_CHUNK, SQUARE_MASK),
)
def cached_chunk_visible_keys(
    past_len: Annotated[int, Param("tokens already in the KV cache", ge=0)],
    chunk_len: Annotated[int, Param("new tokens processed in this step", gt=0)],
    index: Annotated[int, Param("which new token (0-based); ignored for the whole mask")] = 0,
    which: Annotated[
        Literal["query", "chunk"], Param("one query's visible keys, or the chunk's allowed entries")
    ] = "query",
    *,
    worked: bool = True,
) -> Derivation:
    """New token i sits at absolute position past_len + i: the causal mask is offset by the cache."""
    if which == "query" and not 0 <= index < chunk_len:
        raise ValueError(f"index={index} must be between 0 and chunk_len - 1 = {chunk_len - 1}")
    keys = past_len + chunk_len
    if which == "query":
        value = past_len + index + 1
        if not worked:
            return result(value)
        label = "Visible keys"
        steps: tuple[Step, ...] = (
            Step(
                "Absolute position of the query", "past_len + i", f"{past_len:,} + {index}", past_len + index
            ),
            Step(label, "keys 0 .. past_len + i", f"{past_len:,} + {index} + 1", value),
        )
        wrong = [
            FORGOT_OFFSET.gives(
                index + 1,
                "Absolute position of the query",
                label=(
                    "You forgot the cache offset (the mask was aligned to the chunk, not to the cache's end)"
                ),
                explanation=f"The chunk's first query is token {past_len:,} of the sequence, so it sees "
                "every cached key as well as itself; a mask built for the chunk alone starts at 0.",
            ),
            FORGOT_DIAGONAL.gives(
                past_len + index,
                label,
                label="You left out the query's own key",
                explanation="Query position p sees keys 0..p inclusive: p + 1 keys.",
            ),
            WHOLE_CHUNK.gives(keys, label),
        ]
        return result(value, steps, wrong)
    value = chunk_len * past_len + _triangle(chunk_len)
    if not worked:
        return result(value)
    label = "Allowed entries of the chunk's mask"
    steps = (
        Step(
            "Every new token sees the whole cache",
            "chunk_len x past_len",
            f"{chunk_len} x {past_len:,}",
            chunk_len * past_len,
        ),
        Step(
            "Causal triangle inside the chunk",
            "chunk_len (chunk_len + 1) / 2",
            f"{chunk_len} x {chunk_len + 1} / 2",
            _triangle(chunk_len),
        ),
        Step(label, "sum", f"{chunk_len * past_len:,} + {_triangle(chunk_len):,}", value),
    )
    wrong = [
        FORGOT_OFFSET.gives(_triangle(chunk_len), "Every new token sees the whole cache"),
        SQUARE_MASK.gives(chunk_len * keys, "Causal triangle inside the chunk"),
        FORGOT_DIAGONAL.gives(
            chunk_len * past_len + chunk_len * (chunk_len - 1) // 2,
            "Causal triangle inside the chunk",
            label="You left out each new token's own key",
            explanation=(
                "Token i of the chunk sees itself: the triangle has chunk_len (chunk_len + 1) / 2 entries."
            ),
        ),
    ]
    return result(value, steps, wrong)


PAD_NOT_SUBTRACTED = Mistake(
    "pad-not-subtracted",
    "You used the slot as the position (the pads were counted as positions)",
    "Left padding shifts the real tokens right; position ids must start at 0 on the first real "
    "token, or RoPE and learned positions see a different sentence than in training.",
)
COUNTED_FROM_1 = Mistake(
    "counted-from-1", "You counted positions from 1", "Position ids start at 0 on the first real token."
)


@register(
    summary="Position id of the token at slot j of a left-padded row: j minus the number of pads.",
    unit="",
    misconceptions=(PAD_NOT_SUBTRACTED, COUNTED_FROM_1),
)
def left_pad_position_id(
    seq_len: Annotated[int, Param("the padded row length T", gt=0)],
    real_len: Annotated[int, Param("real tokens in the row (the rest, on the left, are pads)", gt=0)],
    slot: Annotated[int, Param("the token's slot in the padded row (0-based)")],
    *,
    worked: bool = True,
) -> Derivation:
    """With left padding the first real token sits at slot T - L but must get position 0."""
    pads = seq_len - real_len
    if pads < 0:
        raise ValueError(f"real_len={real_len} exceeds seq_len={seq_len}")
    if not pads <= slot < seq_len:
        raise ValueError(f"slot={slot} is a pad or outside the row (real tokens are {pads}..{seq_len - 1})")
    value = slot - pads
    if not worked:
        return result(value)
    label = "Position id"
    steps = (
        Step("Pads on the left", "T - L", f"{seq_len} - {real_len}", pads),
        Step(label, "slot - pads", f"{slot} - {pads}", value),
    )
    wrong = [
        PAD_NOT_SUBTRACTED.gives(slot, label),
        COUNTED_FROM_1.gives(value + 1, label),
    ]
    return result(value, steps, wrong)
