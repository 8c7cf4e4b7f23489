"""Provides long-context calculators: sliding-window reach, rolling and sink caches, sparse and linear costs.

Conventions. A sliding window of W lets the query at position i see keys i - W .. i (Mistral 7B's
definition, arXiv:2310.06825 section 2), so each layer moves information W positions forward and L layers
move it L x W. A rolling cache keeps the last W positions; StreamingLLM (Xiao et al. 2023,
arXiv:2309.17453) also keeps the first few "sink" tokens. A local + strided pattern (Child et al. 2019,
arXiv:1904.10509) scores each query against w nearby keys plus T / stride strided ones. Matmul FLOPs count
a multiply-add as 2, as in engine.calculators.cost.
"""

from __future__ import annotations

from typing import Annotated

from engine.calculator import Param, register, result
from engine.calculators.common import (
    Batch,
    CachedLen,
    DHead,
    NKvHeads,
    NLayers,
    ratio,
    require_divisible,
    require_positive,
)
from engine.derivation import Derivation, Misconception, Mistake, Step

SinkTokens = Annotated[int, Param("initial tokens kept for good (StreamingLLM; 0 for none)")]
Stride = Annotated[int, Param("spacing of the strided keys (each query also sees T / stride of them)")]
Tokens = Annotated[int, Param("tokens processed so far in one sequence")]
Window = Annotated[int, Param("local keys per query w")]
SlidingWindow = Annotated[int, Param("sliding-window length W in tokens")]


WINDOW_ONLY = Mistake(
    "window-only",
    "You gave the window of a single layer",
    "Layer 2 attends to hidden states that already summarise W tokens each, so the reach grows by W "
    "per layer.",
)
ADDED_NOT_MULTIPLIED = Mistake(
    "added-not-multiplied",
    "You added the layers to the window",
    "Every layer extends the reach by a whole window: L x W, not W + L.",
)
ONE_LAYER_SHORT = Mistake(
    "one-layer-short",
    "You counted one layer too few",
    "The first layer already reaches W back; each of the other L - 1 adds W more: L x W in all.",
)


@register(
    summary="How far back information can travel through L layers of window-W attention: L x W tokens.",
    unit="",
    misconceptions=(WINDOW_ONLY, ADDED_NOT_MULTIPLIED, ONE_LAYER_SHORT),
)
def sliding_window_reach(
    n_layers: Annotated[int, Param("number of stacked attention layers L", gt=0)],
    window: Annotated[int, Param("sliding-window length W in tokens", gt=0)],
    *,
    worked: bool = True,
) -> Derivation:
    """Each layer hands on what it saw, so the reach grows by one window per layer."""
    value = n_layers * window
    if not worked:
        return result(value)
    one, label = "One layer", "Through the stack"
    steps = (
        Step(one, "a query at i sees keys i - W .. i", f"W = {window:,}", window, "tokens"),
        Step(label, "reach = L x W", f"{n_layers} x {window:,}", value, "tokens"),
    )
    wrong = [
        WINDOW_ONLY.gives(window, label),
        ADDED_NOT_MULTIPLIED.gives(window + n_layers, label),
        ONE_LAYER_SHORT.gives((n_layers - 1) * window, label),
    ]
    return result(value, steps, wrong)


def _check_cache(window: int, tokens: int, sink_tokens: int) -> None:
    require_positive(window=window, tokens=tokens)
    if sink_tokens < 0:
        raise ValueError(f"sink_tokens={sink_tokens} must be 0 or more")


_HELD = "Positions held"


def _held_step(window: int, tokens: int, sink_tokens: int) -> Step:
    cap = sink_tokens + window
    if sink_tokens:
        return Step(
            _HELD,
            "min(tokens, sinks + W)",
            f"min({tokens:,}, {sink_tokens} + {window:,})",
            min(tokens, cap),
            "tokens",
        )
    return Step(_HELD, "min(tokens, W)", f"min({tokens:,}, {window:,})", min(tokens, cap), "tokens")


