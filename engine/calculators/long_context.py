"""Provides long-context calculators: sliding-window reach, rolling and sink caches, sparse and linear costs.

Conventions. A sliding window of W lets the query at position i see keys i - W .. i (Mistral 7B's
definition, arXiv:2310.06825 section 2), so each layer moves information W positions forward and L layers
move it L x W. A rolling cache keeps the last W positions; StreamingLLM (Xiao et al. 2023,
arXiv:2309.17453) also keeps the first few "sink" tokens. A local + strided pattern (Child et al. 2019,
arXiv:1904.10509) scores each query against w nearby keys plus T / stride strided ones. Matmul FLOPs count
a multiply-add as 2, as in engine.calculators.cost.
"""

from __future__ import annotations

from engine.calculator import Arg, register
from engine.calculators.common import N_LAYERS, distinct, ratio, require_divisible, require_positive
from engine.derivation import Derivation, Misconception, Step

_W = Arg("window", "int", "sliding-window length W in tokens")
_T = Arg("seq_len", "int", "sequence length T")


@register(
    "sliding_window_reach",
    summary="How far back information can travel through L layers of window-W attention: L x W tokens.",
    unit="",
    args=(Arg("n_layers", "int", "number of stacked attention layers L"), _W),
    misconceptions=("window-only", "added-not-multiplied", "one-layer-short"),
)
def sliding_window_reach(n_layers: int, window: int, *, worked: bool = True) -> Derivation:
    """Each layer hands on what it saw, so the reach grows by one window per layer."""
    calc = "sliding_window_reach"
    require_positive(calc, n_layers=n_layers, window=window)
    value = n_layers * window
    if not worked:
        return Derivation(calc, value, "", ())
    one, label = "One layer", "Through the stack"
    steps = (
        Step(one, "a query at i sees keys i - W .. i", f"W = {window:,}", window, "tokens"),
        Step(label, "reach = L x W", f"{n_layers} x {window:,}", value, "tokens"),
    )
    wrong = [
        Misconception(
            "window-only",
            "You gave the window of a single layer",
            "Layer 2 attends to hidden states that already summarise W tokens each, so the reach grows by W "
            "per layer.",
            window,
            label,
        ),
        Misconception(
            "added-not-multiplied",
            "You added the layers to the window",
            "Every layer extends the reach by a whole window: L x W, not W + L.",
            window + n_layers,
            label,
        ),
        Misconception(
            "one-layer-short",
            "You counted one layer too few",
            "The first layer already reaches W back; each of the other L - 1 adds W more: L x W in all.",
            (n_layers - 1) * window,
            label,
        ),
    ]
    return Derivation(calc, value, "", steps, distinct(value, wrong))


def _check_cache(calc: str, window: int, tokens: int, sink_tokens: int) -> None:
    require_positive(calc, window=window, tokens=tokens)
    if sink_tokens < 0:
        raise ValueError(f"{calc}: sink_tokens={sink_tokens} must be 0 or more")


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


def _held_wrong(window: int, tokens: int, sink_tokens: int, per: int) -> list[Misconception]:
    """The cache-length slips, times `per` (bytes per position, or 1 for a token count)."""
    out = [
        Misconception(
            "cached-every-token",
            "You cached every token",
            "A rolling cache overwrites slot (i mod W): keys older than the window are never read again, so "
            "they are dropped.",
            tokens * per,
            _HELD,
        ),
        Misconception(
            "cache-always-full",
            "You assumed the cache is already full",
            "Until the sequence is longer than the cache, the cache holds just the tokens seen so far.",
            (sink_tokens + window) * per,
            _HELD,
        ),
    ]
    if sink_tokens:
        out.append(
            Misconception(
                "forgot-sink-tokens",
                "You left out the sink tokens",
                "StreamingLLM keeps the first few tokens for good, beside the recent window: they soak up "
                "attention that has nowhere else to go.",
                min(tokens, window) * per,
                _HELD,
            )
        )
    return out


