"""Provides the case-study steps that build on an earlier step's quantity rather than on the model's shape:
a per-token cache times tokens, a cache re-stored at another precision, some layers' cache scaled to all.

A step that says "with that" must take "that" as its argument, so a learner's wrong earlier number is
carried into it (error carried forward) instead of being recomputed from the model behind their back.
"""

from __future__ import annotations

from engine.calculator import Arg, register
from engine.calculators.case_common import Wrong, formula_result, num, require_positive_numbers
from engine.derivation import Derivation


@register(
    "bytes_for_tokens",
    summary="Cache bytes of some tokens from the per-token figure (all layers): bytes per token x tokens.",
    unit="B",
    args=(
        Arg("per_token_bytes", "float", "cache bytes of one token across all layers (an earlier step)"),
        Arg("tokens", "int", "tokens to cache"),
        Arg(
            "n_layers",
            "int",
            "layers the per-token figure already spans, to recognise them counted again",
            1,
            False,
        ),
        Arg("shared_tokens", "int", "tokens of a shared prefix that are not this request's own", 0, False),
    ),
    misconceptions=("layers-twice", "counted-shared-prefix", "one-token"),
)
def bytes_for_tokens(
    per_token_bytes: float, tokens: int, n_layers: int = 1, shared_tokens: int = 0, *, worked: bool = True
) -> Derivation:
    """The per-token figure already holds K and V for every layer: only the token count multiplies it."""
    calc = "bytes_for_tokens"
    require_positive_numbers(calc, per_token_bytes=per_token_bytes, tokens=tokens, n_layers=n_layers)
    if shared_tokens < 0:
        raise ValueError(f"{calc}: shared_tokens must be 0 or more, got {shared_tokens}")
    value = per_token_bytes * tokens
    wrong: list[Wrong] = []
    if shared_tokens:
        wrong.append(
            (
                "counted-shared-prefix",
                "You counted the shared prefix again",
                "The shared prefix is cached once for every request: one more request adds only its own "
                "tokens.",
                per_token_bytes * (tokens + shared_tokens),
            )
        )
    if n_layers > 1:
        wrong.append(
            (
                "layers-twice",
                "You multiplied by the layers again",
                "The per-token figure already spans every layer: multiply it by the tokens only.",
                value * n_layers,
            )
        )
    wrong.append(
        ("one-token", "You gave one token's cache", "Every token in the span is cached.", per_token_bytes)
    )
    return formula_result(
        calc,
        value,
        "B",
        "Cache of the tokens",
        "bytes per token x tokens",
        f"{num(per_token_bytes)} x {num(tokens)}",
        wrong,
        worked=worked,
    )


@register(
    "requantized_bytes",
    summary="The same cache at another precision: bytes x new bytes per element / old bytes per element.",
    unit="B",
    args=(
        Arg("n_bytes", "float", "bytes at the old precision (an earlier step)"),
        Arg("bytes_before", "float", "bytes per element before (bf16: 2)"),
        Arg("bytes_after", "float", "bytes per element after (fp8: 1)"),
    ),
    misconceptions=("inverted-ratio", "unchanged-size"),
)
def requantized_bytes(
    n_bytes: float, bytes_before: float, bytes_after: float, *, worked: bool = True
) -> Derivation:
    """The element count is unchanged, so the bytes scale with the bytes per element."""
    calc = "requantized_bytes"
    require_positive_numbers(calc, n_bytes=n_bytes, bytes_before=bytes_before, bytes_after=bytes_after)
    value = n_bytes * bytes_after / bytes_before
    return formula_result(
        calc,
        value,
        "B",
        "Bytes at the new precision",
        "bytes x new bytes per element / old bytes per element",
        f"{num(n_bytes)} x {num(bytes_after)} / {num(bytes_before)}",
        [
            (
                "inverted-ratio",
                "You scaled by old / new instead of new / old",
                "Fewer bytes per element means fewer bytes: multiply by new / old.",
                n_bytes * bytes_before / bytes_after,
            ),
            (
                "unchanged-size",
                "You kept the old size",
                "The same elements stored in fewer bytes each take fewer bytes in all.",
                n_bytes,
            ),
        ],
        worked=worked,
    )


@register(
    "all_layers_bytes",
    summary="Some layers' cache scaled to every layer: bytes / those layers x all layers.",
    unit="B",
    args=(
        Arg("n_bytes", "float", "cache bytes of some layers (an earlier step)"),
        Arg("layers", "int", "how many layers those bytes cover (an earlier step)"),
        Arg("n_layers", "int", "all the layers"),
        Arg("period", "int", "one layer in `period` is of this kind, to recognise the ratio used", 0, False),
    ),
    misconceptions=("times-period", "forgot-per-layer", "inverted"),
)
def all_layers_bytes(
    n_bytes: float, layers: int, n_layers: int, period: int = 0, *, worked: bool = True
) -> Derivation:
    """Each layer of the same kind caches the same bytes, so the total scales with the layer count."""
    calc = "all_layers_bytes"
    require_positive_numbers(calc, n_bytes=n_bytes, layers=layers, n_layers=n_layers)
    if period < 0:
        raise ValueError(f"{calc}: period must be 0 or more, got {period}")
    value = n_bytes / layers * n_layers
    wrong: list[Wrong] = []
    if period:
        wrong.append(
            (
                "times-period",
                f"You multiplied by the period, {period}",
                f"One layer in {period} is of this kind, but {n_layers} layers do not split evenly: scale "
                f"by {n_layers} / {layers}, the layers themselves.",
                n_bytes * period,
            )
        )
    wrong += [
        (
            "forgot-per-layer",
            "You multiplied by all the layers without dividing by those counted",
            "The bytes cover several layers already: divide by them first to get one layer's share.",
            n_bytes * n_layers,
        ),
        (
            "inverted",
            "You scaled by the layers the wrong way up",
            "All layers cache more, not less.",
            n_bytes * layers / n_layers,
        ),
    ]
    return formula_result(
        calc,
        value,
        "B",
        "Cache if every layer were of this kind",
        "bytes / layers counted x all layers",
        f"{num(n_bytes)} / {num(layers)} x {num(n_layers)}",
        wrong,
        worked=worked,
    )