CACHED_EVERY_TOKEN = Mistake(
    "cached-every-token",
    "You cached every token",
    "A rolling cache overwrites slot (i mod W): keys older than the window are never read again, so "
    "they are dropped.",
)
CACHE_ALWAYS_FULL = Mistake(
    "cache-always-full",
    "You assumed the cache is already full",
    "Until the sequence is longer than the cache, the cache holds just the tokens seen so far.",
)
FORGOT_SINK_TOKENS = Mistake(
    "forgot-sink-tokens",
    "You left out the sink tokens",
    "StreamingLLM keeps the first few tokens for good, beside the recent window: they soak up "
    "attention that has nowhere else to go.",
)


def _held_wrong(window: int, tokens: int, sink_tokens: int, per: int) -> list[Misconception]:
    """The cache-length slips, times `per` (bytes per position, or 1 for a token count)."""
    out = [
        CACHED_EVERY_TOKEN.gives(tokens * per, _HELD),
        CACHE_ALWAYS_FULL.gives((sink_tokens + window) * per, _HELD),
    ]
    if sink_tokens:
        out.append(FORGOT_SINK_TOKENS.gives(min(tokens, window) * per, _HELD))
    return out


@register(
    summary="Positions a rolling KV cache holds: min(tokens, sinks + W).",
    unit="",
    misconceptions=(CACHED_EVERY_TOKEN, CACHE_ALWAYS_FULL, FORGOT_SINK_TOKENS),
)
def rolling_cache_tokens(
    window: SlidingWindow,
    tokens: Tokens,
    sink_tokens: SinkTokens = 0,
    *,
    worked: bool = True,
) -> Derivation:
    """A sliding window never reads further back than W, so nothing older needs keeping (sinks aside)."""
    _check_cache(window, tokens, sink_tokens)
    value = min(tokens, sink_tokens + window)
    if not worked:
        return result(value)
    steps = (_held_step(window, tokens, sink_tokens),)
    return result(value, steps, _held_wrong(window, tokens, sink_tokens, 1))


NO_X2_KV = Mistake(
    "no-x2-kv", "You left out the x2 for K and V", "Both keys and values are cached for every held position."
)
FORGOT_LAYERS = Mistake(
    "forgot-layers", "You left out the layers", "Every layer keeps its own rolling cache."
)