_CACHE_ARGS = (
    _W,
    Arg("tokens", "int", "tokens processed so far in one sequence"),
    Arg(
        "sink_tokens",
        "int",
        "initial tokens kept for good (StreamingLLM; 0 for none)",
        default=0,
        required=False,
    ),
)


@register(
    "rolling_cache_tokens",
    summary="Positions a rolling KV cache holds: min(tokens, sinks + W).",
    unit="",
    args=_CACHE_ARGS,
    misconceptions=("cached-every-token", "cache-always-full", "forgot-sink-tokens"),
)
def rolling_cache_tokens(
    window: int, tokens: int, sink_tokens: int = 0, *, worked: bool = True
) -> Derivation:
    """A sliding window never reads further back than W, so nothing older needs keeping (sinks aside)."""
    calc = "rolling_cache_tokens"
    _check_cache(calc, window, tokens, sink_tokens)
    value = min(tokens, sink_tokens + window)
    if not worked:
        return Derivation(calc, value, "", ())
    steps = (_held_step(window, tokens, sink_tokens),)
    return Derivation(calc, value, "", steps, distinct(value, _held_wrong(window, tokens, sink_tokens, 1)))


@register(
    "rolling_cache_bytes",
    summary="Bytes of a rolling (sliding-window or StreamingLLM) KV cache: 2 L n_kv d_head bytes x held x B.",
    unit="B",
    args=(
        N_LAYERS,
        Arg("n_kv_heads", "int", "number of key/value heads"),
        Arg("d_head", "int", "width of one head"),
        Arg("bytes_per_element", "int", "bytes per number (fp16/bf16: 2)"),
        *_CACHE_ARGS,
        Arg("batch", "int", "sequences in the batch", default=1, required=False),
    ),
    misconceptions=(
        "cached-every-token",
        "cache-always-full",
        "forgot-sink-tokens",
        "no-x2-kv",
        "forgot-layers",
    ),
)
def rolling_cache_bytes(
    n_layers: int,
    n_kv_heads: int,
    d_head: int,
    bytes_per_element: int,
    window: int,
    tokens: int,
    sink_tokens: int = 0,
    batch: int = 1,
    *,
    worked: bool = True,
) -> Derivation:
    """Per position the usual 2 x layers x KV heads x d_head x bytes; the positions stop at sinks + W."""
    calc = "rolling_cache_bytes"
    _check_cache(calc, window, tokens, sink_tokens)
    require_positive(
        calc,
        n_layers=n_layers,
        n_kv_heads=n_kv_heads,
        d_head=d_head,
        bytes_per_element=bytes_per_element,
        batch=batch,
    )
    held = min(tokens, sink_tokens + window)
    per = 2 * n_layers * n_kv_heads * d_head * bytes_per_element * batch
    value = held * per
    if not worked:
        return Derivation(calc, value, "B", ())
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
        Misconception(
            "no-x2-kv",
            "You left out the x2 for K and V",
            "Both keys and values are cached for every held position.",
            value // 2,
            per_label,
        ),
        Misconception(
            "forgot-layers",
            "You left out the layers",
            "Every layer keeps its own rolling cache.",
            value // n_layers,
            per_label,
        ),
    ]
    return Derivation(calc, value, "B", steps, distinct(value, wrong))


def _check_sparse(calc: str, seq_len: int, window: int, stride: int) -> None:
    require_positive(calc, seq_len=seq_len, window=window, stride=stride)
    require_divisible(calc, "seq_len", seq_len, "stride", stride)
    if window > seq_len:
        raise ValueError(f"{calc}: window={window} is longer than seq_len={seq_len}")


_SPARSE_ARGS = (
    _T,
    Arg("window", "int", "local keys per query w"),
    Arg("stride", "int", "spacing of the strided keys (each query also sees T / stride of them)"),
)


def _per_query_step(seq_len: int, window: int, stride: int) -> Step:
    return Step(
        "Keys per query",
        "w + T / stride",
        f"{window:,} + {seq_len:,} / {stride:,}",
        window + seq_len // stride,
        "keys",
    )


