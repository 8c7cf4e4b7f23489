"""Provides mask arithmetic as it comes up in practice: padded batches, packed documents, a chunk of new
tokens decoded after a cache, and position ids under left padding.

Counts are of allowed (query, key) pairs, the entries a mask keeps: the cells whose scores survive into
the softmax. Every count is checked in the tests against a mask built from engine.attention.causal_mask.
"""

from __future__ import annotations

from engine.calculator import Arg, register
from engine.calculators.common import distinct, require_positive
from engine.derivation import Derivation, Misconception, Step


def parse_lengths(calculator: str, lengths: str) -> tuple[int, ...]:
    """ "300, 200, 524" -> (300, 200, 524), refusing anything but positive whole numbers."""
    try:
        values = tuple(int(part) for part in lengths.replace(" ", "").split(",") if part)
    except ValueError:
        raise ValueError(
            f"{calculator}: lengths={lengths!r} must be whole numbers separated by commas"
        ) from None
    if not values or any(v < 1 for v in values):
        raise ValueError(f"{calculator}: lengths={lengths!r} must be positive whole numbers")
    return values


def _triangle(n: int) -> int:
    """Causal pairs of an n-token sequence: query i sees keys 0..i, so 1 + 2 + ... + n."""
    return n * (n + 1) // 2


@register(
    "packed_mask_entries",
    summary="Allowed (query, key) pairs when documents are packed into one row with a block-diagonal "
    "causal mask: the sum of L_i (L_i + 1) / 2.",
    unit="",
    args=(Arg("lengths", "str", "the packed documents' lengths, e.g. '300, 200, 524'"),),
    misconceptions=("packed-as-one", "forgot-diagonal", "not-causal"),
)
def packed_mask_entries(lengths: str, *, worked: bool = True) -> Derivation:
    """Each document attends causally within itself and never across a boundary."""
    calc = "packed_mask_entries"
    docs = parse_lengths(calc, lengths)
    per_doc = [_triangle(n) for n in docs]
    value = sum(per_doc)
    if not worked:
        return Derivation(calc, value, "", ())
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
        Misconception(
            "packed-as-one",
            "You used one causal mask over the whole packed row",
            f"A plain causal mask over all {total:,} tokens lets a document attend to the documents packed "
            "before it; packing needs a block-diagonal mask (or per-document attention).",
            _triangle(total),
            label,
        ),
        Misconception(
            "forgot-diagonal",
            "You left out the diagonal (a token attending to itself)",
            "Query i may attend to keys 0..i inclusive: i + 1 keys, so each document gives L (L + 1) / 2.",
            sum(n * (n - 1) // 2 for n in docs),
            "Causal pairs per document",
        ),
        Misconception(
            "not-causal",
            "You counted full (bidirectional) blocks",
            "Within a document the mask is still causal: a token never sees the tokens after it.",
            sum(n * n for n in docs),
            "Causal pairs per document",
        ),
    ]
    return Derivation(calc, value, "", steps, distinct(value, wrong))


@register(
    "padded_mask_entries",
    summary="Allowed (query, key) pairs in a right-padded batch: padded keys are masked and padded "
    "queries are not counted; causal or bidirectional.",
    unit="",
    args=(
        Arg("lengths", "str", "each sequence's real length, e.g. '7, 4, 9'"),
        Arg("seq_len", "int", "the padded length T of the batch"),
        Arg(
            "causal",
            "bool",
            "decoder (causal) or encoder (bidirectional) attention",
            default=True,
            required=False,
        ),
    ),
    misconceptions=("counted-padding", "forgot-causal", "padded-queries"),
)
def padded_mask_entries(
    lengths: str, seq_len: int, causal: bool = True, *, worked: bool = True
) -> Derivation:
    """Per sequence: L (L + 1) / 2 causal pairs or L^2 bidirectional ones, among real tokens only."""
    calc = "padded_mask_entries"
    real = parse_lengths(calc, lengths)
    require_positive(calc, seq_len=seq_len)
    if max(real) > seq_len:
        raise ValueError(f"{calc}: a length in lengths={lengths!r} exceeds seq_len={seq_len}")
    per_row = [_triangle(n) if causal else n * n for n in real]
    value = sum(per_row)
    if not worked:
        return Derivation(calc, value, "", ())
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
        Misconception(
            "counted-padding",
            "You counted the padded positions as real",
            f"Every row is padded to {seq_len}, but padding keys are masked out and padding queries' outputs "
            "are thrown away: only the real tokens count.",
            whole * len(real),
            "Real pairs per sequence",
        ),
        Misconception(
            "padded-queries",
            "You kept the padded queries (their keys masked, but their rows counted)",
            "A padded query still sees the real keys if only keys are masked; its output is discarded, "
            "so its row does not count.",
            sum((_triangle(n) + (seq_len - n) * n) if causal else seq_len * n for n in real),
            "Real pairs per sequence",
        ),
    ]
    if causal:
        wrong.append(
            Misconception(
                "forgot-causal",
                "You left out the causal mask",
                "A decoder's query i sees keys 0..i only: L (L + 1) / 2 pairs per sequence, not L^2.",
                sum(n * n for n in real),
                "Real pairs per sequence",
            )
        )
    return Derivation(calc, value, "", steps, distinct(value, wrong))