@register(
    summary="Bytes of a rolling (sliding-window or StreamingLLM) KV cache: 2 L n_kv d_head bytes x held x B.",
    unit="B",
    misconceptions=(
        CACHED_EVERY_TOKEN,
        CACHE_ALWAYS_FULL,
        FORGOT_SINK_TOKENS,
        NO_X2_KV,
        FORGOT_LAYERS,
    ),
)
def rolling_cache_bytes(
    n_layers: NLayers,
    n_kv_heads: NKvHeads,
    d_head: DHead,
    bytes_per_element: Annotated[int, Param("bytes per number (fp16/bf16: 2)", gt=0)],
    window: SlidingWindow,
    tokens: Tokens,
    sink_tokens: SinkTokens = 0,
    batch: Batch = 1,
    *,
    worked: bool = True,
) -> Derivation:
    """Per position the usual 2 x layers x KV heads x d_head x bytes; the positions stop at sinks + W."""
    _check_cache(window, tokens, sink_tokens)
    held = min(tokens, sink_tokens + window)
    per = 2 * n_layers * n_kv_heads * d_head * bytes_per_element * batch
    value = held * per
    if not worked:
        return result(value)
    per_label, total = "K and V per position, all layers, whole batch", "Cache size"
    steps = (
        _held_step(window, tokens, sink_tokens),
        Step(
            per_label,
            "2 x L x n_kv x d_head x bytes x batch",
            f"2 x {n_layers} x {n_kv_heads} x {d_head} x {bytes_per_element} x {batch}",
            per,
            "B",
        ),
        Step(total, "positions held x bytes per position", f"{held:,} x {per:,}", value, "B"),
    )
    wrong = [
        *_held_wrong(window, tokens, sink_tokens, per),
        NO_X2_KV.gives(value // 2, per_label),
        FORGOT_LAYERS.gives(value // n_layers, per_label),
    ]
    return result(value, steps, wrong)


def _sparse_per_query(seq_len: int, window: int, stride: int) -> int:
    """Keys each query scores under local + strided attention: the w neighbours and every stride-th key."""
    require_positive(seq_len=seq_len, window=window, stride=stride)
    require_divisible("seq_len", seq_len, "stride", stride)
    if window > seq_len:
        raise ValueError(f"window={window} is longer than seq_len={seq_len}")
    return window + seq_len // stride


def _per_query_step(seq_len: int, window: int, stride: int) -> Step:
    return Step(
        "Keys per query",
        "w + T / stride",
        f"{window:,} + {seq_len:,} / {stride:,}",
        window + seq_len // stride,
        "keys",
    )


DENSE = Mistake("dense", "You counted dense attention, T^2", "Only the pattern's pairs are scored.")
FORGOT_STRIDED = Mistake(
    "forgot-strided",
    "You counted the local window only",
    "Each query also sees T / stride strided keys, which carry information across the sequence.",
)
FORGOT_LOCAL = Mistake(
    "forgot-local", "You counted the strided keys only", "Each query also sees its w local neighbours."
)


@register(
    summary="Query-key scores of a local + strided sparse pattern: T x (w + T / stride), against T^2 dense.",
    unit="",
    misconceptions=(DENSE, FORGOT_STRIDED, FORGOT_LOCAL),
)
def sparse_attention_pairs(
    seq_len: CachedLen,
    window: Window,
    stride: Stride,
    *,
    worked: bool = True,
) -> Derivation:
    """Each query scores w neighbours plus every stride-th key: linear in T times a slowly growing term."""
    per_query = _sparse_per_query(seq_len, window, stride)
    value = seq_len * per_query
    if not worked:
        return result(value)
    label = "Scores computed"
    steps = (
        _per_query_step(seq_len, window, stride),
        Step(label, "T x (w + T / stride)", f"{seq_len:,} x {per_query:,}", value, "scores"),
    )
    wrong = [
        DENSE.gives(seq_len**2, label),
        FORGOT_STRIDED.gives(seq_len * window, "Keys per query"),
        FORGOT_LOCAL.gives(seq_len * (seq_len // stride), "Keys per query"),
    ]
    return result(value, steps, wrong)


INVERTED = Mistake("inverted", "You inverted the ratio", "Savings = dense / sparse, a number above 1.")


@register(
    summary="How many times fewer scores a local + strided pattern computes: T / (w + T / stride).",
    unit="x",
    misconceptions=(INVERTED, FORGOT_STRIDED, FORGOT_LOCAL),
)
def sparse_attention_savings(
    seq_len: CachedLen,
    window: Window,
    stride: Stride,
    *,
    worked: bool = True,
) -> Derivation:
    """T^2 / (T (w + T / stride)): the T of the queries cancels."""
    per_query = _sparse_per_query(seq_len, window, stride)
    value = ratio(seq_len, per_query)
    if not worked:
        return result(value)
    label = "Savings"
    steps = (
        _per_query_step(seq_len, window, stride),
        Step(
            label,
            "T^2 / (T x keys per query) = T / keys per query",
            f"{seq_len:,} / {per_query:,}",
            value,
            "x",
        ),
    )
    wrong = [
        INVERTED.gives(per_query / seq_len, label),
        FORGOT_STRIDED.gives(
            ratio(seq_len, window),
            "Keys per query",
            label="You left out the strided keys",
            explanation="Each query sees w local keys plus T / stride strided ones.",
        ),
        FORGOT_LOCAL.gives(
            stride,
            "Keys per query",
            label="You left out the local window",
            explanation="Each query sees w local keys plus T / stride strided ones.",
        ),
    ]
    return result(value, steps, wrong)