@register(
    "sparse_attention_pairs",
    summary="Query-key scores of a local + strided sparse pattern: T x (w + T / stride), against T^2 dense.",
    unit="",
    args=_SPARSE_ARGS,
    misconceptions=("dense", "forgot-strided", "forgot-local"),
)
def sparse_attention_pairs(seq_len: int, window: int, stride: int, *, worked: bool = True) -> Derivation:
    """Each query scores w neighbours plus every stride-th key: linear in T times a slowly growing term."""
    calc = "sparse_attention_pairs"
    _check_sparse(calc, seq_len, window, stride)
    per_query = window + seq_len // stride
    value = seq_len * per_query
    if not worked:
        return Derivation(calc, value, "", ())
    label = "Scores computed"
    steps = (
        _per_query_step(seq_len, window, stride),
        Step(label, "T x (w + T / stride)", f"{seq_len:,} x {per_query:,}", value, "scores"),
    )
    wrong = [
        Misconception(
            "dense",
            "You counted dense attention, T^2",
            "Only the pattern's pairs are scored.",
            seq_len**2,
            label,
        ),
        Misconception(
            "forgot-strided",
            "You counted the local window only",
            "Each query also sees T / stride strided keys, which carry information across the sequence.",
            seq_len * window,
            "Keys per query",
        ),
        Misconception(
            "forgot-local",
            "You counted the strided keys only",
            "Each query also sees its w local neighbours.",
            seq_len * (seq_len // stride),
            "Keys per query",
        ),
    ]
    return Derivation(calc, value, "", steps, distinct(value, wrong))


@register(
    "sparse_attention_savings",
    summary="How many times fewer scores a local + strided pattern computes: T / (w + T / stride).",
    unit="x",
    args=_SPARSE_ARGS,
    misconceptions=("inverted", "forgot-strided", "forgot-local"),
)
def sparse_attention_savings(seq_len: int, window: int, stride: int, *, worked: bool = True) -> Derivation:
    """T^2 / (T (w + T / stride)): the T of the queries cancels."""
    calc = "sparse_attention_savings"
    _check_sparse(calc, seq_len, window, stride)
    per_query = window + seq_len // stride
    value = ratio(seq_len, per_query)
    if not worked:
        return Derivation(calc, value, "x", ())
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
        Misconception(
            "inverted",
            "You inverted the ratio",
            "Savings = dense / sparse, a number above 1.",
            per_query / seq_len,
            label,
        ),
        Misconception(
            "forgot-strided",
            "You left out the strided keys",
            "Each query sees w local keys plus T / stride strided ones.",
            ratio(seq_len, window),
            "Keys per query",
        ),
        Misconception(
            "forgot-local",
            "You left out the local window",
            "Each query sees w local keys plus T / stride strided ones.",
            stride,
            "Keys per query",
        ),
    ]
    return Derivation(calc, value, "x", steps, distinct(value, wrong))


KINDS = ("softmax", "linear")