@register(
    "cached_chunk_visible_keys",
    summary="Keys visible to query i of a chunk of new tokens decoded after past_len cached ones "
    "(past_len + i + 1), or the chunk's whole mask (chunk x past_len + chunk (chunk + 1) / 2).",
    unit="",
    args=(
        Arg("past_len", "int", "tokens already in the KV cache"),
        Arg("chunk_len", "int", "new tokens processed in this step"),
        Arg(
            "index", "int", "which new token (0-based); ignored for the whole mask", default=0, required=False
        ),
        Arg(
            "which",
            "str",
            "one query's visible keys, or the chunk's allowed entries",
            default="query",
            required=False,
            choices=("query", "chunk"),
        ),
    ),
    misconceptions=("forgot-offset", "forgot-diagonal", "whole-chunk", "square-mask"),
)
def cached_chunk_visible_keys(
    past_len: int, chunk_len: int, index: int = 0, which: str = "query", *, worked: bool = True
) -> Derivation:
    """New token i sits at absolute position past_len + i: the causal mask is offset by the cache."""
    calc = "cached_chunk_visible_keys"
    require_positive(calc, chunk_len=chunk_len)
    if past_len < 0:
        raise ValueError(f"{calc}: past_len={past_len} cannot be negative")
    if which not in ("query", "chunk"):
        raise ValueError(f"{calc}: which={which!r} must be query or chunk")
    if which == "query" and not 0 <= index < chunk_len:
        raise ValueError(f"{calc}: index={index} must be between 0 and chunk_len - 1 = {chunk_len - 1}")
    keys = past_len + chunk_len
    if which == "query":
        value = past_len + index + 1
        if not worked:
            return Derivation(calc, value, "", ())
        label = "Visible keys"
        steps: tuple[Step, ...] = (
            Step(
                "Absolute position of the query", "past_len + i", f"{past_len:,} + {index}", past_len + index
            ),
            Step(label, "keys 0 .. past_len + i", f"{past_len:,} + {index} + 1", value),
        )
        wrong = [
            Misconception(
                "forgot-offset",
                "You forgot the cache offset (the mask was aligned to the chunk, not to the cache's end)",
                f"The chunk's first query is token {past_len:,} of the sequence, so it sees every cached key "
                "as well as itself; a mask built for the chunk alone starts at 0.",
                index + 1,
                "Absolute position of the query",
            ),
            Misconception(
                "forgot-diagonal",
                "You left out the query's own key",
                "Query position p sees keys 0..p inclusive: p + 1 keys.",
                past_len + index,
                label,
            ),
            Misconception(
                "whole-chunk",
                "You let the query see the whole chunk",
                "Within the chunk the mask is still causal: new token i cannot see new tokens after it.",
                keys,
                label,
            ),
        ]
        return Derivation(calc, value, "", steps, distinct(value, wrong))
    value = chunk_len * past_len + _triangle(chunk_len)
    if not worked:
        return Derivation(calc, value, "", ())
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
        Misconception(
            "forgot-offset",
            "You forgot the cached keys (a mask aligned to the chunk alone)",
            "The new tokens attend to the cache too; the mask is chunk_len x (past_len + chunk_len), with "
            "the causal triangle in its last chunk_len columns.",
            _triangle(chunk_len),
            "Every new token sees the whole cache",
        ),
        Misconception(
            "square-mask",
            "You counted the full chunk_len x (past_len + chunk_len) rectangle",
            "New token i cannot see the new tokens after it: the last block is a triangle, not a square.",
            chunk_len * keys,
            "Causal triangle inside the chunk",
        ),
        Misconception(
            "forgot-diagonal",
            "You left out each new token's own key",
            "Token i of the chunk sees itself: the triangle has chunk_len (chunk_len + 1) / 2 entries.",
            chunk_len * past_len + chunk_len * (chunk_len - 1) // 2,
            "Causal triangle inside the chunk",
        ),
    ]
    return Derivation(calc, value, "", steps, distinct(value, wrong))


@register(
    "left_pad_position_id",
    summary="Position id of the token at slot j of a left-padded row: j minus the number of pads.",
    unit="",
    args=(
        Arg("seq_len", "int", "the padded row length T"),
        Arg("real_len", "int", "real tokens in the row (the rest, on the left, are pads)"),
        Arg("slot", "int", "the token's slot in the padded row (0-based)"),
    ),
    misconceptions=("pad-not-subtracted", "counted-from-1"),
)
def left_pad_position_id(seq_len: int, real_len: int, slot: int, *, worked: bool = True) -> Derivation:
    """With left padding the first real token sits at slot T - L but must get position 0."""
    calc = "left_pad_position_id"
    require_positive(calc, seq_len=seq_len, real_len=real_len)
    pads = seq_len - real_len
    if pads < 0:
        raise ValueError(f"{calc}: real_len={real_len} exceeds seq_len={seq_len}")
    if not pads <= slot < seq_len:
        raise ValueError(
            f"{calc}: slot={slot} is a pad or outside the row (real tokens are {pads}..{seq_len - 1})"
        )
    value = slot - pads
    if not worked:
        return Derivation(calc, value, "", ())
    label = "Position id"
    steps = (
        Step("Pads on the left", "T - L", f"{seq_len} - {real_len}", pads),
        Step(label, "slot - pads", f"{slot} - {pads}", value),
    )
    wrong = [
        Misconception(
            "pad-not-subtracted",
            "You used the slot as the position (the pads were counted as positions)",
            "Left padding shifts the real tokens right; position ids must start at 0 on the first real "
            "token, or RoPE and learned positions see a different sentence than in training.",
            slot,
            label,
        ),
        Misconception(
            "counted-from-1",
            "You counted positions from 1",
            "Position ids start at 0 on the first real token.",
            value + 1,
            label,
        ),
    ]
    return Derivation(calc, value, "", steps, distinct(value, wrong))