@register(
    "mixing_flops",
    summary="FLOPs of attention's token mixing per layer: softmax 4 h T^2 d_k, linear (kernel) 4 h T d_k^2.",
    unit="FLOPs",
    args=(
        _T,
        Arg("d_head", "int", "width d_k of one head"),
        Arg("n_heads", "int", "number of heads h"),
        Arg("kind", "str", "softmax (Q K^T then A V) or linear (K^T V then Q times it)", choices=KINDS),
    ),
    misconceptions=("swapped-costs", "forgot-second-matmul", "d-model-squared"),
)
def mixing_flops(seq_len: int, d_head: int, n_heads: int, kind: str, *, worked: bool = True) -> Derivation:
    """Softmax attention builds the T x T matrix; linear attention reassociates to a d_k x d_k state."""
    calc = "mixing_flops"
    if kind not in KINDS:
        raise ValueError(f"{calc}: kind={kind!r} must be softmax or linear")
    require_positive(calc, seq_len=seq_len, d_head=d_head, n_heads=n_heads)
    t, d, h = seq_len, d_head, n_heads
    softmax = 4 * h * t * t * d
    linear = 4 * h * t * d * d
    one = 2 * h * t * t * d if kind == "softmax" else 2 * h * t * d * d
    value = softmax if kind == "softmax" else linear
    if not worked:
        return Derivation(calc, value, "FLOPs", ())
    if kind == "softmax":
        first = Step("Scores Q K^T", "2 h T T d_k", f"2 x {h} x {t:,} x {t:,} x {d}", one, "FLOPs")
        second = Step("Weighted sum A V", "+ 2 h T T d_k", f"{one:,} + {one:,}", value, "FLOPs")
    else:
        first = Step(
            "State K^T V (d_k x d_k per head)", "2 h T d_k d_k", f"2 x {h} x {t:,} x {d} x {d}", one, "FLOPs"
        )
        second = Step("Queries times the state", "+ 2 h T d_k d_k", f"{one:,} + {one:,}", value, "FLOPs")
    wrong = [
        Misconception(
            "swapped-costs",
            "You used the other kind's formula",
            "Softmax attention costs T^2 d_k per head (it needs every score); linear attention reassociates "
            "to Q (K^T V) and costs T d_k^2.",
            linear if kind == "softmax" else softmax,
            first.label,
        ),
        Misconception(
            "forgot-second-matmul",
            "You counted one of the two matmuls",
            "Both products cost the same: two of them, 4 in the constant.",
            one,
            second.label,
        ),
    ]
    if kind == "linear" and h > 1:
        wrong.append(
            Misconception(
                "d-model-squared",
                "You used d_model^2 instead of h x d_k^2",
                "Each head keeps its own d_k x d_k state; h d_k^2 is h times smaller than (h d_k)^2.",
                4 * t * (h * d) ** 2,
                first.label,
            )
        )
    return Derivation(calc, value, "FLOPs", (first, second), distinct(value, wrong))


@register(
    "linear_attention_crossover",
    summary="Length where linear attention (4 h T d_k^2) gets cheaper than softmax (4 h T^2 d_k): T = d_k.",
    unit="",
    args=(Arg("d_head", "int", "width d_k of one head"), Arg("n_heads", "int", "number of heads h")),
    misconceptions=("used-d-model", "squared-d", "sqrt-d"),
)
def linear_attention_crossover(d_head: int, n_heads: int, *, worked: bool = True) -> Derivation:
    """Equal costs at 4 h T^2 d_k = 4 h T d_k^2: dividing by 4 h T d_k leaves T = d_k."""
    calc = "linear_attention_crossover"
    require_positive(calc, d_head=d_head, n_heads=n_heads)
    value = d_head
    if not worked:
        return Derivation(calc, value, "", ())
    label = "Crossover length"
    steps = (
        Step(
            "Set the costs equal",
            "4 h T^2 d_k = 4 h T d_k^2",
            f"4 x {n_heads} x T^2 x {d_head} = 4 x {n_heads} x T x {d_head}^2",
            4 * n_heads * d_head**3,
            "FLOPs at the crossover",
        ),
        Step(label, "T = d_k (divide both sides by 4 h T d_k)", f"T = {d_head}", value, "tokens"),
    )
    wrong = [
        Misconception(
            "used-d-model",
            "You used d_model",
            "The heads are separate: each compares T^2 d_k with T d_k^2, so the model width does not enter.",
            n_heads * d_head,
            label,
        ),
        Misconception(
            "squared-d",
            "You gave d_k^2",
            "Dividing 4 h T^2 d_k = 4 h T d_k^2 by 4 h T d_k leaves T = d_k, not d_k^2.",
            d_head**2,
            label,
        ),
        Misconception(
            "sqrt-d",
            "You gave sqrt(d_k)",
            "The equation is linear in T after dividing by T: T = d_k.",
            d_head**0.5,
            label,
        ),
    ]
    return Derivation(calc, value, "", steps, distinct(value, wrong))
